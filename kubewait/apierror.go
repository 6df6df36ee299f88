package kubewait

import (
	"errors"
	"fmt"
	"net/http"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// APIError is an error of the Kubernetes API as the waiter's rules read it:
// its reason is the error code acceptors match (errorType: NotFound,
// Forbidden, TooManyRequests), its HTTP status and its Retry-After what
// the retry strategy reads. It unwraps to client-go's error.
type APIError struct{ Err error }

func (e *APIError) Error() string { return e.Err.Error() }

// Unwrap returns client-go's error.
func (e *APIError) Unwrap() error { return e.Err }

// ErrorCode returns the API's reason (NotFound, Forbidden,
// TooManyRequests, Expired, ...), or "" for an error that has none.
func (e *APIError) ErrorCode() string { return string(apierrors.ReasonForError(e.Err)) }

// HTTPStatusCode returns the response's status, or 0.
func (e *APIError) HTTPStatusCode() int {
	var s apierrors.APIStatus
	if errors.As(e.Err, &s) {
		return int(s.Status().Code)
	}
	return 0
}

// RetryAfter returns the API's Retry-After (a 429's, a 503's), or 0.
func (e *APIError) RetryAfter() time.Duration {
	if s, ok := apierrors.SuggestsClientDelay(e.Err); ok {
		return time.Duration(s) * time.Second
	}
	return 0
}

// apiError wraps an error of client-go (nil stays nil).
func apiError(err error) error {
	if err == nil {
		return nil
	}
	return &APIError{Err: err}
}

// notFoundError is the answer for an object that does not exist.
func notFoundError(ref Ref) error {
	return &APIError{Err: &apierrors.StatusError{ErrStatus: notFoundStatus(ref)}}
}

func notFoundStatus(ref Ref) metav1.Status {
	return metav1.Status{Status: "Failure", Code: http.StatusNotFound, Reason: "NotFound",
		Message: fmt.Sprintf("%s not found", ref)}
}
