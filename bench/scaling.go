package bench

import (
	"context"
	"fmt"
	"math"
	"runtime"
	"runtime/metrics"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/waitable/waitable/internal/plural"
	"github.com/waitable/waitable/telemetry"
	"github.com/waitable/waitable/waiter"
)

// The scaling row: n concurrent waits in virtual time, each succeeding on
// its 5th poll, polls 2s apart. It measures what n waits cost the process:
// CPU per attempt, memory per waiter while all of them sleep, the share of
// CPU spent collecting garbage, and the longest stop-the-world pause of a
// collection.

const (
	scalePolls = 5
	scaleDelay = 2 * time.Second
)

// ScaleSides names the implementations of the scaling row.
var ScaleSides = []string{"waitable WaitAll", "waitable WaitAll, telemetry off", "waitable Start", "waitable NewBatch", "hand-written goroutine loop", "k8s wait.PollUntilContextTimeout"}

// ScaleStats is one side at one n.
type ScaleStats struct {
	Side         string
	N            int
	CPU          time.Duration // process CPU time for all waits, start to end
	CPUPerPoll   float64       // ns
	BytesPerWait float64       // heap and stacks while all waits sleep
	GCShare      float64       // the runtime's GC CPU estimate / process CPU
	MaxPause     time.Duration // longest GC stop-the-world pause
}

func (s ScaleStats) String() string {
	return fmt.Sprintf("%s n=%d: %.0f ns/poll, %.0f B/wait, GC %.1f%%, max pause %v", s.Side, s.N, s.CPUPerPoll, s.BytesPerWait, 100*s.GCShare, s.MaxPause)
}

// scaleOp answers "ready" on each resource's 5th call.
type scaleOp struct{ calls []atomic.Int32 }

func (o *scaleOp) poll(_ context.Context, i int) (status, error) {
	if o.calls[i].Add(1) >= scalePolls {
		return status{"ready"}, nil
	}
	return status{"pending"}, nil
}

// RunScale runs n concurrent waits with one side and measures them.
func RunScale(t *testing.T, side string, n int) ScaleStats {
	st := ScaleStats{Side: side, N: n}
	synctest.Test(t, func(t *testing.T) {
		op := &scaleOp{calls: make([]atomic.Int32, n)}
		start, finish := scaleSide(t, side, op, n)
		runtime.GC()
		var ms0 runtime.MemStats
		runtime.ReadMemStats(&ms0)
		m0, c0 := gcCPU(), cpuTime()

		start()
		synctest.Wait() // every wait has polled once and sleeps
		m1, c1 := gcCPU(), cpuTime()
		var ms1 runtime.MemStats
		runtime.ReadMemStats(&ms1)
		pauses := maxPause(&ms0, &ms1)
		runtime.GC()
		runtime.ReadMemStats(&ms1)
		st.BytesPerWait = (float64(ms1.HeapInuse+ms1.StackInuse) - float64(ms0.HeapInuse+ms0.StackInuse)) / float64(n)
		m2, c2 := gcCPU(), cpuTime()

		finish()
		m3, c3 := gcCPU(), cpuTime()
		var ms3 runtime.MemStats
		runtime.ReadMemStats(&ms3)
		st.MaxPause = max(pauses, maxPause(&ms1, &ms3))
		st.CPU = (c1 - c0) + (c3 - c2)
		st.CPUPerPoll = float64(st.CPU) / float64(n*scalePolls)
		st.GCShare = ((m1 - m0) + (m3 - m2)) / st.CPU.Seconds()
		for i := range op.calls {
			if op.calls[i].Load() != scalePolls {
				t.Fatalf("%s: resource %d polled %s, want %d", side, i, plural.N(op.calls[i].Load(), "time"), scalePolls)
			}
		}
	})
	return st
}

// scaleSide returns functions that start the n waits of a side and wait
// for them to end.
func scaleSide(t *testing.T, side string, op *scaleOp, n int) (start, finish func()) {
	ctx := t.Context()
	var wg sync.WaitGroup
	switch side {
	case "waitable WaitAll", "waitable WaitAll, telemetry off":
		opts := []waiter.Option{waiter.WithDelays(scaleDelay, scaleDelay)}
		if side == "waitable WaitAll, telemetry off" {
			opts = append(opts, waiter.WithTelemetry(telemetry.Settings{Off: true}))
		}
		w, err := waiter.New(readyDef, op.poll, opts...)
		if err != nil {
			t.Fatal(err)
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
			}, func() {
				if err := <-done; err != nil {
					t.Fatal(err)
				}
			}
	case "waitable Start":
		w, err := waiter.New(readyDef, op.poll, waiter.WithDelays(scaleDelay, scaleDelay))
		if err != nil {
			t.Fatal(err)
		}
		runs := make([]*waiter.Run[status], n)
		return func() {
				for i := range runs {
					runs[i] = w.Start(ctx, i, time.Hour)
				}
			}, func() {
				for _, r := range runs {
					if _, err := r.Result(); err != nil {
						t.Fatal(err)
					}
				}
			}
	case "waitable NewBatch":
		batchOp := func(ctx context.Context, keys []int) (map[int]status, error) {
			outs := make(map[int]status, len(keys))
			for _, k := range keys {
				outs[k], _ = op.poll(ctx, k)
			}
			return outs, nil
		}
		b, err := waiter.NewBatch(readyDef, batchOp, waiter.BatchOptions[int, status]{Size: realBatchSize},
			waiter.WithDelays(scaleDelay, scaleDelay))
		if err != nil {
			t.Fatal(err)
		}
		runs := make([]*waiter.Run[status], n)
		return func() {
				for i := range runs {
					runs[i] = b.Add(ctx, i, time.Hour)
				}
			}, func() {
				if err := results(runs); err != nil {
					t.Fatal(err)
				}
			}
	case "hand-written goroutine loop":
		return func() {
			for i := range n {
				wg.Go(func() {
					var tm *time.Timer
					for {
						out, _ := op.poll(ctx, i)
						if out.State == "ready" {
							if tm != nil {
								tm.Stop()
							}
							return
						}
						if tm == nil {
							tm = time.NewTimer(scaleDelay)
						} else {
							tm.Reset(scaleDelay)
						}
						select {
						case <-tm.C:
						case <-ctx.Done():
							return
						}
					}
				})
			}
		}, wg.Wait
	case "k8s wait.PollUntilContextTimeout":
		return func() {
			for i := range n {
				wg.Go(func() {
					err := wait.PollUntilContextTimeout(ctx, scaleDelay, time.Hour, true, func(ctx context.Context) (bool, error) {
						out, err := op.poll(ctx, i)
						return out.State == "ready", err
					})
					if err != nil {
						panic(err)
					}
				})
			}
		}, wg.Wait
	}
	t.Fatalf("unknown side %q", side)
	return nil, nil
}

// gcCPU returns the runtime's estimate of the CPU seconds spent collecting
// garbage so far (updated as collections end).
func gcCPU() float64 {
	s := []metrics.Sample{{Name: "/cpu/classes/gc/total:cpu-seconds"}}
	metrics.Read(s)
	return s[0].Value.Float64()
}

// maxPause returns the longest GC pause between two MemStats readings.
func maxPause(before, after *runtime.MemStats) time.Duration {
	var longest uint64
	for gc := before.NumGC + 1; gc <= after.NumGC && gc+256 > after.NumGC; gc++ {
		longest = max(longest, after.PauseNs[(gc+255)%256])
	}
	return time.Duration(longest)
}

// Exponent fits cpu ∝ n^b by least squares on the logarithms and returns
// b: 1 is linear scaling.
func Exponent(stats []ScaleStats) float64 {
	var sx, sy, sxx, sxy float64
	for _, s := range stats {
		x, y := math.Log(float64(s.N)), math.Log(float64(s.CPU))
		sx, sy, sxx, sxy = sx+x, sy+y, sxx+x*x, sxy+x*y
	}
	k := float64(len(stats))
	return (k*sxy - sx*sy) / (k*sxx - sx*sx)
}
