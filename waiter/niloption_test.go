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
// error wrapping ErrInvalidOption that says which option is nil, not a
// panic; the options around it still apply and are checked.
func TestNilOptionIsAnError(t *testing.T) {
	op := func(context.Context, string) (string, error) { return "", nil }
	cond := func(string, string, error) (bool, error) { return true, nil }
	_, err := waiter.NewFunc("Job", op, cond, waiter.WithMaxPolls(3), nil, waiter.WithInitialDelay(-time.Second))
	if !errors.Is(err, waiter.ErrInvalidOption) || !strings.Contains(err.Error(), "option 2 of 3 is nil") ||
		!strings.Contains(err.Error(), "WithInitialDelay(-1s)") {
		t.Fatalf("NewFunc with a nil option = %v, want ErrInvalidOption naming option 2 of 3 as nil, and the negative delay", err)
	}
	def := waiter.Definition{Name: "Job", Acceptors: nil}
	_, err = waiter.New(def, op, nil)
	if !errors.Is(err, waiter.ErrInvalidOption) || !strings.Contains(err.Error(), "option 1 of 1 is nil") {
		t.Fatalf("New with a nil option = %v, want ErrInvalidOption naming option 1 of 1 as nil", err)
	}
}
