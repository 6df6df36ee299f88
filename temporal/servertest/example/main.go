// Command example runs a durable wait on a Temporal server started in
// process: a job that is done on its fifth poll, a worker that stops after
// the second, and a new worker that finishes the wait.
//
//	cd temporal/servertest && go run ./example
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"sync/atomic"
	"time"

	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/server/temporaltest"

	"github.com/waitable/waitable/classify"
	"github.com/waitable/waitable/telemetry"
	"github.com/waitable/waitable/temporal"
	"github.com/waitable/waitable/waiter"
)

type JobInput struct{ ID string }
type JobOutput struct{ ID, State string }

func main() {
	if err := run(context.Background(), os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

func run(ctx context.Context, stdout io.Writer) error {
	ts := temporaltest.NewServer()
	defer ts.Stop()
	c := ts.GetDefaultClient()

	var calls atomic.Int32
	describeJob := func(ctx context.Context, in JobInput) (JobOutput, error) {
		n := calls.Add(1)
		state := "running"
		if n >= 5 {
			state = "done"
		}
		fmt.Fprintf(stdout, "  call %d: job %s is %s\n", n, in.ID, state)
		return JobOutput{ID: in.ID, State: state}, nil
	}
	def := waiter.Definition{Name: "JobDone", Acceptors: []classify.Acceptor{
		{State: classify.Success, Matcher: classify.OnOutput("State", classify.StringEquals, "done")},
		{State: classify.Failure, Matcher: classify.OnOutput("State", classify.StringEquals, "failed")},
	}}
	w, err := waiter.New(def, describeJob, waiter.WithDelays(time.Second, 2*time.Second), waiter.WithTelemetry(telemetry.Settings{Off: true}))
	if err != nil {
		return err
	}
	var regErr error
	register := func(r worker.Registry) { regErr = temporal.Register(r, "JobDone", w) }

	first := ts.NewWorker("waits", register)
	if regErr != nil {
		return regErr
	}
	wait, err := temporal.Start[JobInput, JobOutput](ctx, c, "JobDone", JobInput{"job-42"}, 2*time.Minute,
		client.StartWorkflowOptions{ID: "wait-job-42", TaskQueue: "waits"})
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "started wait %s on worker 1\n", wait.ID())
	// Wait, with a waiter, for the workflow to record two attempts.
	progress := func(ctx context.Context, _ struct{}) (temporal.Progress, error) { return wait.Progress(ctx) }
	twoAttempts, err := waiter.NewFunc("TwoAttempts", progress,
		func(_ struct{}, p temporal.Progress, err error) (bool, error) {
			return err == nil && p.Checkpoint.Attempts >= 2, nil
		},
		waiter.WithDelays(20*time.Millisecond, 200*time.Millisecond), waiter.WithTelemetry(telemetry.Settings{Off: true}))
	if err != nil {
		return err
	}
	if _, err := twoAttempts.Wait(ctx, struct{}{}, time.Minute); err != nil {
		return err
	}
	first.Stop()
	fmt.Fprintln(stdout, "worker 1 stopped after 2 attempts; starting worker 2")
	ts.NewWorker("waits", register)
	out, err := wait.Get(ctx)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "job %s is %s after %d calls\n", out.ID, out.State, calls.Load())
	return nil
}
