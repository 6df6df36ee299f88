package waiter_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/waitable/waitable/clocktest"
	"github.com/waitable/waitable/waiter"
)

type coded string

func (c coded) Error() string       { return string(c) }
func (c coded) ErrorCode() string   { return string(c) }
func (c coded) HTTPStatusCode() int { return 500 }

// TestSeenCountsAnswers: a wait counts its answers by kind; the Run, the
// error of a wait that did not succeed, every event's checkpoint (as it
// was then) and the checkpoint's JSON carry the counts.
func TestSeenCountsAnswers(t *testing.T) {
	clocktest.Run(t, func(t *testing.T) {
		rec := newRecorder(func(n int) (*GetThingOutput, error) {
			switch {
			case n <= 2:
				return nil, throttled{}
			case n <= 5:
				return status("creating"), nil
			}
			return status("success"), nil
		})
		r := mustNew(t, thingExists, rec.op).Start(t.Context(), GetThingInput{"a"}, time.Hour)
		for a := range r.Events() {
			if got := total(a.Checkpoint.Seen); got != a.Checkpoint.Attempts {
				t.Errorf("attempt %d's checkpoint counts %d answers (%v)", a.Checkpoint.Attempts, got, a.Checkpoint.Seen)
			}
		}
		if _, err := r.Result(); err != nil {
			t.Fatal(err)
		}
		if got, want := seenString(r.Checkpoint().Seen), "2 × ThrottlingException retry, 3 × no acceptor retry, 1 × acceptor 1 success"; got != want {
			t.Errorf("Seen = %q\nwant   %q", got, want)
		}
		b, _ := r.Checkpoint().MarshalJSON()
		s, err := waiter.ParseCheckpoint(b)
		if err != nil || seenString(s.Seen) != seenString(r.Checkpoint().Seen) {
			t.Errorf("through JSON: %v, %v", s.Seen, err)
		}

		rec = newRecorder(func(n int) (*GetThingOutput, error) { return status("creating"), nil })
		_, err = mustNew(t, thingExists, rec.op).Wait(t.Context(), GetThingInput{"a"}, 10*sec)
		var we *waiter.Error
		if !errors.As(err, &we) || total(we.Seen) != len(rec.times()) || seenString(we.Seen) != fmt.Sprintf("%d × no acceptor retry", len(rec.times())) {
			t.Errorf("timeout's Seen = %v after %d calls", we.Seen, len(rec.times()))
		}
	})
}

// TestSeenIsBounded: a service whose error codes never repeat fills at
// most 32 kinds; the rest count as "other".
func TestSeenIsBounded(t *testing.T) {
	clocktest.Run(t, func(t *testing.T) {
		rec := newRecorder(func(n int) (*GetThingOutput, error) { return nil, coded(fmt.Sprint("Oops", n)) })
		r := mustNew(t, thingExists, rec.op, waiter.WithDelays(sec, sec)).Start(t.Context(), GetThingInput{"a"}, time.Minute)
		r.Result()
		seen := r.Checkpoint().Seen
		if len(seen) > 32 || total(seen) != len(rec.times()) || seen[len(seen)-1].Code != "other" {
			t.Errorf("%d kinds, %d answers of %d calls, last %+v", len(seen), total(seen), len(rec.times()), seen[len(seen)-1])
		}
	})
}

// total is the number of answers counted.
func total(seen []waiter.SeenCount) int {
	n := 0
	for _, c := range seen {
		n += c.N
	}
	return n
}

// seenString reads counts as an error message does: "3 × acceptor 1
// retry, 1 × acceptor 0 success".
func seenString(seen []waiter.SeenCount) string {
	s := make([]string, len(seen))
	for i, c := range seen {
		s[i] = c.String()
	}
	return strings.Join(s, ", ")
}
