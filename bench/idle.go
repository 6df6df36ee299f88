package bench

import (
	"context"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/waitable/waitable/classify"
	"github.com/waitable/waitable/waiter"
)

type status struct{ State string }

var readyDef = waiter.Definition{Name: "ResourceReady", Acceptors: []classify.Acceptor{
	{State: classify.Success, Matcher: classify.OnOutput("State", classify.StringEquals, "ready")},
}}

// IdleBytesPerRun starts n runs that poll polls times (1ms apart) and then
// sleep an hour on their timers, and returns the memory each costs (heap
// and goroutine stacks, from runtime.MemStats, after a GC), with the
// waiter's options.
func IdleBytesPerRun(n, polls int, opts ...waiter.Option) float64 {
	var wg sync.WaitGroup
	wg.Add(n)
	calls := make([]atomic.Int32, n)
	op := func(_ context.Context, i int) (status, error) {
		if calls[i].Add(1) == int32(polls) {
			wg.Done()
		}
		return status{"pending"}, nil
	}
	delay := func(attempt int, _ status, _ error) time.Duration {
		if attempt < polls {
			return time.Millisecond
		}
		return time.Hour
	}
	w, err := waiter.New(readyDef, op, append(opts, waiter.WithDelays(time.Millisecond, time.Hour), waiter.WithDelayFunc(delay))...)
	if err != nil {
		panic(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	var runs []*waiter.Run[status]
	used := bytesPerRun(n, func() {
		runs = startRuns(ctx, w, n)
		wg.Wait()
	})
	cancel()
	for _, r := range runs {
		<-r.Done()
	}
	return used
}

// EndedBytesPerRun starts n runs that end at their first poll, waits for
// every result, and returns the memory each ended Run costs the caller
// that still holds it (heap and goroutine stacks, from runtime.MemStats,
// after a GC), with the waiter's options.
func EndedBytesPerRun(n int, opts ...waiter.Option) float64 {
	op := func(context.Context, int) (status, error) { return status{"ready"}, nil }
	w, err := waiter.New(readyDef, op, opts...)
	if err != nil {
		panic(err)
	}
	var runs []*waiter.Run[status]
	used := bytesPerRun(n, func() {
		runs = startRuns(context.Background(), w, n)
		for _, r := range runs {
			if _, err := r.Result(); err != nil {
				panic(err)
			}
		}
	})
	runtime.KeepAlive(runs) // held while they are measured
	return used
}

// startRuns starts a run of w for each of the inputs 0 to n-1, each at
// most two hours, under ctx.
func startRuns(ctx context.Context, w *waiter.Waiter[int, status], n int) []*waiter.Run[status] {
	runs := make([]*waiter.Run[status], n)
	for i := range runs {
		runs[i] = w.Start(ctx, i, 2*time.Hour)
	}
	return runs
}

// bytesPerRun returns what start adds to the heap and the goroutine
// stacks (from runtime.MemStats, after a GC), less the caller's slice of
// n runs, divided by n. What start made must still be held when it
// returns: its runs, in a variable of the caller's that outlives the call.
func bytesPerRun(n int, start func()) float64 {
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	start()
	runtime.GC() // gives the last runs time to reach their sleep, or to exit
	runtime.GC() // shrinks the stacks of sleeping goroutines, if any
	runtime.ReadMemStats(&after)
	runsSlice := float64(8 * n) // the caller's own slice of runs
	used := float64(after.HeapInuse+after.StackInuse) - float64(before.HeapInuse+before.StackInuse) - runsSlice
	return used / float64(n)
}
