package bench

import (
	"context"
	"fmt"
	"io"
	"math"
	"runtime"
	"runtime/metrics"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/waitable/waitable/internal/plural"
	"github.com/waitable/waitable/telemetry"
	"github.com/waitable/waitable/waiter"
)

// The scaling row on the real clock: the same work as RunScale (n waits,
// polls scaleDelay apart, ready on the 5th poll), run as a plain program,
// with telemetry off. Each run belongs in a process of its own (cmd/report
// starts one per run), so that no run inherits another's heap.

// RealSides names the implementations of the real-clock scaling row; the
// first is the one the others are compared with.
var RealSides = []string{"hand-written goroutine loop", "waitable WaitAll", "waitable Start", "waitable Start" + noEvents,
	"waitable NewBatch", "waitable NewBatch" + noEvents}

// noEvents ends the name of a side whose waiter is made
// WithEventBuffer(0): its Runs keep no attempt.
const noEvents = ", WithEventBuffer(0)"

// realBatchSize is the Size of the NewBatch side's batch.
const realBatchSize = 1000

// RealStats is one run of one side on the real clock.
type RealStats struct {
	Side string
	N    int
	// BytesPerWait is heap and stacks (after a GC, less what the process
	// held before the waits began) once every wait has made its first
	// call, divided by the waits that had not ended then; StackPerWait is
	// the stacks' part.
	BytesPerWait, StackPerWait float64
	// Live is how many waits had not ended when the bytes were measured.
	Live int
	// Start is how long the caller took to start every wait (the loop of
	// go statements, Start or Add calls; for WaitAll, until every wait
	// had made its first call). Polled is the time until every wait had
	// made its first call, and Finish until every wait had ended.
	Start, Polled, Finish time.Duration
	// CPU is the process's CPU time from the first start to the end.
	CPU time.Duration
	// MaxPause is the longest GC pause: the largest of MemStats.PauseNs
	// and of /sched/pauses/total/gc:seconds (a bucket's upper bound).
	// MaxStopping is the longest time a GC waited for the world to stop
	// (/sched/pauses/stopping/gc:seconds), part of the pause.
	MaxPause, MaxStopping time.Duration
}

func (s RealStats) String() string {
	return fmt.Sprintf("%s n=%d: %.0f B/wait (%.0f B stack, %d live), start %v, all polled %v, finish %v, CPU %v, "+
		"max GC pause %v (stopping %v)", s.Side, s.N, s.BytesPerWait, s.StackPerWait, s.Live, s.Start, s.Polled,
		s.Finish, s.CPU, s.MaxPause, s.MaxStopping)
}

// realOp counts each resource's calls: ready on the scalePolls-th. The
// first call of every resource closes polled; the last call closes done.
type realOp struct {
	calls        []atomic.Int32
	first, ended atomic.Int64
	polled, done chan struct{}
	closePolled  sync.Once
	closeDone    sync.Once
	n            int64
}

func newRealOp(n int) *realOp {
	return &realOp{calls: make([]atomic.Int32, n), polled: make(chan struct{}), done: make(chan struct{}), n: int64(n)}
}

func (o *realOp) call(i int) status {
	c := o.calls[i].Add(1)
	if c == 1 && o.first.Add(1) == o.n {
		o.closePolled.Do(func() { close(o.polled) })
	}
	if c < scalePolls {
		return status{"pending"}
	}
	if o.ended.Add(1) == o.n {
		o.closeDone.Do(func() { close(o.done) })
	}
	return status{"ready"}
}

// RunRealClock runs n waits of one side on the real clock, polls delay
// apart, under ctx (the caller's context: a cancellable one costs what a
// caller's cancellation costs each side), and measures them. It fails
// (an error) if a wait did not succeed or a resource was not polled
// scalePolls times.
func RunRealClock(ctx context.Context, side string, n int, delay time.Duration) (RealStats, error) {
	st := RealStats{Side: side, N: n}
	op := newRealOp(n)
	start, wait, err := realSide(ctx, side, op, n, delay)
	if err != nil {
		return st, err
	}
	runtime.GC()
	var ms0, ms1, ms2 runtime.MemStats
	runtime.ReadMemStats(&ms0)
	pauses0 := readPauses()
	c0, t0 := cpuTime(), time.Now()

	started := make(chan time.Duration, 1)
	go func() { start(); started <- time.Since(t0) }()
	<-op.polled
	st.Polled = time.Since(t0)
	ended := op.ended.Load()
	runtime.GC()
	runtime.ReadMemStats(&ms1)
	st.Live = n - int(ended)
	base := float64(ms0.HeapInuse + ms0.StackInuse)
	st.BytesPerWait = (float64(ms1.HeapInuse+ms1.StackInuse) - base) / float64(max(st.Live, 1))
	st.StackPerWait = (float64(ms1.StackInuse) - float64(ms0.StackInuse)) / float64(max(st.Live, 1))
	st.Start = <-started
	if side == "waitable WaitAll" {
		st.Start = st.Polled
	}
	<-op.done
	err = wait()
	st.Finish = time.Since(t0)
	st.CPU = cpuTime() - c0
	runtime.ReadMemStats(&ms2)
	pauses1 := readPauses()
	st.MaxPause = max(maxPause(&ms0, &ms2), pauses1.since(pauses0, 0))
	st.MaxStopping = pauses1.since(pauses0, 1)
	if err != nil {
		return st, err
	}
	for i := range op.calls {
		if c := op.calls[i].Load(); c != scalePolls {
			return st, fmt.Errorf("%s: resource %d polled %d times, want %d", side, i, c, scalePolls)
		}
	}
	return st, nil
}

// realSide returns functions that start the n waits of a side and wait
// for all of them to end (returning the first error of a wait).
func realSide(ctx context.Context, side string, op *realOp, n int, delay time.Duration) (start func(), wait func() error, err error) {
	// The waiter's options: telemetry off, and a side named for
	// WithEventBuffer(0) with it.
	opts := []waiter.Option{waiter.WithDelays(delay, delay), waiter.WithTelemetry(telemetry.Settings{Off: true})}
	if base, ok := strings.CutSuffix(side, noEvents); ok {
		side, opts = base, append(opts, waiter.WithEventBuffer(0))
	}
	poll := func(_ context.Context, i int) (status, error) { return op.call(i), nil }
	switch side {
	case "hand-written goroutine loop":
		var wg sync.WaitGroup
		return func() {
			for i := range n {
				wg.Go(func() { handLoop(ctx, delay, func() bool { return op.call(i).State == "ready" }) })
			}
		}, func() error { wg.Wait(); return nil }, nil
	case "waitable WaitAll":
		w, err := waiter.New(readyDef, poll, opts...)
		if err != nil {
			return nil, nil, err
		}
		inputs := make([]int, n)
		for i := range inputs {
			inputs[i] = i
		}
		done := make(chan error, 1)
		return func() {
			go func() {
				_, err := waiter.WaitAll(ctx, w, inputs, time.Hour, waiter.GroupOptions{})
				done <- err
			}()
		}, func() error { return <-done }, nil
	case "waitable Start":
		w, err := waiter.New(readyDef, poll, opts...)
		if err != nil {
			return nil, nil, err
		}
		runs := make([]*waiter.Run[status], n)
		return func() {
			for i := range runs {
				runs[i] = w.Start(ctx, i, time.Hour)
			}
		}, func() error { return results(runs) }, nil
	case "waitable NewBatch":
		batchOp := func(_ context.Context, keys []int) (map[int]status, error) {
			outs := make(map[int]status, len(keys))
			for _, k := range keys {
				outs[k] = op.call(k)
			}
			return outs, nil
		}
		b, err := waiter.NewBatch(readyDef, batchOp, waiter.BatchOptions[int, status]{Size: realBatchSize}, opts...)
		if err != nil {
			return nil, nil, err
		}
		runs := make([]*waiter.Run[status], n)
		return func() {
			for i := range runs {
				runs[i] = b.Add(ctx, i, time.Hour)
			}
		}, func() error { return results(runs) }, nil
	}
	return nil, nil, fmt.Errorf("unknown side %q", side)
}

// handLoop is the hand-written goroutine loop: poll until ready, one
// timer, reset between polls.
func handLoop(ctx context.Context, delay time.Duration, ready func() bool) {
	var tm *time.Timer
	for {
		if ready() {
			if tm != nil {
				tm.Stop()
			}
			return
		}
		if tm == nil {
			tm = time.NewTimer(delay)
		} else {
			tm.Reset(delay)
		}
		select {
		case <-tm.C:
		case <-ctx.Done():
			return
		}
	}
}

// results waits for every run and returns the first error.
func results(runs []*waiter.Run[status]) error {
	for _, r := range runs {
		if _, err := r.Result(); err != nil {
			return err
		}
	}
	return nil
}

// pauseHists are the runtime's histograms of GC pauses: the whole pause,
// and the time the runtime waited for the world to stop.
type pauseHists [2]*metrics.Float64Histogram

func readPauses() pauseHists {
	s := []metrics.Sample{{Name: "/sched/pauses/total/gc:seconds"}, {Name: "/sched/pauses/stopping/gc:seconds"}}
	metrics.Read(s)
	return pauseHists{s[0].Value.Float64Histogram(), s[1].Value.Float64Histogram()}
}

// since returns the upper bound of the highest bucket of histogram i that
// gained a count since before.
func (h pauseHists) since(before pauseHists, i int) time.Duration {
	now, then := h[i], before[i]
	for b := len(now.Counts) - 1; b >= 0; b-- {
		if now.Counts[b] > then.Counts[b] {
			upper := now.Buckets[b+1]
			if math.IsInf(upper, 1) {
				upper = now.Buckets[b]
			}
			return time.Duration(upper * 1e9)
		}
	}
	return 0
}

// RealDelay is the time between polls of the real-clock row.
const RealDelay = scaleDelay

// WriteRealClock writes the real-clock table: runs[n][side] holds one
// RealStats per round, sides in RealSides' order; each ratio is a side's
// figure ÷ the hand-written loop's of the same round. cancellable says
// that the waits ran under a cancellable caller's context (the table's
// title says so), not context.Background.
func WriteRealClock(w io.Writer, ns []int, runs map[int][][]RealStats, rounds int, cancellable bool) {
	under := ""
	if cancellable {
		under = ", under a cancellable caller's context (context.WithCancel)"
	}
	fmt.Fprintf(w, "\nScaling on the real clock%s: n waits, polls %v apart, each ready on its %dth poll, telemetry off, "+
		"every side at every size in a process of its own, %s; NewBatch with Size %d. "+
		"Bytes are heap and stacks once every wait has made its first call (after a GC), per wait not yet ended then; "+
		"start is the caller's loop of go statements, Start or Add calls (WaitAll: until every wait has made its first call); "+
		"finish, until every wait has ended. Median [min–max] over the rounds; ÷ loop is the figure ÷ the hand-written "+
		"loop's of the same round:\n\n", under, RealDelay, scalePolls, plural.N(rounds, "interleaved round"), realBatchSize)
	fmt.Fprintln(w, "| implementation | n | bytes per wait | ÷ loop | of which stack | waits not ended then | start, per wait | ÷ loop | finish | ÷ loop | CPU | longest GC pause | of which stopping |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|---|---|---|---|---|---|")
	for _, n := range ns {
		loop := runs[n][0]
		for i, side := range RealSides {
			rs := runs[n][i]
			get := func(f func(RealStats) float64) []float64 {
				xs := make([]float64, len(rs))
				for k, r := range rs {
					xs[k] = f(r)
				}
				return xs
			}
			ratio := func(f func(RealStats) float64) string {
				if i == 0 {
					return "1×"
				}
				xs := make([]float64, 0, len(rs))
				for k := range min(len(rs), len(loop)) {
					xs = append(xs, f(rs[k])/f(loop[k]))
				}
				return fmt.Sprintf("%s× [%s–%s]", ratioFmt(median(xs)), ratioFmt(slices.Min(xs)), ratioFmt(slices.Max(xs)))
			}
			bytes := func(r RealStats) float64 { return r.BytesPerWait }
			start := func(r RealStats) float64 { return float64(r.Start) / float64(r.N) }
			finish := func(r RealStats) float64 { return float64(r.Finish) }
			fmt.Fprintf(w, "| %s | %d | %s | %s | %s | %.0f | %s | %s | %s | %s | %s | %s | %s |\n", side, n,
				bytesSpread(get(bytes)), ratio(bytes),
				bytesSpread(get(func(r RealStats) float64 { return r.StackPerWait })),
				median(get(func(r RealStats) float64 { return float64(r.Live) })),
				spread(get(start)), ratio(start),
				spread(get(finish)), ratio(finish),
				spread(get(func(r RealStats) float64 { return float64(r.CPU) })),
				spread(get(func(r RealStats) float64 { return float64(r.MaxPause) })),
				spread(get(func(r RealStats) float64 { return float64(r.MaxStopping) })))
		}
	}
}

// bytesSpread formats byte counts as "median [min–max]".
func bytesSpread(xs []float64) string {
	return fmt.Sprintf("%.0f B [%.0f–%.0f]", median(xs), slices.Min(xs), slices.Max(xs))
}
