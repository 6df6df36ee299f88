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

// Usage: checkpoint URL FILE. The wait is saved in FILE after each poll: started again
// after a crash or a restart, the program carries it on with the same deadline,
// attempt numbers and schedule.
func main() {
	url, file := os.Args[1], os.Args[2]
	get := func(ctx context.Context, url string) (*http.Response, error) {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			return nil, err
		}
		resp, err := http.DefaultClient.Do(req)
		if err == nil {
			resp.Body.Close()
		}
		return resp, err
	}
	healthy := func(url string, resp *http.Response, err error) (bool, error) {
		return err == nil && resp.StatusCode == http.StatusOK, err
	}
	retryAfter := func(resp *http.Response) time.Duration {
		d, _ := classify.RetryAfterHeader(resp.Header, time.Now())
		return d
	}
	w, err := waiter.NewFunc("ServiceHealthy", get, healthy,
		waiter.WithDelays(200*time.Millisecond, 5*time.Second), waiter.WithPollHint(retryAfter))
	if err != nil {
		log.Fatal(err)
	}
	var run *waiter.Run[*http.Response]
	if saved, err := os.ReadFile(file); err == nil {
		from, err := waiter.ParseCheckpoint(saved) // a damaged checkpoint is refused
		if err != nil {
			log.Fatal(err)
		}
		run = w.StartFrom(context.Background(), url, from)
	} else {
		run = w.Start(context.Background(), url, time.Minute)
	}
	for a := range run.Events() {
		saved, err := json.Marshal(run.Checkpoint())
		if err == nil {
			err = os.WriteFile(file, saved, 0o600)
		}
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println("poll", a.Checkpoint.Attempts, a.Decision)
	}
	_, err = run.Result()
	os.Remove(file)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(url, "is healthy")
}
