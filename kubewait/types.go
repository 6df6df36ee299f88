package kubewait

import (
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/waitable/waitable/classify"
	"github.com/waitable/waitable/waiter"
)

// Ref names one object: the waiter's input, which acceptors read as
// input.namespace, input.name and input.uid.
type Ref struct {
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
	// UID is the object's UID as the wait first saw it ("" until then).
	UID string `json:"uid"`
}

// String returns namespace/name, or the name of a cluster-scoped object.
func (r Ref) String() string {
	if r.Namespace == "" {
		return r.Name
	}
	return r.Namespace + "/" + r.Name
}

// Request is what to wait for: which objects of which resource, the rules
// they must meet, and for how long.
type Request struct {
	// Resource is the objects' resource (group, version, plural name).
	Resource schema.GroupVersionResource
	// Namespace is the objects' namespace; "" for a cluster-scoped
	// resource or, with Selector or All, every namespace.
	Namespace string
	// Which objects: Names, or the objects that match Selector (a label
	// selector, "app=web,tier!=db"), or All the objects of the resource in
	// the namespace. Exactly one must be set.
	Names    []string
	Selector string
	All      bool
	// Count, with Selector or All, is how many objects must match: the
	// wait succeeds when at least Count objects match and every one of them
	// meets For, objects created after the wait began included. 0 means
	// the objects that match when the wait begins, as kubectl wait does
	// (at least one: none is ErrNoObjects); with For Created, 0 means 1.
	Count int
	// For is the rule that ends an object's wait in success (kubectl
	// wait's --for). An object that does not exist yet is waited for
	// (kubectl fails at once): [waiter.WithNotFoundLimit] in Options ends
	// such a wait early.
	For Rule
	// FailOn are rules that end an object's wait in failure, and so the
	// wait: a Job's Condition("Failed", "True"), kstatus's [Failed].
	FailOn []Rule
	// Timeout is the wait's total time (required, as the Smithy
	// specification requires); a context deadline sooner than it ends the
	// wait sooner.
	Timeout time.Duration
	// Options are the waiter's options for each object's wait:
	// WithNotFoundLimit, WithStability, WithDelays (the pace at which an
	// object is judged again without an event, and polled when the wait
	// cannot watch), WithRetryStrategy. The Client's clock replaces any
	// WithClock.
	Options []waiter.Option
	// OnEvent, if not nil, is called with each [Event], in the goroutine
	// that called Wait, one event at a time.
	OnEvent func(Event)
}

// Event is one thing that happened during a wait: an object's state
// changed (one event per transition, not per watch event), an object's
// wait ended, or the watch behind the wait changed (Watch).
type Event struct {
	// Time is when it happened, on the Client's clock.
	Time time.Time
	// Object is the object; zero for an event of the watch.
	Object Ref
	// State is where the object's wait is: Success, Failure, or Retry
	// while it goes on. Reason and Message say why: a condition's reason
	// and message, a JSONPath's value, kstatus's status and message,
	// NotFound for an object that does not exist.
	State           classify.State
	Reason, Message string
	// Outcome is set when the object's wait ended ("success", "failure",
	// "timeout", "cancelled": the telemetry package's Outcome names), and
	// Err then says why it did not succeed.
	Outcome string
	Err     error
	// Watch, for an event of the watch, says what happened to it:
	// WatchRelisted, WatchRestarted, WatchPolling or WatchWatching.
	Watch string
}

// What an event of the watch says (Event.Watch).
const (
	// WatchRelisted: the watch's resource version expired (410 Gone, after
	// an etcd compaction); the objects were listed again and judged.
	WatchRelisted = "relisted"
	// WatchRestarted: the watch broke (the API server restarted, the
	// connection dropped) and was started again where it left off.
	WatchRestarted = "restarted"
	// WatchPolling: the wait cannot watch (list or watch is forbidden, or
	// the watch keeps failing): it polls the objects, under the Client's
	// rate limit. Event.Err says why.
	WatchPolling = "polling"
	// WatchWatching: the watch works again after a time of polling.
	WatchWatching = "watching"
)

// Result is how a wait ended, object by object.
type Result struct {
	// Objects are the objects waited for, sorted by namespace and name.
	// A Count that was not reached adds an entry with an empty Name.
	Objects []ObjectResult
	// Elapsed is the wait's time, on the Client's clock.
	Elapsed time.Duration
}

// ObjectResult is how the wait for one object ended.
type ObjectResult struct {
	Ref
	// State is Success, Failure, or Retry for an object whose wait did not
	// end (it timed out, was cancelled, or another object failed first).
	State classify.State
	// Rule is the rule that ended the object's wait, as kubectl writes it:
	// For's on success, a FailOn rule's on failure ("" otherwise).
	Rule string
	// Reason and Message are what the rules read of the object last: a
	// condition's reason and message, a JSONPath's value, kstatus's status.
	Reason, Message string
	// Object is the object as last seen (nil if it was never seen).
	Object map[string]any
	// Err is why the object's wait did not succeed: a *waiter.Error
	// (ErrTimeout, ErrFailure, its Input naming the object), or nil.
	Err error
}

// ErrNoObjects is the error of a wait by Selector or All, with no Count,
// that found no object to wait for (kubectl wait's "no matching resources
// found").
var ErrNoObjects = errors.New("kubewait: no matching objects")

// ErrInvalidRequest is the error of a Request that cannot be a wait: it
// names every problem.
var ErrInvalidRequest = errors.New("kubewait: invalid request")

// Error is how a wait that did not succeed ends: the resource, and each
// object whose wait failed or did not end. It unwraps to their errors, so
// errors.Is(err, waiter.ErrTimeout) and errors.Is(err, waiter.ErrFailure)
// tell a timeout from a failure.
type Error struct {
	// Resource and Namespace are the wait's.
	Resource  schema.GroupVersionResource
	Namespace string
	// Objects are the objects that did not succeed, failures first.
	Objects []ObjectResult
	// Reason is why the wait ended: waiter.ErrFailure (an object failed),
	// waiter.ErrTimeout, or the context's error.
	Reason error
}

func (e *Error) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "kubewait: %s", e.Resource.Resource)
	if e.Resource.Group != "" {
		fmt.Fprintf(&b, ".%s", e.Resource.Group)
	}
	if e.Namespace != "" {
		fmt.Fprintf(&b, " in %s", e.Namespace)
	}
	fmt.Fprintf(&b, ": %v", e.Reason)
	for i, o := range e.Objects {
		if i == 3 {
			fmt.Fprintf(&b, "; and %d more", len(e.Objects)-i)
			break
		}
		b.WriteString("; ")
		b.WriteString(o.describe())
	}
	return b.String()
}

// describe is one object's line in an error or a progress report:
// "ns/a: failed on condition=Failed: BackoffLimitExceeded: Job has
// reached the specified backoff limit", "ns/b: timed out: NotFound".
func (o ObjectResult) describe() string {
	name := o.Ref.String()
	if o.Name == "" {
		name = "count"
	}
	var s string
	switch {
	case o.State == classify.Success:
		s = name + ": " + o.Rule
	case o.State == classify.Failure && o.Rule != "":
		s = name + ": failed on " + o.Rule
	case o.State == classify.Failure:
		s = name + ": failed"
	case errors.Is(o.Err, waiter.ErrTimeout):
		s = name + ": timed out"
	default:
		s = name + ": not done"
	}
	var we *waiter.Error
	if errors.As(o.Err, &we) && we.Failure != waiter.FailureAcceptor && we.Failure != 0 {
		s += " (" + we.Failure.String() + ")"
		if we.Failure == waiter.FailureError && we.Err != nil {
			s += ": " + we.Err.Error()
		}
	}
	for _, part := range []string{o.Reason, o.Message} {
		if part != "" {
			s += ": " + part
		}
	}
	return s
}

// Is reports whether target is the wait's Reason.
func (e *Error) Is(target error) bool { return target != nil && errors.Is(e.Reason, target) }

// Unwrap returns the objects' errors.
func (e *Error) Unwrap() []error {
	var errs []error
	for _, o := range e.Objects {
		if o.Err != nil {
			errs = append(errs, o.Err)
		}
	}
	return errs
}

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

// sortObjects sorts results by namespace and name, failures first when
// failuresFirst.
func sortObjects(objs []ObjectResult, failuresFirst bool) {
	slices.SortStableFunc(objs, func(a, b ObjectResult) int {
		if failuresFirst && (a.State == classify.Failure) != (b.State == classify.Failure) {
			if a.State == classify.Failure {
				return -1
			}
			return 1
		}
		if c := strings.Compare(a.Namespace, b.Namespace); c != 0 {
			return c
		}
		return strings.Compare(a.Name, b.Name)
	})
}
