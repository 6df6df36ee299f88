package bench

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/waitable/waitable/classify"
	"github.com/waitable/waitable/waiter"
)

type status struct{ State string }

var readyDef = waiter.Definition{Name: "ResourceReady", Acceptors: []classify.Acceptor{
	{State: classify.Success, Matcher: classify.OnOutput("State", classify.StringEquals, "ready")},
}}

// BenchmarkIdleRuns starts n runs that poll once and then sleep an hour on
// their timers, and reports the memory each costs (heap and goroutine
// stack, from runtime.MemStats).
func BenchmarkIdleRuns(b *testing.B) {
	for _, n := range []int{100_000, 1_000_000} {
		b.Run(fmt.Sprintf("runs=%d", n), func(b *testing.B) {
			for b.Loop() {
				b.ReportMetric(idleBytesPerRun(b, n), "bytes/run")
			}
		})
	}
}

func idleBytesPerRun(b *testing.B, n int) float64 {
	var wg sync.WaitGroup
	wg.Add(n)
	op := func(context.Context, int) (status, error) {
		wg.Done()
		return status{"pending"}, nil
	}
	w, err := waiter.New(readyDef, op, waiter.WithDelays(time.Hour, time.Hour), waiter.WithoutTelemetry())
	if err != nil {
		b.Fatal(err)
	}
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	ctx, cancel := context.WithCancel(context.Background())
	runs := make([]*waiter.Run[status], n)
	for i := range runs {
		runs[i] = w.Start(ctx, i, 2*time.Hour)
	}
	wg.Wait()
	runtime.GC()
	runtime.ReadMemStats(&after)
	runsSlice := float64(8 * n) // the benchmark's own slice of runs
	used := float64((after.HeapInuse+after.StackInuse)-(before.HeapInuse+before.StackInuse)) - runsSlice
	cancel()
	for _, r := range runs {
		<-r.Done()
	}
	return used / float64(n)
}
