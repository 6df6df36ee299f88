package waiter

import (
	"context"
	"runtime/debug"
	"sync"
	"time"

	"github.com/waitable/waitable/internal/attemptctx"
)

// Run is one wait in progress in the background: [Waiter.Start] returns it
// at once. Read its attempts as they happen from [Run.Events] (or range
// over [Run.Attempts]), its latest checkpoint from [Run.Checkpoint], and
// its outcome from [Run.Result]. A Run is safe for concurrent use.
//
// A Run ends at its deadline, or when cancelled, even if a call is in
// progress: a call that has not returned a few milliseconds after its
// context ended is abandoned (its attempt is reported with Abandoned set,
// and what it returns later is discarded).
type Run[O any] struct {
	onEnd func(err error) // a Group's, called once the outcome is known
	done  chan struct{}   // closed when the outcome is known

	mu     sync.Mutex
	ctl    control // nil if the wait never began, and once it has ended
	out    O
	err    error
	panicV *PanicError
	cp     Checkpoint // the latest checkpoint
	ev     eventLog[O]
}

// control is how a Run's Cancel and Poke reach its driver.
type control interface {
	cancel()
	poke()
}

// newRun returns a Run that keeps events unread attempts (0: none, for
// runs whose attempts nobody can read).
func newRun[O any](events int, onEnd func(error)) *Run[O] {
	return &Run[O]{onEnd: onEnd, done: make(chan struct{}), ev: eventLog[O]{size: events}}
}

// Start begins a wait of at most maxWait for the resource that in names,
// in a goroutine of its own, and returns at once. Its rules are those of
// [Waiter.Wait]. Cancelling ctx (or calling [Run.Cancel]) ends the wait.
// To wait for many resources together, use a [Group] (or [WaitAll]), or a
// [Batch] for thousands.
func (w *Waiter[I, O]) Start(ctx context.Context, in I, maxWait time.Duration) *Run[O] {
	return w.start(ctx, in, maxWait, nil, "", nil, defaultEventBuffer)
}

// StartFrom is [Waiter.Start] resumed from a checkpoint (see
// [Waiter.WaitFrom] for what it keeps and refuses); a refused checkpoint
// ends the Run at once with the error.
func (w *Waiter[I, O]) StartFrom(ctx context.Context, in I, from Checkpoint) *Run[O] {
	return w.start(ctx, in, 0, &from, "", nil, defaultEventBuffer)
}

// start begins a Run; name names it in its errors (a Group's member),
// onEnd is called once its outcome is known, and events is how many
// unread attempts it keeps.
func (w *Waiter[I, O]) start(
	ctx context.Context,
	in I,
	maxWait time.Duration,
	from *Checkpoint,
	name string,
	onEnd func(error),
	events int,
) *Run[O] {
	r := newRun[O](events, onEnd)
	l := &loop[I, O]{}
	l.name = name
	if err := l.init(w, ctx, in, maxWait, from); err != nil {
		r.finish(l.last, err, &l.s)
		return r
	}
	base, cancel := context.WithCancelCause(attemptctx.Mark(l.spanCtx))
	ctx, stop := l.clk().WithDeadline(base, l.s.Deadline)
	l.ctx, l.stop = ctx, func() { stop(); cancel(context.Canceled) }
	ctl := &runControl{cancelCause: cancel}
	if events > 0 { // a Run whose attempts and pokes nobody has (WaitAll's) keeps neither
		ctl.pokes = make(chan struct{}, 1)
		l.poke, l.publish = ctl.pokes, r.record
	}
	r.ctl, r.cp = ctl, l.s.clone()
	go func() {
		err := l.run(l.pollAway)
		r.finish(l.last, err, &l.s)
	}()
	return r
}

// runControl is a Start loop's: its cancellation and its pokes.
type runControl struct {
	cancelCause context.CancelCauseFunc
	pokes       chan struct{}
}

func (c *runControl) cancel() { c.cancelCause(context.Canceled) }

func (c *runControl) poke() {
	select {
	case c.pokes <- struct{}{}:
	default: // one is pending already
	}
}

// abandonGrace is how long a call may take to return once its context has
// ended before a Run abandons it.
const abandonGrace = 5 * time.Millisecond

// pollAway is Start's poll: the call and its judging run in a goroutine
// of their own, so that the Run ends at its deadline (or cancellation)
// even if the call does not, and so that the loop's goroutine, which
// holds the wait while it sleeps, stays small. A call that has not
// returned abandonGrace after its context ended is abandoned: what it
// returns later is discarded, and a panic of it goes to OpenTelemetry's
// error handler. A panic of a call (or of a WithMatch function) that
// returns in time ends the wait, and Result panics with it. The
// goroutine makes no call once the wait's context has ended (a group
// that fails fast, say, cancelled it since the loop looked). While it
// runs, the loop's goroutine only waits for it: the two never touch the
// loop at once.
func (l *loop[I, O]) pollAway() (delay time.Duration, done bool, err error) {
	type result struct {
		delay   time.Duration
		done    bool
		err     error
		panic   *PanicError
		notMade bool
	}
	var (
		mu        sync.Mutex
		abandoned bool            // the loop gave up on the call
		judging   bool            // the call returned in time: the goroutine applies it
		actx      context.Context // the attempt's context, for telemetry
		results   = make(chan result, 1)
	)
	start := l.startCall()
	go func() {
		var r result
		defer func() {
			if p := recover(); p != nil {
				r.panic = &PanicError{Value: p, Stack: debug.Stack()}
			}
			mu.Lock()
			defer mu.Unlock()
			if !abandoned {
				results <- r
			} else if r.panic != nil {
				reportPanic(&survivedPanic{waiter: l.w.def.Name, what: "a call it had abandoned",
					value: r.panic.Value, stack: r.panic.Stack})
			}
		}()
		if l.ctx.Err() != nil {
			r.notMade = true
			return
		}
		a := Attempt[O]{Number: l.s.Attempts + 1, Start: start}
		callCtx, opCtx, cancel := l.callContext(a.Number, start)
		mu.Lock()
		actx = callCtx
		mu.Unlock()
		a.Output, a.Err = l.w.op(opCtx, l.in)
		a.Latency = l.clk().Since(start)
		if cancel != nil {
			cancel()
		}
		mu.Lock()
		if judging = !abandoned; !judging {
			mu.Unlock()
			return
		}
		mu.Unlock()
		r.delay, r.done, r.err = l.apply(callCtx, &a)
	}()
	var r result
	select {
	case r = <-results:
	case <-l.ctx.Done():
		grace := l.clk().Timer(abandonGrace)
		select {
		case r = <-results:
			grace.Stop()
		case <-grace.C:
			mu.Lock()
			abandoned = !judging
			spanCtx := actx
			mu.Unlock()
			if abandoned {
				if spanCtx == nil { // the goroutine has yet to start the call
					spanCtx = l.ctx
				}
				return 0, true, l.abandon(spanCtx, start)
			}
			r = <-results // it returned in time, and is being applied
		}
	}
	switch {
	case r.panic != nil:
		return 0, true, l.panicked(r.panic)
	case r.notMade:
		return 0, true, l.end(l.stopped())
	}
	return r.delay, r.done, r.err
}

// Done is closed when the wait's outcome is known.
func (r *Run[O]) Done() <-chan struct{} { return r.done }

// Cancel ends the wait: its Result then matches context.Canceled. A wait
// between calls makes no further call; a call in progress gets a few
// milliseconds to return before it is abandoned. Cancel does not wait
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
// back: the event is news the hint could not know. A poke during a call takes effect when the call returns (its
// answer may predate the event); a wait already waiting for a rate-limit
// token, or ended, ignores it. Poke never blocks; it is safe to call from
// any goroutine, any number of times.
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
	<-r.done
	if r.panicV != nil {
		panic(r.panicV)
	}
	return r.out, r.err
}

// Checkpoint returns the wait's Checkpoint after its latest attempt
// (before the first, its start): what [Waiter.WaitFrom] and
// [Waiter.StartFrom] take.
func (r *Run[O]) Checkpoint() Checkpoint {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.cp.clone()
}

// record delivers an attempt to the events and the checkpoint.
func (r *Run[O]) record(a Attempt[O]) {
	r.mu.Lock()
	r.ev.push(a)
	r.cp = a.Checkpoint
	r.mu.Unlock()
}

// finish records the outcome: Done closes, then the events channel.
func (r *Run[O]) finish(out O, err error, s *Checkpoint) {
	r.mu.Lock()
	r.out, r.err, r.ctl = out, err, nil
	if s.Version != 0 {
		r.cp = s.clone()
	}
	if p, ok := err.(*PanicError); ok {
		r.panicV, r.err = p, nil
	}
	close(r.done)
	r.ev.close()
	r.mu.Unlock()
	if r.onEnd != nil {
		r.onEnd(err)
	}
}
