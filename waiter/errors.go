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
	// fatal, or transient errors in a row reached the limit set with
	// WithTransientLimit; Error.Failure says which.
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
	// FailureTransientLimit: errors no acceptor matched, retried as
	// transient, came in a row as many times as WithTransientLimit allows
	// (by default there is no such limit: transient errors are retried
	// for as long as the wait's time lasts).
	FailureTransientLimit
	// FailureNeverAppeared: the resource was not found as many times in
	// a row as WithNotFoundLimit allows.
	FailureNeverAppeared
	// FailureRecreated: the resource's identity (WithIdentity) changed
	// between two answers: it was deleted and created again.
	FailureRecreated
)

// String describes the failure.
func (f Failure) String() string {
	switch f {
	case FailureAcceptor:
		return "a failure acceptor matched"
	case FailureError:
		return "an error no acceptor matched"
	case FailureTransientLimit:
		return "transient errors reached the limit in a row"
	case FailureNeverAppeared:
		return "the resource never appeared"
	case FailureRecreated:
		return "the resource was deleted and recreated"
	}
	return ""
}

// Error is how a wait that did not succeed ends. It says which waiter,
// how many polls in how much time, why (Reason and, for a failure,
// Failure), what matched, and it unwraps to the operation's last error
// (and, for a cancelled wait, to the context's cause).
type Error struct {
	// Waiter is the waiter's name.
	Waiter string
	// Input names the input of the wait, when one was given (fan-outs
	// name each member so).
	Input string
	// Reason is ErrTimeout, ErrFailure, ErrMaxPolls, or, for a wait
	// whose context was cancelled, the context's error.
	Reason error
	// Failure says why, when Reason is ErrFailure.
	Failure Failure
	// Cause is the context's cause when it differs from Reason (set with
	// context.WithCancelCause): why the wait was cancelled.
	Cause error
	// Attempts is the number of polls (calls) made, and Transient the errors
	// retried as transient in a row at the end.
	Attempts, Transient int
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
	Seen Seen
	// NextDelay is set when the wait timed out before its deadline because
	// the service's retry-after hint (Hint) put the next call past it.
	NextDelay, Hint time.Duration
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
	case e.Failure == FailureTransientLimit:
		fmt.Fprintf(&b, ": %s in a row, the limit", plural.N(e.Transient, "transient error"))
	case e.Failure == FailureNeverAppeared, e.Failure == FailureRecreated:
		fmt.Fprintf(&b, ": %v", e.Failure)
	case e.Hint > 0:
		fmt.Fprintf(&b, ": the service asked to retry after %v, past the deadline", e.Hint)
	case e.Failure == FailureError:
		b.WriteString(": no acceptor matched the error")
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

// Unwrap returns the operation's last error and, for a cancelled wait,
// the context's cause.
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

// Timeout reports whether the wait timed out, as net.Error and
// context.DeadlineExceeded do.
func (e *Error) Timeout() bool { return e.Reason == ErrTimeout }

// cancelled is the error of a wait whose context ended (not at its
// deadline): it matches the context's error (reason) and its cause.
func (w *Waiter[I, O]) cancelled(reason, cause error, s State, now time.Time, last error) *Error {
	if reason == nil {
		reason = context.Canceled
	}
	e := &Error{Waiter: w.def.Name, Reason: reason, Attempts: s.Attempts, Transient: s.Transient,
		Elapsed: now.Sub(s.Start), Acceptor: -1, Err: last}
	if cause != nil && cause != reason {
		e.Cause = cause
	}
	return e
}

// timedOut is the error of a wait whose deadline passed between calls.
func (w *Waiter[I, O]) timedOut(s State, now time.Time, last error) *Error {
	return &Error{Waiter: w.def.Name, Reason: ErrTimeout, Attempts: s.Attempts, Transient: s.Transient,
		Elapsed: now.Sub(s.Start), Acceptor: -1, Err: last}
}

// PanicError is what a wait started with [Waiter.Start] reports when the
// operation (or a WithMatch function) panicked: [Run.Result] panics with
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

// Unwrap returns the panic value if it is an error.
func (p *PanicError) Unwrap() error {
	err, _ := p.Value.(error)
	return err
}
