package awswait_test

import (
	"context"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/smithy-go/middleware"

	"github.com/waitable/waitable/awswait"
)

// TestOpRejectsNonSDKOptions: Op needs an SDK client's Options.
func TestOpRejectsNonSDKOptions(t *testing.T) {
	type opts struct{ Region string }
	method := func(context.Context, *struct{}, ...func(*opts)) (*struct{}, error) { return nil, nil }
	if _, err := awswait.Op(method); err == nil || !strings.Contains(err.Error(), "Retryer") {
		t.Errorf("Op = %v, want an error naming the missing Retryer", err)
	}
	// The two fields an SDK client's Options has, as Op reads them.
	type sdkOptions struct {
		Retryer    aws.Retryer
		APIOptions []func(*middleware.Stack) error
	}
	if _, err := awswait.Op[struct{}, struct{}, sdkOptions](nil); err == nil {
		t.Error("Op(nil) accepted")
	}
}
