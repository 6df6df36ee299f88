package main

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
	"net/http"
	"net/url"
	"os"
	"time"

	"golang.org/x/time/rate"

	"github.com/waitable/waitable/classify"
	"github.com/waitable/waitable/waiter"
)

// Job is one job of the service's answer, with the answer's Retry-After.
type Job struct {
	State string
	after time.Duration
}

// RetryAfter is the answer's own hint: the job's next poll comes no sooner.
func (j Job) RetryAfter() time.Duration { return j.after }

var jobDone = waiter.Definition{Name: "JobDone", Acceptors: []classify.Acceptor{
	{State: classify.Success, Matcher: classify.OnOutput("State", classify.StringEquals, "done")},
	{State: classify.Failure, Matcher: classify.OnOutput("State", classify.StringEquals, "failed")},
}}

// getJobs describes many jobs in one call: GET URL?id=a&id=b answers {"a": {"state": "done"}, "b": …}.
func getJobs(ctx context.Context, ids []string) (map[string]Job, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, os.Args[1]+"?"+url.Values{"id": ids}.Encode(), nil)
	if err != nil {
		return nil, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	var jobs map[string]Job
	err = json.NewDecoder(resp.Body).Decode(&jobs)
	after, _ := classify.RetryAfterHeader(resp.Header, time.Now())
	for id, j := range jobs {
		jobs[id] = Job{j.State, after}
	}
	return jobs, err
}

func main() {
	// Each job has a wait of its own; the jobs due are polled together: up to 100 a call, 5 calls a second.
	b, err := waiter.NewBatch(jobDone, getJobs, waiter.BatchOptions[string, Job]{Size: 100},
		waiter.WithPollRateLimit(rate.NewLimiter(5, 1)), waiter.WithDelays(100*time.Millisecond, 2*time.Second))
	if err != nil {
		log.Fatal(err)
	}
	ids, runs := os.Args[2:], []*waiter.Run[Job]{}
	for _, id := range ids {
		runs = append(runs, b.Add(context.Background(), id, time.Minute))
	}
	for i, run := range runs {
		job, err := run.Result()
		if err != nil {
			log.Fatal(err) // it names the job: waiter JobDone (ID): …
		}
		fmt.Println(ids[i], job.State)
	}
}
