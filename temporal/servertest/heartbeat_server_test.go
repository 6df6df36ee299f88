package servertest

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/server/temporaltest"

	"github.com/waitable/waitable/telemetry"
	"github.com/waitable/waitable/waiter"

	"github.com/waitable/waitable/temporal"
)

// The worker process of TestWorkerKilledMidActivity: the test binary run
// with these variables set registers the wait on the in-process server's
// task queue and works until it is killed.
const (
	envWorkerHostPort  = "WAITABLE_TEST_TEMPORAL_HOSTPORT"
	envWorkerNamespace = "WAITABLE_TEST_TEMPORAL_NAMESPACE"
	envWorkerQueue     = "WAITABLE_TEST_TEMPORAL_QUEUE"
	envWorkerURL       = "WAITABLE_TEST_JOB_URL"
)

// httpJob is an operation that asks url for the job's state.
func httpJob(url string) func(context.Context, JobInput) (JobOutput, error) {
	return func(ctx context.Context, in JobInput) (JobOutput, error) {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			return JobOutput{}, err
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return JobOutput{}, err
		}
		defer resp.Body.Close()
		var buf [64]byte
		n, _ := resp.Body.Read(buf[:])
		return JobOutput{ID: in.ID, State: string(buf[:n])}, nil
	}
}

func heartbeatWaiter(t testing.TB, op func(context.Context, JobInput) (JobOutput, error)) *waiter.Waiter[JobInput, JobOutput] {
	w, err := waiter.New(jobDone, op, waiter.WithDelays(200*time.Millisecond, 200*time.Millisecond), waiter.WithTelemetry(telemetry.Settings{Off: true}))
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// runWorkerProcess is the worker of TestWorkerKilledMidActivity's child
// process; it never returns.
func runWorkerProcess() {
	c, err := client.Dial(client.Options{HostPort: os.Getenv(envWorkerHostPort), Namespace: os.Getenv(envWorkerNamespace)})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	wk := worker.New(c, os.Getenv(envWorkerQueue), worker.Options{})
	if err := temporal.Register(wk, "JobDone", heartbeatWaiter(nil, httpJob(os.Getenv(envWorkerURL))), temporal.WithMode(temporal.ModeHeartbeat), temporal.WithHeartbeatTimeout(time.Second)); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if err := wk.Run(nil); err != nil {
		fmt.Fprintln(os.Stderr, err)
	}
	os.Exit(1)
}

// TestWorkerKilledMidActivity: a worker process killed (SIGKILL) while
// its heartbeating activity has a call in flight; Temporal notices at the
// heartbeat timeout and retries the activity on another worker, which
// resumes from the last heartbeat. Only the call in flight is made
// again: the job's server sees one call more than the wait's attempts,
// and the attempts are numbered on.
func TestWorkerKilledMidActivity(t *testing.T) {
	const doneAt, killAt = 6, 3 // calls
	var calls atomic.Int32
	inFlight := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := int(calls.Add(1))
		if n == killAt {
			close(inFlight)
			<-r.Context().Done() // the worker dies with this call in flight
			return
		}
		if n >= doneAt {
			w.Write([]byte("done"))
			return
		}
		w.Write([]byte("running"))
	}))
	defer srv.Close()
	ts := temporaltest.NewServer(temporaltest.WithT(t))
	const queue = "killed"
	child := exec.Command(os.Args[0], "-test.run=^$")
	child.Env = append(os.Environ(), envWorkerHostPort+"="+ts.GetFrontendHostPort(), envWorkerNamespace+"="+ts.GetDefaultNamespace(),
		envWorkerQueue+"="+queue, envWorkerURL+"="+srv.URL)
	child.Stderr = os.Stderr
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	var reaped sync.Once
	reap := func() { reaped.Do(func() { child.Process.Signal(syscall.SIGKILL); child.Wait() }) }
	defer reap()

	ctx := t.Context()
	c := ts.GetDefaultClient()
	wait, err := temporal.Start[JobInput, JobOutput](ctx, c, "JobDone", JobInput{"j-1"}, time.Minute, client.StartWorkflowOptions{ID: "killed-1", TaskQueue: queue})
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-inFlight:
	case <-ctx.Done():
		t.Fatal("the worker process made no third call")
	}
	reap() // SIGKILL: no chance to report anything
	ts.NewWorker(queue, func(r worker.Registry) {
		if err := temporal.Register(r, "JobDone", heartbeatWaiter(t, httpJob(srv.URL)), temporal.WithMode(temporal.ModeHeartbeat), temporal.WithHeartbeatTimeout(time.Second)); err != nil {
			t.Error(err)
		}
	})
	out, err := wait.Get(ctx)
	if err != nil || out.State != "done" {
		t.Fatalf("Get = %+v, %v; want done", out, err)
	}
	p, err := wait.Progress(ctx)
	if err != nil {
		t.Fatal(err)
	}
	attempts := p.Checkpoint.Attempts
	if got := int(calls.Load()); got != doneAt || attempts != doneAt-1 {
		t.Errorf("%d calls for %d attempts; want %d calls for %d: only the call in flight at the kill made again", got, attempts, doneAt, doneAt-1)
	}
	if n := len(p.Attempts); n == 0 || p.Attempts[n-1].Number != attempts || p.Attempts[n-1].State != "success" {
		t.Errorf("attempts %+v: want the last numbered %d, a success", p.Attempts, attempts)
	}
}

// TestCancelDuringHeartbeat: cancelling a wait whose polls run inside a
// heartbeating activity reaches the activity through its heartbeats: it
// stops polling and reports its Checkpoint, and Get matches context.Canceled
// with the attempts made.
func TestCancelDuringHeartbeat(t *testing.T) {
	ts := temporaltest.NewServer(temporaltest.WithT(t))
	var calls atomic.Int32
	never := func(ctx context.Context, in JobInput) (JobOutput, error) {
		calls.Add(1)
		return JobOutput{ID: in.ID, State: "running"}, nil
	}
	ts.NewWorker("cancel", func(r worker.Registry) {
		if err := temporal.Register(r, "JobDone", heartbeatWaiter(t, never), temporal.WithMode(temporal.ModeHeartbeat), temporal.WithHeartbeatTimeout(time.Second)); err != nil {
			t.Error(err)
		}
	})
	ctx := t.Context()
	c := ts.GetDefaultClient()
	wait, err := temporal.Start[JobInput, JobOutput](ctx, c, "JobDone", JobInput{"j-1"}, time.Minute, client.StartWorkflowOptions{TaskQueue: "cancel"})
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, "three attempts in the heartbeats", func() bool {
		p, err := wait.Progress(ctx)
		return err == nil && p.Checkpoint.Attempts >= 3
	})
	if err := wait.Cancel(ctx); err != nil {
		t.Fatal(err)
	}
	_, err = wait.Get(ctx)
	var we *waiter.Error
	if !errors.Is(err, context.Canceled) || !errors.As(err, &we) || we.Attempts < 3 {
		t.Fatalf("Get = %v; want a cancellation after at least 3 attempts", err)
	}
	if got := int(calls.Load()); got > we.Attempts+1 {
		t.Errorf("%d calls for %d attempts: the activity polled on after the cancellation", got, we.Attempts)
	}
	canceled := false
	for _, e := range history(t, c, wait.ID()).Events {
		canceled = canceled || e.GetEventType() == enums.EVENT_TYPE_ACTIVITY_TASK_CANCELED
	}
	if !canceled {
		t.Error("the history has no ActivityTaskCanceled: the activity did not stop on the cancellation")
	}
	t.Logf("cancelled after %s attempts", strconv.Itoa(we.Attempts))
}

// TestKeepaliveHeartbeats: a delay longer than the heartbeat timeout
// does not time the activity out: it heartbeats after half the timeout
// without a poll, so the wait ends on the activity's first attempt, each
// call made once.
func TestKeepaliveHeartbeats(t *testing.T) {
	ts := temporaltest.NewServer(temporaltest.WithT(t))
	var calls atomic.Int32
	w, err := waiter.New(jobDone, job(3, "done", &calls), waiter.WithDelays(1500*time.Millisecond, 1500*time.Millisecond), waiter.WithTelemetry(telemetry.Settings{Off: true}))
	if err != nil {
		t.Fatal(err)
	}
	ts.NewWorker("keepalive", func(r worker.Registry) {
		if err := temporal.Register(r, "JobDone", w, temporal.WithMode(temporal.ModeHeartbeat), temporal.WithHeartbeatTimeout(time.Second)); err != nil {
			t.Error(err)
		}
	})
	ctx := t.Context()
	c := ts.GetDefaultClient()
	wait, err := temporal.Start[JobInput, JobOutput](ctx, c, "JobDone", JobInput{"j-1"}, time.Minute, client.StartWorkflowOptions{TaskQueue: "keepalive"})
	if err != nil {
		t.Fatal(err)
	}
	if out, err := wait.Get(ctx); err != nil || out.State != "done" {
		t.Fatalf("Get = %+v, %v; want done", out, err)
	}
	var attempts []int32
	for _, e := range history(t, c, wait.ID()).Events {
		if a := e.GetActivityTaskStartedEventAttributes(); a != nil {
			attempts = append(attempts, a.GetAttempt())
		}
	}
	if len(attempts) != 1 || attempts[0] != 1 || calls.Load() != 3 {
		t.Errorf("activity attempts %v, %d calls; want one activity on its first attempt, 3 calls", attempts, calls.Load())
	}
}
