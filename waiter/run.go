package waiter

import (
	"context"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	"github.com/benbjohnson/clock"

	"github.com/waitable/waitable/classify"
	"github.com/waitable/waitable/internal/timers"
	"github.com/waitable/waitable/telemetry"
)

// Run is one wait in progress in the background: [Waiter.Start] returns it
// at once. Read its attempts as they happen from [Run.Events] (or range
// over [Run.Attempts]), its latest checkpoint from [Run.Checkpoint], and
// its outcome from [Run.Result]. A Run is safe for concurrent use.
//
// Between calls a Run holds no goroutine: a timer on the waiter's clock
// starts the next call, so that a million sleeping waits cost only their
// timers and state. On the real clock, the waits of one Waiter that sleep
// until the same instant (on a schedule without jitter) share one timer:
// those of one WaitAll or Group, and those started on their own in one
// synctest bubble (or in none). A Run that has ended keeps its outcome,
// its final checkpoint and its kept attempts ([WithEventBuffer]), not the
// machinery of its wait, so that holding many ended Runs costs little.
//
// A Run ends at its deadline, or when cancelled, even if a call is in
// progress: a call that has not returned a few milliseconds after its
// context ended is abandoned (its attempt is reported with Abandoned set,
// and what it returns later is discarded).
type Run[O any] struct {
	onEnd func(err error) // a Group's, called once the outcome is known

	mu     sync.Mutex
	c      canceler      // the driver; nil if the wait never began, and once it has ended
	done   chan struct{} // made on first Done: a wait nobody asks holds none
	ended  bool          // the outcome is known
	out    O
	err    error
	panicV *PanicError
	// cp is the latest checkpoint. With live, it is the runner's own State
	// (read under mu, its Seen copied), which the runner changes only
	// after freeze: an idle wait holds its State once, not twice, and the
	// newest attempt in the ring has no copy of its own. Otherwise it is
	// that attempt's copy, or own.
	cp   *State
	own  *State
	live bool
	ev   eventLog[O]
}

// canceler is a Run's driver, as Cancel, Poke and the Run's timer see it.
type canceler interface {
	cancel()
	poke()
	wake()
}

// wake is what the timer of a Run's driver calls: through the Run, so
// that a stopped timer the runtime has yet to drop from its heap keeps
// only the Run of a wait that has ended, not its driver (see finish).
func (r *Run[O]) wake() {
	if c := r.driver(); c != nil {
		c.wake()
	}
}

// Start begins a wait of at most maxWait for the resource that in names,
// in the background, and returns at once. Its rules are those of
// [Waiter.Wait]; the first call happens in a goroutine of its own.
// Cancelling ctx (or calling [Run.Cancel]) ends the wait. On the real
// clock, waits started with Start that sleep until the same instant, in
// one synctest bubble or in none, share one timer, as a [Group]'s do; to
// wait for many together, use a Group (or [WaitAll]).
func (w *Waiter[I, O]) Start(ctx context.Context, in I, maxWait time.Duration) *Run[O] {
	return w.start(ctx, in, maxWait, nil, "", nil)
}

// Resume carries on, in the background, a wait from a checkpoint (see
// [Waiter.WaitFrom] for what it keeps and refuses); a refused checkpoint
// ends the Run at once with the error.
func (w *Waiter[I, O]) Resume(ctx context.Context, in I, from State) *Run[O] {
	return w.start(ctx, in, 0, &from, "", nil)
}

// start begins a Run; name names it in its errors (a Group's member), and
// onEnd is called once its outcome is known.
func (w *Waiter[I, O]) start(ctx context.Context, in I, maxWait time.Duration, from *State, name string, onEnd func(error)) *Run[O] {
	r := &Run[O]{onEnd: onEnd}
	r.ev.size = w.cfg.eventBuffer
	rn := &runner[I, O]{r: r}
	rn.name = name
	// On the real clock, a wait may share its wake-ups (see wakeGroups): a
	// Group's, keyed by the Group's context; another, keyed by its bubble,
	// which begin tells.
	rn.shares = w.wakes != nil && onEnd != nil
	if err := rn.init(w, ctx, in, maxWait, from, rn.seen[:]); err != nil {
		r.finish(rn.last, err, rn.s)
		return r
	}
	rn.ctx = newWaitCtx(rn.spanCtx, rn.s.Deadline, rn.ctxDone, false, &w.watches, rn.parent)
	r.c = rn
	r.cp, r.live = &rn.s, true
	if !rn.s.Next.IsZero() { // resumed, or an initial delay: the next call is due at s.Next
		due := rn.s.Next
		rn.due = &due
	}
	go rn.begin()
	return r
}

// Done is closed when the wait's outcome is known.
func (r *Run[O]) Done() <-chan struct{} {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.done == nil {
		if r.ended {
			return closedChan
		}
		r.done = make(chan struct{})
	}
	return r.done
}

// Cancel ends the wait: its Result then matches context.Canceled. A wait
// between calls has ended when Cancel returns; a call in progress gets a
// few milliseconds to return before it is abandoned.
func (r *Run[O]) Cancel() {
	if c := r.driver(); c != nil {
		c.cancel()
	}
}

// driver returns the Run's driver, nil once the wait has ended.
func (r *Run[O]) driver() canceler {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.c
}

// Seen counts the answers the wait has seen so far, by kind: its latest
// checkpoint's.
func (r *Run[O]) Seen() Seen { return r.Checkpoint().Seen }

// Poke asks for the next call now, because something outside the wait
// said the resource may have changed: a webhook, a queue or EventBridge
// message, a watch. A wait between calls makes its next call at once, but
// no sooner than the poke gap after its last call started ([WithPokeGap]:
// 1s, or MinDelay if shorter) and subject to the poll rate limit; the schedule
// goes on after it as before, the fallback for events that never come. A
// poke during a call takes effect when the call returns (its answer may
// predate the event); a wait already waiting for a rate-limit token, or
// ended, ignores it. Poke never blocks; it is safe to call from any
// goroutine, any number of times.
func (r *Run[O]) Poke() {
	if c := r.driver(); c != nil {
		c.poke()
	}
}

// Result blocks until the wait ends and returns the last output observed
// (even when the wait failed or timed out, so that the caller sees where
// the resource was) and nil or an [*Error]. If the operation panicked,
// Result panics with a [*PanicError] holding the value and the stack of
// the panic, in the caller's goroutine.
func (r *Run[O]) Result() (O, error) {
	<-r.Done()
	if r.panicV != nil {
		panic(r.panicV)
	}
	return r.out, r.err
}

// Checkpoint returns the wait's State after its latest attempt (before the
// first, its start): what [Waiter.Resume] and [Waiter.WaitFrom] take.
func (r *Run[O]) Checkpoint() State {
	r.mu.Lock()
	defer r.mu.Unlock()
	switch {
	case r.cp == nil:
		return State{}
	case r.live:
		return r.cp.snapshot()
	}
	return *r.cp
}

// record delivers an attempt, with its own checkpoint, to the events and
// the checkpoint.
func (r *Run[O]) record(a *Attempt[O]) {
	r.mu.Lock()
	if r.ev.ch == nil {
		cp := new(State)
		*cp = a.Checkpoint
		r.ev.push(a, cp)
		r.cp, r.own, r.live = cp, nil, false
	} else {
		r.ev.push(a, nil)
		r.setCheckpoint(a.Checkpoint)
	}
	r.mu.Unlock()
}

// recordLive delivers the runner's attempt, whose checkpoint is live (the
// runner's State, unchanged until freeze), to the events and the
// checkpoint.
func (r *Run[O]) recordLive(a *Attempt[O], live *State) {
	r.mu.Lock()
	if r.ev.ch != nil {
		a.Checkpoint = live.snapshot()
	} else {
		r.own = nil // the ring keeps the checkpoints from now on
	}
	r.ev.push(a, nil)
	r.cp, r.live = live, true
	r.mu.Unlock()
}

// freeze is called by the runner before it changes its State: a live
// checkpoint becomes a copy, the newest kept attempt's (or the Run's own).
func (r *Run[O]) freeze() {
	r.mu.Lock()
	if r.live {
		r.live = false
		if k := r.ev.newest(); k != nil && k.cp == nil {
			cp := freezeState(r.cp)
			k.cp, r.cp, r.own = cp, cp, nil
		} else {
			r.setCheckpoint(r.cp.snapshot())
		}
	}
	r.mu.Unlock()
}

// setCheckpoint makes s the latest checkpoint, in the Run's own State
// (made once, and again after the ring held the checkpoint). r.mu is held,
// or the Run is not yet shared.
func (r *Run[O]) setCheckpoint(s State) {
	if r.own == nil {
		r.own = new(State)
	}
	*r.own = s
	r.cp, r.live = r.own, false
}

// finish records the outcome: Done closes, then the events channel. The
// Run lets its driver go (Cancel and Poke do nothing now), and keeps the
// final State once: as the newest attempt's checkpoint, if it is that.
func (r *Run[O]) finish(out O, err error, s State) {
	r.mu.Lock()
	r.out, r.err, r.c = out, err, nil
	if s.Version != 0 && (r.live || r.cp == nil || !r.cp.same(&s)) {
		r.setCheckpoint(s)
	}
	if p, ok := err.(*PanicError); ok {
		r.panicV, r.err = p, nil
	}
	r.ended = true
	if r.done != nil {
		close(r.done)
	}
	r.ev.close()
	r.mu.Unlock()
	if r.onEnd != nil {
		r.onEnd(err)
	}
}

// Who runs a wait now (runner.phase).
const (
	phaseBusy    int32 = iota // a goroutine, between calls
	phaseCalling              // a goroutine, in the operation: it may be abandoned
	phaseParked               // no goroutine: the timer (or a cancellation) resumes it
	phaseEnded
)

// abandonGrace is how long a call may take to return once its context has
// ended before a Run abandons it.
const abandonGrace = 5 * time.Millisecond

// runner drives a Run: the driver, plus who owns the wait now. One timer
// does all its timing: it wakes a parked wait, and during a call it fires
// at the deadline (ending the calls' context), then once more after
// abandonGrace (abandoning a call that did not return).
type runner[I, O any] struct {
	driver[I, O]
	r         *Run[O]
	timer     *clock.Timer     // see above, on a test's clock
	rtimer    *time.Timer      // see above, on the real clock
	leads     *wakeGroup[I, O] // the waits that follow this one (guarded by the waiter's wakeGroups)
	tmu       sync.Mutex       // guards the timer's making and re-arming
	parkedFor atomic.Int64     // the instant (UnixNano) it parked until, for its group's wake-up
	due       *time.Time       // the first call is not before this (a resumed wait's, or an initial delay); nil once it has come
	cur       call             // the call in progress, for abandon
	phase     atomic.Int32
	pokeLater atomic.Bool  // a poke came while busy or calling: applied when it parks
	admitted  bool         // a rate-limit token is held for the next call
	shares    bool         // on the real clock, it may share its wake-ups (see wakeGroups)
	bubble    uint64       // the synctest bubble it was started in (0: none), which keys its sharing
	seen      [2]SeenCount // the first kinds of s.Seen, without an allocation
}

// step makes the next call (after its rate-limit token and due time) and
// parks until the one after, or ends the wait. It runs in a goroutine of
// its own (Start's, or the timer's) while the phase is busy.
func (rn *runner[I, O]) step() {
	reserveStack()
	defer rn.recoverPanic()
	if rn.ctx.ended.Load() {
		rn.endRun(rn.stopped())
		return
	}
	if rn.due != nil {
		if wait := rn.due.Sub(rn.clk().Now()); wait > 0 {
			rn.park(wait)
			return
		}
		rn.due = nil
	}
	if !rn.admitted {
		wait, ok := rn.admit()
		if !ok {
			rn.endRun(rn.w.timedOut(rn.s, rn.clk().Now(), rn.lastErr))
			return
		}
		if wait > 0 {
			rn.admitted = true
			rn.park(wait)
			return
		}
	}
	rn.admitted = false
	rn.prepare(time.Time{}, &rn.cur)
	rn.phase.Store(phaseCalling)
	rn.arm(rn.s.Deadline.Sub(rn.cur.start)) // the deadline, during the call
	if rn.ctx.ended.Load() {                // ended before the call: do not make it
		if rn.phase.CompareAndSwap(phaseCalling, phaseBusy) {
			rn.endRun(rn.stopped())
		}
		return
	}
	out, latency, err := rn.invoke(&rn.cur)
	if !rn.phase.CompareAndSwap(phaseCalling, phaseBusy) {
		return // abandoned: the wait ended without this call
	}
	rn.after(out, err, latency)
}

// begin is a wait's first step. A wait started on its own on the real
// clock first tells its bubble, here, in a goroutine whose stack is
// short, which the traceback that tells it walks (see currentBubble). The
// phase is busy until the step parks, so no other goroutine reads shares
// or bubble before then.
func (rn *runner[I, O]) begin() {
	if rn.w.wakes != nil && rn.r.onEnd == nil {
		rn.bubble, rn.shares = currentBubble()
	}
	rn.step()
}

// stackReserve is about what judging and recording an attempt takes of
// a goroutine's stack below step: the acceptors' JMESPath, the core's
// decision, the event and the telemetry.
const stackReserve = 5 << 10

// reserveStack grows the stack of the goroutine that runs step to what an
// attempt needs while the stack holds only a frame or two. Each step runs
// in a new goroutine (a sleeping wait holds none), whose stack starts at
// 2 KB; without this the runtime grows it twice in the middle of every
// attempt, copying and adjusting ten frames each time. One early growth
// costs a fraction of that: 10-25% less CPU per poll when 100,000 waits
// poll at once (the report's scaling row).
//
//go:noinline
func reserveStack() {
	var pad [stackReserve]byte
	touchStack(&pad)
}

// touchStack keeps reserveStack's frame from being optimized away.
//
//go:noinline
func touchStack(p *[stackReserve]byte) { p[len(p)-1] = 1 }

// after judges the call just made, records it and goes on: the second
// half of step, in a frame of its own so that step's frame, below the
// call, stays small.
//
//go:noinline
func (rn *runner[I, O]) after(out O, err error, latency time.Duration) {
	rn.r.freeze()
	var o Poll
	var dec Decision
	rn.complete(&rn.cur, out, err, latency, &o, &dec)
	rn.record(out, &o, &dec)
	if dec.Done { // a cancellation during the call included
		rn.endRun(dec.Err)
	} else {
		rn.parkUntil(dec.Delay, rn.s.Next)
	}
}

// record delivers the attempt just made to the Run's events.
//
//go:noinline
func (rn *runner[I, O]) record(out O, o *Poll, dec *Decision) {
	var a Attempt[O]
	rn.event(&rn.cur, out, o, dec, &a)
	rn.r.recordLive(&a, &rn.s)
}

// arm makes or re-arms the timer to fire after d.
func (rn *runner[I, O]) arm(d time.Duration) {
	rn.tmu.Lock()
	switch {
	case rn.rtimer != nil:
		rn.rtimer.Reset(d)
	case rn.timer != nil:
		timers.Reset(rn.clk(), rn.timer, d)
	case rn.w.cfg.realClock: // the time package's own: no wrapper to keep
		rn.rtimer = time.AfterFunc(d, rn.r.wake)
	default:
		rn.timer = rn.clk().AfterFunc(d, rn.r.wake)
	}
	rn.tmu.Unlock()
}

// park leaves the wait to its timer for d.
func (rn *runner[I, O]) park(d time.Duration) { rn.parkUntil(d, time.Time{}) }

// parkUntil is park, for a wait whose next call is due at the instant at
// (zero: unknown): waits parked until the same instant share a timer (see
// wakeGroups).
func (rn *runner[I, O]) parkUntil(d time.Duration, at time.Time) {
	rn.parkedFor.Store(at.UnixNano())
	rn.phase.Store(phaseParked)
	// A follower's own timer stays armed at the deadline, which its
	// group's instant does not pass.
	if !rn.shares || at.IsZero() || !rn.w.wakes.join(rn, at) {
		rn.arm(d)
	}
	// A cancellation that came while the wait was busy found nobody to end
	// it: take it now; so with a poke.
	if rn.ctx.ended.Load() {
		rn.ctxDone()
	} else if rn.pokeLater.Swap(false) {
		rn.poke()
	}
}

// wake is the timer's: the next step of a parked wait; during a call, the
// deadline, then the end of the grace.
func (rn *runner[I, O]) wake() {
	switch {
	case rn.phase.CompareAndSwap(phaseParked, phaseBusy):
		if rn.shares {
			rn.w.wakes.fire(rn)
		}
		rn.step()
	case rn.phase.Load() != phaseCalling:
	case !rn.ctx.end(context.DeadlineExceeded, nil): // ended already: the grace is over
		rn.abandon()
	}
}

// ctxDone runs when the calls' context ends (deadline, cancellation): a
// parked wait ends now; a call in progress gets abandonGrace to return.
func (rn *runner[I, O]) ctxDone() {
	switch {
	case rn.phase.CompareAndSwap(phaseParked, phaseBusy):
		rn.endRun(rn.stopped())
	case rn.phase.Load() == phaseCalling:
		rn.arm(abandonGrace)
	}
}

// cancel is Run.Cancel's.
func (rn *runner[I, O]) cancel() { rn.ctx.end(context.Canceled, nil) }

// poke is Run.Poke's: a parked wait, taken from its timer (and from the
// waits it shares a timer with), calls now or at the end of the poke gap.
func (rn *runner[I, O]) poke() {
	if !rn.phase.CompareAndSwap(phaseParked, phaseBusy) {
		if rn.phase.Load() == phaseEnded {
			return
		}
		// Busy or in a call: the poke takes effect when it parks (which
		// it may have done meanwhile).
		rn.pokeLater.Store(true)
		if rn.phase.Load() == phaseParked && rn.pokeLater.Swap(false) {
			rn.poke()
		}
		return
	}
	if rn.admitted { // waiting for a rate-limit token: the call comes with it
		rn.phase.Store(phaseParked)
		if rn.ctx.ended.Load() {
			rn.ctxDone()
		}
		return
	}
	now := rn.clk().Now()
	if rn.shares {
		rn.w.wakes.leave(rn, now)
	}
	rn.due = nil // an initial delay, or a resumed wait's: brought forward
	at := now
	if rn.s.Attempts > 0 {
		at = rn.cur.start.Add(rn.w.pokeGap())
		if rn.s.Next.Before(at) {
			at = rn.s.Next // the schedule's call comes first
		}
	}
	if wait := at.Sub(now); wait > 0 {
		rn.park(wait)
		return
	}
	go rn.step()
}

// abandon ends a wait whose call did not return in time after its context
// ended.
func (rn *runner[I, O]) abandon() {
	if !rn.phase.CompareAndSwap(phaseCalling, phaseBusy) {
		return
	}
	rn.r.freeze()
	a, err := rn.abandoned(rn.cur.actx, rn.cur.number, rn.cur.start, rn.clk().Now())
	rn.r.record(&a)
	rn.endRun(err)
}

// endRun ends the wait with err (a Decision's, or the context's).
func (rn *runner[I, O]) endRun(err error) {
	rn.r.freeze()
	rn.phase.Store(phaseEnded)
	rn.tmu.Lock()
	if rn.timer != nil {
		rn.timer.Stop()
	}
	if rn.rtimer != nil {
		rn.rtimer.Stop()
	}
	rn.tmu.Unlock()
	if rn.shares {
		rn.w.wakes.resign(rn, rn.clk().Now())
	}
	rn.end(err)
	rn.r.finish(rn.last, err, rn.s)
}

// recoverPanic turns a panic of the operation (or of a WithMatch
// function) into the wait's end: the attempt is reported with a
// *PanicError, and Result panics with it in the caller's goroutine.
func (rn *runner[I, O]) recoverPanic() {
	p := recover()
	if p == nil {
		return
	}
	pe := &PanicError{Value: p, Stack: debug.Stack()}
	if !rn.phase.CompareAndSwap(phaseCalling, phaseBusy) && rn.phase.Load() != phaseBusy {
		// The call had been abandoned: the wait is over, nobody can take
		// the panic. Report it rather than lose it.
		reportPanic(&survivedPanic{waiter: rn.w.def.Name, what: "a call it had abandoned", value: p, stack: pe.Stack})
		return
	}
	rn.r.freeze()
	now := rn.clk().Now()
	a := Attempt[O]{Number: rn.cur.number, Start: rn.cur.start, Latency: now.Sub(rn.cur.start), Err: pe, Acceptor: -1, State: classify.Failure,
		Outcome: telemetry.OutcomePanic}
	if rn.cur.number > rn.s.Attempts {
		rn.s.Attempts++
	}
	rn.s.Next, rn.s.End = time.Time{}, telemetry.OutcomePanic
	a.Checkpoint = rn.s
	rn.endAttempt(rn.cur.actx, telemetry.Attempt{Number: a.Number, Start: a.Start, Latency: a.Latency, Err: pe, Acceptor: -1, State: "failure", Tokens: -1}, now)
	rn.r.record(&a)
	rn.endRun(pe)
}
