package waiter

import (
	"context"
	"runtime/debug"
	"time"

	"go.opentelemetry.io/otel"

	"github.com/waitable/waitable/telemetry"
)

// What an in-process wait's observer (WithTelemetry) hears, each call
// guarded against its panics.

// startWait tells the observer a wait starts, guarded against its panics.
func (d *driver[I, O]) startWait(ctx context.Context, now time.Time) (c context.Context) {
	c = ctx
	defer d.guard()
	c, d.obs = d.w.obs.StartWait(ctx, telemetry.Wait{Kind: "wait", Name: d.w.def.Name,
		Operation: d.w.def.Operation.ID, MaxWait: d.s.Deadline.Sub(d.s.Start)}, now)
	return c
}

// startAttempt tells the observer a call starts, and returns the
// attempt's context.
func (d *driver[I, O]) startAttempt(ctx context.Context, n int, t time.Time) (c context.Context) {
	c = ctx
	defer d.guard()
	return d.obs.StartAttempt(ctx, n, t)
}

// endAttempt tells the observer how the call of ans went, as v judged
// it, the wait's Checkpoint s after it.
func (d *driver[I, O]) endAttempt(actx context.Context, s *Checkpoint, ans *Answer[O], v *verdict, now time.Time) {
	if d.obs == nil {
		return
	}
	defer d.guard()
	state := v.state.String()
	if v.late {
		state = telemetry.OutcomeTimeout
	}
	var hint time.Duration
	if v.judged {
		hint = ans.Judgment.Hint
	}
	a := telemetry.Attempt{Number: v.number, Start: ans.Start, Latency: ans.Latency, Err: ans.Err,
		Acceptor: v.acceptor(&ans.Judgment), State: state, Transient: v.transient, NextDelay: v.nextDelay,
		RetryAfter: hint, Tokens: -1}
	if d.obs.Recording() {
		e := estimate(s, ans.Start, ans.Start.Add(ans.Latency), ans.Judgment.Progress)
		a.Estimated, a.ETA, a.ETA10, a.ETA90 = e.None == "" && s.End == "", e.P50, e.P10, e.P90
		a.Overdue = e.Overdue
	}
	d.obs.EndAttempt(actx, a, now)
}

// endWait tells the observer how the wait ended, and forgets it.
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
// give-up hook's) to OpenTelemetry's error handler (otel.Handle, which
// logs it unless an application installed its own).
func reportPanic(err error) { otel.Handle(err) }
