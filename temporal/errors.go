package temporal

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"time"

	sdktemporal "go.temporal.io/sdk/temporal"

	"github.com/waitable/waitable/classify"
	"github.com/waitable/waitable/retry"
	"github.com/waitable/waitable/waiter"
)

// OperationError is an operation's error as it comes back across
// Temporal: its message, and what says its kind: its error code, its
// HTTP status and the name of its Go type. [Wait.Get]'s *waiter.Error
// holds one as its Err, so that errors.As(err, new(*OperationError))
// finds the kind, and classify reads it as it reads the original error
// for its code and status: classify.ErrorMatches matches the code or the
// type name, and a 404 or a NotFound code still says not found.
type OperationError struct {
	// Message is the error's message.
	Message string
	// Code is the error's code, as classify.Classify reads it (an
	// ErrorCode() method on its chain, what AWS SDK errors carry:
	// "ResourceNotFoundException"); "" if it has none.
	Code string
	// Type is the name of the error's Go type, without its package
	// ("ResourceNotFoundException" for a *types.ResourceNotFoundException):
	// the type of the error on its chain that gave the code or, for an
	// error with no code, of the outermost error on its chain that is
	// more than a message or a wrapper (an errors.New or fmt.Errorf
	// error, a joined error, a retry strategy's refusal); "" if none is.
	Type string
	// StatusCode is the HTTP status the error carried (an
	// HTTPStatusCode() method on its chain); 0 if none.
	StatusCode int

	// codeOnly marks the error the workflow rebuilds for the waiter's
	// core: its ErrorCode is the Code alone, as classify read it from the
	// original error, so that the core decides as it does in process.
	codeOnly bool
}

// Error returns the message.
func (e *OperationError) Error() string { return e.Message }

// ErrorCode returns the Code or, when the error had none, the Type: the
// method classify.ErrorMatches and aws-sdk-go-v2's code checks read (so
// classify.Classify reads the type name as the code of an error that had
// no code; the workflow's own copy, which the waiter's core judges,
// returns the Code alone, as in process).
func (e *OperationError) ErrorCode() string {
	if e.Code != "" || e.codeOnly {
		return e.Code
	}
	return e.Type
}

// HTTPStatusCode returns the StatusCode, the method classify reads for
// an HTTP status.
func (e *OperationError) HTTPStatusCode() int { return e.StatusCode }

// Unwrap returns, when the error has both a code and a Type that differs
// from it, an error whose ErrorCode is the Type, so that
// classify.ErrorMatches matches the type name too; nil otherwise.
func (e *OperationError) Unwrap() error {
	if e.codeOnly || e.Code == "" || e.Type == "" || e.Type == e.Code {
		return nil
	}
	return typeName(e.Type)
}

// typeName is an operation error's Go type name, as its code: what
// classify.ErrorMatches matches.
type typeName string

func (t typeName) Error() string     { return "an error of type " + string(t) }
func (t typeName) ErrorCode() string { return string(t) }

// errKind is what crosses Temporal of an operation error beside its
// message: OperationError's Code, Type and StatusCode. Histories recorded
// before it have none: their errors come back as messages alone.
type errKind struct {
	Code       string `json:",omitempty"`
	Type       string `json:",omitempty"`
	StatusCode int    `json:",omitempty"`
}

// kindOf reads err's kind (nil for a nil error or one that says nothing
// of its kind): the code and status as classify reads them, and its type
// name. An error that crossed already (an *OperationError on its chain)
// keeps its kind.
func kindOf(err error) *errKind {
	if err == nil {
		return nil
	}
	var k errKind
	if oe := (*OperationError)(nil); errors.As(err, &oe) {
		k = errKind{Code: oe.Code, Type: oe.Type, StatusCode: oe.StatusCode}
	} else {
		v := classify.Classify(err)
		k = errKind{Code: v.Code, Type: typeOf(err, v.Code), StatusCode: v.StatusCode}
	}
	if k == (errKind{}) {
		return nil
	}
	return &k
}

// opError rebuilds an error from its message and kind: nil for no
// message, an *OperationError otherwise.
func opError(message string, k *errKind) error {
	if message == "" {
		return nil
	}
	e := &OperationError{Message: message}
	if k != nil {
		e.Code, e.Type, e.StatusCode = k.Code, k.Type, k.StatusCode
	}
	return e
}

// judged is opError for the waiter's core inside the workflow: its
// ErrorCode is the Code alone (see OperationError.codeOnly).
func judged(message string, k *errKind) error {
	err := opError(message, k)
	if e, ok := err.(*OperationError); ok {
		e.codeOnly = true
	}
	return err
}

// plainTypes are the error types that say nothing of an error's kind: a
// message, a wrapper that adds one, a join, and a retry strategy's
// refusal, which wraps the call's error.
var plainTypes = map[reflect.Type]bool{
	reflect.TypeOf(errors.New("")):                                     true, // *errors.errorString
	reflect.TypeOf(fmt.Errorf("%w", errors.New(""))):                   true, // *fmt.wrapError
	reflect.TypeOf(fmt.Errorf("%w%w", errors.New(""), errors.New(""))): true, // *fmt.wrapErrors
	reflect.TypeOf(errors.Join(errors.New(""))):                        true, // *errors.joinError
	reflect.TypeFor[*retry.Error]():                                    true,
}

// typeOf is the name of the Go type that says err's kind: that of the
// first error on its chain (depth first, as classify walks it) whose
// ErrorCode is code or, with no code, of the first that is not of a plain
// type; "" if none (an unnamed type is passed over).
func typeOf(err error, code string) string {
	stack := []error{err}
	for steps := 0; len(stack) > 0 && steps < 1000; steps++ {
		e := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if e == nil {
			continue
		}
		t := reflect.TypeOf(e)
		c, coded := e.(interface{ ErrorCode() string })
		if code == "" && !plainTypes[t] || code != "" && coded && c.ErrorCode() == code {
			for t.Kind() == reflect.Pointer {
				t = t.Elem()
			}
			if t.Name() != "" {
				return t.Name()
			}
		}
		switch u := e.(type) {
		case interface{ Unwrap() error }:
			stack = append(stack, u.Unwrap())
		case interface{ Unwrap() []error }:
			for i := len(u.Unwrap()) - 1; i >= 0; i-- {
				stack = append(stack, u.Unwrap()[i])
			}
		}
	}
	return ""
}

// details is a *waiter.Error as it crosses Temporal.
type details struct {
	Waiter    string
	Input     string `json:",omitempty"`
	Reason    string // the Reason's message (timed out, failure, max polls reached) or canceled
	Failure   waiter.Failure
	Attempts  int
	Transient int // waiter.Error.Transients (the name on the wire before the rename)
	Elapsed   time.Duration
	Acceptor  int
	Matcher   string `json:",omitempty"`
	Message   string `json:",omitempty"`
	Err       string `json:",omitempty"`
	// ErrKind is Err's kind (nil in histories recorded before it).
	ErrKind *errKind `json:",omitempty"`
}

var reasons = map[string]error{
	waiter.ErrTimeout.Error():  waiter.ErrTimeout,
	waiter.ErrFailure.Error():  waiter.ErrFailure,
	waiter.ErrMaxPolls.Error(): waiter.ErrMaxPolls,
	"canceled":                 context.Canceled,
}

// encode turns the core's *waiter.Error into a non-retryable application
// error that carries it.
func encode(err error) error {
	var we *waiter.Error
	if !errors.As(err, &we) {
		return sdktemporal.NewNonRetryableApplicationError(err.Error(), "waitable.Error", nil)
	}
	return encodeDetails(we.Error(), toDetails(we))
}

// toDetails is a *waiter.Error (err must hold one) as data.
func toDetails(err error) details {
	var we *waiter.Error
	if !errors.As(err, &we) {
		return details{Reason: waiter.ErrFailure.Error(), Acceptor: -1, Err: err.Error(), ErrKind: kindOf(err)}
	}
	reason := we.Reason.Error()
	if _, ok := reasons[reason]; !ok && errors.Is(we, context.Canceled) {
		reason = "canceled" // cancelled with a cause of the caller's own
	}
	return details{Waiter: we.Waiter, Input: we.Input, Reason: reason, Failure: we.Failure, Attempts: we.Attempts,
		Transient: we.Transients, Elapsed: we.Elapsed, Acceptor: we.Acceptor, Matcher: we.Matcher, Message: we.Message,
		Err: msg(we.Err), ErrKind: kindOf(we.Err)}
}

// encodeDetails is the workflow's error for a wait that ended with d.
func encodeDetails(message string, d details) error {
	return sdktemporal.NewNonRetryableApplicationError(message, "waitable.Error", nil, d)
}

// decode turns what a wait's workflow returned into the in-process error
// kinds: a *waiter.Error whose Reason is ErrTimeout, ErrFailure,
// ErrMaxPolls or context.Canceled, whose Err (the operation's last
// error) is an *OperationError. Any other error is returned as it is.
func decode(err error) error {
	if err == nil {
		return nil
	}
	var d details
	var app *sdktemporal.ApplicationError
	var canceled *sdktemporal.CanceledError
	switch {
	case errors.As(err, &app) && app.Type() == "waitable.Error" && app.HasDetails():
		if app.Details(&d) != nil {
			return err
		}
	case errors.As(err, &canceled):
		d = details{Reason: "canceled", Acceptor: -1}
		if canceled.HasDetails() {
			_ = canceled.Details(&d)
		}
	default:
		return err
	}
	reason, ok := reasons[d.Reason]
	if !ok {
		return err
	}
	we := &waiter.Error{Waiter: d.Waiter, Input: d.Input, Reason: reason, Failure: d.Failure, Attempts: d.Attempts, Transients: d.Transient,
		Elapsed: d.Elapsed, Acceptor: d.Acceptor, Matcher: d.Matcher, Message: d.Message, Err: opError(d.Err, d.ErrKind)}
	if reason == context.Canceled {
		we.Reason = err // Temporal's cancellation, which the Error matches as context.Canceled
	}
	return we
}
