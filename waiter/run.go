package waiter

import (
	"sync"
)

// Run is one wait in progress in the background: [Waiter.Start] returns it
// at once (so do [Go] and [Batch.Add]). Read its attempts as they happen
// from [Run.Events], its latest checkpoint from [Run.Checkpoint], and its
// outcome from [Run.Result]. A Run is safe for concurrent use.
//
// A Run ends at its deadline, or when cancelled, when its call in progress
// returns: the operation honours its context, as Go's functions do (a
// [Batch] member ends at once: its call serves other keys). An ended Run
// keeps its outcome, its final Checkpoint and the attempts not yet read
// (see [Run.Events]), and nothing else of its wait (no context, timer or
// goroutine), so that holding many ended Runs costs only what they hold.
type Run[O any] struct {
	onEnd func(err error) // a Group's, called once the outcome is known

	mu   sync.Mutex
	ctl  control       // nil if the wait never began, and once it has ended
	done chan struct{} // made when first asked for; closed when the outcome is known (ev.closed)
	out  O
	err  error       // a *PanicError if the operation panicked
	cp   *Checkpoint // the latest checkpoint, published under mu and never changed
	ev   eventLog[O]
}

// control is how a Run's Cancel and Poke reach its driver.
type control interface {
	cancel()
	poke()
}

// newRun returns a Run that keeps up to events unread attempts.
func newRun[O any](events int, onEnd func(error)) *Run[O] {
	return &Run[O]{onEnd: onEnd, ev: eventLog[O]{size: int32(events)}}
}

// Done is closed when the wait's outcome is known.
func (r *Run[O]) Done() <-chan struct{} {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.done == nil {
		r.done = make(chan struct{})
		if r.ev.closed {
			close(r.done)
		}
	}
	return r.done
}

// Cancel ends the wait: its Result then matches context.Canceled. A wait
// between calls makes no further call; a call in progress sees its
// context end, and the wait ends when it returns. Cancel does not wait
// for the end: Result and Done do.
func (r *Run[O]) Cancel() {
	if c := r.control(); c != nil {
		c.cancel()
	}
}

// Poke asks for the next call now, because something outside the wait
// said the resource may have changed: a webhook, a queue or EventBridge
// message, a watch. A wait between calls makes its next call at once, but
// no sooner than a second (or MinDelay, if shorter) after its last call
// started, so that a burst of events makes one call, never before the end
// of the last error's retry-after (a throttle or a 503 is the service
// asking for time), and subject to the poll rate limit; the schedule goes
// on after it as before, the fallback for events that never come. A
// pending answer's own poll hint ([WithPollHint]) does not hold a poke
// back: the event is news the hint could not know. A poke during a call
// takes effect when the call returns (its answer may predate the event);
// a wait already waiting for a rate-limit token, or ended, ignores it.
// Poke never blocks; it is safe to call from any goroutine, any number of
// times.
func (r *Run[O]) Poke() {
	if c := r.control(); c != nil {
		c.poke()
	}
}

// control returns the Run's control, nil once the wait has ended.
func (r *Run[O]) control() control {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.ctl
}

// Result blocks until the wait ends and returns the last output observed
// (even when the wait failed or timed out, so that the caller sees where
// the resource was) and nil or an [*Error]. If the operation panicked,
// Result panics with a [*PanicError] holding the value and the stack of
// the panic, in the caller's goroutine.
func (r *Run[O]) Result() (O, error) {
	<-r.Done()
	if p, ok := r.err.(*PanicError); ok {
		panic(p)
	}
	return r.out, r.err
}

// Checkpoint returns the wait's Checkpoint after its latest attempt
// (before the first, its start): what [Waiter.WaitFrom] and
// [Waiter.StartFrom] take.
func (r *Run[O]) Checkpoint() Checkpoint {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.cp == nil {
		return Checkpoint{}
	}
	return r.cp.clone()
}

// begin publishes s, the wait's first Checkpoint. The Run is not shared
// yet.
func (r *Run[O]) begin(s *Checkpoint) { r.cp = s }

// record publishes an attempt: its checkpoint becomes the latest, and the
// events get it. Neither is changed afterwards: the driver's next attempt
// is a new one.
func (r *Run[O]) record(a *Attempt[O]) {
	r.mu.Lock()
	r.ev.push(a)
	r.cp = &a.Checkpoint
	r.mu.Unlock()
}

// finish records the outcome and s, the final checkpoint (nil, or one
// with Version 0: the wait never began), which is not changed
// afterwards: Done closes, then the events channel.
func (r *Run[O]) finish(out O, err error, s *Checkpoint) {
	r.mu.Lock()
	r.out, r.err, r.ctl = out, err, nil
	if s != nil && s.Version != 0 {
		r.cp = s
	}
	if r.done != nil {
		close(r.done)
	}
	r.ev.close()
	r.mu.Unlock()
	if r.onEnd != nil {
		r.onEnd(err)
	}
}

// defaultEventBuffer is how many unread attempts a Run keeps unless
// WithEventBuffer says otherwise (see [Run.Events]).
const defaultEventBuffer = 16

// Events returns the channel of the wait's attempts, in order, closed
// after the last one. Every call returns the same channel; range over it
// to follow the wait.
//
// Polling never waits for a reader. The wait keeps the attempts not yet
// read, up to 16 (or what [WithEventBuffer] says), from its start (so a
// reader that comes late still gets the first attempts, if no more than
// that many were made); beyond that, the oldest unread attempt is
// dropped, and counted by [Run.Missed] (the numbers of the attempts read
// then jump). So a run nobody reads holds at most that many attempts,
// however long it polls: breaking out of a loop over the channel leaves
// nothing behind (it does not end the wait: Cancel does).
//
// When the channel is closed, [Run.Done] is already closed: a reader that
// ranged over the events gets the result without blocking.
func (r *Run[O]) Events() <-chan Attempt[O] {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.ev.channel()
}

// Missed returns how many attempts were dropped unread because more than
// the Run keeps (16, or what [WithEventBuffer] says) waited to be read
// (see [Run.Events]).
func (r *Run[O]) Missed() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return int(r.ev.missed)
}

// eventLog holds a Run's attempts until they are read: the last size
// attempts in a slice until Events is first called, then a channel of
// that capacity (size 0: unbuffered, so that only a reader waiting on it
// gets an attempt). The poller never blocks on it: when it is full, the
// oldest attempt is dropped and counted. It is guarded by its Run's mutex.
type eventLog[O any] struct {
	kept   []*Attempt[O] // oldest first, until ch exists
	ch     chan Attempt[O]
	size   int32
	missed int32
	closed bool
}

// push adds an attempt, dropping the oldest unread one if full (a Run
// that keeps none gives it to a reader waiting on the channel, if there
// is one).
func (l *eventLog[O]) push(a *Attempt[O]) {
	if l.ch == nil {
		if l.size == 0 {
			l.missed++
			return
		}
		if len(l.kept) == int(l.size) {
			l.kept = append(l.kept[:0], l.kept[1:]...)
			l.missed++
		}
		l.kept = append(l.kept, a)
		return
	}
	for {
		select {
		case l.ch <- *a:
			return
		default:
		}
		if l.size == 0 { // no reader was waiting
			l.missed++
			return
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
	l.ch = make(chan Attempt[O], l.size)
	for _, a := range l.kept {
		l.ch <- *a
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
