package servertest

import (
	"os"
	"testing"

	"go.uber.org/goleak"

	"github.com/waitable/waitable/temporal/internal/leaks"
)

// TestMain checks for leaked goroutines but the Temporal server's and
// SDK's own (see package leaks). Run with the variables of
// TestWorkerKilledMidActivity set, the test binary is that test's worker
// process instead.
func TestMain(m *testing.M) {
	if os.Getenv(envWorkerHostPort) != "" {
		runWorkerProcess()
	}
	goleak.VerifyTestMain(m, leaks.Options()...)
}
