package waiter

import (
	"context"
	"time"

	"github.com/benbjohnson/clock"

	"github.com/waitable/waitable/internal/attemptctx"
	"github.com/waitable/waitable/internal/timers"
	"github.com/waitable/waitable/telemetry"
)

// Wait waits at most maxWait for the resource that in names, in the
// caller's goroutine, and returns the last output observed (even when the
// wait failed or timed out, so that the caller sees where the resource
// was) and nil or an [*Error].
//
// maxWait must be positive: the Smithy specification requires callers to
// say how long they will wait. A deadline of ctx earlier than maxWait is
// the wait's deadline (the last call is timed to land before it, and the
// wait ends with [ErrTimeout]). A ctx already done makes no call.
// Cancelling ctx ends the wait with an error matching context.Canceled and
// the context's cause.
//
// Each call runs under a context that ends at the wait's deadline (and at
// the per-attempt timeout, if set). Wait calls the operation itself, so an
// operation that ignores its context holds Wait until it returns; its
// outcome is then not judged, and the wait times out. ([Waiter.Start]
// abandons such a call at the deadline instead.) A panic of the operation
// goes through Wait, with its own stack, after the wait's timer and
// telemetry are released.
func (w *Waiter[I, O]) Wait(ctx context.Context, in I, maxWait time.Duration) (O, error) {
	return w.wait(ctx, in, maxWait, nil)
}

// WaitFrom is [Waiter.Wait] resumed from a checkpoint (an attempt's
// Checkpoint, or [Run.Checkpoint], perhaps saved by another process): the
// same deadline, attempt numbering, schedule position and jitter. The
// first call is made when the checkpoint said the next one was due. A
// checkpoint of another waiter, of other rules, damaged, or empty (the
// zero Checkpoint) is refused with an error matching [ErrCheckpoint] (a
// [*CheckpointError] saying which [Problem]). The last output of the waits
// before the checkpoint is not in it: until the first call, there is none.
func (w *Waiter[I, O]) WaitFrom(ctx context.Context, in I, from Checkpoint) (O, error) {
	return w.wait(ctx, in, 0, &from)
}

func (w *Waiter[I, O]) wait(
	ctx context.Context,
	in I,
	maxWait time.Duration,
	from *Checkpoint,
) (O, error) {
	var l loop[I, O]
	if err := l.init(w, ctx, in, maxWait, from); err != nil {
		return l.last, err
	}
	l.ctx, l.stop = l.clk().WithDeadline(attemptctx.Mark(l.spanCtx), l.s.Deadline)
	returned := false
	defer func() {
		if !returned { // the operation panicked: release, and let it go on
			l.stopTimer()
			l.release()
			l.endWait(telemetry.OutcomePanic, nil)
		}
	}()
	err := l.run(l.poll)
	returned = true
	return l.last, err
}

// loop is a wait's loop, the one of Wait and of Start: sleep until the
// next call is due (or a poke), take a token of the poll rate limit, call,
// judge, repeat, until the core says the wait is over or its context ends.
type loop[I, O any] struct {
	driver[I, O]
	timer *clock.Timer
	woke  time.Time // when the timer that ended the last sleep fired: the next call's start
	// Start's: pokes, and where each attempt goes.
	poke    <-chan struct{}
	publish func(a Attempt[O])
	// callStart is when the latest call started, and notBefore the end of
	// its error's retry-after, which a poke does not undercut.
	callStart, notBefore time.Time
}

// run makes attempts with poll until the wait ends, sleeping between
// them, and returns how it ended. poll makes one call and returns the
// delay before the next one or, done, how the wait ended: Wait's calls in
// the caller's goroutine (loop.poll), Start's in one of their own
// (loop.pollAway).
func (l *loop[I, O]) run(poll func() (delay time.Duration, done bool, err error)) error {
	defer l.stopTimer()
	if !l.s.Next.IsZero() { // resumed, or an initial delay: the first call is due at s.Next
		if !l.sleep(l.s.Next.Sub(l.clk().Now()), true) {
			return l.end(l.stopped())
		}
	}
	for {
		wait, ok := l.admit()
		if !ok {
			return l.end(l.w.timedOut(&l.s, l.clk().Now(), l.lastErr))
		}
		if wait > 0 {
			if !l.sleep(wait, false) {
				return l.end(l.stopped())
			}
			l.dropPoke() // a poke while waiting for the token is done with the call
		}
		if l.ctx.Err() != nil { // ended as the sleep did: no call
			return l.end(l.stopped())
		}
		delay, done, err := poll()
		if done {
			return err
		}
		if !l.sleep(delay, true) {
			return l.end(l.stopped())
		}
	}
}

// poll is Wait's poll: one call in the caller's goroutine, applied to
// the wait (see apply).
func (l *loop[I, O]) poll() (delay time.Duration, done bool, err error) {
	a := Attempt[O]{Number: l.s.Attempts + 1, Start: l.startCall()}
	actx, opCtx, cancel := l.callContext(a.Number, a.Start)
	a.Output, a.Err = l.w.op(opCtx, l.in)
	a.Latency = l.clk().Since(a.Start)
	if cancel != nil {
		cancel()
	}
	return l.apply(actx, &a)
}

// startCall returns when the next call starts, and records it: when the
// timer that ended the last sleep fired (so that the schedule does not
// drift by the loop's own latency), or now.
func (l *loop[I, O]) startCall() time.Time {
	start := l.woke
	if l.woke = (time.Time{}); start.IsZero() {
		start = l.clk().Now()
	}
	l.callStart = start
	return start
}

// apply judges the call just made (a), applies it to the wait, and
// publishes it; it returns the delay before the next call or, done, how
// the wait ended.
func (l *loop[I, O]) apply(actx context.Context, a *Attempt[O]) (delay time.Duration, done bool, err error) {
	dec := l.complete(actx, a)
	l.notBefore = a.retryAfter()
	if l.publish != nil {
		a.Checkpoint = l.s.clone()
		l.publish(*a)
	}
	if dec.done { // a cancellation during the call included
		return 0, true, l.end(dec.err)
	}
	return dec.delay, false, nil
}

// sleep waits d on the loop's timer, or until the calls' context ends
// (false). With pokable, a poke (Start's) cuts it short, but not before
// the poke gap after the last call's start (a first call comes at once).
func (l *loop[I, O]) sleep(d time.Duration, pokable bool) bool {
	if d <= 0 {
		return l.ctx.Err() == nil
	}
	if l.timer == nil {
		l.timer = l.clk().Timer(d)
	} else {
		timers.Reset(l.clk(), l.timer, d)
	}
	var poke <-chan struct{}
	var due time.Time // the timer's, once a poke needs it
	if pokable && l.poke != nil {
		poke, due = l.poke, l.clk().Now().Add(d)
	}
	for {
		select {
		case l.woke = <-l.timer.C:
			return true
		case <-l.ctx.Done():
			l.stopTimer()
			return false
		case <-poke:
			now := l.clk().Now()
			at := now
			if !l.callStart.IsZero() {
				at = l.callStart.Add(l.w.pokeGap())
			}
			if at.Before(l.notBefore) { // the service asked for time: a poke waits too
				at = l.notBefore
			}
			if !at.Before(due) {
				continue // the schedule's call comes first
			}
			if !at.After(now) {
				l.stopTimer()
				return true
			}
			l.stopTimer()
			timers.Reset(l.clk(), l.timer, at.Sub(now))
			due = at
		}
	}
}

// stopTimer stops the loop's timer and drains a value it may have sent,
// so that the next sleep starts clean on every clock.
func (l *loop[I, O]) stopTimer() {
	if l.timer != nil && !l.timer.Stop() {
		select {
		case <-l.timer.C:
		default:
		}
	}
}

// dropPoke forgets a poke that came while the wait waited for a token.
func (l *loop[I, O]) dropPoke() {
	select {
	case <-l.poke:
	default:
	}
}

// abandon ends a wait whose call did not return in time after its context
// ended (Start's).
func (l *loop[I, O]) abandon(actx context.Context, start time.Time) error {
	a, err := l.abandoned(actx, start, l.clk().Now())
	if l.publish != nil {
		l.publish(a)
	}
	return l.end(err)
}

// panicked ends a Start's wait whose call (or a WithMatch function)
// panicked: it reports the attempt and returns the *PanicError that ends
// the wait.
func (l *loop[I, O]) panicked(pe *PanicError) error {
	a := l.driver.panicked(l.ctx, pe, l.callStart, l.clk().Now())
	if l.publish != nil {
		l.publish(a)
	}
	return l.end(pe)
}
