package gcpwait

import (
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/googleapis/gax-go/v2/apierror"
	"google.golang.org/api/googleapi"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/waitable/waitable/classify"
)

// OperationError is how an operation that ended in failure ends its wait:
// the operation's own error (a *apierror.APIError holding the operation's
// google.rpc.Status, as the generated wrappers' Poll returns it), not an
// error of the call that polled it. The wait's *waiter.Error unwraps to it,
// with waiter.ErrFailure as its reason.
type OperationError struct {
	// Name is the operation's name.
	Name string
	// Err is the operation's error.
	Err error
}

// Error returns "gcpwait: operation NAME failed: ERR".
func (e *OperationError) Error() string {
	return fmt.Sprintf("gcpwait: operation %s failed: %v", e.Name, e.Err)
}

// Unwrap returns the operation's error.
func (e *OperationError) Unwrap() error { return e.Err }

// transient are the codes of a poll's error that the waiter retries
// within its budget: the service is unavailable, overloaded or failed
// inside (Internal, its 500), or the call ran out of time. Polling an
// operation changes nothing, so a read that failed on the service's side
// is safe to make again. Every other code ends the wait, but NotFound,
// which the waiter's not-found limit counts.
var transient = map[codes.Code]bool{
	codes.Unavailable:       true,
	codes.ResourceExhausted: true,
	codes.DeadlineExceeded:  true,
	codes.Internal:          true,
}

// fromHTTP gives the code of a REST call's HTTP status, as Google's APIs
// map them (google.rpc.Code's documentation), and a proxy's 502 as gRPC
// maps it (Unavailable).
var fromHTTP = map[int]codes.Code{
	http.StatusBadRequest:          codes.InvalidArgument,
	http.StatusUnauthorized:        codes.Unauthenticated,
	http.StatusForbidden:           codes.PermissionDenied,
	http.StatusNotFound:            codes.NotFound,
	http.StatusConflict:            codes.Aborted,
	http.StatusTooManyRequests:     codes.ResourceExhausted,
	http.StatusNotImplemented:      codes.Unimplemented,
	http.StatusBadGateway:          codes.Unavailable,
	http.StatusServiceUnavailable:  codes.Unavailable,
	http.StatusGatewayTimeout:      codes.DeadlineExceeded,
	http.StatusInternalServerError: codes.Internal,
}

// pollError is a poll's error as the waiter's retry strategy and its
// not-found limit read it (package classify's interfaces): its code, its
// retry safety, and the service's RetryInfo. It unwraps to the error the
// call returned, so status.Code, errors.As with *apierror.APIError or
// *googleapi.Error see through it.
type pollError struct {
	err   error
	code  codes.Code
	http  int
	after time.Duration
}

// callError returns a poll's error err as a *pollError, or err itself
// when it is no error of the service (a context's error, say).
func callError(err error) error {
	e := &pollError{err: err, code: codes.Unknown}
	var ae *apierror.APIError
	var ge *googleapi.Error
	switch s, ok := status.FromError(err); {
	case errors.As(err, &ae) && ae.HTTPCode() > 0:
		e.http = ae.HTTPCode()
	case errors.As(err, &ge):
		e.http = ge.Code
	case ok:
		e.code = s.Code()
	default:
		return err
	}
	if c, ok := fromHTTP[e.http]; ok {
		e.code = c
	}
	if ae == nil {
		// A plain gRPC status (from a wrapper or get that bypasses gax)
		// carries its RetryInfo in its details all the same.
		ae, _ = apierror.FromError(err)
	}
	if ae != nil {
		if d := ae.Details().RetryInfo.GetRetryDelay(); d != nil {
			e.after = d.AsDuration()
		}
	}
	return e
}

func (e *pollError) Error() string { return e.err.Error() }
func (e *pollError) Unwrap() error { return e.err }

// ErrorCode returns the gRPC code's name (NotFound, Unavailable, ...).
func (e *pollError) ErrorCode() string { return e.code.String() }

// HTTPStatusCode returns a REST call's HTTP status, 0 for gRPC.
func (e *pollError) HTTPStatusCode() int { return e.http }

// RetrySafety says yes for the transient codes and any HTTP 5xx of a REST
// call (as package classify reads a 5xx), and no for the others.
func (e *pollError) RetrySafety() classify.Safety {
	if transient[e.code] || e.http >= 500 {
		return classify.SafetyYes
	}
	return classify.SafetyNo
}

// Throttle reports ResourceExhausted, Timeout DeadlineExceeded.
func (e *pollError) Throttle() bool { return e.code == codes.ResourceExhausted }
func (e *pollError) Timeout() bool  { return e.code == codes.DeadlineExceeded }

// RetryAfter is the service's google.rpc.RetryInfo, if it sent one.
func (e *pollError) RetryAfter() time.Duration { return e.after }
