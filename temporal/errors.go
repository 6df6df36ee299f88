package temporal

import (
	"context"
	"errors"
	"time"

	sdktemporal "go.temporal.io/sdk/temporal"

	"github.com/waitable/waitable/waiter"
)

// details is a *waiter.Error as it crosses Temporal.
type details struct {
	Waiter    string
	Input     string `json:",omitempty"`
	Reason    string // the Reason's message (timed out, failure, max polls reached) or canceled
	Failure   waiter.Failure
	Attempts  int
	Transient int
	Elapsed   time.Duration
	Acceptor  int
	Matcher   string `json:",omitempty"`
	Message   string `json:",omitempty"`
	Err       string `json:",omitempty"`
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
		return details{Reason: waiter.ErrFailure.Error(), Acceptor: -1, Err: err.Error()}
	}
	return details{Waiter: we.Waiter, Input: we.Input, Reason: we.Reason.Error(), Failure: we.Failure, Attempts: we.Attempts,
		Transient: we.Transient, Elapsed: we.Elapsed, Acceptor: we.Acceptor, Matcher: we.Matcher, Message: we.Message, Err: msg(we.Err)}
}

// encodeDetails is the workflow's error for a wait that ended with d.
func encodeDetails(message string, d details) error {
	return sdktemporal.NewNonRetryableApplicationError(message, "waitable.Error", nil, d)
}

// decode turns what a wait's workflow returned into the in-process error
// kinds: a *waiter.Error whose Reason is ErrTimeout, ErrFailure,
// ErrMaxPolls or context.Canceled. Any other error is returned as it
// is.
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
	we := &waiter.Error{Waiter: d.Waiter, Input: d.Input, Reason: reason, Failure: d.Failure, Attempts: d.Attempts, Transient: d.Transient,
		Elapsed: d.Elapsed, Acceptor: d.Acceptor, Matcher: d.Matcher, Message: d.Message}
	if d.Err != "" {
		we.Err = errString(d.Err)
	}
	if reason == context.Canceled {
		we.Cause = err
	}
	return we
}
