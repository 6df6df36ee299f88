package kubewait

import (
	"time"

	"github.com/waitable/waitable/classify"
)

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
	// Seen is the object as the wait saw it when the object's wait
	// ended (Outcome set), less its metadata.managedFields: a copy the
	// caller owns, nil if the object was never seen (or is gone). It is
	// nil on the events before. A printer of whole objects (kubectl wait
	// -o json) prints it as the object meets the rules.
	Seen Object
	// Watch, for an event of the watch, says what happened to it:
	// WatchRelisted, WatchRestarted, WatchPolling or WatchWatching.
	Watch string
}

// What an event of the watch says (Event.Watch).
const (
	// WatchRelisted: the watch's resource version expired (410 Gone, after
	// an etcd compaction), was newer than the API server had
	// (ResourceVersionTooLarge), or a LIST's continue token expired; after
	// a backoff, the objects were listed again and judged.
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
