package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"strconv"
	"time"

	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/worker"

	"github.com/waitable/waitable/classify"
	"github.com/waitable/waitable/temporal"
	"github.com/waitable/waitable/waiter"
)

// Job is a job service's answer; Temporal records it in the wait's history.
type Job struct {
	State string
	Hint  time.Duration // the service's Retry-After
}

// RetryAfter makes the next poll wait at least as long as the service asked.
func (j Job) RetryAfter() time.Duration { return j.Hint }

func describeJob(ctx context.Context, url string) (Job, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return Job{}, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return Job{}, err
	}
	defer resp.Body.Close()
	var j Job
	err = json.NewDecoder(resp.Body).Decode(&j)
	secs, _ := strconv.Atoi(resp.Header.Get("Retry-After"))
	j.Hint = time.Duration(secs) * time.Second
	return j, err
}

func main() {
	if err := run(context.Background(), os.Args[1]); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

func run(ctx context.Context, url string) error {
	c, err := client.Dial(client.Options{HostPort: os.Getenv("TEMPORAL_ADDRESS"), Namespace: os.Getenv("TEMPORAL_NAMESPACE")})
	if err != nil {
		return err
	}
	defer c.Close()
	def := waiter.Definition{Name: "JobDone", Acceptors: []classify.Acceptor{
		{State: classify.Success, Matcher: classify.OnOutput("State", classify.StringEquals, "done")},
		{State: classify.Failure, Matcher: classify.OnOutput("State", classify.StringEquals, "failed")},
	}}
	w, err := waiter.New(def, describeJob, waiter.WithDelays(time.Second, 30*time.Second))
	if err != nil {
		return err
	}
	// The worker polls inside an activity that heartbeats the wait's state
	// (durable timers for delays of a minute or more): the wait outlives
	// this process, and any worker of the queue resumes it.
	wk := worker.New(c, "waits", worker.Options{})
	if err := temporal.Register(wk, "JobDone", w); err != nil {
		return err
	}
	if err := wk.Start(); err != nil {
		return err
	}
	defer wk.Stop()
	wait, err := temporal.Start[string, Job](ctx, c, "JobDone", url, 10*time.Minute,
		client.StartWorkflowOptions{ID: "wait-" + url, TaskQueue: "waits"})
	if err != nil {
		return err
	}
	job, err := wait.Get(ctx) // or, from another process: temporal.Attach[Job](ctx, c, wait.ID(), "")
	if errors.Is(err, waiter.ErrTimeout) {
		return fmt.Errorf("%s is not done after 10 minutes: %w", url, err)
	}
	if err != nil {
		return err
	}
	fmt.Printf("%s is %s\n", url, job.State)
	return nil
}
