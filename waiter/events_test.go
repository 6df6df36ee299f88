package waiter_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/waitable/waitable/backoff"
	"github.com/waitable/waitable/classify"
	"github.com/waitable/waitable/clocktest"
	"github.com/waitable/waitable/waiter"
)

// readyAfter returns an operation whose resource is ready at call n.
func readyAfter(n int) func(context.Context, GetThingInput) (*GetThingOutput, error) {
	var mu sync.Mutex
	calls := 0
	return func(context.Context, GetThingInput) (*GetThingOutput, error) {
		mu.Lock()
		defer mu.Unlock()
		if calls++; calls < n {
			return status("creating"), nil
		}
		return status("success"), nil
	}
}

// TestEventsInOrder: 16 attempts, as many as a Run keeps unread, read by a
// slow reader that starts late: every attempt arrives once, in order, and
// the channel is closed after the last.
func TestEventsInOrder(t *testing.T) {
	clocktest.Run(t, func(t *testing.T) {
		w := mustNew(t, thingExists, readyAfter(16), waiter.WithDelays(time.Millisecond, time.Millisecond))
		r := w.Start(t.Context(), GetThingInput{"a"}, time.Hour)
		clocktest.Advance(10 * time.Millisecond) // 10 attempts before anyone reads
		n := 0
		for a := range r.Events() {
			n++
			if a.Checkpoint.Attempts != n {
				t.Fatalf("event %d is attempt %d", n, a.Checkpoint.Attempts)
			}
			time.Sleep(5 * time.Millisecond) // a slow reader
		}
		if _, err := r.Result(); err != nil || n != 16 || r.Missed() != 0 {
			t.Fatalf("read %d events, %d missed, Result error %v; want 16, none missed, and success", n, r.Missed(), err)
		}
	})
}

// TestUnreadRunIsBounded: 30,000 polls 1ms apart with 4 KB outputs and
// nobody reading. Polling keeps its schedule, the run keeps only its
// event buffer's worth of attempts, and a reader that comes at the end
// gets the last 16, in order, with the 29,984 it missed counted.
func TestUnreadRunIsBounded(t *testing.T) {
	clocktest.Run(t, func(t *testing.T) {
		const polls = 30_000
		var mu sync.Mutex
		calls := 0
		op := func(context.Context, GetThingInput) (*GetThingOutput, error) {
			mu.Lock()
			defer mu.Unlock()
			calls++
			out := status("creating")
			if calls == polls {
				out = status("success")
			}
			reason := strings.Repeat("x", 4096)
			out.Reason = &reason
			return out, nil
		}
		w := mustNew(t, thingExists, op, waiter.WithDelays(time.Millisecond, time.Millisecond))
		start := time.Now()
		r := w.Start(t.Context(), GetThingInput{"a"}, time.Hour)
		if _, err := r.Result(); err != nil || time.Since(start) != (polls-1)*time.Millisecond {
			t.Fatalf("Result = %v after %v, want success after %v", err, time.Since(start), (polls-1)*time.Millisecond)
		}
		var got []int
		for a := range r.Events() {
			got = append(got, a.Checkpoint.Attempts)
		}
		if len(got) != 16 || got[0] != polls-16+1 || got[len(got)-1] != polls || r.Missed() != polls-16 {
			t.Errorf("a late reader got attempts %v, %d missed; want the last %d and %d missed", got, r.Missed(), 16, polls-16)
		}
	})
}

// TestBreakOutOfAttempts: a reader that breaks out of the loop leaves no
// goroutine behind, whether the run goes on or has ended (the bubble
// reports a goroutine blocked for ever otherwise).
func TestBreakOutOfAttempts(t *testing.T) {
	clocktest.Run(t, func(t *testing.T) {
		w := mustNew(t, thingExists, readyAfter(50), waiter.WithDelays(time.Second, time.Second))
		r := w.Start(t.Context(), GetThingInput{"a"}, time.Hour)
		for a := range r.Events() {
			if a.Checkpoint.Attempts == 2 {
				break
			}
		}
		if _, err := r.Result(); err != nil {
			t.Fatal(err)
		}
		for range r.Events() {
			break
		}
	})
}

// TestEventsCloseAfterDone: whenever a reader finds the events channel
// closed, Done is closed already; checked over 20,000 runs of every kind of
// ending.
func TestEventsCloseAfterDone(t *testing.T) {
	clocktest.Run(t, func(t *testing.T) {
		w := mustNew(t, thingExists, readyAfter(2), waiter.WithDelays(time.Nanosecond, time.Nanosecond))
		failing := mustNew(t, thingExists, func(context.Context, GetThingInput) (*GetThingOutput, error) { return nil, accessDenied{} })
		var wg sync.WaitGroup
		for i := range 20_000 {
			wg.Go(func() {
				ww := w
				if i%2 == 1 {
					ww = failing
				}
				r := ww.Start(t.Context(), GetThingInput{"a"}, time.Hour)
				for range r.Events() {
				}
				select {
				case <-r.Done():
				default:
					t.Errorf("run %d: the events channel closed before Done", i)
				}
			})
		}
		wg.Wait()
	})
}

// TestEventFields checks one event in full.
func TestEventFields(t *testing.T) {
	clocktest.Run(t, func(t *testing.T) {
		start := time.Now()
		op := func(ctx context.Context, in GetThingInput) (*GetThingOutput, error) {
			time.Sleep(250 * time.Millisecond)
			return status("creating"), nil
		}
		r := mustNew(t, thingExists, op, waiter.WithJitter(backoff.High), waiter.WithMaxPolls(2)).Start(t.Context(), GetThingInput{"a"}, time.Minute)
		var got []waiter.Attempt[*GetThingOutput]
		for a := range r.Events() {
			got = append(got, a)
		}
		if len(got) != 2 {
			t.Fatalf("%d attempts", len(got))
		}
		a := got[1]
		if a.Checkpoint.Attempts != 2 || !a.Start.Equal(start.Add(2250*time.Millisecond)) || a.Latency != 250*time.Millisecond || *a.Output.Status != "creating" ||
			a.Err != nil || a.Acceptor != -1 || a.Decision != classify.Retry || a.Transient || a.NextDelay != 0 {
			t.Errorf("attempt 2 = %+v", a)
		}
		if got[0].NextDelay != 2*time.Second {
			t.Errorf("attempt 1 NextDelay = %v, want 2s", got[0].NextDelay)
		}
	})
}

// TestConcurrentRuns: 100 runs of one Waiter at once, each on its own
// resource, all reading their events.
func TestConcurrentRuns(t *testing.T) {
	clocktest.Run(t, func(t *testing.T) {
		var mu sync.Mutex
		calls := map[string]int{}
		op := func(ctx context.Context, in GetThingInput) (*GetThingOutput, error) {
			mu.Lock()
			defer mu.Unlock()
			calls[in.Name]++
			if calls[in.Name] < 1+len(in.Name)%5 {
				return status("creating"), nil
			}
			return status("success"), nil
		}
		w := mustNew(t, thingExists, op)
		var wg sync.WaitGroup
		for i := range 100 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				name := strings.Repeat("x", i)
				r := w.Start(t.Context(), GetThingInput{name}, time.Hour)
				n := 0
				for range r.Events() {
					n++
				}
				if _, err := r.Result(); err != nil || n != 1+i%5 {
					t.Errorf("run %d: %v after %d events", i, err, n)
				}
			}()
		}
		wg.Wait()
	})
}

func TestNewErrors(t *testing.T) {
	op := newRecorder(nil).op
	tests := []struct {
		name string
		def  waiter.Definition
		op   func(context.Context, GetThingInput) (*GetThingOutput, error)
		opts []waiter.Option
		want []string
	}{
		{"nil op", thingExists, nil, nil, []string{"waiter: invalid option: waiter ThingExists: the operation is nil"}},
		{"bad options", thingExists, op, []waiter.Option{waiter.WithDelays(2*time.Second, time.Second), waiter.WithMaxPolls(-1), waiter.WithAttemptTimeout(0), waiter.WithClock(nil), waiter.WithFinalReserve(-1), waiter.WithPollRateLimit(nil)},
			[]string{"WithDelays(2s, 1s)", "WithMaxPolls(-1)", "WithAttemptTimeout(0s)", "WithClock: clock is nil", "WithFinalReserve(-1ns)", "WithPollRateLimit: limiter is nil"}},
		{"invalid definition", waiter.Definition{Name: "x"}, op, nil, []string{"waiter x: name:", "waiter x: acceptors: there are none"}},
		{"typo in a path", waiter.Definition{Name: "A", Acceptors: []classify.Acceptor{{State: classify.Success, Matcher: classify.OnOutput("Statuss", classify.StringEquals, "x")}}}, op, nil,
			[]string{`waiter A: acceptor 0: path: Statuss: type error at offset 0: field "Statuss" does not exist on waiter_test.GetThingOutput (did you mean Status?)`}},
		{"WithMatch of other types", thingExists, op, []waiter.Option{waiter.WithMatch(classify.Success, "wrong", func(string, int, error) bool { return true })},
			[]string{`WithMatch("wrong") is for func(string, int, error) bool, not func(waiter_test.GetThingInput, *waiter_test.GetThingOutput, error) bool`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w, err := waiter.New(tt.def, tt.op, tt.opts...)
			if w != nil || err == nil {
				t.Fatalf("New = %v, %v; want an error", w, err)
			}
			for _, want := range tt.want {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("New error %q\ndoes not contain %q", err, want)
				}
			}
			if !errors.Is(err, waiter.ErrInvalidOption) && !errors.Is(err, waiter.ErrInvalidDefinition) {
				t.Errorf("New error matches neither ErrInvalidOption nor ErrInvalidDefinition")
			}
		})
	}
}

// TestCustomAcceptors: WithMatch functions come first, in the order
// given, then the definition's acceptors.
func TestCustomAcceptors(t *testing.T) {
	clocktest.Run(t, func(t *testing.T) {
		op := func(ctx context.Context, in GetThingInput) (*GetThingOutput, error) { return status("gone"), nil }
		w := mustNew(t, withAcceptors(thingExists, classify.Acceptor{State: classify.Success, Matcher: classify.OnOutput("status", classify.StringEquals, "gone")}), op,
			waiter.WithMatch(classify.Failure, "resource gone", func(in GetThingInput, out *GetThingOutput, err error) bool {
				return out != nil && *out.Status == "gone" && in.Name == "a"
			}))
		_, err := w.Wait(t.Context(), GetThingInput{"a"}, time.Minute)
		var we *waiter.Error
		if !errors.As(err, &we) || we.Acceptor != 0 || we.Matcher != "resource gone" {
			t.Fatalf("Wait(a) = %v, want the WithMatch failure", err)
		}
		if _, err := w.Wait(t.Context(), GetThingInput{"b"}, time.Minute); err != nil {
			t.Fatalf("Wait(b) = %v, want the added acceptor's success", err)
		}
	})
}
