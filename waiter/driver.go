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

// driver is what the in-process drivers (Wait, Start and a Batch's
// members) share: one wait's contexts, Checkpoint, retry token and
// observer, and the making of one attempt. The rules are the core's
// (Judge, Step); the driver only calls the operation, keeps time and
// reports.
type driver[I, O any] struct {
	w       *Waiter[I, O]
	name    string // the wait's name in a fan-out, for its errors
	in      I
	parent  context.Context // the caller's context
	spanCtx context.Context // parent, with the wait's span if one records
	ctx     context.Context // the calls' context: ends at the deadline, with parent, or on Cancel
	stop    func()          // releases ctx
	s       Checkpoint
	tok     retry.Token
	last    O
	lastErr error
	obs     telemetry.WaitObserver
}

// init sets a wait up: from scratch (from nil) or from a checkpoint. It
// returns the error that ends the wait before any call: bad arguments, a
// context already done, no time left. The driver then makes the calls'
// context (d.ctx) its own way.
func (d *driver[I, O]) init(
	w *Waiter[I, O],
	parent context.Context,
	in I,
	maxWait time.Duration,
	from *Checkpoint,
) error {
	d.w, d.in, d.parent, d.spanCtx = w, in, parent, parent
	now := d.clk().Now()
	until, hasDeadline := time.Duration(0), false
	if dl, ok := parent.Deadline(); ok {
		until, hasDeadline = time.Until(dl), true
	}
	if from == nil {
		if hasDeadline && maxWait > 0 && until < maxWait {
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
		d.s = from.clone()
		if hasDeadline && now.Add(until).Before(d.s.Deadline) {
			d.s.Deadline = now.Add(until)
		}
	}
	if w.obs != nil {
		d.spanCtx = d.startWait(parent, now)
	}
	if err := parent.Err(); err != nil {
		if errors.Is(err, context.DeadlineExceeded) {
			return d.end(d.w.timedOut(&d.s, now, nil))
		}
		return d.end(d.w.cancelled(err, context.Cause(parent), &d.s, now, nil))
	}
	if !now.Before(d.s.Deadline) {
		return d.end(d.w.timedOut(&d.s, now, nil))
	}
	return nil
}

// clk is the waiter's clock.
func (d *driver[I, O]) clk() clock.Clock { return d.w.cfg.clock }

// deadlineHit reports whether the calls' context ended because the wait's
// deadline passed (its own, or the caller's earlier one it took), not
// because the wait was cancelled.
func (d *driver[I, O]) deadlineHit() bool {
	return d.ctx.Err() == context.DeadlineExceeded ||
		context.Cause(d.ctx) == context.DeadlineExceeded
}

// stopped returns the error of a wait whose calls' context ended between
// calls.
func (d *driver[I, O]) stopped() error {
	now := d.clk().Now()
	if d.deadlineHit() {
		return d.w.timedOut(&d.s, now, d.lastErr)
	}
	return d.w.cancelled(d.ctx.Err(), context.Cause(d.ctx), &d.s, now, d.lastErr)
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

// callContext returns the context of the call numbered n, starting at
// start: the calls' context with the attempt's span and the per-attempt
// timeout. actx is the attempt's (for telemetry); cancel, if not nil,
// releases the timeout.
func (d *driver[I, O]) callContext(
	n int,
	start time.Time,
) (actx, opCtx context.Context, cancel context.CancelFunc) {
	actx = d.ctx
	if d.obs != nil {
		actx = d.startAttempt(actx, n, start)
	}
	opCtx = actx
	if t := d.w.cfg.attemptTimeout; t > 0 {
		opCtx, cancel = d.clk().WithTimeout(actx, t)
	}
	return actx, opCtx, cancel
}

// complete judges a call's outcome (a's call fields are set), applies it
// to the Checkpoint, fills in the rest of a, and tells the observer. A
// call during which the caller cancelled is counted, not judged (State
// Retry), and the cancellation ends the wait. A call cut off by the
// deadline (it returned after it, or returned its context's error once
// the deadline ended it) is not judged either, and the wait times out; a
// call that returns an answer at the deadline instant is judged.
func (d *driver[I, O]) complete(actx context.Context, a *Attempt[O]) decision {
	ended := d.ctx.Err() != nil
	if a.Err == nil {
		d.last = a.Output // the last output observed: of the last call that succeeded
	}
	d.lastErr = a.Err
	now := a.Start.Add(a.Latency)
	a.Acceptor = -1
	var dec decision
	if ended && !d.deadlineHit() {
		dec = d.cancelledDuring(a, now)
	} else {
		a.Late = now.After(d.s.Deadline) || (ended && a.Err != nil && contextErr(a.Err))
		if !a.Late {
			d.tok = d.w.assess(d.ctx, d.in, a, d.tok)
		}
		dec = d.w.step(&d.s, a, now)
	}
	a.judged(dec, &d.s)
	d.reportAttempt(actx, a, now)
	return dec
}

// cancelledDuring is complete for a call during which the caller
// cancelled: counted, not judged, and the cancellation ends the wait.
func (d *driver[I, O]) cancelledDuring(a *Attempt[O], now time.Time) decision {
	d.s.Attempts++
	d.s.MaxLatency = max(d.s.MaxLatency, a.Latency)
	d.s.Next, d.s.End = time.Time{}, telemetry.OutcomeCancelled
	var v *classify.Verdict
	if a.Err != nil {
		verdict := classify.Classify(a.Err)
		v = &verdict
	}
	k := seenKind(a, classify.Retry, v)
	k.State = telemetry.OutcomeCancelled
	count(&d.s.Seen, k)
	err := d.w.cancelled(d.ctx.Err(), context.Cause(d.ctx), &d.s, now, a.Err)
	return decision{done: true, state: classify.Retry, err: err}
}

// contextErr reports whether err is a context's error: what an operation
// that honours its context returns once the context ends.
func contextErr(err error) bool {
	return errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled)
}

// reportAttempt tells the observer how an attempt went.
func (d *driver[I, O]) reportAttempt(actx context.Context, a *Attempt[O], now time.Time) {
	if d.obs == nil {
		return
	}
	state := a.State.String()
	if a.Late {
		state = telemetry.OutcomeTimeout
	}
	d.endAttempt(
		actx,
		telemetry.Attempt{Number: a.Number, Start: a.Start, Latency: a.Latency, Err: a.Err,
			Acceptor: a.Acceptor, State: state, Transient: a.Transient, NextDelay: a.NextDelay, RetryAfter: a.Hint,
			Tokens: -1},
		now,
	)
}

// abandoned reports a call still in flight when the calls' context ended
// (at the deadline, or cancelled): counted, not judged (State Retry), the
// wait's end in its Outcome and checkpoint. It returns the attempt's event
// and the error that ends the wait.
func (d *driver[I, O]) abandoned(actx context.Context, start, now time.Time) (Attempt[O], error) {
	d.s.Attempts++
	d.s.MaxLatency = max(d.s.MaxLatency, now.Sub(start))
	err := d.stopped()
	a := Attempt[O]{
		Number:    d.s.Attempts,
		Start:     start,
		Latency:   now.Sub(start),
		Err:       context.Cause(d.ctx),
		Late:      d.deadlineHit(),
		Abandoned: true,
		State:     classify.Retry,
		Outcome:   outcomeOf(err),
	}
	a.Acceptor = -1
	d.s.Next, d.s.End = time.Time{}, a.Outcome
	count(&d.s.Seen, SeenCount{Acceptor: -1, State: a.Outcome})
	a.Checkpoint = d.s.clone()
	d.endAttempt(
		actx,
		telemetry.Attempt{Number: a.Number, Start: a.Start, Latency: a.Latency, Err: a.Err,
			Acceptor: -1, State: a.Outcome, Tokens: -1},
		now,
	)
	return a, err
}

// panicked ends the wait whose call (or acceptor) panicked: the attempt
// carries the *PanicError, and the wait's end is the panic.
func (d *driver[I, O]) panicked(
	actx context.Context,
	pe *PanicError,
	start, now time.Time,
) Attempt[O] {
	d.s.Attempts++
	d.s.Next, d.s.End = time.Time{}, telemetry.OutcomePanic
	a := Attempt[O]{Number: d.s.Attempts, Start: start, Latency: now.Sub(start), Err: pe,
		State: classify.Failure, Outcome: telemetry.OutcomePanic, Checkpoint: d.s.clone()}
	a.Acceptor = -1
	d.endAttempt(
		actx,
		telemetry.Attempt{Number: a.Number, Start: a.Start, Latency: a.Latency, Err: pe,
			Acceptor: -1, State: "failure", Tokens: -1},
		now,
	)
	return a
}

// advise consults the retry strategy for an error no acceptor matched,
// and keeps the strategy's token between the errors of a streak: a
// success returns it, any other outcome drops it. The strategy's refusal
// for its own attempt count or an empty quota is not the wait's end (see
// WithRetryStrategy): the error is retried, no sooner than the delay the
// strategy would have waited, and the next error starts a new streak of
// the strategy's. An error an acceptor judged Retry is polled again no
// sooner than its retry-after hint. It returns the token for the next
// call.
func (w *Waiter[I, O]) advise(ctx context.Context, a *Attempt[O], tok retry.Token) retry.Token {
	s := w.strategy
	switch {
	case s == nil:
		return nil
	case !a.Judgment.unmatched(a.Err):
		if a.Err == nil && tok != nil {
			s.RecordSuccess(tok)
		}
		if a.Err != nil && a.Judgment.State == classify.Retry {
			a.Hint = classify.Classify(a.Err).RetryAfter
			a.MinDelay = a.Hint
		}
		return nil
	}
	if tok == nil {
		tok, _ = s.AcquireInitialToken(ctx, "")
		if tok == nil {
			a.Refusal = errors.New("the retry strategy gave no token")
			return nil
		}
	}
	next, err := s.RefreshToken(ctx, tok, a.Err)
	a.Hint = classify.Classify(a.Err).RetryAfter
	switch {
	case err == nil:
		a.Retry, a.MinDelay = true, next.Delay()
	case errors.Is(err, retry.ErrMaxAttempts), errors.Is(err, retry.ErrQuotaExceeded):
		delay := a.Hint
		var re *retry.Error
		if errors.As(err, &re) {
			delay = max(delay, re.Delay)
		}
		a.Retry, a.Quota, a.MinDelay = true, errors.Is(err, retry.ErrQuotaExceeded), delay
	default:
		a.Refusal = err
	}
	return next
}

// startWait tells the observer a wait starts, guarded against its panics.
func (d *driver[I, O]) startWait(ctx context.Context, now time.Time) (c context.Context) {
	c = ctx
	defer d.guard()
	c, d.obs = d.w.obs.StartWait(
		ctx,
		telemetry.Wait{
			Kind:      "wait",
			Name:      d.w.def.Name,
			Operation: d.w.def.Operation.ID,
			MaxWait:   d.s.Deadline.Sub(d.s.Start),
		},
		now,
	)
	return c
}

func (d *driver[I, O]) startAttempt(ctx context.Context, n int, t time.Time) (c context.Context) {
	c = ctx
	defer d.guard()
	return d.obs.StartAttempt(ctx, n, t)
}

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
		we.Seen = slices.Clone(d.s.Seen)
	}
	d.release()
	if outcome := outcomeOf(err); d.w.giveUp != nil &&
		(outcome == telemetry.OutcomeTimeout || outcome == telemetry.OutcomeCancelled) {
		d.gaveUp(err)
	}
	d.endWait(outcomeOf(err), err)
	return err
}

// release ends the calls' context.
func (d *driver[I, O]) release() {
	if d.stop != nil {
		d.stop()
	}
}

// gaveUp calls WithOnGiveUp's function, under a context of its own,
// guarded against its panics.
func (d *driver[I, O]) gaveUp(err error) {
	ctx, cancel := d.clk().WithTimeout(context.WithoutCancel(d.parent), d.w.cfg.giveUpTimeout)
	defer cancel()
	defer func() {
		if p := recover(); p != nil {
			reportPanic(
				&survivedPanic{
					waiter: d.w.def.Name,
					what:   "its WithOnGiveUp hook",
					value:  p,
					stack:  debug.Stack(),
				},
			)
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
	d.obs.EndWait(
		telemetry.Outcome{
			Outcome:  outcome,
			Attempts: d.s.Attempts,
			Elapsed:  now.Sub(d.s.Start),
			Err:      err,
		},
		now,
	)
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
	return fmt.Sprintf(
		"waiter %s: %s panicked (the wait ended as it would have): %v\n\n%s",
		p.waiter,
		p.what,
		p.value,
		p.stack,
	)
}

// Unwrap returns the panic value if it is an error.
func (p *survivedPanic) Unwrap() error {
	err, _ := p.value.(error)
	return err
}

// outcomeOf names how a wait that ended with err ended, as the telemetry
// package's Outcome constants do.
func outcomeOf(err error) string {
	e, ok := err.(*Error) // the waiter's own errors, never wrapped
	if !ok {
		if _, ok := err.(*PanicError); ok {
			return telemetry.OutcomePanic
		}
		if err == nil {
			return telemetry.OutcomeSuccess
		}
		return telemetry.OutcomeCancelled
	}
	switch e.Reason {
	case ErrTimeout:
		return telemetry.OutcomeTimeout
	case ErrFailure:
		return telemetry.OutcomeFailure
	case ErrMaxPolls:
		return telemetry.OutcomeMaxPolls
	}
	return telemetry.OutcomeCancelled
}
