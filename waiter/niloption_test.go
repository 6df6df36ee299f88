package waiter_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/waitable/waitable/waiter"
)

// TestNilOptionIsAnError: a nil Option given to New or NewFunc is an
// error wrapping ErrInvalidOption that says how many are nil, not a
// panic; the options around it still apply and are checked.
func TestNilOptionIsAnError(t *testing.T) {
	op := func(context.Context, string) (string, error) { return "", nil }
	cond := func(string, string, error) (bool, error) { return true, nil }
	_, err := waiter.NewFunc("Job", op, cond, waiter.WithMaxPolls(3), nil, waiter.WithInitialDelay(-time.Second))
	if !errors.Is(err, waiter.ErrInvalidOption) || !strings.Contains(err.Error(), ": an option is nil") ||
		!strings.Contains(err.Error(), "WithInitialDelay(-1s)") {
		t.Fatalf("NewFunc with a nil option = %v, want ErrInvalidOption saying an option is nil, and the negative delay", err)
	}
	def := waiter.Definition{Name: "Job", Acceptors: nil}
	_, err = waiter.New(def, op, nil, waiter.WithMaxPolls(2), nil)
	if !errors.Is(err, waiter.ErrInvalidOption) || !strings.Contains(err.Error(), ": 2 options are nil") {
		t.Fatalf("New with two nil options = %v, want ErrInvalidOption saying 2 options are nil", err)
	}
}
