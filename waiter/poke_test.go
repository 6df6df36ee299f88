package waiter_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"golang.org/x/time/rate"

	"github.com/waitable/waitable/clocktest"
	"github.com/waitable/waitable/waiter"
)

// readyFrom answers "creating" before ready (since begin), "success" from
// then on, recording each call's time per input.
type readyFrom struct {
	mu    sync.Mutex
	begin time.Time
	ready map[string]time.Duration
	calls map[string][]time.Duration
}

func newReadyFrom(ready map[string]time.Duration) *readyFrom {
	return &readyFrom{begin: time.Now(), ready: ready, calls: map[string][]time.Duration{}}
}

func (r *readyFrom) op(ctx context.Context, in GetThingInput) (*GetThingOutput, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	at := time.Since(r.begin)
	r.calls[in.Name] = append(r.calls[in.Name], at)
	if at >= r.ready[in.Name] {
		return status("success"), nil
	}
	return status("creating"), nil
}

func (r *readyFrom) times(name string) []time.Duration {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]time.Duration(nil), r.calls[name]...)
}

// TestPokeCallsNow: an event that the resource changed makes the next
// call now, not at the schedule's 30s; a poke within the gap of the last
// call waits for the gap's end; pokes during a call or after the end do
// nothing.
func TestPokeCallsNow(t *testing.T) {
	clocktest.Run(t, func(t *testing.T) {
		api := newReadyFrom(map[string]time.Duration{"a": 5 * sec})
		w := mustNew(t, thingExists, api.op, waiter.WithDelays(30*sec, 60*sec))
		r := w.Start(t.Context(), GetThingInput{"a"}, time.Hour)
		clocktest.Advance(time.Second)
		r.Poke() // at 1s, the end of the gap after the first call: now
		clocktest.Advance(4 * sec)
		r.Poke() // at 5s: ready now
		if _, err := r.Result(); err != nil {
			t.Fatal(err)
		}
		if got, want := api.times("a"), []time.Duration{0, sec, 5 * sec}; !equalDurations(got, want) {
			t.Errorf("calls at %v, want %v", got, want)
		}
		r.Poke() // ended: nothing
	})
}

// TestPokeInAGroup: a poked wait of a Group, whose waits share a timer,
// calls now and is not woken again with the others at their instant.
func TestPokeInAGroup(t *testing.T) {
	clocktest.Run(t, func(t *testing.T) {
		api := newReadyFrom(map[string]time.Duration{"a": time.Hour, "b": time.Hour, "c": time.Hour})
		w := mustNew(t, thingExists, api.op, waiter.WithDelays(10*sec, 10*sec))
		g := waiter.NewGroup(t.Context(), waiter.GroupOptions{})
		var runs []*waiter.Run[*GetThingOutput]
		for _, name := range []string{"a", "b", "c"} {
			runs = append(runs, waiter.Go(g, name, w, GetThingInput{name}, 25*sec))
		}
		clocktest.Advance(3 * sec)
		runs[1].Poke() // b, a follower or the leader of the 10s instant
		clocktest.Advance(20 * sec)
		g.Wait()
		// b leaves the 10s instant for 3s, then goes on from there; all
		// make their final call at 25s less the reserve.
		final := 25*sec - 20*time.Millisecond
		want := map[string][]time.Duration{
			"a": {0, 10 * sec, final},
			"b": {0, 3 * sec, 13 * sec, final},
			"c": {0, 10 * sec, final},
		}
		for name, w := range want {
			if got := api.times(name); !equalDurations(got, w) {
				t.Errorf("%s: calls at %v, want %v", name, got, w)
			}
		}
	})
}

// TestPokeInABatch: a poked key of a Batch is polled in the next call,
// now, not at its schedule's time.
func TestPokeInABatch(t *testing.T) {
	clocktest.Run(t, func(t *testing.T) {
		start := time.Now()
		api := &slowAPI{start: start, readyAt: func(k string) time.Duration {
			if k == "i-1" {
				return 4 * sec
			}
			return time.Hour
		}}
		b := newBatchOp(t, api.describe, waiter.BatchOptions[string, BatchInstance]{Linger: -1}, waiter.WithDelays(30*sec, 60*sec))
		r1 := b.Add(t.Context(), "i-1", time.Hour)
		r2 := b.Add(t.Context(), "i-2", time.Minute)
		clocktest.Advance(4 * sec)
		r1.Poke()
		if _, err := r1.Result(); err != nil || time.Since(start) != 4*sec {
			t.Errorf("i-1: %v at %v, want success at 4s", err, time.Since(start))
		}
		r2.Cancel()
		r2.Result()
	})
}

// TestPokeDuringACall: a poke that comes while a call is in flight (whose
// answer may predate the event) makes the next call when it returns.
func TestPokeDuringACall(t *testing.T) {
	clocktest.Run(t, func(t *testing.T) {
		rec := newRecorder(func(n int) (*GetThingOutput, error) {
			if n == 2 {
				return status("success"), nil
			}
			return status("creating"), nil
		})
		rec.delay = sec
		r := mustNew(t, thingExists, rec.op, waiter.WithDelays(30*sec, 60*sec)).Start(t.Context(), GetThingInput{"a"}, time.Hour)
		clocktest.Advance(500 * time.Millisecond)
		r.Poke()
		if _, err := r.Result(); err != nil {
			t.Fatal(err)
		}
		if got, want := rec.times(), []time.Duration{0, sec}; !equalDurations(got, want) {
			t.Errorf("calls at %v, want %v: the second as the first returned", got, want)
		}
	})
}

// TestPokeGapIsASecond: a poke comes no sooner than 1s after the last
// call, however long MinDelay is.
func TestPokeGapIsASecond(t *testing.T) {
	clocktest.Run(t, func(t *testing.T) {
		api := newReadyFrom(map[string]time.Duration{"a": 0})
		api.ready["a"] = 300 * time.Millisecond
		r := mustNew(t, thingExists, api.op, waiter.WithDelays(5*time.Minute, 10*time.Minute)).Start(t.Context(), GetThingInput{"a"}, time.Hour)
		clocktest.Advance(300 * time.Millisecond)
		r.Poke()
		if _, err := r.Result(); err != nil {
			t.Fatal(err)
		}
		if got, want := api.times("a"), []time.Duration{0, time.Second}; !equalDurations(got, want) {
			t.Errorf("calls at %v, want %v", got, want)
		}
	})
}

// TestInitialDelay: the first call comes after the initial delay, with
// Wait, Start and a Batch; a poke brings it forward.
func TestInitialDelay(t *testing.T) {
	clocktest.Run(t, func(t *testing.T) {
		rec := newRecorder(func(int) (*GetThingOutput, error) { return status("success"), nil })
		if _, err := mustNew(t, thingExists, rec.op, waiter.WithInitialDelay(30*sec)).Wait(t.Context(), GetThingInput{"a"}, time.Hour); err != nil {
			t.Fatal(err)
		}
		rec2 := newRecorder(func(int) (*GetThingOutput, error) { return status("success"), nil })
		r := mustNew(t, thingExists, rec2.op, waiter.WithInitialDelay(30*sec)).Start(t.Context(), GetThingInput{"a"}, time.Hour)
		clocktest.Advance(5 * sec)
		r.Poke()
		if _, err := r.Result(); err != nil {
			t.Fatal(err)
		}
		if got1, got2 := rec.times(), rec2.times(); !equalDurations(got1, []time.Duration{30 * sec}) || !equalDurations(got2, []time.Duration{5 * sec}) {
			t.Errorf("first calls at %v (Wait) and %v (Start, poked at 5s), want [30s] and [5s]", got1, got2)
		}

		start := time.Now()
		api := &slowAPI{start: start, readyAt: func(string) time.Duration { return 0 }}
		b := newBatchOp(t, api.describe, waiter.BatchOptions[string, BatchInstance]{Linger: -1}, waiter.WithInitialDelay(20*sec))
		r1, r2 := b.Add(t.Context(), "i-1", time.Hour), b.Add(t.Context(), "i-2", time.Hour)
		clocktest.Advance(2 * sec)
		r2.Poke()
		r2.Result()
		at2 := time.Since(start)
		r1.Result()
		if at1 := time.Since(start); at1 != 20*sec || at2 != 2*sec {
			t.Errorf("batch: i-1 at %v, i-2 (poked at 2s) at %v; want 20s and 2s", at1, at2)
		}
	})
	if _, err := waiter.New(thingExists, readyAfter(1), waiter.WithInitialDelay(-sec)); err == nil {
		t.Error("WithInitialDelay(-1s) accepted")
	}
}

// TestPokeUnderTheRateLimit: a poked call still takes its token of the
// poll rate limit: with one token per 20s, a poke 1s after the first call
// makes the next call at 20s, and a second poke while it waits for that
// token changes nothing.
func TestPokeUnderTheRateLimit(t *testing.T) {
	clocktest.Run(t, func(t *testing.T) {
		rec := newRecorder(func(n int) (*GetThingOutput, error) {
			if n == 2 {
				return status("success"), nil
			}
			return status("creating"), nil
		})
		lim := rate.NewLimiter(rate.Every(20*sec), 1)
		r := mustNew(t, thingExists, rec.op, waiter.WithDelays(time.Minute, time.Minute), waiter.WithPollRateLimit(lim)).Start(t.Context(), GetThingInput{"a"}, time.Hour)
		clocktest.Advance(sec)
		r.Poke()
		clocktest.Advance(sec)
		r.Poke()
		if _, err := r.Result(); err != nil {
			t.Fatal(err)
		}
		// x/time/rate counts tokens in float64 seconds: 20s give or take 1ns.
		if got := rec.times(); len(got) != 2 || got[1] < 20*sec-time.Millisecond || got[1] > 20*sec {
			t.Errorf("calls at %v, want the second at the 20s token", got)
		}
	})
}

// TestInitialDelayWithinTheBudget: an initial delay longer than the wait
// still leaves its first call before the deadline.
func TestInitialDelayWithinTheBudget(t *testing.T) {
	clocktest.Run(t, func(t *testing.T) {
		rec := newRecorder(func(int) (*GetThingOutput, error) { return status("success"), nil })
		if _, err := mustNew(t, thingExists, rec.op, waiter.WithInitialDelay(time.Hour)).Wait(t.Context(), GetThingInput{"a"}, time.Minute); err != nil {
			t.Fatal(err)
		}
		if got := rec.times(); len(got) != 1 || got[0] >= time.Minute {
			t.Errorf("calls at %v, want one before the 1m deadline", got)
		}
	})
}

// TestPokeNeverUndercutsRetryAfter: a poke never brings a call before an
// error's retry-after (a throttle asking for 30s, on a 2s schedule, poked
// at +5s, is called at +30s), in a Start and in a Batch; it may bring
// forward a pending answer's own poll hint (the event is news the hint
// could not know); and after a poke, the next answer's hint is honoured as
// always.
func TestPokeNeverUndercutsRetryAfter(t *testing.T) {
	clocktest.Run(t, func(t *testing.T) {
		rec := newRecorder(func(n int) (*GetThingOutput, error) {
			if n == 1 {
				return nil, throttled{after: 30 * sec}
			}
			return status("success"), nil
		})
		r := mustNew(t, thingExists, rec.op, waiter.WithDelays(2*sec, 2*sec)).Start(t.Context(), GetThingInput{"a"}, time.Hour)
		clocktest.Advance(5 * sec)
		r.Poke()
		if _, err := r.Result(); err != nil {
			t.Fatal(err)
		}
		if got, want := rec.times(), []time.Duration{0, 30 * sec}; !equalDurations(got, want) {
			t.Errorf("throttled, poked at +5s: calls at %v, want %v", got, want)
		}

		hinted := newRecorder(func(n int) (*GetThingOutput, error) {
			if n == 1 {
				return status("creating"), nil
			}
			return status("success"), nil
		})
		hint := waiter.WithPollHint(func(out *GetThingOutput) time.Duration { return 30 * sec })
		r = mustNew(t, thingExists, hinted.op, waiter.WithDelays(2*sec, 2*sec), hint).Start(t.Context(), GetThingInput{"a"}, time.Hour)
		clocktest.Advance(5 * sec)
		r.Poke()
		if _, err := r.Result(); err != nil {
			t.Fatal(err)
		}
		if got, want := hinted.times(), []time.Duration{0, 5 * sec}; !equalDurations(got, want) {
			t.Errorf("pending with a 30s hint, poked at +5s: calls at %v, want %v", got, want)
		}

		start := time.Now()
		calls := 0
		var mu sync.Mutex
		var at []time.Duration
		op := func(ctx context.Context, keys []string) (map[string]BatchInstance, error) {
			mu.Lock()
			defer mu.Unlock()
			calls++
			at = append(at, time.Since(start))
			if calls == 1 {
				return nil, throttled{after: 30 * sec}
			}
			inst := BatchInstance{InstanceId: "i-1"}
			inst.State.Name = "running"
			return map[string]BatchInstance{"i-1": inst}, nil
		}
		b := newBatchOp(t, op, waiter.BatchOptions[string, BatchInstance]{Linger: -1}, waiter.WithDelays(2*sec, 2*sec))
		br := b.Add(t.Context(), "i-1", time.Hour)
		clocktest.Advance(5 * sec)
		br.Poke()
		if _, err := br.Result(); err != nil {
			t.Fatal(err)
		}
		mu.Lock()
		defer mu.Unlock()
		if want := []time.Duration{0, 30 * sec}; !equalDurations(at, want) {
			t.Errorf("batch, throttled, poked at +5s: calls at %v, want %v", at, want)
		}
	})
}
