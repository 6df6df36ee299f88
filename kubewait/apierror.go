package kubewait

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/waitable/waitable/classify"
)

// apiError returns an error of client-go (nil stays nil) with its facts
// as the waiter's rules read them, in a *classify.CallError: the API's
// reason is the code acceptors match (errorType: NotFound, Forbidden,
// TooManyRequests), its HTTP status and its Retry-After (a 429's, a
// 503's) what the retry strategy reads. It unwraps to client-go's error.
func apiError(err error) error {
	var ce *classify.CallError
	if err == nil || errors.As(err, &ce) {
		return err
	}
	ce = &classify.CallError{Err: err, Code: string(apierrors.ReasonForError(err))}
	var s apierrors.APIStatus
	if errors.As(err, &s) {
		ce.StatusCode = int(s.Status().Code)
	}
	if secs, ok := apierrors.SuggestsClientDelay(err); ok {
		ce.RetryAfter = time.Duration(secs) * time.Second
	}
	return ce
}

// notFoundError is the answer for an object that does not exist.
func notFoundError(ref Ref) error {
	return apiError(&apierrors.StatusError{ErrStatus: metav1.Status{Status: metav1.StatusFailure,
		Code: http.StatusNotFound, Reason: metav1.StatusReasonNotFound, Message: fmt.Sprintf("%s not found", ref)}})
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
