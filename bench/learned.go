package bench

import (
	"context"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/waitable/waitable/classify"
	"github.com/waitable/waitable/telemetry"
	"github.com/waitable/waitable/waiter"
)

// The learned schedule: waits replayed one after the other in virtual
// time (the waiter's own core: Begin, Learn, Step, Remember), each
// resource ready after a duration drawn from a distribution fitted to
// public creation times, each wait adding to the history the next one
// learns from, on the Smithy schedule, on the Smithy schedule tuned to
// the learned one's lag (one fixed delay), and on the learned schedule
// (WithLearnedSchedule). The delays are EKS's ClusterActive waiter's (30s
// to 120s), the budget 30 minutes, each call 200ms.

const (
	learnedMin     = 30 * time.Second
	learnedMax     = 120 * time.Second
	learnedMaxWait = 30 * time.Minute
	learnedLatency = 200 * time.Millisecond
	// learnedWarm is how many waits run before any is measured: "after 10
	// waits of history".
	learnedWarm = 10
)

// Durations draws the time a resource takes to be ready, the i-th wait of
// a run.
type Durations struct {
	Name string
	Draw func(r *rand.Rand, i int) time.Duration
}

// logNormal draws durations of median med and σ sigma (of the logarithm).
func logNormal(med time.Duration, sigma float64) func(r *rand.Rand, i int) time.Duration {
	return func(r *rand.Rand, _ int) time.Duration {
		return time.Duration(float64(med) * math.Exp(sigma*r.NormFloat64()))
	}
}

// speedUpAt is the wait from which the service of SpeedUp is faster.
const speedUpAt = 40

// The distributions of the report: log-normal fits to public creation
// times (Terraform's logs of EKS clusters and RDS instances), and a
// service that becomes faster.
var (
	EKS     = Durations{"EKS-like: log-normal, median 9m30s, σ 0.15", logNormal(570*time.Second, 0.15)}
	RDS     = Durations{"RDS-like: log-normal, median 5m12s, σ 0.45", logNormal(312*time.Second, 0.45)}
	SpeedUp = Durations{"a service that speeds up: median 15m (σ 0.15) for 40 waits, then 4m", func(r *rand.Rand, i int) time.Duration {
		if i < speedUpAt {
			return logNormal(15*time.Minute, 0.15)(r, i)
		}
		return logNormal(4*time.Minute, 0.15)(r, i)
	}}
)

// LearnedStats is how one schedule did on one distribution.
type LearnedStats struct {
	Schedule string
	Waits    int     // waits measured (after learnedWarm)
	Requests float64 // polls a wait
	// P50, P90, P99 and Max are the detection lag: from ready to the end
	// of the poll that saw it.
	P50, P90, P99, Max time.Duration
	// Cover is the share of attempts whose estimate's p10–p90 band held
	// the true time left; Estimates how many had one; MAE the median
	// absolute error of their p50, Naive that of the mean of the past
	// waits' durations (less the time elapsed).
	Cover          float64
	Estimates      int
	MAE, Naive     time.Duration
	Slowest        int // waits slower than every wait before them
	SlowestOverdue int // of which an attempt said Overdue
	Ordinary       int // the others
	OrdinaryFlag   int // of which an attempt said Overdue
	lags           []time.Duration
	perWait        [][]time.Duration // each wait's lag, by its index
	delays         [][]time.Duration // each wait's delays
}

// learnedRun runs n waits of durations d on a fresh waiter with delays
// lo to hi (learned: WithLearnedSchedule), seeded with seed; window > 0
// keeps only the last window waits in the history.
func learnedRun(d Durations, n int, lo, hi time.Duration, learned bool, seed uint64, window int) (LearnedStats, error) {
	opts := []waiter.Option{waiter.WithDelays(lo, hi), waiter.WithTelemetry(telemetry.Settings{Off: true})}
	name := fmt.Sprintf("Smithy %v to %v", lo, hi)
	if learned {
		opts = append(opts, waiter.WithLearnedSchedule())
		name = "learned"
	}
	h := &windowHistory{n: window, inner: waiter.NewMemoryHistory()}
	opts = append(opts, waiter.WithHistory(h))
	never := func(struct{}, bool, error) (bool, error) { return false, nil }
	call := func(context.Context, struct{}) (bool, error) { return false, nil }
	w, err := waiter.NewFunc("Resource", call, never, opts...)
	if err != nil {
		return LearnedStats{}, err
	}
	st := LearnedStats{Schedule: name}
	r := rand.New(rand.NewPCG(seed, 99))
	var past []time.Duration // the durations callers saw, for the naive estimate and Overdue
	var inBand int
	var errs, naive []time.Duration
	start := time.Date(2026, 12, 7, 9, 0, 0, 0, time.UTC)
	for i := range n {
		ready := d.Draw(r, i)
		s, err := w.Begin(start, learnedMaxWait, r.Uint64()|1)
		if err != nil {
			return st, err
		}
		s.Prior = w.Learn(context.Background(), struct{}{})
		var mean time.Duration
		recent := past[max(0, len(past)-waiter.HistoryWindow):]
		for _, p := range recent {
			mean += p / time.Duration(len(recent))
		}
		longest := slices.Max(append([]time.Duration{0}, recent...))
		polls, overdue := 0, false
		var delays []time.Duration
		for at := start; ; at = s.Next {
			polls++
			done := at.Sub(start) >= ready
			j := waiter.Judgment{Acceptor: -1, State: classify.Retry}
			if done {
				j = waiter.Judgment{Acceptor: 0, State: classify.Success}
			}
			end := at.Add(learnedLatency)
			a, _ := w.Step(s, waiter.Answer[bool]{Start: at, Latency: learnedLatency, Output: done, Judgment: j}, end)
			s = a.Checkpoint
			overdue = overdue || a.Estimate().Overdue
			if e := a.Estimate(); i >= learnedWarm && s.End == "" && e.None == "" {
				left := ready - end.Sub(start)
				st.Estimates++
				if e.P10 <= left && left <= e.P90 {
					inBand++
				}
				errs = append(errs, (e.P50 - left).Abs())
				naive = append(naive, (max(mean-end.Sub(start), 0) - left).Abs())
			}
			if s.End != "" {
				break
			}
			delays = append(delays, a.NextDelay)
		}
		if err := w.Remember(context.Background(), struct{}{}, s); err != nil {
			return st, err
		}
		seen := s.StreakStart.Sub(start)
		if s.End != telemetry.OutcomeSuccess {
			seen = learnedMaxWait
		}
		if i >= learnedWarm {
			st.Waits++
			st.Requests += float64(polls)
			lag := seen + learnedLatency - ready
			st.lags = append(st.lags, lag)
			switch {
			case seen > longest:
				st.Slowest++
				if overdue {
					st.SlowestOverdue++
				}
			default:
				st.Ordinary++
				if overdue {
					st.OrdinaryFlag++
				}
			}
		}
		st.perWait = append(st.perWait, []time.Duration{seen + learnedLatency - ready})
		st.delays = append(st.delays, delays)
		past = append(past, seen)
		start = s.StreakStart.Add(time.Hour)
	}
	st.Requests /= float64(max(st.Waits, 1))
	st.P50, st.P90, st.P99, st.Max = quantile(st.lags, 0.5), quantile(st.lags, 0.9), quantile(st.lags, 0.99), quantile(st.lags, 1)
	if st.Estimates > 0 {
		st.Cover = float64(inBand) / float64(st.Estimates)
		st.MAE, st.Naive = quantile(errs, 0.5), quantile(naive, 0.5)
	}
	return st, nil
}

// quantile returns the p-th quantile of ds (the nearest rank), 0 for none.
func quantile(ds []time.Duration, p float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Sorted(slices.Values(ds))
	return s[min(len(s)-1, int(p*float64(len(s))))]
}

// windowHistory is a History that keeps only the last n samples (0: all
// its inner one keeps).
type windowHistory struct {
	n     int
	inner waiter.History
}

func (h *windowHistory) Load(ctx context.Context, name, key string) ([]waiter.Sample, error) {
	s, err := h.inner.Load(ctx, name, key)
	if h.n > 0 && len(s) > h.n {
		s = s[len(s)-h.n:]
	}
	return s, err
}

func (h *windowHistory) Add(ctx context.Context, name, key string, s waiter.Sample) error {
	return h.inner.Add(ctx, name, key, s)
}

// LearnedRows measures the three schedules on d over n waits: Smithy's,
// Smithy's tuned (one fixed delay, the longest whose p90 lag is no more
// than the learned schedule's), and the learned one.
func LearnedRows(d Durations, n int, seed uint64) ([]LearnedStats, error) {
	smithy, err := learnedRun(d, n, learnedMin, learnedMax, false, seed, 0)
	if err != nil {
		return nil, err
	}
	learned, err := learnedRun(d, n, learnedMin, learnedMax, true, seed, 0)
	if err != nil {
		return nil, err
	}
	// The longest fixed delay, to the second, whose p90 lag is no more
	// than the learned schedule's (the lag grows with the delay).
	var tuned LearnedStats
	lo, hi := time.Second, learnedMax
	for lo < hi {
		mid := (lo + hi + time.Second) / 2 / time.Second * time.Second
		s, err := learnedRun(d, n, mid, mid, false, seed, 0)
		if err != nil {
			return nil, err
		}
		if s.P90 <= learned.P90 {
			lo = mid
		} else {
			hi = mid - time.Second
		}
	}
	if tuned, err = learnedRun(d, n, lo, lo, false, seed, 0); err != nil {
		return nil, err
	}
	tuned.Schedule = fmt.Sprintf("Smithy tuned to the same p90 lag (%v to %v)", tuned.delayBounds(), tuned.delayBounds())
	return []LearnedStats{smithy, tuned, learned}, nil
}

// delayBounds is the fixed delay of a tuned run (its first delay).
func (s LearnedStats) delayBounds() time.Duration {
	for _, d := range s.delays {
		if len(d) > 0 {
			return d[0]
		}
	}
	return 0
}

// SpeedUpStats is how the learned schedule follows a service that became
// faster: the worst lag after the change, the p90 of the lags of the
// first five waits after it and of the waits after those, over runs.
type SpeedUpStats struct {
	Runs                 int
	Worst                time.Duration
	FirstFive, AfterFive time.Duration
	SmithyAfterFive      time.Duration
}

// LearnedSpeedUp replays SpeedUp runs times (speedUpAt waits before the
// change, 40 after), on the learned schedule and on Smithy's.
func LearnedSpeedUp(runs int) (SpeedUpStats, error) {
	st := SpeedUpStats{Runs: runs}
	var first, after, smithyAfter []time.Duration
	for run := range runs {
		for _, learned := range []bool{true, false} {
			s, err := learnedRun(SpeedUp, speedUpAt+40, learnedMin, learnedMax, learned, uint64(run)+1, 0)
			if err != nil {
				return st, err
			}
			for i, lag := range s.perWait[speedUpAt:] {
				switch {
				case !learned && i >= 5:
					smithyAfter = append(smithyAfter, lag[0])
				case !learned:
				case i < 5:
					first = append(first, lag[0])
					st.Worst = max(st.Worst, lag[0])
				default:
					after = append(after, lag[0])
					st.Worst = max(st.Worst, lag[0])
				}
			}
		}
	}
	st.FirstFive, st.AfterFive, st.SmithyAfterFive = quantile(first, 0.9), quantile(after, 0.9), quantile(smithyAfter, 0.9)
	return st, nil
}

// LearnedFewWaits reports whether, with a history of only 3 waits, the
// learned schedule makes exactly the Smithy schedule's delays, wait by
// wait (the same seeds), over n waits of d.
func LearnedFewWaits(d Durations, n int) (bool, error) {
	smithy, err := learnedRun(d, n, learnedMin, learnedMax, false, 7, 3)
	if err != nil {
		return false, err
	}
	learned, err := learnedRun(d, n, learnedMin, learnedMax, true, 7, 3)
	if err != nil {
		return false, err
	}
	for i := range smithy.delays {
		if !slices.Equal(smithy.delays[i], learned.delays[i]) {
			return false, nil
		}
	}
	return true, nil
}

// WriteLearned writes the learned-schedule tables.
func WriteLearned(w io.Writer, n, runs int) error {
	fmt.Fprintf(w, "Learned schedule: %d waits one after the other per distribution, each adding to the history the next learns from (the last %d), the first %d not measured; EKS's delays (%v to %v), a %v budget, calls of %v, virtual time (the waiter's own core):\n\n",
		n, waiter.HistoryWindow, learnedWarm, learnedMin, learnedMax, learnedMaxWait, learnedLatency)
	fmt.Fprintln(w, "| durations | schedule | requests a wait | p50 lag | p90 lag | p99 lag | worst lag |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|")
	var eta []string
	for _, d := range []Durations{EKS, RDS} {
		rows, err := LearnedRows(d, n, 1)
		if err != nil {
			return err
		}
		for _, s := range rows {
			fmt.Fprintf(w, "| %s | %s | %.2f | %v | %v | %v | %v |\n", d.Name, s.Schedule, s.Requests,
				s.P50.Round(100*time.Millisecond), s.P90.Round(100*time.Millisecond), s.P99.Round(100*time.Millisecond), s.Max.Round(100*time.Millisecond))
		}
		l := rows[2]
		eta = append(eta, fmt.Sprintf("| %s | %d | %.1f%% | %v | %v | %d of %d | %d of %d (%.1f%%) |", d.Name, l.Estimates, 100*l.Cover,
			l.MAE.Round(100*time.Millisecond), l.Naive.Round(100*time.Millisecond), l.SlowestOverdue, l.Slowest,
			l.OrdinaryFlag, l.Ordinary, 100*float64(l.OrdinaryFlag)/float64(max(l.Ordinary, 1))))
	}
	su, err := LearnedSpeedUp(runs)
	if err != nil {
		return err
	}
	few, err := LearnedFewWaits(EKS, n)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "\n%s, %d runs: on the learned schedule, the worst lag after the change %v (MaxDelay %v); p90 lag of the first 5 waits after it %v, of the waits after those %v (the Smithy schedule's: %v).\n",
		SpeedUp.Name, su.Runs, su.Worst.Round(100*time.Millisecond), learnedMax, su.FirstFive.Round(100*time.Millisecond), su.AfterFive.Round(100*time.Millisecond), su.SmithyAfterFive.Round(100*time.Millisecond))
	fmt.Fprintf(w, "\nA history of only 3 waits (%d waits of %s): the learned schedule's delays are the Smithy schedule's, wait by wait: %v.\n", n, EKS.Name, few)
	fmt.Fprintf(w, "\nThe estimate of the time left, on the learned schedule's attempts (after %d waits of history): how often its p10–p90 band held the truth, its p50's median absolute error beside a naive estimate's (the mean of the past waits' durations, less the time elapsed), and Overdue (an attempt past p95 of the waits before):\n\n", learnedWarm)
	fmt.Fprintln(w, "| durations | estimates | p10–p90 held the truth | p50's error (median) | naive's | overdue: waits slower than all before | overdue: the others |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|")
	for _, l := range eta {
		fmt.Fprintln(w, l)
	}
	return nil
}
