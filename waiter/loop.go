package waiter

import (
	"context"
	"runtime/debug"
	"time"

	"github.com/benbjohnson/clock"

	"github.com/waitable/waitable/internal/attemptctx"
	"github.com/waitable/waitable/internal/timers"
	"github.com/waitable/waitable/telemetry"
)

// The loop of Wait and Start: one goroutine per wait from its start to
// its end (the caller's for Wait, one of its own for Start and each
// member of a Group or WaitAll), in which every call is made and every
// sleep is one select on a timer, the wait's context and (a Run's) a
// poke channel. The wait's state and how an answer is applied are the
// driver's (driver.go), how it ends is end.go's, and the rules are the
// core's (core.go): a driver only sleeps, calls and publishes.

// Wait waits at most maxWait for the resource that in names, in the
// caller's goroutine, and returns the last output observed (even when the
// wait failed or timed out, so that the caller sees where the resource
// was) and nil or an [*Error].
//
// maxWait must be positive: the Smithy specification requires callers to
// say how long they will wait. A deadline of ctx earlier than maxWait,
// read on the waiter's clock ([WithClock]), is the wait's deadline (the
// last call is timed to land before it, and the wait ends with
// [ErrTimeout]). A ctx already done makes no call. Cancelling ctx ends the
// wait with an error matching context.Canceled and the context's cause.
//
// Each call runs under a context that ends at the wait's deadline (and at
// the per-attempt timeout, if set), and the operation honours it, as Go's
// functions do: the wait ends when the call returns. A call that returns
// after the deadline, or returns its context's error at it, is not
// judged, and the wait times out. A panic of the operation goes through
// Wait, with its own stack, after the wait's timer and telemetry are
// released.
func (w *Waiter[I, O]) Wait(ctx context.Context, in I, maxWait time.Duration) (O, error) {
	var l loop[I, O]
	return l.wait(w, ctx, in, maxWait, nil)
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
	var l loop[I, O]
	return l.wait(w, ctx, in, 0, &from)
}

// wait is Wait's: the loop in this goroutine.
func (l *loop[I, O]) wait(w *Waiter[I, O], ctx context.Context, in I, maxWait time.Duration, from *Checkpoint) (O, error) {
	if err := l.init(w, ctx, in, maxWait, from, false, nil); err != nil {
		return l.last, err
	}
	l.ctx, l.release = l.clk().WithDeadline(attemptctx.Mark(l.span), l.s.Deadline)
	returned := false
	defer func() {
		if !returned { // the operation panicked: release, and let it go on
			l.stopTimer()
			l.release()
			l.endWait(telemetry.OutcomePanic, nil)
		}
	}()
	err := l.run()
	returned = true
	return l.last, err
}

// Start begins a wait of at most maxWait for the resource that in names,
// in a goroutine of its own, and returns at once. Its rules are those of
// [Waiter.Wait], and it makes its calls the same way, in its goroutine,
// which sleeps between them: a Run ends when its call returns.
// Cancelling ctx (or calling [Run.Cancel]) ends the wait. The goroutine
// is the caller's child: it carries the caller's profiler labels
// (runtime/pprof), and a goroutine dump shows it. To wait for many
// resources together, use a [Group] (or [WaitAll]), or a [Batch] for
// thousands.
func (w *Waiter[I, O]) Start(ctx context.Context, in I, maxWait time.Duration) *Run[O] {
	return w.start(ctx, in, maxWait, nil, "", nil)
}

// StartFrom is [Waiter.Start] resumed from a checkpoint (see
// [Waiter.WaitFrom] for what it keeps and refuses); a refused checkpoint
// ends the Run at once with the error.
func (w *Waiter[I, O]) StartFrom(ctx context.Context, in I, from Checkpoint) *Run[O] {
	return w.start(ctx, in, 0, &from, "", nil)
}

// start begins a Run; name names it in its errors (a Group's member),
// and onEnd is called once its outcome is known.
func (w *Waiter[I, O]) start(ctx context.Context, in I, maxWait time.Duration, from *Checkpoint, name string,
	onEnd func(error)) *Run[O] {
	r := newRun[O](w.cfg.events, onEnd)
	l := &loop[I, O]{}
	l.name = name
	if err := l.init(w, ctx, in, maxWait, from, true, nil); err != nil {
		r.finish(l.last, err, l.s)
		return r
	}
	l.pokes = make(chan struct{}, 1)
	l.r, r.ctl = r, l // the Run is not shared yet: launch makes the context Cancel ends first
	r.begin(l.s)
	l.launch(r.finish)
	return r
}

// launch runs a wait of its own (Start's, a Group's or WaitAll's
// member's), once init has set it up, in a goroutine of its own from now
// to its end, then calls finish with its outcome. A panic of the
// operation (or of a WithMatch function) ends the wait with a
// *PanicError, which the Run's Result (or WaitAll) panics with.
func (l *loop[I, O]) launch(finish func(out O, err error, s *Checkpoint)) {
	// One context for the wait's calls: it ends at the deadline, with the
	// caller's context, or on Run.Cancel.
	l.ctx, l.release = l.clk().WithDeadline(attemptctx.Mark(l.span), l.s.Deadline)
	go func() {
		defer func() {
			if p := recover(); p != nil {
				pe := &PanicError{Value: p, Stack: debug.Stack()}
				now := l.clk().Now()
				s, p := l.next()
				var ans Answer[O]
				var v verdict
				l.w.panicked(s, pe, l.lastCall.start, now, &ans, &v)
				l.record(l.ctx, &ans, &v, p, now)
				finish(l.last, l.end(pe), l.s)
			}
		}()
		err := l.run()
		finish(l.last, err, l.s)
	}()
}

// loop is one wait of Wait or Start: its driver state, its one timer,
// and (Start's) its pokes.
type loop[I, O any] struct {
	driver[I, O]
	ctx     context.Context    // the calls' context: ends at the deadline, with the caller's, or on Cancel
	release context.CancelFunc // ends ctx
	timer   *clock.Timer
	woke    time.Time     // when the timer that ended the last sleep fired: the next call's start
	pokes   chan struct{} // a Run's: Run.Poke wakes its sleep (nil: nobody pokes)
}

// run is the loop: sleep until the next call is due (or a poke), take a
// token of the poll rate limit, call and apply the answer, until the core
// says the wait is over, its deadline comes or its context ends.
func (l *loop[I, O]) run() error {
	if !l.s.Next.IsZero() { // resumed, or an initial delay
		now := l.clk().Now()
		if !l.s.Next.Before(l.s.Deadline) { // the deadline comes first
			l.sleep(l.s.Deadline.Sub(now), false)
			return l.end(l.interrupted())
		}
		if !l.sleep(l.s.Next.Sub(now), true) {
			return l.end(l.interrupted())
		}
	}
	for {
		wait, ok := l.admit()
		if !ok {
			return l.end(l.w.timeoutErr(l.s, l.clk().Now(), l.lastErr))
		}
		if wait > 0 && !l.sleep(wait, false) {
			return l.end(l.interrupted())
		}
		l.dropPoke()          // a poke while waiting for the token is done with the call
		if l.interrupting() { // ended as the sleep did: no call
			return l.end(l.interrupted())
		}
		var ans Answer[O] // this turn's call
		actx, stop, now := l.call(&ans)
		next, done, err := l.apply(actx, stop, &ans, now)
		if done {
			return l.end(err)
		}
		if !l.sleep(next, true) {
			return l.end(l.interrupted())
		}
	}
}

// interrupting reports whether the wait's context, or the caller's, has
// ended. (The caller's ends a moment before the calls' context does.)
func (l *loop[I, O]) interrupting() bool { return l.ctx.Err() != nil || l.span.Err() != nil }

// call makes the next call, in the loop's goroutine, under the wait's
// context, which ends at its deadline (and under the per-attempt
// timeout), and fills in *ans with it, a zero Answer: when it started
// (when the timer that ended the last sleep fired, so that the schedule
// does not drift by the loop's own latency), how long it took and what
// it returned. It returns the rest of what apply takes: the attempt's
// context, the cancellation that came during the call, if one did, and
// when the call returned.
func (l *loop[I, O]) call(ans *Answer[O]) (actx context.Context, stop *stopReason, now time.Time) {
	start := l.woke
	if l.woke = (time.Time{}); start.IsZero() {
		start = l.clk().Now()
	}
	l.lastCall = lastCall{start: start}
	actx = l.ctx // the attempt's context (its span)
	if l.obs != nil {
		actx = l.startAttempt(l.ctx, l.s.Attempts+1, start)
	}
	callCtx, cancel := actx, context.CancelFunc(nil)
	if t := l.w.cfg.attemptTimeout; t > 0 {
		callCtx, cancel = l.clk().WithTimeout(actx, t)
	}
	ans.Output, ans.Err = l.w.op(callCtx, l.in)
	ans.Start, ans.Latency = start, l.clk().Since(start)
	if cancel != nil {
		cancel()
	}
	return actx, stopOf(l.cancelled()), start.Add(ans.Latency)
}

// sleep waits d on the loop's timer, in this goroutine, and returns
// whether the wait goes on: false when its context ended (the caller's
// ended, Run.Cancel was called, or the deadline came, which only a sleep
// for a resumed wait's deadline reaches: the core times every call
// before it). With pokable, a poke brings the call forward as the core's
// poke rule says (see poked); otherwise, while the wait waits for a
// token of the poll rate limit, a poke is dropped.
func (l *loop[I, O]) sleep(d time.Duration, pokable bool) bool {
	if d <= 0 {
		return l.ctx.Err() == nil
	}
	if l.timer == nil {
		l.timer = l.clk().Timer(d)
	} else {
		timers.Reset(l.clk(), l.timer, d)
	}
	due := l.s.Next // when the call comes, moved by a poke
	for {
		select {
		case l.woke = <-l.timer.C:
			return l.ctx.Err() == nil
		case <-l.ctx.Done():
			return false // the wait ends, and end stops the timer
		case <-l.pokes:
			if pokable && l.poked(&due) {
				return true
			}
		}
	}
}

// poked applies a poke to a sleep whose call is due at *due, as the
// core's poke rule says: it reports whether the call comes now, or moves
// the timer (and *due) to when it comes.
func (l *loop[I, O]) poked(due *time.Time) bool {
	now := l.clk().Now()
	at, ok := l.w.pokeAt(l.lastCall, *due, now)
	if !ok {
		return false // the schedule's call comes first
	}
	l.stopTimer()
	if !at.After(now) {
		return true
	}
	timers.Reset(l.clk(), l.timer, at.Sub(now))
	*due = at
	return false
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
	case <-l.pokes:
	default: // none, or nobody pokes (Wait's)
	}
}

// cancel is Run.Cancel's: it ends the calls' context, which ends the
// sleep.
func (l *loop[I, O]) cancel() { l.release() }

// poke is Run.Poke's: it wakes the sleep, or the next one if the wait is
// calling.
func (l *loop[I, O]) poke() {
	select {
	case l.pokes <- struct{}{}:
	default: // one is pending already
	}
}

// cancelled returns the error and cause of the wait's context if the
// caller (or Run.Cancel) cancelled it, nil if it goes on or its deadline
// ended it. It reads the caller's context too, which may have ended a
// moment before it ended the calls' context.
func (l *loop[I, O]) cancelled() (reason, cause error) {
	for _, c := range []context.Context{l.ctx, l.span} {
		if err := c.Err(); err != nil {
			if err == context.DeadlineExceeded || context.Cause(c) == context.DeadlineExceeded {
				return nil, nil
			}
			return err, context.Cause(c)
		}
	}
	return nil, nil
}

// interrupted returns the error of a wait that ended between calls, by
// its deadline (a timeout) or its context (a timeout if the caller's
// deadline ended it, a cancellation otherwise).
func (l *loop[I, O]) interrupted() error { return l.interruptedBy(l.cancelled()) }
