package gcpwait_test

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain checks that no test leaves a goroutine running: the waits,
// the gRPC servers and connections of the tests included.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
