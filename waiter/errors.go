package waiter

import (
	"errors"
	"fmt"
	"strings"
	"time"
)

// The outcomes of a run that did not succeed. An [*Error] matches one of
// them with errors.Is (a cancelled run matches context.Canceled, or
// context.DeadlineExceeded for a parent's deadline, and the context's
// cause).
var (
	// ErrTimeout: the caller's wait time ran out before the resource
	// reached a terminal state.
	ErrTimeout = errors.New("timed out")
	// ErrFailure: a failure acceptor matched, or the operation returned an
	// error that no acceptor matched and that was not retried.
	ErrFailure = errors.New("failure")
	// ErrMaxAttempts: the attempt limit was reached before a terminal state.
	ErrMaxAttempts = errors.New("max attempts reached")
)

// Error is how a run that did not succeed ends. It says which waiter, how
// many attempts in how much time, why (Reason), what matched, and it
// unwraps to the operation's last error (and, for a cancelled run, to the
// context's cause).
type Error struct {
	// Waiter is the waiter's name.
	Waiter string
	// Reason is ErrTimeout, ErrFailure, ErrMaxAttempts, or, for a run
	// whose context ended, the context's error (context.Canceled).
	Reason error
	// Cause is the context's cause when it differs from Reason (set with
	// context.WithCancelCause): why the run was cancelled.
	Cause error
	// Attempts is the number of calls made.
	Attempts int
	// Elapsed is the time from Start to the end of the run.
	Elapsed time.Duration
	// Acceptor is the index of the failure acceptor that matched, or -1.
	Acceptor int
	// Matcher describes the matched acceptor's matcher, if one matched.
	Matcher string
	// Message is the matched acceptor's message, if it has one.
	Message string
	// Err is the operation's last error (nil if the last call succeeded).
	Err error
}

// Error reads like "waiter InstanceRunning: failure after 3 attempts in
// 45s: acceptor 2 matched (output: ... "terminated")".
func (e *Error) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "waiter %s: %v after %d attempt%s in %v", e.Waiter, e.Reason, e.Attempts, plural(e.Attempts), e.Elapsed)
	if e.Acceptor >= 0 {
		fmt.Fprintf(&b, ": acceptor %d matched (%s)", e.Acceptor, e.Matcher)
	}
	if e.Cause != nil {
		fmt.Fprintf(&b, " (cause: %v)", e.Cause)
	}
	if e.Message != "" {
		fmt.Fprintf(&b, ": %s", e.Message)
	}
	if e.Err != nil {
		fmt.Fprintf(&b, ": %v", e.Err)
	}
	return b.String()
}

// Is reports whether target is the reason (errors.Is(err, ErrTimeout),
// errors.Is(err, context.Canceled)).
func (e *Error) Is(target error) bool { return errors.Is(e.Reason, target) }

// Unwrap returns the operation's last error and, for a cancelled run, the
// context's cause.
func (e *Error) Unwrap() []error {
	errs := make([]error, 0, 2)
	if e.Err != nil {
		errs = append(errs, e.Err)
	}
	if e.Cause != nil {
		errs = append(errs, e.Cause)
	}
	return errs
}

// Timeout reports whether the run timed out, as net.Error and
// context.DeadlineExceeded do.
func (e *Error) Timeout() bool { return e.Reason == ErrTimeout }

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
