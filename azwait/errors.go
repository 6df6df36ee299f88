package azwait

import (
	"errors"
	"net/http"
	"time"

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
// the wait at once. errors.Is matches [ErrTokenExpired] or
// [ErrTokenInvalid]; Unwrap gives azcore's error (an *azcore.ResponseError
// when the service answered with one).
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

// RetrySafety says that polling the token again cannot succeed.
func (e *TokenError) RetrySafety() classify.Safety { return classify.SafetyNo }

// answerError is a service's error answer as package classify reads it:
// its HTTP status, error code and Retry-After, and a 408 as a timeout (the
// service's request timeout, which azcore's own retry policy retries, as
// it does 429 and 5xx; package classify reads any other 4xx as the
// caller's fault). It wraps the *azcore.ResponseError.
type answerError struct {
	err    error
	status int
	code   string
	after  time.Duration
}

func (e *answerError) Error() string             { return e.err.Error() }
func (e *answerError) Unwrap() error             { return e.err }
func (e *answerError) HTTPStatusCode() int       { return e.status }
func (e *answerError) ErrorCode() string         { return e.code }
func (e *answerError) RetryAfter() time.Duration { return e.after }
func (e *answerError) Timeout() bool             { return e.status == http.StatusRequestTimeout }

// newAnswerError reads re's response.
func newAnswerError(re *azcore.ResponseError) *answerError {
	e := &answerError{err: re, status: re.StatusCode, code: re.ErrorCode}
	if re.RawResponse != nil {
		e.after = retryAfter(re.RawResponse.Header)
	}
	return e
}

// fatalError is an answer that ends the wait at once: an operation that
// failed or was canceled, or a 2xx answer carrying an error that is not
// transient; or a poll that cannot be made: a resume function that
// returned no poller, a Poll that returned no response.
type fatalError struct {
	what string
	err  error
}

func (e *fatalError) Error() string                { return "azwait: " + e.what + ": " + e.err.Error() }
func (e *fatalError) Unwrap() error                { return e.err }
func (e *fatalError) RetrySafety() classify.Safety { return classify.SafetyNo }

// unansweredError is a request that got no answer (the connection
// failed, or was reset): azcore's retry policy would have sent it again,
// so it is safe to retry, unless the error says it is not.
type unansweredError struct {
	err error
}

func (e *unansweredError) Error() string { return "azwait: no answer: " + e.err.Error() }
func (e *unansweredError) Unwrap() error { return e.err }

// RetrySafety says yes, unless the error's own chain says no.
func (e *unansweredError) RetrySafety() classify.Safety {
	if classify.Classify(e.err).Safety == classify.SafetyNo {
		return classify.SafetyNo
	}
	return classify.SafetyYes
}

// transient reports whether the retry strategy would retry err.
func transient(err error) bool {
	return classify.Classify(err).Safety == classify.SafetyYes
}

// is2xx reports a successful HTTP status.
func is2xx(resp *http.Response) bool {
	return resp != nil && resp.StatusCode >= 200 && resp.StatusCode < 300
}
