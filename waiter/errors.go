package waiter

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/waitable/waitable/internal/plural"
)

// The outcomes of a wait that did not succeed. An [*Error] matches one of
// them with errors.Is (a cancelled wait matches context.Canceled, and the
// context's cause).
var (
	// ErrTimeout: the caller's wait time (or an earlier deadline of the
	// caller's context) ran out before the resource reached a terminal
	// state.
	ErrTimeout = errors.New("timed out")
	// ErrFailure: a failure acceptor matched, the operation returned an
	// error that no acceptor matched and that the retry strategy called
	// fatal, or a limit the caller set was reached (WithTransientLimit,
	// WithNotFoundLimit), or the resource was recreated (WithIdentity);
	// Error.Failure says which.
	ErrFailure = errors.New("failure")
	// ErrMaxPolls: the wait made as many polls as WithMaxPolls (or the
	// definition's MaxPolls) allows without reaching a terminal state.
	ErrMaxPolls = errors.New("max polls reached")
)

// Failure says why a wait failed (Error.Failure, with [ErrFailure]).
type Failure uint8

// The ways a wait fails.
const (
	// FailureAcceptor: a failure acceptor matched (or a NewFunc condition
	// returned an error of its own).
	FailureAcceptor Failure = iota + 1
	// FailureError: the call returned an error that no acceptor matched
	// and that the retry strategy did not allow to retry (or there is no
	// strategy: the specification's step 4).
	FailureError
	// FailureTransientLimit: errors retried as transient came in a row as
	// many times as WithTransientLimit allows (by default there is no
	// such limit, and transient errors are retried for as long as the
	// wait's time lasts).
	FailureTransientLimit
	// FailureRecreated: the resource's identity (WithIdentity) changed
	// between two answers: it was deleted and created again.
	FailureRecreated
	// FailureNeverAppeared: not-found answers came in a row as many times
	// as WithNotFoundLimit allows: the resource never appeared.
	FailureNeverAppeared
	// FailureDisappeared: as FailureNeverAppeared, but an answer before
	// them found the resource: it disappeared after it was seen.
	FailureDisappeared
)

// String describes the failure.
func (f Failure) String() string {
	switch f {
	case FailureAcceptor:
		return "a failure acceptor matched"
	case FailureError:
		return "an error no acceptor matched"
	case FailureTransientLimit:
		return "transient errors in a row reached the limit"
	case FailureNeverAppeared:
		return "the resource never appeared"
	case FailureDisappeared:
		return "the resource disappeared after it was seen"
	case FailureRecreated:
		return "the resource was deleted and recreated"
	}
	return ""
}

// Error is how a wait that did not succeed ends. It says which waiter,
// how many polls in how much time, why (Reason, refined by Failure for a
// failure), what matched, and it unwraps to the operation's last error
// and to its Reason.
type Error struct {
	// Waiter is the waiter's name.
	Waiter string
	// Input names the input of the wait, when one was given (fan-outs
	// name each member so).
	Input string
	// Reason is why the wait ended: ErrTimeout, ErrFailure, ErrMaxPolls,
	// or, for a wait whose context was cancelled, the context's cause
	// (context.Canceled, or the error given to a CancelCauseFunc). A
	// cancelled wait's Error matches context.Canceled either way.
	Reason error
	// Failure says which rule failed the wait, when Reason is ErrFailure.
	Failure Failure
	// Attempts is the number of polls (calls) made, and Transients the errors
	// retried as transient in a row at the end.
	Attempts, Transients int
	// Elapsed is the time from the start to the end of the wait.
	Elapsed time.Duration
	// Acceptor is the index of the failure acceptor that matched, or -1.
	Acceptor int
	// Matcher describes the matched acceptor's matcher, if one matched.
	Matcher string
	// Message is the matched acceptor's message, if it has one.
	Message string
	// Err is the last call's error (nil if the last call succeeded), or the
	// retry strategy's refusal, which unwraps to it.
	Err error
	// Seen counts the answers the wait saw, by kind.
	Seen []SeenCount
	// Hint is set when the wait timed out before its deadline because the
	// service's retry-after hint put the next call past it.
	Hint time.Duration
}

// Error reads like "waiter InstanceRunning: failure after 3 polls in 45s:
// acceptor 2 matched (output: ... "terminated")".
func (e *Error) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "waiter %s", e.Waiter)
	if e.Input != "" {
		fmt.Fprintf(&b, " (%s)", e.Input)
	}
	elapsed := e.Elapsed
	if elapsed > time.Millisecond {
		elapsed = elapsed.Round(time.Millisecond) // 2.01s, not 2.00992439s
	}
	fmt.Fprintf(&b, ": %v after %s in %v", e.Reason, plural.N(e.Attempts, "poll"), elapsed)
	switch {
	case e.Acceptor >= 0:
		fmt.Fprintf(&b, ": acceptor %d matched (%s)", e.Acceptor, e.Matcher)
	case e.Failure == FailureRecreated:
		fmt.Fprintf(&b, ": %v", e.Failure)
	case e.Hint > 0:
		fmt.Fprintf(&b, ": the service asked to retry after %v, past the deadline", e.Hint)
	case e.Failure == FailureError:
		b.WriteString(": no acceptor matched the error")
	}
	if e.Message != "" {
		fmt.Fprintf(&b, ": %s", e.Message)
	}
	if e.Err != nil {
		fmt.Fprintf(&b, ": %v", e.Err)
	}
	return b.String()
}

// Is reports whether target is context.Canceled and the wait was
// cancelled; Unwrap gives errors.Is the Reason and the last error.
func (e *Error) Is(target error) bool { return target == context.Canceled && e.cancelled() }

// cancelled reports whether the wait's context was cancelled.
func (e *Error) cancelled() bool {
	r := e.Reason
	return r != ErrTimeout && r != ErrFailure && r != ErrMaxPolls
}

// Unwrap returns the Reason and the operation's last error.
func (e *Error) Unwrap() []error {
	if e.Err == nil {
		return []error{e.Reason}
	}
	return []error{e.Reason, e.Err}
}

// Timeout reports whether the wait timed out, as net.Error and
// context.DeadlineExceeded do.
func (e *Error) Timeout() bool { return e.Reason == ErrTimeout }

// cancelErr is the error of a wait whose context ended (not at its
// deadline): it matches the context's error (reason) and its cause.
func (w *Waiter[I, O]) cancelErr(
	reason, cause error,
	s *Checkpoint,
	now time.Time,
	last error,
) *Error {
	if cause == nil {
		cause = reason
	}
	if cause == nil {
		cause = context.Canceled
	}
	return &Error{Waiter: w.def.Name, Reason: cause, Attempts: s.Attempts, Transients: s.Transients,
		Elapsed: now.Sub(s.Start), Acceptor: -1, Err: last}
}

// timeoutErr is the error of a wait whose deadline passed.
func (w *Waiter[I, O]) timeoutErr(s *Checkpoint, now time.Time, last error) *Error {
	return &Error{
		Waiter:     w.def.Name,
		Reason:     ErrTimeout,
		Attempts:   s.Attempts,
		Transients: s.Transients,
		Elapsed:    now.Sub(s.Start),
		Acceptor:   -1,
		Err:        last,
	}
}

// PanicError is what a wait started with [Waiter.Start] (or a [Batch]
// member) reports when the operation (or a WithMatch function) panicked: [Run.Result] panics with
// it in the caller's goroutine, and the attempt's event carries it as its
// error. Stack is the panicking goroutine's stack, so that the caller sees
// where the panic happened.
type PanicError struct {
	Value any
	Stack []byte
}

// Error returns the panic value and the stack where it happened.
func (p *PanicError) Error() string {
	return fmt.Sprintf("waiter: the operation panicked: %v\n\n%s", p.Value, p.Stack)
}
