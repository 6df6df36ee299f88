package waiter

import (
	"context"
	"fmt"
	"runtime/debug"
	"slices"
	"time"

	"github.com/waitable/waitable/telemetry"
)

// How an in-process wait ends: its Checkpoint and error record the end,
// the give-up hook runs, and the observer hears it.

// end ends the wait with err (nil: success): it records the end in the
// Checkpoint and the error and the wait in the waiter's History, runs the
// give-up hook, and tells the observer; it returns err. (The loop's end also releases its context.)
func (d *driver[I, O]) end(err error) error {
	we, isErr := err.(*Error)
	if isErr && d.name != "" {
		we.Input = d.name
	}
	if d.s.Version != 0 && d.s.End == "" {
		if d.r != nil { // its Run has it: a copy changes
			c := d.s.clone()
			d.s = &c
		}
		d.s.Next, d.s.End = time.Time{}, outcomeOf(err)
	}
	if d.s.Version != 0 {
		// A store's error never fails a wait (the History says it, if it
		// can).
		_ = d.w.Remember(d.span, d.in, *d.s)
	}
	if isErr {
		we.Seen = slices.Clone(d.s.Seen)
	}
	if outcome := outcomeOf(err); d.w.giveUp != nil &&
		(outcome == telemetry.OutcomeTimeout || outcome == telemetry.OutcomeCancelled) {
		d.gaveUp(err)
	}
	d.endWait(outcomeOf(err), err)
	return err
}

// end is driver.end, and stops the loop's timers and releases the calls'
// context.
func (l *loop[I, O]) end(err error) error {
	l.stopTimer()
	if l.release != nil { // nil when the wait ends before its context is made
		l.release()
	}
	return l.driver.end(err)
}

// gaveUp calls WithOnGiveUp's function, under a context of its own,
// guarded against its panics.
func (d *driver[I, O]) gaveUp(err error) {
	ctx, cancel := d.clk().WithTimeout(context.WithoutCancel(d.span), d.w.cfg.giveUpTimeout)
	defer cancel()
	defer func() {
		if p := recover(); p != nil {
			reportPanic(&survivedPanic{waiter: d.w.def.Name, what: "its WithOnGiveUp hook", value: p, stack: debug.Stack()})
		}
	}()
	d.w.giveUp(ctx, d.in, err)
}

// survivedPanic is a panic that no caller can receive because the wait
// goes on or has ended without it: a give-up hook's. It goes to
// OpenTelemetry's error handler.
type survivedPanic struct {
	waiter, what string
	value        any
	stack        []byte
}

func (p *survivedPanic) Error() string {
	return fmt.Sprintf("waiter %s: %s panicked (the wait ended as it would have): %v\n\n%s",
		p.waiter, p.what, p.value, p.stack)
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
