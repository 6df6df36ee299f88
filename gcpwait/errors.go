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

// callError returns a poll's error err as package classify reads it, a
// *classify.CallError that wraps it: its gRPC code's name (NotFound,
// Unavailable...) as Code, a REST call's HTTP status, the service's
// RetryInfo or a REST answer's Retry-After, ResourceExhausted as a
// throttle and DeadlineExceeded as a timeout, and whether it is safe to
// poll again: yes for the transient codes and any HTTP 5xx of a REST call
// (as package classify reads a 5xx), no for the others. status.Code,
// errors.As with *apierror.APIError or *googleapi.Error see through it. An
// error that is no error of the service (a context's, say) is returned as
// it is.
func callError(err error) error {
	code, httpStatus := codes.Unknown, 0
	var ae *apierror.APIError
	var ge *googleapi.Error
	switch s, ok := status.FromError(err); {
	case errors.As(err, &ae) && ae.HTTPCode() > 0:
		httpStatus = ae.HTTPCode()
	case errors.As(err, &ge):
		httpStatus = ge.Code
	case ok:
		code = s.Code()
	default:
		return err
	}
	if c, ok := fromHTTP[httpStatus]; ok {
		code = c
	}
	e := &classify.CallError{Err: err, Code: code.String(), StatusCode: httpStatus,
		Throttle: code == codes.ResourceExhausted, Timeout: code == codes.DeadlineExceeded, Safety: classify.SafetyNo}
	if transient[code] || httpStatus >= 500 {
		e.Safety = classify.SafetyYes
	}
	if ae == nil {
		// A plain gRPC status (from a wrapper or get that bypasses gax)
		// carries its RetryInfo in its details all the same.
		ae, _ = apierror.FromError(err)
	}
	if ae != nil {
		if d := ae.Details().RetryInfo.GetRetryDelay(); d != nil {
			e.RetryAfter = d.AsDuration()
		}
	}
	if errors.As(err, &ge) && e.RetryAfter == 0 {
		e.RetryAfter, _ = classify.RetryAfterHeader(ge.Header, time.Time{}) // no clock here: a date is read against the answer's Date
	}
	return e
}

// notFound reports a poll's error that says the operation is not found.
func notFound(err error) bool {
	var ce *classify.CallError
	return errors.As(err, &ce) && ce.Code == codes.NotFound.String()
}
