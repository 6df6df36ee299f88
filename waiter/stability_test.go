package waiter_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/waitable/waitable/backoff"
	"github.com/waitable/waitable/clocktest"
	"github.com/waitable/waitable/waiter"
)

// flapping answers the statuses in order, the last one repeating.
func flapping(statuses ...string) *recorder {
	return newRecorder(func(n int) (*GetThingOutput, error) {
		return status(statuses[min(n, len(statuses))-1]), nil
	})
}

// TestStabilityNInARow: with WithStability(3, 0), success comes only on
// the third success in a row; a pending answer breaks the streak; the
// events show it; the confirming polls come at MinDelay.
func TestStabilityNInARow(t *testing.T) {
	clocktest.Run(t, func(t *testing.T) {
		rec := flapping("success", "success", "creating", "success", "success", "success")
		w := mustNew(t, thingExists, rec.op, waiter.WithStability(3, 0), waiter.WithDelays(2*sec, 60*sec), waiter.WithJitter(backoff.High))
		r := w.Start(t.Context(), GetThingInput{"a"}, time.Hour)
		var got []string
		for a := range r.Events() {
			got = append(got, fmt.Sprintf("%v/%d/%v", a.Decision, a.Checkpoint.Streak, a.NextDelay))
		}
		if _, err := r.Result(); err != nil || len(rec.times()) != 6 {
			t.Fatalf("Result = %v after %d calls, want success on the 6th", err, len(rec.times()))
		}
		want := "[retry/1/2s retry/2/2s retry/0/8s retry/1/2s retry/2/2s success/3/0s]"
		if fmt.Sprint(got) != want {
			t.Errorf("attempts %v\nwant     %v", got, want)
		}
	})
}

// TestStabilityOverADuration: with WithStability(1, 10s), success needs
// the success acceptor to have held for 10s of polls.
func TestStabilityOverADuration(t *testing.T) {
	clocktest.Run(t, func(t *testing.T) {
		rec := flapping("success")
		start := time.Now()
		if _, err := mustNew(t, thingExists, rec.op, waiter.WithStability(1, 10*sec), waiter.WithDelays(3*sec, 60*sec)).Wait(t.Context(), GetThingInput{"a"}, time.Hour); err != nil {
			t.Fatal(err)
		}
		if got := time.Since(start); got != 12*sec {
			t.Errorf("success at %v, want at 12s: polls every 3s until one 10s after the first", got)
		}
	})
}

// TestStabilityUntilTheDeadline: a streak still too short at the
// deadline is a timeout.
func TestStabilityUntilTheDeadline(t *testing.T) {
	clocktest.Run(t, func(t *testing.T) {
		rec := flapping("success", "creating")
		_, err := mustNew(t, thingExists, rec.op, waiter.WithStability(2, 0)).Wait(t.Context(), GetThingInput{"a"}, 30*sec)
		if !errors.Is(err, waiter.ErrTimeout) {
			t.Errorf("Wait = %v, want a timeout", err)
		}
	})
}

// TestStabilityResumes: the streak is in the checkpoint: a wait resumed
// mid-streak needs only the rest of it.
func TestStabilityResumes(t *testing.T) {
	clocktest.Run(t, func(t *testing.T) {
		rec := flapping("success")
		w := mustNew(t, thingExists, rec.op, waiter.WithStability(3, 0))
		r := w.Start(t.Context(), GetThingInput{"a"}, time.Hour)
		var cp waiter.Checkpoint
		for a := range r.Events() {
			if a.Checkpoint.Attempts == 2 {
				cp = a.Checkpoint
				r.Cancel()
			}
		}
		r.Result()
		b, _ := json.Marshal(cp)
		s, err := waiter.ParseCheckpoint(b)
		if err != nil || s.Streak != 2 {
			t.Fatalf("checkpoint %s: %v, streak %d; want 2", b, err, s.Streak)
		}
		if _, err := w.WaitFrom(t.Context(), GetThingInput{"a"}, s); err != nil || len(rec.times()) != 3 {
			t.Errorf("WaitFrom = %v after %d calls in all; want success on the 3rd", err, len(rec.times()))
		}
	})
}

// TestStabilityBadValues: n < 1 or a negative duration are refused.
func TestStabilityBadValues(t *testing.T) {
	for _, o := range []waiter.Option{waiter.WithStability(0, 0), waiter.WithStability(-1, sec), waiter.WithStability(2, -sec)} {
		if _, err := waiter.New(thingExists, readyAfter(1), o); !errors.Is(err, waiter.ErrInvalidOption) {
			t.Errorf("New = %v, want ErrInvalidOption", err)
		}
	}
}
