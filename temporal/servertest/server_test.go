package servertest

import (
	"context"
	"errors"
	"flag"
	"os"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nexus-rpc/sdk-go/nexus"
	"go.temporal.io/api/enums/v1"
	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/server/temporaltest"
	"google.golang.org/protobuf/encoding/protojson"

	"github.com/waitable/waitable/telemetry"
	"github.com/waitable/waitable/waiter"

	"github.com/waitable/waitable/temporal"
)

var update = flag.Bool("update", false, "rewrite testdata/history-heartbeat.json from a run on the in-process server")

// waitFor polls cond with a waitable waiter on real time (the server's).
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	w, err := waiter.NewFunc("Until", func(context.Context, struct{}) (bool, error) { return cond(), nil },
		func(_ struct{}, ok bool, _ error) (bool, error) { return ok, nil },
		waiter.WithDelays(20*time.Millisecond, 100*time.Millisecond), waiter.WithTelemetry(telemetry.Settings{Off: true}))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Wait(t.Context(), struct{}{}, time.Minute); err != nil {
		t.Fatalf("waiting for %s: %v", what, err)
	}
}

// TestWorkerRestartMidWait: against a real Temporal server started in
// process, a wait whose worker stops after two attempts ends, on a new
// worker, with the right outcome, its attempts numbered on, none lost
// and none made twice.
func TestWorkerRestartMidWait(t *testing.T) {
	ts := temporaltest.NewServer(temporaltest.WithT(t))
	for _, mode := range []temporal.Mode{temporal.ModeTimers, temporal.ModeHeartbeat} {
		t.Run(mode.String(), func(t *testing.T) { workerRestartMidWait(t, ts, mode) })
	}
}

func workerRestartMidWait(t *testing.T, ts *temporaltest.TestServer, mode temporal.Mode) {
	c := ts.GetDefaultClient()
	var calls atomic.Int32
	w, err := waiter.New(jobDone, job(5, "done", &calls), waiter.WithDelays(time.Second, time.Second), waiter.WithTelemetry(telemetry.Settings{Off: true}))
	if err != nil {
		t.Fatal(err)
	}
	register := func(r worker.Registry) {
		if err := temporal.Register(r, "JobDone", w, temporal.WithMode(mode)); err != nil {
			t.Fatal(err)
		}
	}
	queue := "waits-" + mode.String()
	first := ts.NewWorker(queue, register)
	ctx := t.Context()
	wait, err := temporal.Start[JobInput, JobOutput](ctx, c, "JobDone", JobInput{"j-1"}, time.Minute, client.StartWorkflowOptions{ID: "job-1-" + mode.String(), TaskQueue: queue})
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, "two attempts recorded", func() bool {
		p, err := wait.Progress(ctx)
		return err == nil && p.Checkpoint.Attempts >= 2
	})
	first.Stop()
	ts.NewWorker(queue, register)
	out, err := wait.Get(ctx)
	if err != nil || out.State != "done" {
		t.Fatalf("Get = %+v, %v; want done", out, err)
	}
	if got := calls.Load(); got != 5 {
		t.Errorf("%d calls, want 5: an attempt was lost or made twice", got)
	}
	// Another process follows the same wait by its ID alone.
	other := ts.NewClientWithOptions(client.Options{})
	defer other.Close()
	if out, err := temporal.Attach[JobOutput](ctx, other, wait.ID(), "").Get(ctx); err != nil || out.State != "done" {
		t.Errorf("temporal.Attach(%s).Get = %+v, %v; want done", wait.ID(), out, err)
	}
	hist := history(t, c, wait.ID())
	scheduled := 0
	for _, e := range hist.Events {
		if e.GetActivityTaskScheduledEventAttributes() != nil {
			scheduled++
		}
	}
	// Timers: an activity per poll. Heartbeat: one activity, retried on
	// the new worker from its last heartbeat.
	if want := map[temporal.Mode]int{temporal.ModeTimers: 5, temporal.ModeHeartbeat: 1}[mode]; scheduled != want {
		t.Errorf("%d activities scheduled in the history, want %d", scheduled, want)
	}
	t.Logf("history: %d events for 5 attempts", len(hist.Events))
	if *update && mode == temporal.ModeHeartbeat { // history.json stays as recorded before heartbeat mode
		b, err := protojson.MarshalOptions{Indent: "  "}.Marshal(hist)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(historyFile[mode], b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if mode == temporal.ModeHeartbeat {
		return
	}

	// A wait that never succeeds times out with the in-process error kind.
	var never atomic.Int32
	w2, _ := waiter.New(jobDone, job(0, "", &never), waiter.WithDelays(time.Second, time.Second), waiter.WithTelemetry(telemetry.Settings{Off: true}))
	ts.NewWorker("waits-2", func(r worker.Registry) { temporal.Register(r, "JobDone", w2, temporal.WithMode(temporal.ModeTimers)) })
	wait2, err := temporal.Start[JobInput, JobOutput](ctx, c, "JobDone", JobInput{"j-2"}, 3*time.Second, client.StartWorkflowOptions{TaskQueue: "waits-2"})
	if err != nil {
		t.Fatal(err)
	}
	_, err = wait2.Get(ctx)
	var we *waiter.Error
	if !errors.Is(err, waiter.ErrTimeout) || !errors.As(err, &we) || we.Attempts != int(never.Load()) {
		t.Errorf("Get = %v; want ErrTimeout after %d attempts", err, never.Load())
	}
}

func history(t testing.TB, c client.Client, id string) *historypb.History {
	it := c.GetWorkflowHistory(context.Background(), id, "", false, enums.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	h := &historypb.History{}
	for it.HasNext() {
		e, err := it.Next()
		if err != nil {
			t.Fatal(err)
		}
		h.Events = append(h.Events, e)
	}
	return h
}

// replayRegistry lets temporal.Register register on a workflow replayer, which
// takes no activities.
type replayRegistry struct{ worker.WorkflowReplayer }

func (replayRegistry) RegisterActivity(any)                                         {}
func (replayRegistry) RegisterActivityWithOptions(any, activity.RegisterOptions)    {}
func (replayRegistry) RegisterDynamicActivity(any, activity.DynamicRegisterOptions) {}
func (replayRegistry) RegisterNexusService(*nexus.Service)                          {}

// historyFile holds, for each mode, a recorded history of a wait whose
// worker restarted after two attempts. history.json predates heartbeat
// mode: it replays, with the default options, as it ran.
var historyFile = map[temporal.Mode]string{temporal.ModeTimers: "testdata/history.json", temporal.ModeHeartbeat: "testdata/history-heartbeat.json"}

// TestReplay replays the recorded histories: a change to the workflow
// that breaks determinism fails here.
func TestReplay(t *testing.T) {
	for mode, file := range historyFile {
		t.Run(mode.String(), func(t *testing.T) {
			r := worker.NewWorkflowReplayer()
			var calls atomic.Int32
			w, err := waiter.New(jobDone, job(5, "done", &calls), waiter.WithDelays(time.Second, time.Second), waiter.WithTelemetry(telemetry.Settings{Off: true}))
			if err != nil {
				t.Fatal(err)
			}
			if err := temporal.Register(replayRegistry{r}, "JobDone", w); err != nil {
				t.Fatal(err)
			}
			if err := r.ReplayWorkflowHistoryFromJSONFile(nil, file); err != nil {
				t.Fatal(err)
			}
			if calls.Load() != 0 {
				t.Errorf("replay called the operation %d times", calls.Load())
			}
		})
	}
}
