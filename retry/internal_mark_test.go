package retry_test

import (
	"context"
	"errors"
	"testing"

	"github.com/waitable/waitable/internal/attemptctx"
	"github.com/waitable/waitable/retry"
)

// TestDoInsideWaiter: a context marked as a waiter's attempt gets exactly
// one attempt, whatever the strategy allows.
func TestDoInsideWaiter(t *testing.T) {
	s, _ := retry.NewStandard(retry.WithMaxAttempts(5))
	calls := 0
	_, err := retry.Do(attemptctx.Mark(context.Background()), s, func(ctx context.Context) (int, error) {
		calls++
		return 0, transient{}
	})
	if calls != 1 || !errors.Is(err, transient{}) {
		t.Errorf("inside a waiter: %d calls, %v; want 1 and the operation's error", calls, err)
	}
}
