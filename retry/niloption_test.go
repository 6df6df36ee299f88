package retry_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/waitable/waitable/retry"
)

// TestNilOptionIsAnError: a nil Option given to NewStandard is an error
// matching ErrInvalidOption that says which option is nil, not a panic.
func TestNilOptionIsAnError(t *testing.T) {
	s, err := retry.NewStandard(retry.WithMaxAttempts(2), nil)
	if s != nil || !errors.Is(err, retry.ErrInvalidOption) || !strings.Contains(err.Error(), "option 2 of 2 is nil") {
		t.Fatalf("NewStandard with a nil option = %v, %v; want an error naming option 2 of 2 as nil", s, err)
	}
}
