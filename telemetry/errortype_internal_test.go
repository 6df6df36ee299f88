package telemetry

import (
	"context"
	"fmt"
	"testing"
)

// coded is an error with an AWS SDK's error code.
type coded struct{}

func (coded) Error() string     { return "throttled" }
func (coded) ErrorCode() string { return "ThrottlingException" }

// TestErrorType: error.type is the code of the first error on the chain
// that has one, else the Go type of the innermost error.
func TestErrorType(t *testing.T) {
	for _, tt := range []struct {
		err  error
		want string
	}{
		{nil, ""},
		{coded{}, "ThrottlingException"},
		{fmt.Errorf("call: %w", coded{}), "ThrottlingException"},
		{context.DeadlineExceeded, "context.deadlineExceededError"},
		{fmt.Errorf("wrapped: %w", context.Canceled), "*errors.errorString"},
	} {
		if got := errorType(tt.err); got != tt.want {
			t.Errorf("errorType(%v) = %q, want %q", tt.err, got, tt.want)
		}
	}
}
