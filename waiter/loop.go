package waiter

import (
	"context"
	"errors"
	"runtime/debug"
	"slices"
	"sync"
	"time"

	"github.com/benbjohnson/clock"

	"github.com/waitable/waitable/internal/attemptctx"
	"github.com/waitable/waitable/internal/timers"
	"github.com/waitable/waitable/retry"
	"github.com/waitable/waitable/telemetry"
)

// The in-process drivers: the loop of Wait and Start. Wait's runs in the
// caller's goroutine, sleeps included. A wait of its own (Start's, a
// Group's or WaitAll's member's) runs in a goroutine while it calls and
// judges, and between calls parks: it holds no goroutine, only its timer,
// whose callback (or a poke, Run.Cancel or the caller's context) resumes
// it in a goroutine again. The rules are the core's (core.go); a driver
// only sleeps, calls and publishes.

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
	l.s = newCheckpoint()
	if err := l.init(w, ctx, in, maxWait, from); err != nil {
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
// and returns at once. Its rules are those of [Waiter.Wait], and it makes
// its calls the same way, one at a time, each in a goroutine that lives
// as long as the call and the judging of its answer: a Run ends when its
// call returns. Between calls a Run holds no goroutine, only its timer, so
// that a million sleeping waits cost no stacks. Cancelling ctx (or calling
// [Run.Cancel]) ends the wait. To wait for many resources together, use a
// [Group] (or [WaitAll]), or a [Batch] for thousands.
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
	l := ownLoop[I, O]()
	l.name, l.s = name, &l.own
	if err := l.init(w, ctx, in, maxWait, from); err != nil {
		r.finish(l.last, err, l.final())
		return r
	}
	l.r, r.ctl = r, l
	r.begin(l.s)
	l.launch(r.finish)
	return r
}

// launch begins a wait of its own (Start's, a Group's or WaitAll's
// member's), once init has set it up: it runs in a goroutine until its
// first sleep between calls, then sleeps with none (see park), and finish
// is called with its outcome.
func (l *loop[I, O]) launch(finish func(out O, err error, s *Checkpoint)) {
	// One context for the wait's calls: it ends at the deadline, with the
	// caller's context, or on Run.Cancel (which also wakes the sleep).
	l.ctx, l.release = l.clk().WithDeadline(attemptctx.Mark(l.span), l.s.Deadline)
	l.pk.finish, l.pk.ringing = finish, l.ring
	if l.span.Done() != nil { // the caller's context can end a sleep
		l.pk.unwatch = context.AfterFunc(l.span, l.wake)
	}
	go l.drive(l.run)
}

// drive runs a wait of its own in this goroutine, by step (its start, or
// its resumption after a sleep), until the wait ends, then finishes it, or
// until it parks. A panic of the operation (or of a WithMatch function)
// ends the wait with a *PanicError, which the Run's Result (or WaitAll)
// panics with.
func (l *loop[I, O]) drive(step func() error) {
	defer func() {
		if p := recover(); p != nil {
			pe := &PanicError{Value: p, Stack: debug.Stack()}
			now := l.clk().Now()
			s, p := l.next()
			var ans Answer[O]
			var v verdict
			l.change(s, func(s *Checkpoint) error {
				l.w.panicked(s, pe, l.lastCall.start, now, &ans, &v)
				return nil
			})
			l.record(l.ctx, &ans, &v, p, now)
			l.done(l.end(pe))
		}
	}()
	if err := step(); err != errParked {
		l.done(err)
	}
}

// done finishes a wait of its own with its outcome.
func (l *loop[I, O]) done(err error) {
	if l.pk.unwatch != nil {
		l.pk.unwatch()
	}
	s := l.s
	if l.r != nil { // a Run keeps it (a WaitAll member has none)
		s = l.final()
	}
	l.pk.finish(l.last, err, s)
}

// final returns the wait's final Checkpoint, for its Run to keep: a copy
// when it is the loop's own (a Run that keeps no attempt publishes that
// one), so that an ended Run holds its Checkpoint and not its loop, with
// the loop's contexts, timers and driver state.
func (l *loop[I, O]) final() *Checkpoint {
	if l.s != &l.own {
		return l.s
	}
	c := l.own
	return &c
}

// errParked is what run and turns return when the wait parked: the
// goroutine's part is over, and whoever unparks it resumes it.
var errParked = errors.New("parked")

// loop is one wait of Wait or Start: its driver state and its timers.
// Wait's sleeps in the caller's goroutine; a wait of its own (pk set)
// parks between calls: no goroutine, its alarm armed, and whatever ends
// the sleep (the alarm, a poke that brings the call forward, Run.Cancel,
// the caller's context) takes it out of the park and resumes it.
type loop[I, O any] struct {
	driver[I, O]
	ctx     context.Context    // the calls' context: ends at the deadline, with the caller's, or on Cancel
	release context.CancelFunc // ends ctx
	timer   *clock.Timer       // the sleeps in a goroutine (all of Wait's; a parked wait's for a token, or for its deadline)
	woke    time.Time          // when the timer that ended the last sleep fired: the next call's start
	own     Checkpoint         // where a goroutine's wait keeps its Checkpoint (see start)
	pk      *parking[O]        // a wait of its own's (nil: Wait's, whose loop so stays on the caller's stack)
}

// parking is what a wait of its own adds to its loop: how it ends, and
// its park, guarded by mu between the wait and whoever unparks it.
type parking[O any] struct {
	finish  func(out O, err error, s *Checkpoint) // takes its outcome
	ringing func()                                // the loop's ring, made once
	unwatch func() bool                           // stops watching the caller's context (nil: it cannot end)
	mu      sync.Mutex
	alarm   *clock.Timer // the parked sleeps' timer: calls ring
	due     time.Time    // when a parked sleep's call comes
	parked  bool         // asleep with no goroutine: whoever clears it resumes the wait
	poked   bool         // a poke came while the wait was not parked
}

// ownLoop returns the loop of a wait of its own, with its parking, made
// at once.
func ownLoop[I, O any]() *loop[I, O] {
	b := new(struct {
		l loop[I, O]
		p parking[O]
	})
	b.l.pk = &b.p
	return &b.l
}

// run is the loop: sleep until the next call is due (or a poke), take a
// token of the poll rate limit, call and apply the answer, until the core
// says the wait is over, its deadline comes or its context ends. A wait of
// its own returns errParked when it parks.
func (l *loop[I, O]) run() error {
	if !l.s.Next.IsZero() { // resumed, or an initial delay
		now := l.clk().Now()
		if !l.s.Next.Before(l.s.Deadline) { // the deadline comes first
			l.sleep(l.s.Deadline.Sub(now))
			return l.end(l.interrupted())
		}
		if l.pk != nil {
			if l.park(l.s.Next.Sub(now)) {
				return errParked
			}
		} else if !l.sleep(l.s.Next.Sub(now)) {
			return l.end(l.interrupted())
		}
	}
	return l.turns()
}

// turns is the loop from a call on: after a sleep that ended as it should.
func (l *loop[I, O]) turns() error {
	for {
		if l.interrupting() { // ended as the sleep did: no call
			return l.end(l.interrupted())
		}
		wait, ok := l.admit()
		if !ok {
			return l.end(l.w.timeoutErr(l.s, l.clk().Now(), l.lastErr))
		}
		if wait > 0 && !l.sleep(wait) {
			return l.end(l.interrupted())
		}
		l.dropPoke() // a poke while waiting for the token is done with the call
		if l.ctx.Err() != nil {
			return l.end(l.interrupted())
		}
		var ans Answer[O] // this turn's call
		actx, stop, now := l.call(&ans)
		next, done, err := l.apply(actx, stop, &ans, now)
		if done {
			return l.end(err)
		}
		if l.pk != nil {
			if l.park(next) {
				return errParked
			}
		} else if !l.sleep(next) {
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
// whether the wait goes on: false when the caller's context ended (or,
// for a wait of its own, Run.Cancel was called or its deadline came: it
// sleeps so only to wait for a token, or for its deadline). Wait's sleep
// watches the caller's context, not the calls' context (which ends with
// the caller's, and at the deadline, which no sleep passes: the core
// times the next call before it, and run sleeps until it when a resumed
// wait's next call comes after it), so that a context made for the wait
// costs nothing while the wait sleeps.
func (l *loop[I, O]) sleep(d time.Duration) bool {
	if d <= 0 {
		return l.ctx.Err() == nil
	}
	if l.timer == nil {
		l.timer = l.clk().Timer(d)
	} else {
		timers.Reset(l.clk(), l.timer, d)
	}
	done := l.span.Done()
	if l.pk != nil {
		done = l.ctx.Done()
	}
	select {
	case l.woke = <-l.timer.C:
		return l.ctx.Err() == nil
	case <-done:
		return false // the wait ends, and end stops the timer
	}
}

// park ends this goroutine's part in a wait of its own until its next
// call, d from now, comes: it arms the alarm and reports true, or false
// when the call comes now (a poke that came during the last call says
// so, or d is not positive) or the wait has ended (interrupting).
func (l *loop[I, O]) park(d time.Duration) bool {
	l.pk.mu.Lock()
	defer l.pk.mu.Unlock()
	if l.interrupting() {
		return false
	}
	l.pk.due = l.s.Next
	if l.pk.poked {
		l.pk.poked = false
		now := l.clk().Now()
		if at, ok := l.w.pokeAt(l.lastCall, l.pk.due, now); ok {
			d, l.pk.due = at.Sub(now), at
		}
	}
	if d <= 0 {
		return false
	}
	if l.pk.alarm == nil {
		l.pk.alarm = l.clk().AfterFunc(d, l.pk.ringing)
	} else {
		timers.Reset(l.clk(), l.pk.alarm, d)
	}
	l.pk.parked = true
	return true
}

// ring is the alarm's: in a goroutine of the timer's, it resumes the wait
// it finds parked (and nothing, if something else unparked it first).
func (l *loop[I, O]) ring() {
	l.pk.mu.Lock()
	parked := l.pk.parked
	l.pk.parked = false
	l.pk.mu.Unlock()
	if parked {
		l.woke = l.clk().Now()
		l.drive(l.turns)
	}
}

// unpark takes the wait out of its park, if it is parked and its alarm
// has not rung (if it has, ring resumes it), and reports whether it did:
// the caller then resumes it. l.pk.mu held.
func (l *loop[I, O]) unpark() bool {
	if !l.pk.parked || !l.pk.alarm.Stop() {
		return false
	}
	l.pk.parked = false
	return true
}

// wake resumes a parked wait whose sleep something ended: Run.Cancel or
// the caller's context (the resumed wait then ends), or a poke that
// brought the call to now.
func (l *loop[I, O]) wake() {
	l.pk.mu.Lock()
	resume := l.unpark()
	l.pk.mu.Unlock()
	if resume {
		go l.drive(l.turns)
	}
}

// stopTimer stops the loop's timers and drains a value the sleeps' timer
// may have sent, so that the next sleep starts clean on every clock.
func (l *loop[I, O]) stopTimer() {
	if l.timer != nil && !l.timer.Stop() {
		select {
		case <-l.timer.C:
		default:
		}
	}
	if l.pk != nil && l.pk.alarm != nil {
		l.pk.mu.Lock()
		l.pk.alarm.Stop()
		l.pk.parked = false
		l.pk.mu.Unlock()
	}
}

// dropPoke forgets a poke that came while the wait waited for a token.
func (l *loop[I, O]) dropPoke() {
	if l.pk == nil {
		return // Wait's: nobody pokes
	}
	l.pk.mu.Lock()
	l.pk.poked = false
	l.pk.mu.Unlock()
}

// cancel is Run.Cancel's: it ends the calls' context and wakes the sleep.
func (l *loop[I, O]) cancel() {
	l.release()
	l.wake()
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

// poke is Run.Poke's: it applies the core's poke rule to a parked wait,
// which either calls now or sleeps until an earlier instant, and keeps
// it for the next sleep of a wait that is not parked (see park).
func (l *loop[I, O]) poke() {
	l.pk.mu.Lock()
	if !l.pk.parked {
		l.pk.poked = true
		l.pk.mu.Unlock()
		return
	}
	now := l.clk().Now()
	at, ok := l.w.pokeAt(l.lastCall, l.pk.due, now)
	if !ok { // the schedule's call comes first
		l.pk.mu.Unlock()
		return
	}
	if at.After(now) {
		if l.pk.alarm.Stop() { // else it rang: the call is being made
			timers.Reset(l.clk(), l.pk.alarm, at.Sub(now))
			l.pk.due = at
		}
		l.pk.mu.Unlock()
		return
	}
	l.pk.mu.Unlock()
	l.wake() // the call comes now, if the wait is still parked
}

// driver is one wait's state in process, the loop's and a Batch member's:
// its Checkpoint, retry token, last output and observer. A wait whose
// attempts are published (a Run's) never changes a Checkpoint it has
// published: each attempt steps a copy (see record).
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
// context its own way.
func (d *driver[I, O]) init(w *Waiter[I, O], parent context.Context, in I, maxWait time.Duration, from *Checkpoint) error {
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
	return nil
}

// newCheckpoint returns a place for the Checkpoint of a wait in the
// caller's goroutine, with room for the counts of two kinds of answer
// (Checkpoint.Seen: a wait mostly sees no more), made at once.
func newCheckpoint() *Checkpoint {
	b := new(struct {
		s    Checkpoint
		seen [2]SeenCount
	})
	b.s.Seen = b.seen[:0]
	return &b.s
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
	err := d.change(s, func(s *Checkpoint) error {
		if stop != nil {
			return d.w.interrupt(s, ans, &v, false, stop.reason, stop.cause, ans.Err, now)
		}
		return d.w.step(s, ans, now, &v)
	})
	d.lastErr = ans.Err
	d.record(actx, ans, &v, p, now)
	return v.nextDelay, v.outcome != "", err
}

// next returns the Checkpoint the wait's next attempt changes: its own,
// or, for a Run that keeps attempts, whose checkpoints are published and
// never changed, the copy in p, the new Attempt that will publish it (nil
// when the Run keeps none, or there is no Run: the wait's own changes,
// under the Run's lock: see change).
func (d *driver[I, O]) next() (s *Checkpoint, p *Attempt[O]) {
	if d.r == nil || d.r.ev.size == 0 {
		return d.s, nil
	}
	p = new(Attempt[O])
	p.Checkpoint = *d.s
	p.Checkpoint.Seen = slices.Clone(d.s.Seen)
	return &p.Checkpoint, p
}

// change applies f, one attempt's change, to the wait's Checkpoint s (see
// next): under the lock of a Run that keeps no attempt, whose readers
// read the wait's own, which is then the Run's latest. If f panics (a
// WithJitter function can), s is put back as it was, as a copy would
// have been left, and the panic goes on.
func (d *driver[I, O]) change(s *Checkpoint, f func(s *Checkpoint) error) error {
	if d.r == nil || d.r.ev.size != 0 {
		return f(s)
	}
	d.r.mu.Lock()
	defer d.r.mu.Unlock()
	d.r.cp = s
	was, room := *s, [4]SeenCount{}
	seen := append(room[:0], s.Seen...) // f counts in s.Seen in place
	defer func() {
		if p := recover(); p != nil {
			was.Seen = append(s.Seen[:0], seen...)
			*s = was
			panic(p)
		}
	}()
	return f(s)
}

// record tells the observer of the call of ans, as v judged it, and gives
// a Run's events its Attempt p (see next): p's Checkpoint is then the
// wait's. A Run that keeps no attempt has the wait's own already (see
// change), and a reader waiting on its events gets the attempt.
func (d *driver[I, O]) record(actx context.Context, ans *Answer[O], v *verdict, p *Attempt[O], now time.Time) {
	d.endAttempt(actx, ans, v, now)
	if d.r == nil {
		return
	}
	d.lastCall = lastCallOf(ans, v) // what a poke of the Run needs
	if p == nil {
		d.r.offer(ans, v, d.s)
		return
	}
	fill(p, ans, v)
	d.s = &p.Checkpoint
	d.r.record(p)
}
