package tfwait_test

import (
	"io"
	"log"
	"testing"

	"go.uber.org/goleak"
)

// TestMain checks that no test leaves a goroutine running, and silences
// the SDK's WaitForStateContext, which logs each wait on the standard
// logger.
func TestMain(m *testing.M) {
	log.SetOutput(io.Discard)
	goleak.VerifyTestMain(m)
}
