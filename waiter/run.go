package waiter

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"sync"
	"sync/atomic"
	"time"

	"github.com/benbjohnson/clock"

	"github.com/waitable/waitable/classify"
	"github.com/waitable/waitable/internal/attemptctx"
	"github.com/waitable/waitable/retry"
	"github.com/waitable/waitable/telemetry"
)

// Attempt is what one call of a run did and what the waiter made of it.
type Attempt[O any] struct {
	// Number counts the run's calls from 1.
	Number int
	// Start is when the call started, on the waiter's clock.
	Start time.Time
	// Latency is how long the call took.
	Latency time.Duration
	// Output and Err are what the call returned.
	Output O
	Err    error
	// Acceptor is the index of the acceptor that matched, or -1. Acceptors
	// are numbered in the order they are tried: WithMatch functions, then
	// WithAcceptors, then the definition's.
	Acceptor int
	// Matcher describes the matched acceptor ("output: status stringEquals
	// \"ACTIVE\"", or a WithMatch name).
	Matcher string
	// State is where the attempt left the waiter: Success and Failure end
	// the run, Retry polls again (unless time or attempts ran out).
	State classify.State
	// Message is a failure acceptor's message, if it has one.
	Message string
	// Transient reports an error that no acceptor matched and that the
	// retry strategy allowed: it was retried instead of ending the run.
	Transient bool
	// NextDelay is the wait before the next call; 0 when the run ends.
	NextDelay time.Duration
	// EvalErr reports JMESPath expressions that failed on this output.
	EvalErr error
}

// eventBuffer is the capacity of a run's events channel. Events beyond it
// wait in the run's queue (polling never blocks on a reader).
const eventBuffer = 16

// Run is one wait in progress: [Waiter.Start] returns it at once. Read its
// attempts as they happen from [Run.Events] (or range over
// [Run.Attempts]), and its outcome from [Run.Result]. A Run is safe for
// concurrent use.
//
// A run holds no goroutine while it waits a second or more between
// attempts: a timer on the waiter's clock starts the next attempt in a
// goroutine of its own, so that thousands of idle runs cost only their
// timers and state (about 2 KB each). Shorter waits keep the goroutine.
//
// Every attempt is delivered once, in order, and the events channel is
// closed after the last. A slow reader, or none, never delays polling:
// attempts not yet read wait in a queue. Asking for the channel while the
// run is in progress starts one goroutine that feeds it; when the run has
// ended, it stays until the remaining events are read or the run's context
// ends (Cancel the run, or cancel the context given to Start). A run whose
// events were never asked for, or asked for after its end, leaves no
// goroutine behind.
type Run[O any] struct {
	done   chan struct{}
	ctx    context.Context
	cancel context.CancelCauseFunc

	mu       sync.Mutex
	queue    []Attempt[O] // attempts not yet delivered
	ch       chan Attempt[O]
	notify   chan struct{} // wakes the goroutine feeding ch
	ended    bool          // the outcome is known: no more attempts
	out      O
	err      error
	panicked bool
	panicV   any
}

// Start begins a wait of at most maxWait for the resource that in names and
// returns at once; the first attempt starts in a goroutine. maxWait must be
// positive: the specification requires callers to say how long they will
// wait (a run given none ends at once with an error matching
// [ErrInvalidOption]).
//
// Each call runs under a context that ends at the run's deadline (and at
// the per-attempt timeout, if set), so an operation that honours its
// context cannot hold the run past the deadline. Cancelling ctx ends the
// run, with an error matching context.Canceled and the context's cause.
func (w *Waiter[I, O]) Start(ctx context.Context, in I, maxWait time.Duration) *Run[O] {
	r := &Run[O]{done: make(chan struct{})}
	if maxWait <= 0 {
		r.err = fmt.Errorf("%w: waiter %s: maxWait %v is not positive", ErrInvalidOption, w.def.Name, maxWait)
		r.ended = true
		close(r.done)
		return r
	}
	r.ctx, r.cancel = context.WithCancelCause(ctx)
	go w.run(r, in, maxWait)
	return r
}

// Done is closed when the run's outcome is known.
func (r *Run[O]) Done() <-chan struct{} { return r.done }

// Cancel ends the run (its Result then matches context.Canceled) and stops
// the delivery of events not yet read.
func (r *Run[O]) Cancel() {
	if r.cancel != nil {
		r.cancel(nil)
	}
}

// Result blocks until the run ends and returns the last output observed
// (even when the run failed or timed out, so that the caller sees where the
// resource was) and nil or an [*Error]. If the operation panicked, Result
// panics with the same value in the caller's goroutine.
func (r *Run[O]) Result() (O, error) {
	<-r.done
	if r.panicked {
		panic(r.panicV)
	}
	return r.out, r.err
}

// Events returns the channel of the run's attempts, from the first, closed
// after the last. Every call returns the same channel. See [Run] for what
// happens to events nobody reads.
func (r *Run[O]) Events() <-chan Attempt[O] {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.ch != nil {
		return r.ch
	}
	if r.ended { // nothing more will come: hand over what is left, closed
		r.ch = make(chan Attempt[O], len(r.queue))
		for _, a := range r.queue {
			r.ch <- a
		}
		r.queue = nil
		close(r.ch)
		return r.ch
	}
	r.ch = make(chan Attempt[O], eventBuffer)
	r.notify = make(chan struct{}, 1)
	go r.feed()
	return r.ch
}

// Attempts returns an iterator over the run's attempts as they happen: a
// range over [Run.Events]. Breaking out of the loop leaves the remaining
// attempts on the channel; Cancel the run if you are done with it.
func (r *Run[O]) Attempts() iter.Seq[Attempt[O]] {
	return func(yield func(Attempt[O]) bool) {
		for a := range r.Events() {
			if !yield(a) {
				return
			}
		}
	}
}

// emit queues an attempt for the events channel.
func (r *Run[O]) emit(a Attempt[O]) {
	r.mu.Lock()
	r.queue = append(r.queue, a)
	r.poke()
	r.mu.Unlock()
}

// poke wakes the feeding goroutine, if there is one. r.mu must be held.
func (r *Run[O]) poke() {
	if r.notify != nil {
		select {
		case r.notify <- struct{}{}:
		default:
		}
	}
}

// pop drops the first queued attempt, releasing its output. r.mu held.
func (r *Run[O]) pop() {
	r.queue[0] = Attempt[O]{}
	r.queue = r.queue[1:]
	if len(r.queue) == 0 {
		r.queue = r.queue[:0:0]
	}
}

// feed is the goroutine that moves queued attempts onto the events channel
// as the reader takes them, and closes it after the last. It gives up (and
// closes the channel) if the run's context ends.
func (r *Run[O]) feed() {
	defer r.cancel(nil) // release the run's context
	for {
		r.mu.Lock()
		if len(r.queue) == 0 && r.ended {
			close(r.ch)
			r.mu.Unlock()
			return
		}
		var send chan Attempt[O]
		var a Attempt[O]
		if len(r.queue) > 0 {
			send, a = r.ch, r.queue[0]
		}
		r.mu.Unlock()
		select {
		case send <- a:
			r.mu.Lock()
			r.pop()
			r.mu.Unlock()
		case <-r.notify:
		case <-r.ctx.Done():
			r.mu.Lock()
			r.queue = nil
			close(r.ch)
			r.mu.Unlock()
			return
		}
	}
}

// finish records the outcome. The events still queued stay for the
// feeding goroutine, or for a later call of Events.
func (r *Run[O]) finish(out O, err error) {
	r.mu.Lock()
	r.out, r.err = out, err
	r.ended = true
	feeding := r.ch != nil
	r.poke()
	r.mu.Unlock()
	close(r.done)
	if !feeding {
		r.cancel(nil) // release the run's context; the feeder does it otherwise
	}
}

// errCancelled stands for "the run's context ended" until fail reads the
// context's error and cause.
var errCancelled = errors.New("cancelled")

// finalGrace is the least time a run keeps for its final call, so that
// the call starts with a live context even when the reserve is 0 (the
// current specification's rule, or an instant operation's latency).
const finalGrace = time.Millisecond

// reserve returns the time to keep for the final call: the fixed reserve
// if one was set, else the longest latency observed, at most MinDelay; never
// less than finalGrace (or MinDelay, if that is shorter).
func (w *Waiter[I, O]) reserve(maxLatency time.Duration) time.Duration {
	minDelay := w.schedule.MinDelay
	r := min(maxLatency, minDelay)
	if w.cfg.reserve != nil {
		r = min(*w.cfg.reserve, minDelay)
	}
	return max(r, min(finalGrace, minDelay))
}

// run starts a run: it sets up the run's contexts and timer, then makes
// the first attempt.
func (w *Waiter[I, O]) run(r *Run[O], in I, maxWait time.Duration) {
	clk := w.cfg.clock
	s := &runState[I, O]{w: w, r: r, in: in, start: clk.Now()}
	s.deadline = s.start.Add(maxWait)
	waitCtx := r.ctx
	if w.obs != nil {
		waitCtx, s.obs = w.obs.StartWait(r.ctx, telemetry.Wait{Kind: "wait", Name: w.def.Name, Operation: w.def.Operation.ID, MaxWait: maxWait}, s.start)
	}
	callCtx, cancelCall := clk.WithDeadline(waitCtx, s.deadline)
	s.cancelCall = cancelCall
	s.callCtx = attemptctx.Mark(callCtx)
	s.timer = clk.AfterFunc(maxWait, s.wake)
	s.timer.Stop() // armed by each sleep with Reset
	s.stopWatch = context.AfterFunc(r.ctx, s.cancelled)
	s.resume()
}

// Run states: who owns the run now.
const (
	stateRunning  int32 = iota // an attempt's goroutine
	stateSleeping              // the timer (or a cancellation)
	stateEnded
)

// parkAfter is the shortest delay for which a run gives up its goroutine:
// shorter waits sleep in place, keeping the goroutine (and its stack,
// grown by a deep operation such as an SDK call) for the next attempt;
// longer ones leave only a timer behind.
const parkAfter = time.Second

// resume makes attempts until one asks for a delay of parkAfter or more,
// then arms the timer and returns: its goroutine ends, and the timer starts
// the next attempt.
func (s *runState[I, O]) resume() {
	defer func() {
		if p := recover(); p != nil {
			s.r.panicked, s.r.panicV = true, p
			s.end(s.last, fmt.Errorf("waiter %s: operation panicked: %v", s.w.def.Name, p))
		}
	}()
	var d time.Duration
	for {
		var done bool
		if d, done = s.step(); done {
			return
		}
		if d >= parkAfter {
			break
		}
		if !s.sleep(d) {
			s.end(s.last, s.fail(errCancelled, classify.Match{}, "", s.lastErr))
			return
		}
	}
	s.state.Store(stateSleeping)
	s.timer.Reset(d)
	if s.state.Load() == stateEnded {
		s.timer.Stop() // a cancellation ended the run between the two lines above
		return
	}
	// A cancellation that came while this attempt ran found the run busy:
	// take it now.
	if s.r.ctx.Err() != nil {
		s.cancelled()
	}
}

// wake is the timer's: the next attempt, in the timer's goroutine.
func (s *runState[I, O]) wake() {
	if s.state.CompareAndSwap(stateSleeping, stateRunning) {
		s.resume()
	}
}

// cancelled ends a sleeping run whose context ended.
func (s *runState[I, O]) cancelled() {
	if s.state.CompareAndSwap(stateSleeping, stateRunning) {
		s.end(s.last, s.fail(errCancelled, classify.Match{}, "", s.lastErr))
	}
}

// sleep waits d in the attempt's goroutine (a short delay, or the poll
// rate limit), reporting false if the run's context ended first. Its timer
// is made once per run and reset; it is always drained before a reset.
func (s *runState[I, O]) sleep(d time.Duration) bool {
	if s.inPlace == nil {
		s.inPlace = s.w.cfg.clock.Timer(d)
	} else {
		s.inPlace.Reset(d)
	}
	select {
	case <-s.inPlace.C:
		return true
	case <-s.r.ctx.Done():
		s.inPlace.Stop()
		return false
	}
}

// runState is what a run carries from one attempt to the next.
type runState[I, O any] struct {
	w               *Waiter[I, O]
	r               *Run[O]
	in              I
	start, deadline time.Time
	callCtx         context.Context
	last            O
	lastErr         error
	tok             retry.Token
	maxLatency      time.Duration
	attempt         int
	timer           *clock.Timer           // starts the next attempt after a long delay
	inPlace         *clock.Timer           // times short delays, in the attempt's goroutine
	state           atomic.Int32           // stateRunning, stateSleeping, stateEnded
	cancelCall      context.CancelFunc     // releases the deadline context
	stopWatch       func() bool            // stops watching the run's context
	obs             telemetry.WaitObserver // nil: nothing observes
}

// record delivers an attempt to the events and the observer.
func (s *runState[I, O]) record(ctx context.Context, a *Attempt[O]) {
	s.r.emit(*a)
	if s.obs != nil {
		s.obs.EndAttempt(ctx, telemetry.Attempt{
			Number: a.Number, Start: a.Start, Latency: a.Latency, Err: a.Err, Acceptor: a.Acceptor,
			State: a.State.String(), Transient: a.Transient, NextDelay: a.NextDelay, Tokens: -1,
		}, s.w.cfg.clock.Now())
	}
}

// end tells the observer how the run ended, then finishes it. A run whose
// operation panicked is reported with the panic as its error; Result
// re-panics instead of returning it.
func (s *runState[I, O]) end(out O, err error) {
	s.state.Store(stateEnded)
	s.timer.Stop()
	if s.inPlace != nil {
		s.inPlace.Stop()
	}
	s.stopWatch()
	s.cancelCall()
	if s.obs != nil {
		o := telemetry.Outcome{Outcome: outcomeOf(err), Attempts: s.attempt, Elapsed: s.w.cfg.clock.Since(s.start), Err: err}
		if s.r.panicked {
			o.Outcome = telemetry.OutcomePanic
		}
		s.obs.EndWait(o, s.w.cfg.clock.Now())
	}
	if s.r.panicked {
		err = nil
	}
	s.r.finish(out, err)
}

func outcomeOf(err error) string {
	switch {
	case err == nil:
		return telemetry.OutcomeSuccess
	case errors.Is(err, ErrTimeout):
		return telemetry.OutcomeTimeout
	case errors.Is(err, ErrFailure):
		return telemetry.OutcomeFailure
	case errors.Is(err, ErrMaxAttempts):
		return telemetry.OutcomeMaxAttempts
	}
	return telemetry.OutcomeCancelled
}

// fail builds the run's error.
func (s *runState[I, O]) fail(reason error, m classify.Match, desc string, err error) *Error {
	e := &Error{Waiter: s.w.def.Name, Reason: reason, Attempts: s.attempt, Elapsed: s.w.cfg.clock.Since(s.start), Acceptor: -1, Err: err}
	if reason == errCancelled {
		e.Reason = s.r.ctx.Err()
		if cause := context.Cause(s.r.ctx); cause != e.Reason {
			e.Cause = cause
		}
	}
	if reason == ErrFailure && m.Index >= 0 {
		e.Acceptor, e.Matcher, e.Message = m.Index, desc, m.Message
	}
	return e
}

// step makes one attempt (after the poll rate limit allows it) and returns
// the delay before the next, or ended when it finished the run.
//
//go:noinline
func (s *runState[I, O]) step() (delay time.Duration, ended bool) {
	w, r, clk := s.w, s.r, s.w.cfg.clock
	s.attempt++
	if lim := w.cfg.limiter; lim != nil {
		now := clk.Now()
		res := lim.ReserveN(now, 1)
		d := res.DelayFrom(now)
		switch {
		case !res.OK() || !now.Add(d).Before(s.deadline):
			res.CancelAt(now)
			s.attempt--
			s.end(s.last, s.fail(ErrTimeout, classify.Match{}, "", s.lastErr))
			return 0, true
		case d > 0 && !s.sleep(d):
			s.attempt--
			s.end(s.last, s.fail(errCancelled, classify.Match{}, "", s.lastErr))
			return 0, true
		}
	}
	t0 := clk.Now()
	actx := s.callCtx
	if s.obs != nil {
		actx = s.obs.StartAttempt(actx, s.attempt, t0)
	}
	opCtx, cancelAttempt := actx, context.CancelFunc(nil)
	if w.cfg.attemptTimeout > 0 {
		opCtx, cancelAttempt = clk.WithTimeout(actx, w.cfg.attemptTimeout)
	}
	out, err := w.op(opCtx, s.in)
	latency := clk.Since(t0)
	if cancelAttempt != nil {
		cancelAttempt()
	}
	s.maxLatency = max(s.maxLatency, latency)
	s.last, s.lastErr = out, err
	a := Attempt[O]{Number: s.attempt, Start: t0, Latency: latency, Output: out, Err: err, Acceptor: -1}

	// The caller cancelled, or the deadline passed (spec step 2).
	if r.ctx.Err() != nil || !clk.Now().Before(s.deadline) {
		reason := ErrTimeout
		if r.ctx.Err() != nil {
			reason = errCancelled
		}
		a.State = classify.Failure
		s.record(actx, &a)
		s.end(out, s.fail(reason, classify.Match{}, "", err))
		return 0, true
	}

	m, desc := w.match(s.in, out, err)
	a.Acceptor, a.Matcher, a.State, a.Message, a.EvalErr = m.Index, desc, m.State, m.Message, m.Err
	var retryAfter time.Duration
	var refused error
	switch {
	case m.Index < 0 && err != nil && w.cfg.strategy != nil:
		// Spec step 4 makes this terminal; a transient error is retried
		// on the waiter's schedule instead.
		if s.tok == nil {
			s.tok, _ = w.cfg.strategy.AcquireInitialToken(r.ctx, "")
		}
		if s.tok != nil {
			next, rerr := w.cfg.strategy.RefreshToken(r.ctx, s.tok, err)
			s.tok = next
			// An empty retry quota means the service fails broadly: the
			// waiter's schedule already spaces its calls, so it keeps
			// polling rather than giving up with time left.
			if rerr == nil || errors.Is(rerr, retry.ErrQuotaExceeded) {
				a.State, a.Transient = classify.Retry, true
				retryAfter = classify.Classify(err).RetryAfter
			} else if !errors.Is(rerr, retry.ErrNotRetryable) {
				refused = rerr
			}
		}
	case err == nil && s.tok != nil:
		w.cfg.strategy.RecordSuccess(s.tok)
		s.tok = nil
	case err != nil:
		s.tok = nil // an error an acceptor matched ends a chain of transient ones
	}

	switch a.State {
	case classify.Success:
		s.record(actx, &a)
		s.end(out, nil)
		return 0, true
	case classify.Failure:
		s.record(actx, &a)
		cause := err
		if refused != nil {
			cause = refused
		}
		s.end(out, s.fail(ErrFailure, m, desc, cause))
		return 0, true
	}
	if limit := w.maxAttempts(); limit > 0 && s.attempt >= limit {
		s.record(actx, &a)
		s.end(out, s.fail(ErrMaxAttempts, m, desc, err))
		return 0, true
	}
	reserve := w.reserve(s.maxLatency)
	remaining := s.deadline.Sub(clk.Now())
	d := w.schedule.Delay(s.attempt, remaining, reserve)
	if retryAfter > d && d > 0 {
		// Never sooner than the service asked; if that leaves no time for
		// a call, the run times out now.
		d = retryAfter
		if d > remaining-reserve {
			d = 0
		}
	}
	if d == 0 {
		s.record(actx, &a)
		s.end(out, s.fail(ErrTimeout, m, desc, err))
		return 0, true
	}
	a.NextDelay = d
	s.record(actx, &a)
	return d, false
}
