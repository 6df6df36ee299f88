package waiter

import (
	"iter"
	"time"

	"github.com/waitable/waitable/classify"
)

// Attempt is one call of a wait: what the call returned, what the
// acceptors and the retry strategy made of it, and what the wait did
// next. A [Run] publishes one per call ([Run.Events]). A driver of its
// own fills in the call's part (or has [Waiter.Call] do it) and passes it
// to [Waiter.Step], which reads no more than that.
type Attempt[O any] struct {
	// Number counts the wait's calls from 1.
	Number int
	// Start is when the call started, on the waiter's clock, and Latency
	// how long it took.
	Start   time.Time
	Latency time.Duration
	// Output and Err are what the call returned.
	Output O
	Err    error
	// Late reports a call that was not judged because the wait ended
	// around it: it returned after the deadline, returned its context's
	// error once the deadline had ended it, or was abandoned (see
	// Abandoned). The wait times out. (A call that returns an answer at
	// the deadline instant is judged.)
	Late bool
	// Abandoned reports a call still running when the wait ended (it
	// ignored its context past the deadline or a cancellation): Err is the
	// context's error, and what the call returns later is discarded.
	Abandoned bool

	// Judgment is what the acceptors made of the call ([Waiter.Judge]).
	// Its State is the acceptors' verdict; the Attempt's own State is
	// where the attempt left the wait.
	Judgment

	// Retry reports that the retry strategy allows an error no acceptor
	// matched to be retried (Quota: it refused only because its quota is
	// empty, which slows the polls down). Refusal is why it refused, when
	// it did: the error is then fatal. These are unset for other answers.
	Retry, Quota bool
	Refusal      error
	// MinDelay is the least time before the next call: the strategy's
	// delay, never less than the service's hint.
	MinDelay time.Duration
	// Hint is the service's hint of when to call again, if it gave one: a
	// retry-after on an error, or a pending answer's own (WithPollHint).
	// NextDelay is never shorter. A poke ([Run.Poke]) never brings the
	// next call before an error's retry-after; it may bring forward a
	// pending answer's hint.
	Hint time.Duration
	// Delay is the delay WithDelayFunc chose for the next call (0: the
	// schedule's).
	Delay time.Duration
	// Identity is the resource's identity in the answer (WithIdentity),
	// "" if it has none.
	Identity string

	// State is where the attempt left the wait: Success and Failure end
	// it, Retry polls again (unless time or attempts ran out). A call that
	// was not judged (Late) is Retry: nothing was learnt of the resource.
	State classify.State
	// Transient reports an error that no acceptor matched and that the
	// retry strategy allowed: it was retried instead of ending the wait.
	Transient bool
	// Streak is how many times in a row the success acceptor has matched
	// (see WithStability): the attempt's State is Retry until the streak
	// is long enough.
	Streak int
	// NextDelay is the wait before the next call; 0 when the wait ends.
	NextDelay time.Duration
	// Outcome is set on the attempt that ended the wait, and says how, as
	// its Result does: "success", "failure", "timeout", "max_polls",
	// "cancelled" or "panic" (the telemetry package's Outcome names). It
	// is "" while the wait goes on.
	Outcome string
	// Checkpoint is the wait's Checkpoint after this attempt: resume from
	// it with [Waiter.WaitFrom] or [Waiter.StartFrom].
	Checkpoint Checkpoint
}

// retryAfter returns when an error's retry-after hint ends (zero if the
// call did not fail, or its error gave none).
func (a *Attempt[O]) retryAfter() time.Time {
	if a.Err == nil || a.Hint <= 0 {
		return time.Time{}
	}
	return a.Start.Add(a.Latency + a.Hint)
}

// defaultEventBuffer is how many unread attempts a wait keeps (see
// [Run.Events]).
const defaultEventBuffer = 16

// eventLog holds a Run's attempts until they are read: the last size
// attempts in a slice until Events is first called, then a channel of
// that capacity. The poller never blocks on it: when it is full, the
// oldest attempt is dropped and counted. It is guarded by its Run's mutex.
type eventLog[O any] struct {
	size   int
	kept   []Attempt[O] // oldest first, until ch exists
	ch     chan Attempt[O]
	missed int
	closed bool
}

// push adds an attempt, dropping the oldest unread one if full.
func (l *eventLog[O]) push(a Attempt[O]) {
	if l.size == 0 {
		return // nobody can read them (WaitAll's runs)
	}
	if l.ch == nil {
		if len(l.kept) == l.size {
			l.kept = append(l.kept[:0], l.kept[1:]...)
			l.missed++
		}
		l.kept = append(l.kept, a)
		return
	}
	for {
		select {
		case l.ch <- a:
			return
		default:
		}
		select { // full: make room by dropping the oldest
		case <-l.ch:
			l.missed++
		default: // the reader just made room
		}
	}
}

// channel returns the events channel, made on first use with what was
// kept.
func (l *eventLog[O]) channel() chan Attempt[O] {
	if l.ch != nil {
		return l.ch
	}
	l.ch = make(chan Attempt[O], max(l.size, 1))
	for _, a := range l.kept {
		l.ch <- a
	}
	l.kept = nil
	if l.closed {
		close(l.ch)
	}
	return l.ch
}

// close marks the end of the attempts.
func (l *eventLog[O]) close() {
	l.closed = true
	if l.ch != nil {
		close(l.ch)
	}
}

// Events returns the channel of the wait's attempts, in order, closed after
// the last one. Every call returns the same channel.
//
// Polling never waits for a reader. The wait keeps the attempts not yet
// read, up to 16,
// from its start (so a reader that comes late still gets the first
// attempts, if no more than that many were made); beyond that, the oldest
// unread attempt is dropped, and counted by [Run.Missed] (the numbers of
// the attempts read then jump). So a run nobody reads holds at most that
// many attempts, however long it polls: breaking out of a loop over the
// channel (or over [Run.Attempts]) leaves nothing behind.
//
// When the channel is closed, [Run.Done] is already closed: a reader that
// ranged over the events gets the result without blocking.
func (r *Run[O]) Events() <-chan Attempt[O] {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.ev.channel()
}

// Attempts returns an iterator over the wait's attempts as they happen: a
// range over [Run.Events]. Breaking out of the loop releases everything;
// it does not end the wait (Cancel does).
func (r *Run[O]) Attempts() iter.Seq[Attempt[O]] {
	return func(yield func(Attempt[O]) bool) {
		for a := range r.Events() {
			if !yield(a) {
				return
			}
		}
	}
}

// Missed returns how many attempts were dropped unread because more than
// the event buffer waited to be read.
func (r *Run[O]) Missed() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.ev.missed
}
