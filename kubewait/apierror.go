package kubewait

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// apiErr is an error of the Kubernetes API as the waiter's rules read it:
// its reason is the error code acceptors match (errorType: NotFound,
// Forbidden, TooManyRequests), its HTTP status and its Retry-After what
// the retry strategy reads. It unwraps to client-go's error.
type apiErr struct{ err error }

func (e *apiErr) Error() string { return e.err.Error() }

// Unwrap returns client-go's error.
func (e *apiErr) Unwrap() error { return e.err }

// ErrorCode returns the API's reason (NotFound, Forbidden,
// TooManyRequests, Expired, ...), or "" for an error that has none.
func (e *apiErr) ErrorCode() string { return string(apierrors.ReasonForError(e.err)) }

// HTTPStatusCode returns the response's status, or 0.
func (e *apiErr) HTTPStatusCode() int {
	var s apierrors.APIStatus
	if errors.As(e.err, &s) {
		return int(s.Status().Code)
	}
	return 0
}

// RetryAfter returns the API's Retry-After (a 429's, a 503's), or 0.
func (e *apiErr) RetryAfter() time.Duration {
	if s, ok := apierrors.SuggestsClientDelay(e.err); ok {
		return time.Duration(s) * time.Second
	}
	return 0
}

// apiError wraps an error of client-go (nil stays nil).
func apiError(err error) error {
	if err == nil {
		return nil
	}
	var e *apiErr
	if errors.As(err, &e) {
		return err
	}
	return &apiErr{err: err}
}

// notFoundError is the answer for an object that does not exist.
func notFoundError(ref Ref) error {
	return &apiErr{err: &apierrors.StatusError{ErrStatus: metav1.Status{Status: metav1.StatusFailure,
		Code: http.StatusNotFound, Reason: metav1.StatusReasonNotFound, Message: fmt.Sprintf("%s not found", ref)}}}
}

// unreachable reports whether err says that the API server could not be
// reached, or could not answer: a connection that failed (refused, reset,
// a name not resolved), a timeout, a 5xx or a 429. Discovery's errors of
// several API groups count when each of them does.
func unreachable(err error) bool {
	var status apierrors.APIStatus
	if errors.As(err, &status) {
		code := status.Status().Code
		return code >= http.StatusInternalServerError || code == http.StatusTooManyRequests ||
			apierrors.IsTimeout(err) || apierrors.IsServerTimeout(err)
	}
	var netErr net.Error
	return errors.As(err, &netErr)
}
