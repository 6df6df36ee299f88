package waiter_test

import (
	"context"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/waitable/waitable/classify"
	"github.com/waitable/waitable/waiter"
)

type benchOutput struct{ Status *string }

var (
	creating, active = "CREATING", "ACTIVE"
	benchDef         = waiter.Definition{Name: "ThingActive", Acceptors: []classify.Acceptor{
		{State: classify.Success, Matcher: classify.OnOutput("Status", classify.StringEquals, "ACTIVE")},
	}}
)

// benchOp returns CREATING 10 times, then ACTIVE, over and over.
func benchOp() func(context.Context, string) (*benchOutput, error) {
	n := 0
	return func(context.Context, string) (*benchOutput, error) {
		if n++; n%11 != 0 {
			return &benchOutput{Status: &creating}, nil
		}
		return &benchOutput{Status: &active}, nil
	}
}

// BenchmarkPoll is the waiter's per-poll overhead: a run of 11 polls (10
// retries, then success) with an operation that returns at once, one
// output matcher, and a 1ns delay between polls. ns/op is per run of 11
// polls. The comparison with a hand-written loop, Kubernetes' wait package
// and others is row 4 of the bench module's report.
func BenchmarkPoll(b *testing.B) { benchWaits(b) }

// benchWaits runs BenchmarkPoll's waits: 11 polls, 1ns delays.
func benchWaits(b *testing.B, opts ...waiter.Option) {
	w, err := waiter.New(benchDef, benchOp(), append(opts, waiter.WithDelays(time.Nanosecond, time.Nanosecond))...)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := w.Wait(context.Background(), "thing", time.Hour); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkIdleRun measures the memory of runs sleeping between polls:
// 100,000 runs started, each polled once and now waiting an hour on its
// timer. It reports bytes per run (heap and stacks: a sleeping run is its
// goroutine, blocked in its select, and its state).
func BenchmarkIdleRun(b *testing.B) {
	const n = 100_000
	for b.Loop() {
		var wg sync.WaitGroup
		wg.Add(n)
		op := func(context.Context, int) (*benchOutput, error) {
			wg.Done()
			return &benchOutput{Status: &creating}, nil
		}
		w, err := waiter.New(benchDef, op, waiter.WithDelays(time.Hour, time.Hour))
		if err != nil {
			b.Fatal(err)
		}
		runtime.GC()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		ctx, cancel := context.WithCancel(context.Background())
		runs := make([]*waiter.Run[*benchOutput], n)
		for i := range runs {
			runs[i] = w.Start(ctx, i, 2*time.Hour)
		}
		wg.Wait()
		runtime.GC() // gives the last runs time to reach their sleep
		runtime.GC() // shrinks the stacks of sleeping runs
		runtime.ReadMemStats(&after)
		used := int64(after.HeapInuse+after.StackInuse) - int64(before.HeapInuse+before.StackInuse)
		b.ReportMetric(float64(used)/n, "bytes/run")
		cancel()
		for _, r := range runs {
			<-r.Done()
		}
	}
}
