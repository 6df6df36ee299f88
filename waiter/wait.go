package waiter

import (
	"context"
	"time"

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
	var d driver[I, O]
	if err := d.init(w, ctx, in, maxWait, nil); err != nil {
		return d.last, err
	}
	return d.run()
}

// arm makes the calls' context of a Wait, ended at the deadline by a
// timer of its own: on the real clock the context's, armed when a call
// first watches it (see waitCtx); on another clock the driver's.
func (d *driver[I, O]) arm() {
	if d.w.cfg.realClock {
		d.ctx = newWaitCtx(d.spanCtx, d.s.Deadline, nil, true)
		d.done = d.parent.Done() // nil for a context that never ends
		return
	}
	d.ctx = newWaitCtx(d.spanCtx, d.s.Deadline, nil, false)
	d.expiry = d.clk.AfterFunc(d.s.Deadline.Sub(d.clk.Now()), d.expire)
}

// expire ends the calls' context at the deadline.
func (d *driver[I, O]) expire() { d.ctx.end(context.DeadlineExceeded, nil) }

// WaitFrom is [Waiter.Wait] resumed from a checkpoint (an attempt's
// Checkpoint, or [Run.Checkpoint], perhaps saved by another process): the
// same deadline, attempt numbering, schedule position and jitter. The
// first call is made when the checkpoint said the next one was due. A
// checkpoint of another waiter, of other rules, damaged, or empty (the zero
// State) is refused with an error matching [ErrCheckpoint] (a
// [*CheckpointError] saying which [Problem]). The last output of the waits
// before the checkpoint is not in it: until the first call, there is none.
func (w *Waiter[I, O]) WaitFrom(ctx context.Context, in I, from State) (O, error) {
	var d driver[I, O]
	if err := d.init(w, ctx, in, 0, &from); err != nil {
		return d.last, err
	}
	return d.run()
}

// run makes attempts until the wait ends, sleeping between them.
func (d *driver[I, O]) run() (out O, err error) {
	d.arm()
	returned := false
	defer func() {
		if !returned { // the operation panicked: release, and let it go on
			d.release()
			d.endWait(telemetry.OutcomePanic, nil)
		}
	}()
	if !d.s.Next.IsZero() { // resumed, or an initial delay: the next call is due at s.Next
		if wait := d.s.Next.Sub(d.clk.Now()); wait > 0 && !d.sleep(wait) {
			returned = true
			return d.last, d.end(d.stopped())
		}
	}
	for {
		wait, ok := d.admit()
		if !ok {
			returned = true
			return d.last, d.end(d.w.timedOut(d.s, d.clk.Now(), d.lastErr))
		}
		if wait > 0 && !d.sleep(wait) {
			returned = true
			return d.last, d.end(d.stopped())
		}
		if dec := d.attempt(); dec.Done { // a cancellation during the call included
			returned = true
			return d.last, d.end(dec.Err)
		} else if !d.sleep(dec.Delay) {
			returned = true
			return d.last, d.end(d.stopped())
		}
	}
}
