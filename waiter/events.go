package waiter

import (
	"iter"
	"time"

	"github.com/waitable/waitable/classify"
)

// Attempt is what one call of a wait did and what the waiter made of it.
type Attempt[O any] struct {
	// Number counts the wait's calls from 1.
	Number int
	// Start is when the call started, on the waiter's clock.
	Start time.Time
	// Latency is how long the call took.
	Latency time.Duration
	// Output and Err are what the call returned.
	Output O
	Err    error
	// Acceptor is the index of the acceptor that matched, or -1. Acceptors
	// are numbered in the order they are tried: WithMatch functions (or a
	// NewFunc condition), then WithAcceptors, then the definition's.
	Acceptor int
	// Matcher describes the matched acceptor ("output: status stringEquals
	// \"ACTIVE\"", or a WithMatch name).
	Matcher string
	// State is where the attempt left the wait: Success and Failure end
	// it, Retry polls again (unless time or attempts ran out). A call that
	// was not judged (cut off by the deadline, cancelled or abandoned) is
	// Retry: nothing was learnt of the resource.
	State classify.State
	// Streak is how many times in a row the success acceptor has matched
	// (see WithStability): the attempt's State is Retry until the streak
	// is long enough.
	Streak int
	// Outcome is set on the attempt that ended the wait, and says how, as
	// its Result does: "success", "failure", "timeout", "max_polls",
	// "cancelled" or "panic" (the telemetry package's Outcome names). It
	// is "" while the wait goes on.
	Outcome string
	// Message is a failure acceptor's message, if it has one.
	Message string
	// Transient reports an error that no acceptor matched and that the
	// retry strategy allowed: it was retried instead of ending the wait.
	Transient bool
	// NextDelay is the wait before the next call; 0 when the wait ends.
	NextDelay time.Duration
	// Hint is the service's hint of when to call again, if it gave one: a
	// retry-after on an error, or a pending answer's own (WithPollHint).
	// NextDelay is never shorter.
	Hint time.Duration
	// EvalErr reports JMESPath expressions that failed on this output.
	EvalErr error
	// Abandoned reports a call still running when the wait ended (it
	// ignored its context past the deadline or a cancellation): Err is the
	// context's error, and what the call returns later is discarded.
	Abandoned bool
	// Checkpoint is the wait's State after this attempt: resume from it
	// with [Waiter.Resume] or [Waiter.WaitFrom].
	Checkpoint State
}

// DefaultEventBuffer is how many unread attempts a wait keeps by default
// (see [WithEventBuffer]).
const DefaultEventBuffer = 16

// eventLog holds a Run's attempts until they are read: a ring of the last
// size attempts until Events is first called, then a channel of that
// capacity. The poller never blocks on it: when it is full, the oldest
// attempt is dropped and counted. It is guarded by its Run's mutex.
type eventLog[O any] struct {
	size   int
	ring   []kept[O] // in order from head, until ch exists
	head   int
	ch     chan Attempt[O]
	missed int
	closed bool
}

// kept is an attempt as the ring keeps it: an Attempt with its checkpoint
// apart, so that the newest can be the wait's own State, not a copy of it
// (cp nil; see Run.live). An idle wait holds its State once.
type kept[O any] struct {
	Number          int
	Start           time.Time
	Latency         time.Duration
	Output          O
	Err             error
	Acceptor        int
	Matcher         string
	Streak          int
	Outcome         string
	Message         string
	NextDelay, Hint time.Duration
	EvalErr         error
	State           classify.State
	Transient       bool
	Abandoned       bool
	cp              *State // its checkpoint; nil: the wait's live State
}

// keep returns a as the ring keeps it, with its checkpoint at cp.
func keep[O any](a *Attempt[O], cp *State) kept[O] {
	return kept[O]{Number: a.Number, Start: a.Start, Latency: a.Latency, Output: a.Output, Err: a.Err,
		Acceptor: a.Acceptor, Matcher: a.Matcher, Streak: a.Streak, Outcome: a.Outcome, Message: a.Message,
		NextDelay: a.NextDelay, Hint: a.Hint, EvalErr: a.EvalErr, State: a.State, Transient: a.Transient,
		Abandoned: a.Abandoned, cp: cp}
}

// attempt returns the kept attempt as an Attempt; live is the wait's
// State, the checkpoint of the attempt kept without its own.
func (k *kept[O]) attempt(live *State) Attempt[O] {
	a := Attempt[O]{Number: k.Number, Start: k.Start, Latency: k.Latency, Output: k.Output, Err: k.Err,
		Acceptor: k.Acceptor, Matcher: k.Matcher, Streak: k.Streak, Outcome: k.Outcome, Message: k.Message,
		NextDelay: k.NextDelay, Hint: k.Hint, EvalErr: k.EvalErr, State: k.State, Transient: k.Transient,
		Abandoned: k.Abandoned}
	if k.cp != nil {
		a.Checkpoint = *k.cp
	} else if live != nil {
		a.Checkpoint = live.snapshot()
	}
	return a
}

// newest returns the attempt the ring kept last, nil if none.
func (l *eventLog[O]) newest() *kept[O] {
	if len(l.ring) == 0 {
		return nil
	}
	return &l.ring[(l.head+len(l.ring)-1)%len(l.ring)]
}

// push adds an attempt, dropping the oldest unread one if full: to the
// ring, with its checkpoint at cp (nil: the wait's live State, see
// Run.live), or to the channel, with its own (a.Checkpoint).
func (l *eventLog[O]) push(a *Attempt[O], cp *State) {
	if l.ch != nil {
		select {
		case l.ch <- *a:
			return
		default:
		}
		select { // full: make room by dropping the oldest (the reader may have just made some)
		case <-l.ch:
			l.missed++
		default:
		}
		select {
		case l.ch <- *a:
		default:
			l.missed++
		}
		return
	}
	switch {
	case len(l.ring) < cap(l.ring):
		l.ring = append(l.ring, keep(a, cp))
	case len(l.ring) < l.size:
		// One, then steps of 4: most waits end within a few attempts,
		// and a sleeping wait should hold little.
		grow := 4
		if len(l.ring) == 0 {
			grow = 1
		}
		ring := make([]kept[O], len(l.ring), min(l.size, len(l.ring)+grow))
		copy(ring, l.ring)
		l.ring = append(ring, keep(a, cp))
	default:
		l.ring[l.head] = keep(a, cp)
		l.head = (l.head + 1) % l.size
		l.missed++
	}
}

// channel returns the events channel, made on first use with what the
// ring holds; live is the wait's State, if the newest attempt's checkpoint
// is that.
func (l *eventLog[O]) channel(live *State) chan Attempt[O] {
	if l.ch != nil {
		return l.ch
	}
	l.ch = make(chan Attempt[O], l.size)
	for i := range l.ring {
		l.ch <- l.ring[(l.head+i)%len(l.ring)].attempt(live)
	}
	l.ring = nil
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
// read, up to its event buffer (16 unless WithEventBuffer says otherwise),
// from its start (so a reader that comes late still gets the first
// attempts, if no more than that many were made); beyond that, the oldest
// unread attempt is dropped, and counted by [Run.Missed] (the numbers of
// the attempts read then jump). So a run nobody reads holds at most that
// many attempts, however long it polls, and no goroutine: breaking out of
// a loop over the channel (or over [Run.Attempts]) leaves nothing behind.
//
// When the channel is closed, [Run.Done] is already closed: a reader that
// ranged over the events gets the result without blocking.
func (r *Run[O]) Events() <-chan Attempt[O] {
	r.mu.Lock()
	defer r.mu.Unlock()
	var live *State
	if r.live {
		live = r.cp
	}
	return r.ev.channel(live)
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
