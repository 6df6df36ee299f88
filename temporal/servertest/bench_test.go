package servertest

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/server/temporaltest"

	"github.com/waitable/waitable/telemetry"
	"github.com/waitable/waitable/waiter"

	"github.com/waitable/waitable/temporal"
)

// BenchmarkConcurrentWaits starts b.N waits at once on one worker of the
// in-process server, each done on its third poll a second apart, and
// reports waits started per second, attempts per second and history
// events per attempt.
func BenchmarkConcurrentWaits(b *testing.B) {
	ts := temporaltest.NewServer()
	defer ts.Stop()
	c := ts.GetDefaultClient()
	var calls atomic.Int64
	polls := sync.Map{} // job ID → *atomic.Int32
	op := func(ctx context.Context, in JobInput) (JobOutput, error) {
		calls.Add(1)
		v, _ := polls.LoadOrStore(in.ID, new(atomic.Int32))
		if v.(*atomic.Int32).Add(1) >= 3 {
			return JobOutput{ID: in.ID, State: "done"}, nil
		}
		return JobOutput{ID: in.ID, State: "running"}, nil
	}
	w, err := waiter.New(jobDone, op, waiter.WithDelays(time.Second, time.Second), waiter.WithTelemetry(telemetry.Settings{Off: true}))
	if err != nil {
		b.Fatal(err)
	}
	ts.NewWorkerWithOptions("bench", func(r worker.Registry) { temporal.Register(r, "JobDone", w) },
		worker.Options{MaxConcurrentActivityExecutionSize: 1000, MaxConcurrentWorkflowTaskExecutionSize: 1000})
	ctx := context.Background()
	b.ResetTimer()
	start := time.Now()
	waits := make([]*temporal.Wait[JobOutput], b.N)
	for i := range waits {
		id := fmt.Sprintf("job-%d", i)
		if waits[i], err = temporal.Start[JobInput, JobOutput](ctx, c, "JobDone", JobInput{id}, time.Minute, client.StartWorkflowOptions{ID: id, TaskQueue: "bench"}); err != nil {
			b.Fatal(err)
		}
	}
	started := time.Since(start)
	for _, wt := range waits {
		if _, err := wt.Get(ctx); err != nil {
			b.Fatal(err)
		}
	}
	total := time.Since(start)
	b.StopTimer()
	events := len(history(b, c, waits[0].ID()).Events)
	b.ReportMetric(float64(b.N)/started.Seconds(), "starts/s")
	b.ReportMetric(float64(calls.Load())/total.Seconds(), "attempts/s")
	b.ReportMetric(float64(events)/3, "events/attempt")
}
