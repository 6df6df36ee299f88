package temporal

import (
	"testing"

	"go.uber.org/goleak"

	"github.com/waitable/waitable/temporal/internal/leaks"
)

// TestMain checks for leaked goroutines but the Temporal SDK's own (see
// package leaks).
func TestMain(m *testing.M) { goleak.VerifyTestMain(m, leaks.Options()...) }
