package emulatortest

import (
	"testing"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	// kumo starts a reaper of DynamoDB items when its package is loaded,
	// and never stops it: it is kumo's, not a test's.
	goleak.VerifyTestMain(m, goleak.IgnoreTopFunction("github.com/sivchari/kumo/internal/service/dynamodb.(*MemoryStorage).ttlReaper"))
}
