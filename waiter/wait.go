package waiter

import (
	"context"
	"sync"
	"time"

	"github.com/benbjohnson/clock"

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
	var d waitDriver[I, O]
	if err := d.init(w, ctx, in, maxWait, nil, nil); err != nil {
		return d.last, err
	}
	d.outside = monotonic(d.s.Deadline) // see sleepTimers
	d.rtPool = d.outside
	return d.run()
}

// waitDriver drives a Wait in the caller's goroutine: the driver, and
// the timers it sleeps on.
type waitDriver[I, O any] struct {
	driver[I, O]
	sleeper *clock.Timer    // the timer between calls, made once (a test's clock)
	done    <-chan struct{} // what the sleeps watch, taken once: ctx.Done(), or on the real clock the caller's
	expiry  *clock.Timer    // the timer that ends ctx at the deadline (a test's clock)
	rt      *time.Timer     // the timer between calls on the real clock, from sleepTimers
	rtPool  bool            // rt may come from sleepTimers and go back to it
	outside bool            // on the real clock, out of any synctest bubble
	poke    bool            // the calls' context, when it ends, resets rt to wake the sleep (see sleepReal)
	woke    time.Time       // when the sleep's timer fired: the next call's start
}

// sleepTimers keeps the real clock's timers of ended Waits for the next
// ones. A timer goes back only if its last value was received: its
// channel is then empty and it is not running, so that a Reset starts it
// clean even where timer channels are buffered (GODEBUG
// asynctimerchan=1). A sleep that the caller's context cut short keeps
// its timer out (see sleepReal), and so does a wait whose calls' context
// reset its timer when it ended (see waitCtx.sleeper). Waits
// in a synctest bubble, whose timers belong to the bubble, neither take
// nor give: Wait tells them by the deadline it has just set, which has no
// monotonic clock reading there. WaitFrom, whose State may come from
// elsewhere, makes its own timer.
var sleepTimers sync.Pool

// arm makes the calls' context of a Wait, ended at the deadline by a
// timer of its own: on the real clock the context's, armed when a call
// first watches it (see waitCtx); on another clock the driver's.
func (d *waitDriver[I, O]) arm() {
	if d.w.cfg.realClock {
		d.ctx = newWaitCtx(d.spanCtx, d.s.Deadline, nil, true, &d.w.watches, d.parent)
		d.done = d.parent.Done() // nil for a context that never ends
		// A watch ends the calls' context when the caller's ends. Out of
		// a bubble, whose timers no goroutine outside may touch, the end
		// then resets the sleep's timer, and the sleep has one channel.
		d.poke = d.outside && d.ctx.watch != nil
		return
	}
	d.ctx = newWaitCtx(d.spanCtx, d.s.Deadline, nil, false, &d.w.watches, d.parent)
	// The context's method, not the driver's: nothing outside Wait's frame
	// points into the driver, which therefore lives on Wait's stack.
	d.expiry = d.clk().AfterFunc(d.s.Deadline.Sub(d.clk().Now()), d.ctx.expire)
}

// WaitFrom is [Waiter.Wait] resumed from a checkpoint (an attempt's
// Checkpoint, or [Run.Checkpoint], perhaps saved by another process): the
// same deadline, attempt numbering, schedule position and jitter. The
// first call is made when the checkpoint said the next one was due. A
// checkpoint of another waiter, of other rules, damaged, or empty (the zero
// State) is refused with an error matching [ErrCheckpoint] (a
// [*CheckpointError] saying which [Problem]). The last output of the waits
// before the checkpoint is not in it: until the first call, there is none.
func (w *Waiter[I, O]) WaitFrom(ctx context.Context, in I, from State) (O, error) {
	var d waitDriver[I, O]
	if err := d.init(w, ctx, in, 0, &from, nil); err != nil {
		return d.last, err
	}
	d.outside = monotonic(time.Now()) // the State's times, perhaps read from JSON, have no monotonic reading
	return d.run()
}

// sleep waits dur on the wait's timer, or until the calls' context
// ends (false).
func (d *waitDriver[I, O]) sleep(dur time.Duration) bool {
	if d.w.cfg.realClock {
		return d.sleepReal(dur)
	}
	if d.sleeper == nil {
		d.sleeper = d.clk().Timer(dur)
	} else {
		timers.Reset(d.clk(), d.sleeper, dur)
	}
	if d.done == nil {
		d.done = d.ctx.Done()
	}
	select {
	case d.woke = <-d.sleeper.C:
		return true
	case <-d.done:
		d.sleeper.Stop()
		return false
	}
}

// sleepReal is Wait's sleep on the real clock, where the calls' context
// keeps its own deadline (see waitCtx): it waits for its timer, and ends
// the calls' context itself when the timer fired at or after the
// deadline (the delays between calls end before the deadline, and a
// caller's deadline ends the caller's context, so only a late timer
// meets it). When the caller's context ends, its watch ends the calls'
// context, which resets the timer to fire at once (poke): the sleep then
// receives from one channel instead of selecting between two, which
// costs more than the rest of a sleep on a timer already due. A wait in a synctest
// bubble, whose timers no goroutine outside it may reset, selects between
// its timer and the caller's context instead.
func (d *waitDriver[I, O]) sleepReal(dur time.Duration) bool {
	if d.rt != nil {
		d.rt.Reset(dur)
	} else {
		if d.rt = d.pooledTimer(); d.rt != nil {
			d.rt.Reset(dur)
		} else {
			d.rt = time.NewTimer(dur)
		}
		if d.poke && !d.ctx.sleepOn(d.rt) {
			return d.cut()
		}
	}
	if d.poke {
		// The end resets the timer after it marks the context ended: a
		// reset before the one above shows here, one after fires it.
		if d.ctx.ended.Load() {
			return d.cut()
		}
		if d.woke = <-d.rt.C; d.ctx.ended.Load() {
			return d.cut()
		}
		return d.before()
	}
	if d.done == nil { // the caller's context never ends: only the timer can
		d.woke = <-d.rt.C
		return d.before()
	}
	select {
	case d.woke = <-d.rt.C:
		return d.before()
	case <-d.done:
		d.ctx.end(d.parent.Err(), context.Cause(d.parent))
		return d.cut()
	}
}

// cut ends a sleep that the calls' context cut short. Its timer is
// stopped, perhaps with a value in a buffered channel, and stays out of
// sleepTimers.
func (d *waitDriver[I, O]) cut() bool {
	d.rt.Stop()
	d.rtPool = false
	return false
}

// pooledTimer returns a timer from sleepTimers, or nil if the wait may
// not take one (see sleepTimers) or the pool is empty.
func (d *waitDriver[I, O]) pooledTimer() *time.Timer {
	if !d.rtPool {
		return nil
	}
	t, _ := sleepTimers.Get().(*time.Timer)
	return t
}

// before reports whether the sleep's timer fired before the deadline;
// if not, it ends the calls' context.
func (d *waitDriver[I, O]) before() bool {
	if d.woke.Before(d.s.Deadline) {
		return true
	}
	d.ctx.end(context.DeadlineExceeded, nil)
	return false
}

// attempt makes one call, judges it and applies it to the State (see
// complete), writing the Decision to *dec, which is zero; Wait's, which
// reports no events.
func (d *waitDriver[I, O]) attempt(dec *Decision) {
	var c call
	d.prepare(d.woke, &c)
	d.woke = time.Time{}
	out, latency, err := d.invoke(&c)
	var o Poll
	d.complete(&c, out, err, latency, &o, dec)
}

// stop stops the wait's timers.
func (d *waitDriver[I, O]) stop() {
	if d.expiry != nil {
		d.expiry.Stop()
	}
	if d.sleeper != nil {
		d.sleeper.Stop()
	}
	if d.rt != nil {
		poked := d.poke && d.ctx.unsleep()
		if d.rtPool && !poked { // its last value was received (see sleepReal)
			sleepTimers.Put(d.rt)
		} else {
			d.rt.Stop()
		}
	}
}

// run makes attempts until the wait ends, sleeping between them.
func (d *waitDriver[I, O]) run() (out O, err error) {
	d.undue = true // no one sees the State before the wait ends: it sleeps dec.Delay
	d.arm()
	defer d.stop()
	returned := false
	defer func() {
		if !returned { // the operation panicked: release, and let it go on
			d.release()
			d.endWait(telemetry.OutcomePanic, nil)
		}
	}()
	if !d.s.Next.IsZero() { // resumed, or an initial delay: the next call is due at s.Next
		if wait := d.s.Next.Sub(d.clk().Now()); wait > 0 && !d.sleep(wait) {
			returned = true
			return d.last, d.end(d.stopped())
		}
	}
	for {
		wait, ok := d.admit()
		if !ok {
			returned = true
			return d.last, d.end(d.w.timedOut(d.s, d.clk().Now(), d.lastErr))
		}
		if wait > 0 && !d.sleep(wait) {
			returned = true
			return d.last, d.end(d.stopped())
		}
		var dec Decision
		if d.attempt(&dec); dec.Done { // a cancellation during the call included
			returned = true
			return d.last, d.end(dec.Err)
		} else if !d.sleep(dec.Delay) {
			returned = true
			return d.last, d.end(d.stopped())
		}
	}
}
