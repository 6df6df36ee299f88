package temporal

import (
	"errors"

	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/workflow"
)

func isContinueAsNew(err error, next any) bool {
	var can *workflow.ContinueAsNewError
	if !errors.As(err, &can) {
		return false
	}
	return converter.GetDefaultDataConverter().FromPayloads(can.Input, next) == nil
}
