// Command fanout waits for 1,000 simulated resources at once with
// waiter.WaitAll: at most 200 waits at a time, all polls under one shared
// rate limit, a live progress line fed by waiter.GroupOptions.Progress, and a
// summary.
//
//	go run ./examples/fanout
package main

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"sync/atomic"
	"time"

	"golang.org/x/time/rate"

	"github.com/waitable/waitable/classify"
	"github.com/waitable/waitable/waiter"
)

type Volume struct {
	ID    string
	State string
}

var volumeAvailable = waiter.Definition{
	Name: "VolumeAvailable",
	Acceptors: []classify.Acceptor{
		{State: classify.Success, Matcher: classify.OnOutput("State", classify.StringEquals, "available")},
		{State: classify.Failure, Matcher: classify.OnOutput("State", classify.StringEquals, "error")},
	},
}

func main() {
	if err := run(context.Background(), os.Stdout, 1000, 200*time.Millisecond); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

// run waits for n volumes that become available within about 2s (one in
// fifty ends in "error"), printing progress every tick.
func run(ctx context.Context, out io.Writer, n int, tick time.Duration) error {
	start := time.Now()
	readyAt := make([]time.Duration, n)
	for i := range readyAt {
		readyAt[i] = time.Duration(rand.N(2000)) * time.Millisecond
	}
	var calls atomic.Int64
	describe := func(ctx context.Context, i int) (Volume, error) {
		calls.Add(1)
		v := Volume{ID: fmt.Sprintf("vol-%04d", i), State: "creating"}
		if time.Since(start) >= readyAt[i] {
			v.State = "available"
			if i%50 == 49 {
				v.State = "error"
			}
		}
		return v, nil
	}
	var done, failed atomic.Int64
	progress := func(p waiter.Progress) { done.Store(int64(p.Done)); failed.Store(int64(p.Failed)) }
	lim := rate.NewLimiter(2000, 100) // the API allows 2,000 calls a second
	w, err := waiter.New(volumeAvailable, describe, waiter.WithDelays(100*time.Millisecond, 500*time.Millisecond),
		waiter.WithPollRateLimit(lim))
	if err != nil {
		return err
	}
	ids := make([]int, n)
	for i := range ids {
		ids[i] = i
	}
	stop := make(chan struct{})
	ticked := make(chan struct{})
	go func() {
		defer close(ticked)
		t := time.NewTicker(tick)
		defer t.Stop()
		for {
			select {
			case <-t.C:
				fmt.Fprintf(out, "\r%4d/%d done, %d failed, %d calls", done.Load(), n, failed.Load(), calls.Load())
			case <-stop:
				return
			}
		}
	}()
	outs, err := waiter.WaitAll(ctx, w, ids, time.Minute, waiter.GroupOptions{Concurrency: 200, Progress: progress})
	close(stop)
	<-ticked
	fmt.Fprintf(out, "\r%4d/%d done, %d failed, %d calls\n", done.Load(), n, failed.Load(), calls.Load())
	available := 0
	for _, o := range outs {
		if o.Err == nil {
			available++
		}
	}
	fmt.Fprintf(out, "%d volumes available, %d failed, in %.1fs with %d calls (%.1f per volume)\n",
		available, n-available, time.Since(start).Seconds(), calls.Load(), float64(calls.Load())/float64(n))
	if err != nil && available+n/50 != n {
		return err
	}
	return nil
}
