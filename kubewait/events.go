package kubewait

import (
	"time"

	"github.com/waitable/waitable/classify"
	"github.com/waitable/waitable/waiter"
)

// Event is one thing that happened during a wait: an object's decision
// changed (one event per change, not per watch event), an object's wait
// ended, or the watch behind the wait changed (Watch).
type Event struct {
	// Time is when it happened, on the Client's clock.
	Time time.Time
	// Ref is the object; for an event of the watch, the watch's resource
	// and namespace (and its object, for the watch of one object).
	Ref Ref
	// Decision is where the object's wait is, as the waiter decided it:
	// Success, Failure, or Retry while it goes on. Reason and Message say
	// why: a condition's reason and message, a JSONPath's value,
	// kstatus's status and message, NotFound for an object that does not
	// exist.
	Decision        classify.State
	Reason, Message string
	// End is set when the object's wait ended ("success", "failure",
	// "timeout", "cancelled": [waiter.Checkpoint]'s End), and Err then
	// says why it did not succeed.
	End string
	Err error
	// Object is the object as the wait saw it when its wait ended (End
	// set), less its metadata.managedFields: a copy the caller owns, nil
	// if the object was never seen (or is gone), and nil on the events
	// before. A printer of whole objects (kubectl wait -o json) prints it
	// as the object meets the rules.
	Object Object
	// Estimate is the waiter's estimate of the time the object's wait has
	// left after the judgment that made the event (see [waiter.Estimate]:
	// none without a history of past waits, which [ClientOptions.History]
	// keeps, by resource, namespace and name).
	Estimate waiter.Estimate
	// Watch, for an event of the watch, says what happened to it:
	// WatchRelisted, WatchRestarted, WatchPolling or WatchWatching.
	Watch string
}

// What an event of the watch says (Event.Watch).
const (
	// WatchRelisted: the watch's resource version expired (410 Gone, after
	// an etcd compaction), was newer than the API server had
	// (ResourceVersionTooLarge), or a LIST's continue token expired; the
	// objects were listed again and judged. Event.Err says which.
	WatchRelisted = "relisted"
	// WatchRestarted: the watch failed (an error, a watch that ended at
	// once, the API server restarting) and was started again: after a
	// list of the objects from where it was, as client-go's Reflector
	// does (and the wait judged them), or, after a refused connection or
	// a 429, where it left off. Event.Err says why; the wait hears it
	// once until a watch opens again.
	WatchRestarted = "restarted"
	// WatchPolling: the wait cannot watch (list or watch is forbidden, or
	// they keep failing): it polls the objects, under the Client's rate
	// limit. Event.Err says why.
	WatchPolling = "polling"
	// WatchWatching: the watch works again after a time of polling.
	WatchWatching = "watching"
)
