package main

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
	"net/http"
	"os"
	"time"

	"github.com/waitable/waitable/classify"
	"github.com/waitable/waitable/waiter"
)

// Job is what GET URL answers, {"state": "running"}, and its Retry-After.
type Job struct {
	State string
	after time.Duration
}

// RetryAfter is the answer's own hint: the waiter polls no sooner.
func (j Job) RetryAfter() time.Duration { return j.after }

// jobDone is a waiter definition, as a Smithy model's waitable trait writes one.
var jobDone = waiter.Definition{Name: "JobDone", Acceptors: []classify.Acceptor{
	{State: classify.Success, Matcher: classify.OnOutput("State", classify.StringEquals, "done")},
	{State: classify.Failure, Matcher: classify.OnOutput("State", classify.StringEquals, "failed")},
}}

func getJob(ctx context.Context, url string) (job Job, err error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return job, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return job, err
	}
	defer resp.Body.Close()
	job.after, _ = classify.RetryAfterHeader(resp.Header, time.Now())
	err = json.NewDecoder(resp.Body).Decode(&job)
	return job, err
}

func main() {
	w, err := waiter.New(jobDone, getJob, waiter.WithDelays(100*time.Millisecond, 2*time.Second))
	if err != nil {
		log.Fatal(err)
	}
	run := w.Start(context.Background(), os.Args[1], time.Minute)
	for a := range run.Events() { // each attempt as it happens
		fmt.Printf("#%d %s: %v\n", a.Checkpoint.Attempts, a.Output.State, a.Decision)
	}
	if _, err := run.Result(); err != nil {
		log.Fatal(err)
	}
	fmt.Println("done")
}
