package servertest

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/server/temporaltest"

	"github.com/waitable/waitable/telemetry"
	"github.com/waitable/waitable/temporal"
	"github.com/waitable/waitable/waiter"
)

// pastJobs is a History that holds ten waits of a job done after about
// 5s, seen between polls half a second apart, and keeps what it is told.
type pastJobs struct {
	mu    sync.Mutex
	added []waiter.Sample
}

func (h *pastJobs) Load(context.Context, string, string) ([]waiter.Sample, error) {
	var s []waiter.Sample
	for i := range 10 {
		done := 4800*time.Millisecond + time.Duration(i)*50*time.Millisecond
		s = append(s, waiter.Sample{Pending: done - 500*time.Millisecond, Ready: done, End: "success"})
	}
	return s, nil
}

func (h *pastJobs) Add(_ context.Context, _, _ string, s waiter.Sample) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.added = append(h.added, s)
	return nil
}

// readyAfter is a job done from 5s after its first poll.
func readyAfter() func(context.Context, JobInput) (JobOutput, error) {
	var mu sync.Mutex
	var first time.Time
	return func(_ context.Context, in JobInput) (JobOutput, error) {
		mu.Lock()
		defer mu.Unlock()
		if first.IsZero() {
			first = time.Now()
		}
		if time.Since(first) >= 5*time.Second {
			return JobOutput{ID: in.ID, State: "done"}, nil
		}
		return JobOutput{ID: in.ID, State: "running"}, nil
	}
}

// TestLearnedWaitReplays: a durable wait on the learned schedule learns
// from its waiter's history as it begins and is recorded in it as it
// ends, in either mode; what it learnt is in the workflow's history, so
// that a worker whose waiter has learnt nothing, replaying it to answer a
// query once it is over, makes the same decisions: the same delays, and
// they are the learned ones (the first poll waits for the job's usual
// time, up to MaxDelay, where the Smithy schedule waits MinDelay).
func TestLearnedWaitReplays(t *testing.T) {
	ts := temporaltest.NewServer(temporaltest.WithT(t))
	for _, mode := range []temporal.Mode{temporal.ModeTimers, temporal.ModeHeartbeat} {
		t.Run(mode.String(), func(t *testing.T) {
			c := ts.GetDefaultClient()
			h := &pastJobs{}
			newWaiter := func(h waiter.History) *waiter.Waiter[JobInput, JobOutput] {
				w, err := waiter.New(jobDone, readyAfter(), waiter.WithDelays(time.Second, 4*time.Second), waiter.WithLearnedSchedule(),
					waiter.WithHistory(h), waiter.WithTelemetry(telemetry.Settings{Off: true}))
				if err != nil {
					t.Fatal(err)
				}
				return w
			}
			register := func(w *waiter.Waiter[JobInput, JobOutput]) func(worker.Registry) {
				return func(r worker.Registry) {
					if err := temporal.Register(r, "LearnedJob", w, temporal.WithMode(mode)); err != nil {
						t.Fatal(err)
					}
				}
			}
			queue := "learned-" + mode.String()
			first := ts.NewWorker(queue, register(newWaiter(h)))
			ctx := t.Context()
			wait, err := temporal.Start[JobInput, JobOutput](ctx, c, "LearnedJob", JobInput{"j"}, time.Minute, client.StartWorkflowOptions{ID: "learned-" + mode.String(), TaskQueue: queue})
			if err != nil {
				t.Fatal(err)
			}
			if out, err := wait.Get(ctx); err != nil || out.State != "done" {
				t.Fatalf("Get = %+v, %v; want done", out, err)
			}
			var timers []time.Duration
			for _, e := range history(t, c, wait.ID()).Events {
				if a := e.GetTimerStartedEventAttributes(); a != nil {
					timers = append(timers, a.GetStartToFireTimeout().AsDuration())
				}
			}
			first.Stop()
			ts.NewWorker(queue, register(newWaiter(nil))) // it learns nothing: it replays
			p, err := wait.Progress(ctx)
			if err != nil {
				t.Fatal(err)
			}
			var delays []time.Duration
			for _, a := range p.Attempts {
				if a.NextDelay > 0 {
					delays = append(delays, a.NextDelay)
				}
			}
			if p.Checkpoint.Prior.Chance == 0 || p.Checkpoint.Prior.Waits != 10 {
				t.Errorf("the replayed wait's Prior %+v: want the one learnt from 10 waits", p.Checkpoint.Prior)
			}
			if len(delays) == 0 || delays[0] < 3*time.Second {
				t.Errorf("delays %v: want the first at least 3s (learnt), not MinDelay", delays)
			}
			if mode == temporal.ModeTimers && !slices.Equal(delays, timers) {
				t.Errorf("replayed delays %v, want the recorded timers %v", delays, timers)
			}
			h.mu.Lock()
			defer h.mu.Unlock()
			if len(h.added) != 1 || h.added[0].End != "success" || h.added[0].Ready < 5*time.Second {
				t.Errorf("the history was told %+v, want the wait's success after 5s", h.added)
			}
		})
	}
}
