package azwait

import (
	"errors"
	"fmt"
	"net/http"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"

	"github.com/waitable/waitable/classify"
)

var (
	// ErrTokenExpired matches a [*TokenError] for a resume token whose
	// operation status URL has expired.
	ErrTokenExpired = errors.New("azwait: resume token expired")
	// ErrTokenInvalid matches a [*TokenError] for a resume token azcore
	// refuses: not a token, or a token of another operation's poller.
	ErrTokenInvalid = errors.New("azwait: resume token invalid")
)

// TokenError is a resume token that cannot be polled: expired (its
// status URL answered with no status, or with an error code saying it
// expired) or refused by azcore. Polling it again cannot help, so it ends
// the wait at once (the wait's error wraps it in a *classify.CallError
// that says so). errors.Is matches [ErrTokenExpired] or [ErrTokenInvalid];
// Unwrap gives azcore's error (an *azcore.ResponseError when the service
// answered with one).
type TokenError struct {
	// Expired tells an expired token from one azcore refused.
	Expired bool
	// Err is the error azcore or the service gave.
	Err error
}

// Error returns "azwait: resume token expired: <details>" (or invalid),
// or the sentinel's message alone when Err is nil.
func (e *TokenError) Error() string {
	msg := ErrTokenInvalid.Error()
	if e.Expired {
		msg = ErrTokenExpired.Error()
	}
	if e.Err == nil {
		return msg
	}
	return msg + ": " + e.Err.Error()
}

// Is matches ErrTokenExpired or ErrTokenInvalid, as Expired says.
func (e *TokenError) Is(target error) bool {
	return (target == ErrTokenExpired && e.Expired) || (target == ErrTokenInvalid && !e.Expired)
}

// Unwrap returns the error azcore or the service gave.
func (e *TokenError) Unwrap() error { return e.Err }

// tokenError returns a TokenError as the call's error: polling the token
// again cannot help, so the retry strategy ends the wait at once.
func tokenError(expired bool, err error) error {
	return &classify.CallError{Err: &TokenError{Expired: expired, Err: err}, Safety: classify.SafetyNo}
}

// OperationError is how a failed operation ends its wait: the operation
// reached Status (Failed, Canceled or Cancelled), and Err is the service's
// error, an *azcore.ResponseError. The wait's *waiter.Error unwraps to it,
// with waiter.ErrFailure as its reason; the [Status] the wait returns
// carries the same.
type OperationError struct {
	// Status is the operation's terminal status.
	Status string
	// Err is the service's error.
	Err error
}

// Error returns "azwait: operation Failed: ERR".
func (e *OperationError) Error() string {
	return fmt.Sprintf("azwait: operation %s: %v", e.Status, e.Err)
}

// Unwrap returns the service's error.
func (e *OperationError) Unwrap() error { return e.Err }

// answerError is a service's error answer as package classify reads it:
// its HTTP status, error code and Retry-After, and a 408 as a timeout (the
// service's request timeout, which azcore's own retry policy retries, as
// it does 429 and 5xx; package classify reads any other 4xx as the
// caller's fault). It wraps the *azcore.ResponseError.
func answerError(re *azcore.ResponseError) *classify.CallError {
	e := &classify.CallError{Err: re, StatusCode: re.StatusCode, Code: re.ErrorCode,
		Timeout: re.StatusCode == http.StatusRequestTimeout}
	if re.RawResponse != nil {
		e.RetryAfter = retryAfter(re.RawResponse.Header)
	}
	return e
}

// fatalError is a poll that cannot go on and ends the wait at once: a
// 2xx answer carrying an error that is not transient, a resume function
// that returned no poller, a Poll that returned no response. what says
// which.
func fatalError(what string, err error) error {
	return &classify.CallError{Err: fmt.Errorf("azwait: %s: %w", what, err), Safety: classify.SafetyNo}
}

// unansweredError is a request that got no answer (the connection
// failed, or was reset): azcore's retry policy would have sent it again,
// so it is safe to retry, unless the error's own chain says it is not.
func unansweredError(err error) error {
	safety := classify.SafetyYes
	if classify.Classify(err).Safety == classify.SafetyNo {
		safety = classify.SafetyNo
	}
	return &classify.CallError{Err: fmt.Errorf("azwait: no answer: %w", err), Safety: safety}
}

// transient reports whether the retry strategy would retry err.
func transient(err error) bool {
	return classify.Classify(err).Safety == classify.SafetyYes
}

// is2xx reports a successful HTTP status.
func is2xx(resp *http.Response) bool {
	return resp != nil && resp.StatusCode >= 200 && resp.StatusCode < 300
}
