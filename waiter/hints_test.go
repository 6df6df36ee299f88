package waiter_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/waitable/waitable/clocktest"
	"github.com/waitable/waitable/waiter"
)

// pending is a pending answer that says when to poll again, as an HTTP
// 202 with Retry-After does.
type pending struct {
	GetThingOutput
	after time.Duration
}

func (p *pending) RetryAfter() time.Duration { return p.after }

type hintOp func(n int) (*pending, error)

func (f hintOp) op(calls *[]time.Duration, begin time.Time) func(context.Context, GetThingInput) (*pending, error) {
	return func(ctx context.Context, in GetThingInput) (*pending, error) {
		*calls = append(*calls, time.Since(begin))
		return f(len(*calls))
	}
}

func pendingFor(after time.Duration) *pending {
	s := "creating"
	return &pending{GetThingOutput: GetThingOutput{Status: &s}, after: after}
}

func readyNow() *pending {
	s := "success"
	return &pending{GetThingOutput: GetThingOutput{Status: &s}}
}

// TestPendingHintSetsTheNextPoll: a pending answer whose RetryAfter says
// 30s is polled again 30s later, not at the schedule's 1s; one past the
// deadline ends the wait at once with ErrTimeout naming it.
func TestPendingHintSetsTheNextPoll(t *testing.T) {
	clocktest.Run(t, func(t *testing.T) {
		var calls []time.Duration
		script := hintOp(func(n int) (*pending, error) {
			if n == 1 {
				return pendingFor(30 * sec), nil
			}
			return readyNow(), nil
		})
		w, err := waiter.New(thingExists, script.op(&calls, time.Now()), waiter.WithDelays(sec, sec))
		if err != nil {
			t.Fatal(err)
		}
		r := w.Start(t.Context(), GetThingInput{"a"}, 5*time.Minute)
		var hints []time.Duration
		for a := range r.Events() {
			hints = append(hints, a.Hint)
		}
		if _, err := r.Result(); err != nil || len(calls) != 2 || calls[1] != 30*sec || hints[0] != 30*sec {
			t.Fatalf("Result %v, calls at %v, hints %v; want success, the second call at the 30s hint", err, calls, hints)
		}

		calls = nil
		script = func(n int) (*pending, error) { return pendingFor(time.Hour), nil }
		w, _ = waiter.New(thingExists, script.op(&calls, time.Now()), waiter.WithDelays(sec, sec))
		_, err = w.Wait(t.Context(), GetThingInput{"a"}, time.Minute)
		var we *waiter.Error
		if !errors.As(err, &we) || !errors.Is(err, waiter.ErrTimeout) || we.Hint != time.Hour || len(calls) != 1 ||
			!strings.Contains(err.Error(), "retry after 1h0m0s") {
			t.Fatalf("Wait = %v after %d calls; want ErrTimeout at once naming the 1h hint", err, len(calls))
		}
	})
}

// TestWithPollHint: the hint read by a function of the output (a header
// kept on it, say), instead of a RetryAfter method.
func TestWithPollHint(t *testing.T) {
	clocktest.Run(t, func(t *testing.T) {
		rec := newRecorder(func(n int) (*GetThingOutput, error) {
			if n == 1 {
				return &GetThingOutput{Status: ptr("creating"), Reason: ptr("12s")}, nil
			}
			return status("success"), nil
		})
		hint := func(out *GetThingOutput) time.Duration {
			if out == nil || out.Reason == nil {
				return 0
			}
			d, _ := time.ParseDuration(*out.Reason)
			return d
		}
		if _, err := mustNew(t, thingExists, rec.op, waiter.WithDelays(sec, sec), waiter.WithPollHint(hint)).Wait(t.Context(), GetThingInput{"a"}, time.Minute); err != nil {
			t.Fatal(err)
		}
		if got := rec.times(); len(got) != 2 || got[1] != 12*sec {
			t.Errorf("calls at %v, want the second at the 12s hint", got)
		}
	})
}

// TestWithDelayFunc: the delay chosen from the attempt and its answer;
// never sooner than the service's hint; shortened to the final call's
// near the deadline; and a function of another output type is refused.
func TestWithDelayFunc(t *testing.T) {
	clocktest.Run(t, func(t *testing.T) {
		rec := newRecorder(func(n int) (*GetThingOutput, error) {
			if n == 3 {
				return nil, throttled{after: 20 * sec}
			}
			return status("creating"), nil
		})
		var attempts []int
		f := func(attempt int, out *GetThingOutput, err error) time.Duration {
			attempts = append(attempts, attempt)
			return 7 * sec
		}
		_, err := mustNew(t, thingExists, rec.op, waiter.WithDelayFunc(f)).Wait(t.Context(), GetThingInput{"a"}, 45*sec)
		if !errors.Is(err, waiter.ErrTimeout) {
			t.Fatalf("Wait = %v, want a timeout", err)
		}
		// 0, 7, 14 (throttled: the 20s hint), 34, 41, then the final
		// call, 7s shortened to 45s less the reserve (20ms, the calls
		// taking no time).
		want := []time.Duration{0, 7 * sec, 14 * sec, 34 * sec, 41 * sec, 45*sec - 20*time.Millisecond}
		if got := rec.times(); !equalDurations(got, want) {
			t.Errorf("calls at %v, want %v", got, want)
		}
		if fmt.Sprint(attempts) != "[1 2 3 4 5 6]" {
			t.Errorf("f called for attempts %v, want 1 to 6 (the transient error included)", attempts)
		}
	})
	_, err := waiter.New(thingExists, readyAfter(1), waiter.WithDelayFunc(func(int, string, error) time.Duration { return 0 }))
	if !errors.Is(err, waiter.ErrInvalidOption) || !strings.Contains(err.Error(), "WithDelayFunc") {
		t.Errorf("New with a WithDelayFunc of another type = %v, want ErrInvalidOption naming it", err)
	}
	if _, err := waiter.New(thingExists, readyAfter(1), waiter.WithPollHint[*GetThingOutput](nil)); !errors.Is(err, waiter.ErrInvalidOption) {
		t.Errorf("New with a nil WithPollHint = %v, want ErrInvalidOption", err)
	}
}

// TestDelayFuncNotDuringAStreak: WithDelayFunc's f is not called for the
// successes of a WithStability streak, which are confirmed at MinDelay,
// as its doc says; it is called for the answers before.
func TestDelayFuncNotDuringAStreak(t *testing.T) {
	clocktest.Run(t, func(t *testing.T) {
		rec := newRecorder(func(n int) (*GetThingOutput, error) {
			if n <= 2 {
				return status("creating"), nil
			}
			return status("success"), nil
		})
		var attempts []int
		f := func(attempt int, out *GetThingOutput, err error) time.Duration {
			attempts = append(attempts, attempt)
			return 7 * sec
		}
		_, err := mustNew(t, thingExists, rec.op, waiter.WithDelayFunc(f), waiter.WithStability(3, 0),
			waiter.WithDelays(sec, 10*sec)).Wait(t.Context(), GetThingInput{"a"}, time.Hour)
		if err != nil {
			t.Fatal(err)
		}
		want := []time.Duration{0, 7 * sec, 14 * sec, 15 * sec, 16 * sec} // f's 7s, then MinDelay
		if got := rec.times(); !equalDurations(got, want) || fmt.Sprint(attempts) != "[1 2]" {
			t.Errorf("calls at %v, f called for attempts %v; want %v and [1 2]", got, attempts, want)
		}
	})
}
