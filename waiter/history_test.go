package waiter_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/waitable/waitable/backoff"
	"github.com/waitable/waitable/classify"
	"github.com/waitable/waitable/clocktest"
	"github.com/waitable/waitable/telemetry"
	"github.com/waitable/waitable/waiter"
)

// readyOp is a resource ready from the instant its input names: each call
// says whether it is.
func readyOp(_ context.Context, readyAt time.Time) (bool, error) {
	return !time.Now().Before(readyAt), nil
}

func readyCond(_ time.Time, ready bool, err error) (bool, error) { return ready, err }

// newReady returns a waiter on readyOp, EKS's delays (30s to 120s).
func newReady(t *testing.T, opts ...waiter.Option) *waiter.Waiter[time.Time, bool] {
	t.Helper()
	opts = append([]waiter.Option{waiter.WithDelays(30*time.Second, 120*time.Second),
		waiter.WithTelemetry(telemetry.Settings{Off: true})}, opts...)
	w, err := waiter.NewFunc("Ready", readyOp, readyCond, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// waitFor runs one wait of w, in a bubble's time, for a resource ready
// after d, and returns its attempts.
func waitFor(t *testing.T, w *waiter.Waiter[time.Time, bool], d time.Duration) []waiter.Attempt[bool] {
	t.Helper()
	r := w.Start(t.Context(), time.Now().Add(d), time.Hour)
	var as []waiter.Attempt[bool]
	for a := range r.Events() {
		as = append(as, a)
	}
	if _, err := r.Result(); err != nil {
		t.Fatalf("a wait for a resource ready after %v: %v", d, err)
	}
	return as
}

// history is a History of the test's: samples given, errors and what
// it was told.
type history struct {
	mu      sync.Mutex
	samples []waiter.Sample
	loadErr error
	addErr  error
	block   bool // Load waits for its context to end
	added   []waiter.Sample
	keys    []string
}

func (h *history) Load(ctx context.Context, name, key string) ([]waiter.Sample, error) {
	h.mu.Lock()
	h.keys = append(h.keys, key)
	block := h.block
	h.mu.Unlock()
	if block {
		<-ctx.Done()
		return nil, ctx.Err()
	}
	return slices.Clone(h.samples), h.loadErr
}

func (h *history) Add(_ context.Context, name, key string, s waiter.Sample) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.added = append(h.added, s)
	return h.addErr
}

// pastWaits is n samples of waits that ended between 9 and 10 minutes,
// seen between polls 30s apart.
func pastWaits(n int) []waiter.Sample {
	r := rand.New(rand.NewPCG(3, 4))
	var s []waiter.Sample
	for range n {
		done := 9*time.Minute + time.Duration(r.Int64N(int64(time.Minute)))
		s = append(s, waiter.Sample{Pending: done - 30*time.Second, Ready: done, End: "success"})
	}
	return s
}

// TestEstimateNeedsHistory: a Waiter learns from its own waits in memory,
// with no setup: with fewer than MinHistory before it, a wait's attempts
// say there is no estimate and why; from MinHistory on, each attempt
// carries the percentiles of the time left, in order, the median
// shrinking as the wait goes on.
func TestEstimateNeedsHistory(t *testing.T) {
	clocktest.Run(t, func(t *testing.T) {
		w := newReady(t)
		for i := range waiter.MinHistory {
			as := waitFor(t, w, 10*time.Minute)
			want := fmt.Sprintf("%d past wait%s, 4 needed", i, map[bool]string{true: "", false: "s"}[i == 1])
			if e := as[0].Estimate(); e.None != want || e.P50 != 0 {
				t.Errorf("wait %d: first attempt's estimate %+v, want none, saying %q", i+1, e, want)
			}
		}
		as := waitFor(t, w, 10*time.Minute)
		last := time.Duration(math.MaxInt64)
		for _, a := range as[:len(as)-1] {
			e := a.Estimate()
			if e.None != "" || e.Past != waiter.MinHistory || !(e.P10 <= e.P50 && e.P50 <= e.P90) || e.P90 <= 0 {
				t.Fatalf("attempt %d: estimate %+v, want one from %d past waits, in order", a.Checkpoint.Attempts, e, waiter.MinHistory)
			}
			if e.P50 > last {
				t.Errorf("attempt %d: median %v after %v: want it to shrink", a.Checkpoint.Attempts, e.P50, last)
			}
			last = e.P50
		}
		if e := as[0].Estimate(); e.P10 > 10*time.Minute || e.P90 < 10*time.Minute {
			t.Errorf("first attempt's band %v to %v: the past waits all took about 10m", e.P10, e.P90)
		}
		if e := as[len(as)-1].Estimate(); e.P50 != 0 || e.None != "" {
			t.Errorf("the attempt that ended the wait: estimate %+v, want nothing left", e)
		}
	})
}

// TestRememberSaysWhatWasSeen: a wait is recorded as what its polls saw:
// a success between the last call that saw the resource pending and the
// call that saw it done (never a poll's time alone); a timeout as longer
// than its last pending call; a wait that made no call, not at all.
func TestRememberSaysWhatWasSeen(t *testing.T) {
	clocktest.Run(t, func(t *testing.T) {
		h := &history{}
		w := newReady(t, waiter.WithHistory(h), waiter.WithJitter(backoff.Low))
		waitFor(t, w, 100*time.Second) // polls at 0, 30s, 60s, 90s, 120s
		ctx, cancel := context.WithTimeout(t.Context(), 50*time.Second)
		_, err := w.Wait(ctx, time.Now().Add(time.Hour), time.Hour) // polls at 0, 30s, 49.97s
		cancel()
		if !errors.Is(err, waiter.ErrTimeout) {
			t.Fatalf("Wait = %v, want a timeout", err)
		}
		done, cancelled := context.WithCancel(t.Context())
		cancelled()
		w.Wait(done, time.Now(), time.Hour) // no call
		want := []waiter.Sample{{Pending: 90 * time.Second, Ready: 120 * time.Second, End: "success"}, {Pending: 30 * time.Second, End: "timeout"}}
		if len(h.added) != 2 || h.added[0] != want[0] || h.added[1].End != "timeout" || h.added[1].Pending < 30*time.Second {
			t.Errorf("recorded %+v, want %+v", h.added, want)
		}
	})
}

// TestBrokenHistoryNeverFailsOrSlows: a History that errs, or holds
// samples that make no sense (negative, a year and more, done before
// pending, an end it does not know), never fails a wait nor moves its
// polls: the wait runs on the Smithy schedule, every attempt saying why
// there is no estimate; one that does not answer is given up after
// 100ms.
func TestBrokenHistoryNeverFailsOrSlows(t *testing.T) {
	good := pastWaits(20)
	nonsense := func(bad waiter.Sample) []waiter.Sample { return append(slices.Clone(good[:10]), bad) }
	for _, c := range []struct {
		name string
		h    *history
		why  string
	}{
		{"unreadable", &history{loadErr: errors.New("bolt: database not open")}, "the history could not be read: bolt: database not open"},
		{"negative", &history{samples: nonsense(waiter.Sample{Pending: -time.Second, Ready: time.Second, End: "success"})}, "a negative duration"},
		{"years", &history{samples: nonsense(waiter.Sample{Pending: 3 * 365 * 24 * time.Hour, Ready: 4 * 365 * 24 * time.Hour, End: "success"})}, "a duration over"},
		{"reversed", &history{samples: nonsense(waiter.Sample{Pending: time.Minute, Ready: time.Second, End: "success"})}, "before pending"},
		{"unknown end", &history{samples: nonsense(waiter.Sample{Pending: time.Minute, End: "exploded"})}, `an unknown end "exploded"`},
		{"add fails", &history{addErr: errors.New("disk full")}, "0 past waits, 4 needed"},
		{"does not answer", &history{block: true}, "context deadline exceeded"},
	} {
		t.Run(c.name, func(t *testing.T) {
			clocktest.Run(t, func(t *testing.T) {
				smithy := newReady(t, waiter.WithHistory(nil), waiter.WithJitter(backoff.Midpoint))
				broken := newReady(t, waiter.WithHistory(c.h), waiter.WithLearnedSchedule(), waiter.WithJitter(backoff.Midpoint))
				want := waitFor(t, smithy, 9*time.Minute)
				got := waitFor(t, broken, 9*time.Minute)
				offset := time.Duration(0)
				if c.h.block {
					offset = 100 * time.Millisecond // the store is given up
				}
				if len(got) != len(want) {
					t.Fatalf("%d attempts, want %d (the Smithy schedule's)", len(got), len(want))
				}
				for i := range got {
					if d := got[i].Start.Sub(got[0].Start) + offset - want[i].Start.Sub(want[0].Start); d != offset {
						t.Errorf("attempt %d at +%v, want +%v", i+1, got[i].Start.Sub(got[0].Start), want[i].Start.Sub(want[0].Start))
					}
					if e := got[i].Estimate(); i < len(got)-1 && (!strings.Contains(e.None, c.why) || e.P50 != 0) {
						t.Errorf("attempt %d: estimate %+v, want none, saying %q", i+1, e, c.why)
					}
				}
			})
		})
	}
}

// delaysOf steps a wait of w from s (its Prior set) in virtual time for
// a resource ready after readyAt, each call taking a second, and returns
// its delays and its Checkpoint after the first three attempts.
func delaysOf(t *testing.T, w *waiter.Waiter[time.Time, bool], s waiter.Checkpoint, readyAt time.Duration) ([]time.Duration, waiter.Checkpoint) {
	t.Helper()
	var delays []time.Duration
	var third waiter.Checkpoint
	at := s.Start
	if !s.Next.IsZero() {
		at = s.Next
	}
	for range 200 {
		ready := at.Sub(s.Start) >= readyAt
		j := waiter.Judgment{Acceptor: -1, State: classify.Retry}
		if ready {
			j = waiter.Judgment{Acceptor: 0, State: classify.Success}
		}
		a, _ := w.Step(s, waiter.Answer[bool]{Start: at, Latency: time.Second, Output: ready, Judgment: j}, at.Add(time.Second))
		s = a.Checkpoint
		if s.Attempts == 3 {
			third = s
		}
		if s.End != "" {
			return delays, third
		}
		delays = append(delays, a.NextDelay)
		at = s.Next
	}
	t.Fatal("no end in 200 attempts")
	return nil, third
}

var t0 = time.Date(2026, 12, 7, 9, 0, 0, 0, time.UTC)

// TestLearnedScheduleIsSmithyWithLittleHistory: with fewer than
// MinHistory past waits, a learned schedule's delays are the Smithy
// schedule's, the same delays for the same seed; with more, they differ,
// kept within MinDelay and MaxDelay, and see a resource as ready as the
// past ones sooner, in no more polls, over many seeds.
func TestLearnedScheduleIsSmithyWithLittleHistory(t *testing.T) {
	smithy := newReady(t)
	for _, n := range []int{0, 1, waiter.MinHistory - 1} {
		learned := newReady(t, waiter.WithLearnedSchedule(), waiter.WithHistory(&history{samples: pastWaits(n)}))
		for seed := uint64(1); seed <= 50; seed++ {
			s, _ := smithy.Begin(t0, 30*time.Minute, seed)
			l, _ := learned.Begin(t0, 30*time.Minute, seed)
			l.Prior = learned.Learn(t.Context(), t0)
			want, _ := delaysOf(t, smithy, s, 9*time.Minute)
			got, _ := delaysOf(t, learned, l, 9*time.Minute)
			if !slices.Equal(got, want) {
				t.Fatalf("%d past waits, seed %d: delays %v, want the Smithy schedule's %v", n, seed, got, want)
			}
		}
	}
	learned := newReady(t, waiter.WithLearnedSchedule(), waiter.WithHistory(&history{samples: pastWaits(20)}))
	var lags, polls [2]time.Duration
	for seed := uint64(1); seed <= 200; seed++ {
		readyAt := 9*time.Minute + time.Duration(seed%60)*time.Second
		for i, w := range []*waiter.Waiter[time.Time, bool]{smithy, learned} {
			s, _ := w.Begin(t0, 30*time.Minute, seed)
			s.Prior = w.Learn(t.Context(), t0)
			delays, _ := delaysOf(t, w, s, readyAt)
			seen := time.Duration(0)
			for _, d := range delays {
				seen += d
				if i == 1 && (d < 30*time.Second || d > 120*time.Second) {
					t.Fatalf("seed %d: a learned delay of %v, outside 30s to 120s", seed, d)
				}
			}
			lags[i] += seen - readyAt
			polls[i] += time.Duration(len(delays) + 1)
		}
	}
	if lags[1] >= lags[0]/2 || polls[1] > polls[0] {
		t.Errorf("mean lag %v and %v polls learned, %v and %v Smithy's: want less than half the lag, no more polls",
			lags[1]/200, float64(polls[1])/200, lags[0]/200, float64(polls[0])/200)
	}
}

// TestResumedWaitMakesTheSameDelays: a learned wait's Prior is in its
// Checkpoint: resumed from its JSON by a waiter that has learnt nothing,
// it makes the delays the uninterrupted wait makes.
func TestResumedWaitMakesTheSameDelays(t *testing.T) {
	learned := newReady(t, waiter.WithLearnedSchedule(), waiter.WithHistory(&history{samples: pastWaits(20)}))
	fresh := newReady(t, waiter.WithLearnedSchedule())
	s, _ := learned.Begin(t0, 30*time.Minute, 42)
	s.Prior = learned.Learn(t.Context(), t0)
	if s.Prior.Chance == 0 || len(s.Prior.At) == 0 {
		t.Fatalf("Prior %+v: want a learned one", s.Prior)
	}
	all, third := delaysOf(t, learned, s, 9*time.Minute+20*time.Second)
	b, err := json.Marshal(third)
	if err != nil {
		t.Fatal(err)
	}
	resumed, err := waiter.ParseCheckpoint(b)
	if err != nil {
		t.Fatal(err)
	}
	rest, _ := delaysOf(t, fresh, resumed, 9*time.Minute+20*time.Second)
	if !slices.Equal(rest, all[3:]) {
		t.Errorf("resumed: delays %v, want %v", rest, all[3:])
	}
}

// TestCheckpointPriorChecked: a Checkpoint whose Prior is not a
// distribution is refused as damaged; one written before there was a
// Prior (no prior, no pending in its JSON) still reads.
func TestCheckpointPriorChecked(t *testing.T) {
	w := newReady(t)
	s, _ := w.Begin(t0, time.Hour, 1)
	s.Prior = &waiter.Prior{Waits: 4, At: []time.Duration{time.Minute, 2 * time.Minute}, Share: []float64{0.9, 0.1}}
	_, err := w.WaitFrom(t.Context(), t0, s)
	var ce *waiter.CheckpointError
	if !errors.As(err, &ce) || ce.Problem != waiter.ProblemCorrupt {
		t.Errorf("WaitFrom with a decreasing Prior = %v, want ProblemCorrupt", err)
	}
	plain, _ := waiter.ParseCheckpoint(mustMarshal(t, waiter.Checkpoint{Version: 1, Waiter: "Ready", Rules: "r", Start: t0, Deadline: t0.Add(time.Hour), Seed: 1}))
	if b := string(mustMarshal(t, plain)); strings.Contains(b, "prior") || strings.Contains(b, "pending") {
		t.Errorf("a Checkpoint with no Prior encodes as %s: want the form before Prior", b)
	}
}

func mustMarshal(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestOverdue: a wait that runs longer than every wait before it is
// overdue from the attempt that passes them on, estimate or none; an
// ordinary one is not.
func TestOverdue(t *testing.T) {
	clocktest.Run(t, func(t *testing.T) {
		h := &history{samples: pastWaits(10)}
		w := newReady(t, waiter.WithHistory(h))
		as := waitFor(t, w, 9*time.Minute+30*time.Second)
		for _, a := range as {
			if a.Estimate().Overdue && a.Start.Sub(as[0].Start) < 9*time.Minute {
				t.Errorf("an ordinary wait is overdue at +%v", a.Start.Sub(as[0].Start))
			}
		}
		as = waitFor(t, w, 15*time.Minute)
		longest := time.Duration(0)
		for _, p := range h.samples[:10] {
			longest = max(longest, p.Ready)
		}
		overdue := 0
		for _, a := range as {
			if at := a.Start.Sub(as[0].Start); at > longest && !a.Estimate().Overdue {
				t.Errorf("a wait of 15m is not overdue at +%v, past the longest wait before it (%v)", at, longest)
			} else if a.Estimate().Overdue {
				overdue++
			}
		}
		if overdue == 0 {
			t.Error("a wait of 15m is never overdue")
		}
	})
}

// TestHistoryKey: waits of different keys learn apart; WithHistory(nil)
// learns nothing and says so.
func TestHistoryKey(t *testing.T) {
	clocktest.Run(t, func(t *testing.T) {
		h := &history{samples: pastWaits(10)}
		w := newReady(t, waiter.WithHistory(h), waiter.WithHistoryKey(func(in time.Time) string { return in.Format("15:04") }))
		want := time.Now().Add(time.Minute).Format("15:04")
		waitFor(t, w, time.Minute)
		if len(h.keys) != 1 || h.keys[0] != want {
			t.Errorf("keys %q, want the input's", h.keys)
		}
		none := newReady(t, waiter.WithHistory(nil))
		if e := waitFor(t, none, time.Minute)[0].Estimate(); !strings.Contains(e.None, "WithHistory(nil)") {
			t.Errorf("WithHistory(nil): estimate %+v, want none, saying why", e)
		}
		if _, err := waiter.NewFunc("Ready", readyOp, readyCond, waiter.WithHistoryKey(func(string) string { return "" })); !errors.Is(err, waiter.ErrInvalidOption) {
			t.Errorf("WithHistoryKey of another type: %v, want ErrInvalidOption", err)
		}
		if _, err := waiter.NewFunc("Ready", readyOp, readyCond, waiter.WithHistoryKey[time.Time](nil), waiter.WithProgress[bool](nil)); !errors.Is(err, waiter.ErrInvalidOption) || !strings.Contains(err.Error(), "WithProgress") {
			t.Errorf("nil WithHistoryKey and WithProgress: %v, want ErrInvalidOption naming both", err)
		}
	})
}

// TestProgress: where the output says how much is done, the time left is
// the share not done of a whole wait's.
func TestProgress(t *testing.T) {
	w, err := waiter.NewFunc("Progress", func(context.Context, int) (float64, error) { return 0, nil },
		func(int, float64, error) (bool, error) { return false, nil },
		waiter.WithHistory(&history{samples: pastWaits(20)}), waiter.WithProgress(func(f float64) float64 { return f }))
	if err != nil {
		t.Fatal(err)
	}
	s, _ := w.Begin(t0, time.Hour, 1)
	s.Prior = w.Learn(t.Context(), 0)
	step := func(done float64) waiter.Estimate {
		j := w.Judge(0, done, nil) // reads the progress, as a call the waiter makes does
		a, _ := w.Step(s, waiter.Answer[float64]{Start: t0.Add(time.Minute), Output: done, Judgment: j}, t0.Add(time.Minute))
		return a.Estimate()
	}
	for _, c := range []struct {
		out  float64
		err  error
		want float64
	}{{0.5, nil, 0.5}, {1.5, nil, 1}, {-1, nil, 0}, {math.NaN(), nil, 0}, {0.5, errors.New("503"), 0}} {
		if got := w.Judge(0, c.out, c.err).Progress; got != c.want {
			t.Errorf("Judge(%v, %v).Progress = %v, want %v", c.out, c.err, got, c.want)
		}
	}
	none, half := step(0), step(0.5)
	if half.P50 < none.P50/2-10*time.Second || half.P50 > none.P50/2+40*time.Second {
		t.Errorf("half done: median %v; with no progress %v (a minute in): want about half a whole wait", half.P50, none.P50)
	}
}

// TestEstimateInTelemetry: the slog records of attempts say the estimate
// and when the wait is overdue.
func TestEstimateInTelemetry(t *testing.T) {
	clocktest.Run(t, func(t *testing.T) {
		var b strings.Builder
		l := slog.New(slog.NewTextHandler(&b, &slog.HandlerOptions{Level: slog.LevelDebug}))
		w := newReady(t, waiter.WithHistory(&history{samples: pastWaits(10)}), waiter.WithTelemetry(telemetry.Settings{Off: true, Logger: l}))
		waitFor(t, w, 15*time.Minute)
		if !strings.Contains(b.String(), "eta=") || !strings.Contains(b.String(), "eta_p90=") || !strings.Contains(b.String(), "overdue=true") {
			t.Errorf("the log says no estimate nor overdue:\n%s", b.String())
		}
	})
}

// TestLearnedScheduleKeepsTheBudgetRules: a learned schedule changes the
// delays, not the budget's rules: the final call comes at the end of the
// budget, a service's Retry-After is never undercut, and a poke brings
// the next call forward.
func TestLearnedScheduleKeepsTheBudgetRules(t *testing.T) {
	learned := newReady(t, waiter.WithLearnedSchedule(), waiter.WithHistory(&history{samples: pastWaits(20)}))
	s, _ := learned.Begin(t0, 12*time.Minute, 3)
	s.Prior = learned.Learn(t.Context(), t0)
	delays, _ := delaysOf(t, learned, s, time.Hour) // never ready: polls to the end
	last := t0
	for _, d := range delays {
		last = last.Add(time.Second + d) // each call takes a second
	}
	if end := s.Deadline.Sub(last); end < 0 || end > 2*time.Second {
		t.Errorf("the last call starts %v before the deadline, want at its end (the call and its margin: under 2s)", end)
	}
	hint := waiter.Judgment{Acceptor: -1, State: classify.Retry, Hint: 5 * time.Minute, Backoff: 5 * time.Minute}
	a, _ := learned.Step(s, waiter.Answer[bool]{Start: t0, Latency: time.Second, Judgment: hint}, t0.Add(time.Second))
	if a.NextDelay < 5*time.Minute {
		t.Errorf("a pending answer's 5m hint: next delay %v, want no sooner", a.NextDelay)
	}
	clocktest.Run(t, func(t *testing.T) {
		w := newReady(t, waiter.WithLearnedSchedule(), waiter.WithHistory(&history{samples: pastWaits(20)}))
		r := w.Start(t.Context(), time.Now().Add(time.Hour), time.Hour)
		first := <-r.Events()
		if first.NextDelay < time.Minute {
			t.Fatalf("the first learned delay %v, want a long one (the past waits took 9m)", first.NextDelay)
		}
		time.Sleep(5 * time.Second)
		r.Poke()
		second := <-r.Events()
		if at := second.Start.Sub(first.Start); at > 6*time.Second {
			t.Errorf("poked 5s after the first call, the second came %v after it, want at once", at)
		}
		r.Cancel()
		r.Result()
	})
}
