package waiter

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"slices"
	"time"

	"github.com/benbjohnson/clock"
	"go.opentelemetry.io/otel"

	"github.com/waitable/waitable/classify"
	"github.com/waitable/waitable/retry"
	"github.com/waitable/waitable/telemetry"
)

// driver is what the in-process drivers (Wait and Start) share: one wait's
// contexts, State, retry token and observer, and the making of one
// attempt. The rules are the core's (Judge, Step); the driver only calls
// the operation, keeps time and reports.
type driver[I, O any] struct {
	w       *Waiter[I, O]
	name    string // the wait's name in a fan-out, for its errors
	in      I
	parent  context.Context // the caller's context
	spanCtx context.Context // parent, with the wait's span if one records
	ctx     *waitCtx        // the calls' context: ends at the deadline, with parent, or on Cancel
	s       State
	tok     retry.Token
	last    O
	lastErr error
	obs     telemetry.WaitObserver
	undue   bool // the State need not keep the next call's due time (Wait's: see step)
}

// init sets a wait up: from scratch (from nil) or from a checkpoint. It
// returns the error that ends the wait before any call: bad arguments, a
// context already done, no time left. The driver then makes the calls'
// context (d.ctx) its own way. seen is where the wait counts its answers
// while they fit: a driver that lives on the heap anyway passes an
// array of its own; Wait, whose driver lives on its caller's stack,
// passes nil (its count then takes one allocation, at its first answer).
func (d *driver[I, O]) init(w *Waiter[I, O], parent context.Context, in I, maxWait time.Duration, from *State, seen []SeenCount) error {
	d.w, d.in, d.parent, d.spanCtx = w, in, parent, parent
	now := d.clk().Now()
	until, hasDeadline := time.Duration(0), false
	if dl, ok := parent.Deadline(); ok {
		until, hasDeadline = time.Until(dl), true
	}
	if from == nil {
		if maxWait <= 0 {
			_, err := w.Begin(now, maxWait, 0)
			return err
		}
		if hasDeadline && until < maxWait {
			maxWait = max(until, time.Nanosecond) // the caller's deadline is the wait's
		}
		s, err := w.Begin(now, maxWait, 0)
		if err != nil {
			return err
		}
		d.s = s
	} else {
		if err := w.check(*from); err != nil {
			return err
		}
		d.s = *from
		if hasDeadline && now.Add(until).Before(d.s.Deadline) {
			d.s.Deadline = now.Add(until)
		}
	}
	if len(d.s.Seen) <= cap(seen) { // counted in place, without an allocation
		d.s.Seen = append(seen[:0], d.s.Seen...)
	} else { // the wait's own: it counts on in place
		d.s.Seen = slices.Clone(d.s.Seen)
	}
	if w.obs != nil {
		d.spanCtx = d.startWait(parent, now)
	}
	if err := parent.Err(); err != nil {
		if errors.Is(err, context.DeadlineExceeded) {
			return d.end(d.w.timedOut(d.s, now, nil))
		}
		return d.end(d.w.cancelled(err, context.Cause(parent), d.s, now, nil))
	}
	if !now.Before(d.s.Deadline) {
		return d.end(d.w.timedOut(d.s, now, nil))
	}
	return nil
}

// clk is the waiter's clock.
func (d *driver[I, O]) clk() clock.Clock { return d.w.cfg.clock }

// deadlineHit reports whether the calls' context ended because the wait's
// deadline passed (its own, or the caller's earlier one it took), not
// because the wait was cancelled.
func (d *driver[I, O]) deadlineHit() bool { return d.ctx.Err() == context.DeadlineExceeded }

// stopped returns the error of a wait whose calls' context ended between
// calls.
func (d *driver[I, O]) stopped() error {
	now := d.clk().Now()
	if d.deadlineHit() {
		return d.w.timedOut(d.s, now, d.lastErr)
	}
	return d.w.cancelled(d.ctx.Err(), d.ctx.Cause(), d.s, now, d.lastErr)
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

// call is one call of the operation in progress.
type call struct {
	number int
	start  time.Time
	actx   context.Context // the attempt's context (with its span), for telemetry
	opCtx  context.Context // what the operation gets (with the per-attempt timeout)
	cancel context.CancelFunc
}

// prepare sets up the next call in *c: its number, start (woke, if the
// timer that woke the wait gave it; now otherwise), contexts and span.
func (d *driver[I, O]) prepare(woke time.Time, c *call) {
	c.number, c.start, c.actx, c.cancel = d.s.Attempts+1, woke, d.ctx, nil
	if c.start.IsZero() {
		c.start = d.clk().Now()
	}
	if d.obs != nil {
		c.actx = d.startAttempt(c.actx, c.number, c.start)
	}
	c.opCtx = c.actx
	if t := d.w.cfg.attemptTimeout; t > 0 {
		c.opCtx, c.cancel = d.clk().WithTimeout(c.actx, t)
	}
}

// invoke calls the operation. It touches nothing of the driver, so that a
// Run can abandon the call while it is in progress. A panic goes through.
func (d *driver[I, O]) invoke(c *call) (out O, latency time.Duration, err error) {
	out, err = d.w.op(c.opCtx, d.in)
	latency = d.clk().Since(c.start)
	if c.cancel != nil {
		c.cancel()
	}
	return out, latency, err
}

// complete judges a call's outcome into *o, applies it to the State, and
// writes the Decision to *dec, which is zero. It reports cancelled when
// the caller cancelled during the call: the attempt is then reported
// unjudged (State Retry), and dec.Err is the cancellation that ends the
// wait. A call cut off by the deadline (it returned after it, or returned
// its context's error once the deadline ended it) is not judged either,
// and the wait times out; a call that returns an answer at the deadline
// instant is judged.
func (d *driver[I, O]) complete(c *call, out O, err error, latency time.Duration, o *Poll, dec *Decision) (cancelled bool) {
	ended := d.ctx.ended.Load()
	if err == nil {
		d.last = out // the last output observed: of the last call that succeeded
	}
	d.lastErr = err
	now := instant{c.start, latency}
	o.Start, o.Latency, o.Err, o.Acceptor = c.start, latency, err, -1 // o is zero: the rest is set below
	if ended && !d.deadlineHit() {
		d.cancelledDuring(c, o, now, dec)
		return true
	}
	o.Late = now.until(d.s.Deadline) < 0 || (ended && err != nil && contextErr(err))
	if !o.Late {
		d.judge(out, o)
	}
	d.w.step(&d.s, o, now, dec, !d.undue)
	d.reportAttempt(c, o, dec, now)
	return false
}

// cancelledDuring is complete for a call during which the caller
// cancelled: counted, not judged, and the cancellation ends the wait. It
// has a frame of its own, which the common path does not need.
//
//go:noinline
func (d *driver[I, O]) cancelledDuring(c *call, o *Poll, now instant, dec *Decision) {
	d.s.Attempts++
	d.s.MaxLatency = max(d.s.MaxLatency, o.Latency)
	d.s.Next, d.s.End = time.Time{}, telemetry.OutcomeCancelled
	var v *classify.Verdict
	if o.Err != nil {
		verdict := classify.Classify(o.Err)
		v = &verdict
	}
	k := seenKind(o, classify.Retry, v)
	k.State = telemetry.OutcomeCancelled
	d.s.Seen = d.s.Seen.add(k)
	*dec = Decision{Done: true, State: classify.Retry, Err: d.w.cancelled(d.ctx.Err(), d.ctx.Cause(), d.s, now.time(), o.Err)}
	d.reportAttempt(c, o, dec, now)
}

// contextErr reports whether err is a context's error: what an operation
// that honours its context returns once the context ends.
func contextErr(err error) bool {
	return errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled)
}

// judge applies the acceptors and asks the retry strategy, in a frame of
// its own.
//
//go:noinline
func (d *driver[I, O]) judge(out O, o *Poll) {
	d.w.judge(d.in, out, o.Err, &o.Judgment)
	d.advise(d.ctx, o)
	d.w.read(out, o, d.s.Attempts)
}

// event is the attempt just made, as a Run's events carry it, without its
// checkpoint: a Batch's member adds a copy of its State (State.snapshot);
// a Run keeps the runner's own until it changes (Run.recordLive).
func (d *driver[I, O]) event(c *call, out O, o *Poll, dec *Decision, a *Attempt[O]) {
	a.Number, a.Start, a.Latency, a.Output, a.Err = c.number, c.start, o.Latency, out, o.Err
	a.Acceptor, a.Matcher, a.State, a.Message = o.Acceptor, o.Matcher, dec.State, o.Message
	a.Transient, a.NextDelay, a.EvalErr, a.Hint = dec.Transient, dec.Delay, o.EvalErr, o.Advice.Hint
	a.Streak = d.s.Streak
	if dec.Done {
		a.Outcome = outcomeOf(dec.Err)
	}
}

// reportAttempt tells the observer how an attempt went.
func (d *driver[I, O]) reportAttempt(c *call, o *Poll, dec *Decision, now instant) {
	if d.obs == nil {
		return
	}
	state := dec.State.String()
	if o.Late {
		state = telemetry.OutcomeTimeout
	}
	d.endAttempt(c.actx, telemetry.Attempt{Number: c.number, Start: c.start, Latency: o.Latency, Err: o.Err,
		Acceptor: o.Acceptor, State: state, Transient: dec.Transient, NextDelay: dec.Delay, RetryAfter: o.Advice.Hint, Tokens: -1}, now.time())
}

// abandoned reports a call still in flight when the calls' context ended
// (at the deadline, or cancelled): counted, not judged (State Retry), the
// wait's end in its Outcome and checkpoint. It returns the attempt's event
// and the error that ends the wait.
func (d *driver[I, O]) abandoned(actx context.Context, number int, start, now time.Time) (Attempt[O], error) {
	d.s.Attempts++
	d.s.MaxLatency = max(d.s.MaxLatency, now.Sub(start))
	err := d.stopped()
	a := Attempt[O]{Number: number, Start: start, Latency: now.Sub(start), Err: d.ctx.Cause(), Acceptor: -1,
		State: classify.Retry, Abandoned: true, Outcome: outcomeOf(err)}
	d.s.Next, d.s.End = time.Time{}, a.Outcome
	d.s.Seen = d.s.Seen.add(SeenCount{Acceptor: -1, State: a.Outcome})
	a.Checkpoint = d.s
	d.endAttempt(actx, telemetry.Attempt{Number: a.Number, Start: a.Start, Latency: a.Latency, Err: a.Err, Acceptor: -1, State: a.Outcome, Tokens: -1}, now)
	return a, err
}

// advise consults the retry strategy for an error no acceptor matched,
// and keeps the strategy's token between the errors of a streak: a
// success returns it, any other outcome drops it. The strategy's refusal
// for its own attempt count or an empty quota is not the wait's end (see
// WithRetryStrategy): the error is retried, no sooner than the delay the
// strategy would have waited, and the next error starts a new streak of
// the strategy's. An error an acceptor judged Retry is polled again no
// sooner than its retry-after hint.
func (d *driver[I, O]) advise(ctx context.Context, o *Poll) {
	s := d.w.strategy
	switch {
	case s == nil:
		return
	case !o.Unmatched(o.Err):
		if o.Err == nil && d.tok != nil {
			s.RecordSuccess(d.tok)
		}
		d.tok = nil
		if o.Err != nil && o.State == classify.Retry {
			h := classify.Classify(o.Err).RetryAfter
			o.Advice = RetryAdvice{MinDelay: h, Hint: h}
		}
		return
	}
	if d.tok == nil {
		d.tok, _ = s.AcquireInitialToken(ctx, "")
		if d.tok == nil {
			o.Advice = RetryAdvice{Refusal: errors.New("the retry strategy gave no token")}
			return
		}
	}
	next, err := s.RefreshToken(ctx, d.tok, o.Err)
	d.tok = next
	hint := classify.Classify(o.Err).RetryAfter
	switch {
	case err == nil:
		o.Advice = RetryAdvice{Retry: true, MinDelay: next.Delay(), Hint: hint}
	case errors.Is(err, retry.ErrMaxAttempts), errors.Is(err, retry.ErrQuotaExceeded):
		delay := hint
		var re *retry.Error
		if errors.As(err, &re) {
			delay = max(delay, re.Delay)
		}
		o.Advice = RetryAdvice{Retry: true, Quota: errors.Is(err, retry.ErrQuotaExceeded), MinDelay: delay, Hint: hint}
	default:
		o.Advice = RetryAdvice{Refusal: err, Hint: hint}
	}
}

// startWait tells the observer a wait starts, guarded against its panics.
func (d *driver[I, O]) startWait(ctx context.Context, now time.Time) (c context.Context) {
	c = ctx
	defer d.guard()
	c, d.obs = d.w.obs.StartWait(ctx, telemetry.Wait{Kind: "wait", Name: d.w.def.Name, Operation: d.w.def.Operation.ID, MaxWait: d.s.Deadline.Sub(d.s.Start)}, now)
	return c
}

func (d *driver[I, O]) startAttempt(ctx context.Context, n int, t time.Time) (c context.Context) {
	c = ctx
	defer d.guard()
	return d.obs.StartAttempt(ctx, n, t)
}

//go:noinline
func (d *driver[I, O]) endAttempt(ctx context.Context, a telemetry.Attempt, now time.Time) {
	if d.obs == nil {
		return
	}
	defer d.guard()
	d.obs.EndAttempt(ctx, a, now)
}

// end releases the wait's contexts and timer and tells the observer how it
// ended; it returns err.
func (d *driver[I, O]) end(err error) error {
	if we, ok := err.(*Error); ok && d.name != "" {
		we.Input = d.name
	}
	if d.s.Version != 0 && d.s.End == "" {
		d.s.Next, d.s.End = time.Time{}, outcomeOf(err)
	}
	if we, ok := err.(*Error); ok {
		we.Seen = d.s.Seen
	}
	d.release()
	if outcome := outcomeOf(err); d.w.giveUp != nil && (outcome == telemetry.OutcomeTimeout || outcome == telemetry.OutcomeCancelled) {
		d.gaveUp(err)
	}
	d.endWait(outcomeOf(err), err)
	return err
}

// release ends the calls' context.
func (d *driver[I, O]) release() {
	if d.ctx != nil {
		d.ctx.release()
	}
}

// gaveUp calls WithOnGiveUp's function, under a context of its own,
// guarded against its panics.
func (d *driver[I, O]) gaveUp(err error) {
	ctx, cancel := d.clk().WithTimeout(context.WithoutCancel(d.parent), d.w.cfg.giveUpTimeout)
	defer cancel()
	defer func() {
		if p := recover(); p != nil {
			reportPanic(&survivedPanic{waiter: d.w.def.Name, what: "its WithOnGiveUp hook", value: p, stack: debug.Stack()})
		}
	}()
	d.w.giveUp(ctx, d.in, err)
}

func (d *driver[I, O]) endWait(outcome string, err error) {
	if d.obs == nil {
		return
	}
	defer d.guard()
	now := d.clk().Now()
	d.obs.EndWait(telemetry.Outcome{Outcome: outcome, Attempts: d.s.Attempts, Elapsed: now.Sub(d.s.Start), Err: err}, now)
	d.obs = nil
}

// guard is deferred around every observer call: an observer that panics
// is dropped for the rest of the wait, and the panic reported.
func (d *driver[I, O]) guard() {
	if p := recover(); p != nil {
		d.obs = nil
		reportPanic(&telemetry.ObserverPanic{Value: p, Stack: debug.Stack()})
	}
}

// reportPanic hands a panic that the wait survives (an observer's, the
// give-up hook's, an abandoned call's) to OpenTelemetry's error handler
// (otel.Handle, which logs it unless an application installed its own).
func reportPanic(err error) { otel.Handle(err) }

// survivedPanic is a panic that no caller can receive because the wait
// has ended without it: a give-up hook's, or a call's that the wait had
// abandoned. It goes to OpenTelemetry's error handler.
type survivedPanic struct {
	waiter, what string
	value        any
	stack        []byte
}

func (p *survivedPanic) Error() string {
	return fmt.Sprintf("waiter %s: %s panicked (the wait ended as it would have): %v\n\n%s", p.waiter, p.what, p.value, p.stack)
}

// Unwrap returns the panic value if it is an error.
func (p *survivedPanic) Unwrap() error {
	err, _ := p.value.(error)
	return err
}

func outcomeOf(err error) string {
	switch {
	case err == nil:
		return telemetry.OutcomeSuccess
	case errors.Is(err, ErrTimeout):
		return telemetry.OutcomeTimeout
	case errors.Is(err, ErrFailure):
		return telemetry.OutcomeFailure
	case errors.Is(err, ErrMaxPolls):
		return telemetry.OutcomeMaxPolls
	}
	var p *PanicError
	if errors.As(err, &p) {
		return telemetry.OutcomePanic
	}
	return telemetry.OutcomeCancelled
}
