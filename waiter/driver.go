package waiter

import (
	"context"
	"errors"
	"time"

	"github.com/benbjohnson/clock"

	"github.com/waitable/waitable/retry"
	"github.com/waitable/waitable/telemetry"
)

// The driver: one wait's state in process, shared by the loop (loop.go)
// and a Batch's members (batch.go): how a wait is set up (init), admitted
// by the poll rate limit (admit), how a call's answer goes to the core
// and what comes of it (apply), and how an attempt is published
// (record). How a wait ends is end.go's.

// driver is one wait's state in process, the loop's and a Batch member's:
// its Checkpoint, retry token, last output and observer. A Run's wait
// never changes a Checkpoint its Run has: each attempt steps a fresh copy
// and publishes it under the Run's lock (see next and record); a wait
// with no Run (Wait's, a WaitAll member's) steps its own in place.
type driver[I, O any] struct {
	w        *Waiter[I, O]
	name     string // the wait's name in a fan-out, for its errors
	in       I
	span     context.Context // the caller's context, with the wait's span if one records
	s        *Checkpoint
	tok      retry.Token
	last     O
	lastErr  error
	obs      telemetry.WaitObserver
	r        *Run[O]  // the Run whose events get the attempts (nil: nobody reads them)
	lastCall lastCall // the call in flight, or the last one: what a poke needs
}

// init sets a wait up: from scratch (from nil) or from a checkpoint. It
// returns the error that ends the wait before any call: bad arguments, a
// context already done, no time left. The driver then makes the calls'
// context its own way. A wait from scratch learns from the waiter's
// history (prior, if it did already) if events, its attempts will be
// read (a Run's), or an observer records them, or its schedule learns.
func (d *driver[I, O]) init(w *Waiter[I, O], parent context.Context, in I, maxWait time.Duration, from *Checkpoint,
	events bool, prior *Prior) error {
	d.w, d.in, d.span = w, in, parent
	if d.s == nil { // no place given for it
		d.s = new(Checkpoint)
	}
	room := d.s.Seen // for its counts, if it was given some
	now := d.clk().Now()
	until, hasDeadline := time.Duration(0), false
	if dl, ok := parent.Deadline(); ok {
		until, hasDeadline = d.clk().Until(dl), true // on the waiter's clock, as every reading of time
	}
	if from == nil {
		if hasDeadline && maxWait > 0 && until < maxWait {
			maxWait = max(until, time.Nanosecond) // the caller's deadline is the wait's
		}
		s, err := w.Begin(now, maxWait, 0)
		if err != nil {
			return err
		}
		*d.s = s
		d.s.Seen = room
	} else {
		if err := w.check(*from); err != nil {
			return err
		}
		*d.s = *from
		d.s.Seen = append(room, from.Seen...)
		if hasDeadline && now.Add(until).Before(d.s.Deadline) {
			d.s.Deadline = now.Add(until)
		}
	}
	if w.obs != nil {
		d.span = d.startWait(parent, now)
	}
	if err := parent.Err(); err != nil {
		if errors.Is(err, context.DeadlineExceeded) {
			return d.end(d.w.timeoutErr(d.s, now, nil))
		}
		return d.end(d.w.cancelErr(err, context.Cause(parent), d.s, now, nil))
	}
	if !now.Before(d.s.Deadline) {
		return d.end(d.w.timeoutErr(d.s, now, nil))
	}
	switch {
	case from != nil:
	case prior != nil:
		d.s.Prior = prior
	case w.cfg.learned || events || (d.obs != nil && d.obs.Recording()):
		// Only a wait whose estimates someone reads, or whose schedule
		// learns, learns: a Wait with nobody observing spends nothing
		// on it (it is recorded in the History all the same).
		d.s.Prior = w.Learn(parent, in)
	}
	return nil
}

// clk is the waiter's clock.
func (d *driver[I, O]) clk() clock.Clock { return d.w.cfg.clock }

// stopOf is a cancellation's reason and cause, nil if there is none.
func stopOf(reason, cause error) *stopReason {
	if reason == nil {
		return nil
	}
	return &stopReason{reason, cause}
}

// interruptedBy returns the error of a wait that ended between calls: a
// timeout if reason is nil (its deadline ended it), else a cancellation
// with reason and cause.
func (d *driver[I, O]) interruptedBy(reason, cause error) error {
	now := d.clk().Now()
	if reason == nil {
		return d.w.timeoutErr(d.s, now, d.lastErr)
	}
	return d.w.cancelErr(reason, cause, d.s, now, d.lastErr)
}

// admit takes a token from the poll rate limit (WithPollRateLimit) and
// returns how long to wait for it; ok is false if it would come too late.
func (d *driver[I, O]) admit() (wait time.Duration, ok bool) {
	lim := d.w.cfg.limiter
	if lim == nil {
		return 0, true
	}
	now := d.clk().Now()
	if lim.AllowN(now, 1) {
		return 0, true
	}
	r := lim.ReserveN(now, 1)
	wait = r.DelayFrom(now)
	if !r.OK() || !now.Add(wait).Before(d.s.Deadline) {
		r.CancelAt(now)
		return 0, false
	}
	return wait, true
}

// apply applies the answer of a call, ans (its Judgment zero), which
// returned at now, to the wait: the core judges and steps it, unless the
// caller cancelled during the call (stop, nil if not: then it is
// counted, not judged, and the wait ends cancelled). The observer and the
// Run's events get the attempt; actx is the attempt's context. It returns
// the delay before the next call or, done, the error that ended the wait
// (nil for success).
func (d *driver[I, O]) apply(actx context.Context, stop *stopReason, ans *Answer[O], now time.Time) (next time.Duration, done bool, _ error) {
	if ans.Err == nil {
		d.last = ans.Output // the last output observed: of the last call that succeeded
	}
	if stop == nil && !late(d.s, ans, now) {
		d.tok = d.w.judge(actx, d.in, d.s.Attempts+1, ans, d.tok)
	}
	return d.advance(actx, ans, now, stop)
}

// advance applies a judged answer to the wait's Checkpoint (or, stop not
// nil, counts it, not judged, and ends the wait cancelled), and records
// the attempt.
func (d *driver[I, O]) advance(actx context.Context, ans *Answer[O], now time.Time, stop *stopReason) (time.Duration, bool, error) {
	s, p := d.next()
	var v verdict
	var err error
	if stop != nil {
		err = d.w.interrupt(s, ans, &v, false, stop.reason, stop.cause, ans.Err, now)
	} else {
		err = d.w.step(s, ans, now, &v)
	}
	d.lastErr = ans.Err
	d.record(actx, ans, &v, p, now)
	return v.nextDelay, v.outcome != "", err
}

// next returns the Checkpoint the wait's next attempt steps: the wait's
// own when it has no Run, else a fresh copy in p, the Attempt that
// publishes it (see record).
func (d *driver[I, O]) next() (s *Checkpoint, p *Attempt[O]) {
	if d.r == nil {
		return d.s, nil
	}
	p = &Attempt[O]{Checkpoint: d.s.clone()}
	return &p.Checkpoint, p
}

// record tells the observer of the call of ans, as v judged it, and
// publishes the attempt p (see next) to the Run, if the wait has one: its
// Checkpoint is then the wait's and the Run's latest, and the Run's
// events get p.
func (d *driver[I, O]) record(actx context.Context, ans *Answer[O], v *verdict, p *Attempt[O], now time.Time) {
	s := d.s // the Checkpoint after the attempt
	if p != nil {
		s = &p.Checkpoint
	}
	d.endAttempt(actx, s, ans, v, now)
	if d.r == nil {
		return
	}
	d.lastCall = lastCallOf(ans, v) // what a poke of the Run needs
	fill(p, ans, v)
	d.s = &p.Checkpoint
	d.r.record(p)
}
