package main

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
	"net/http"
	"os"
	"time"

	"github.com/waitable/waitable/waiter"
)

// Usage: eta URL JOB...: waits for each job in turn (URL/JOB answers {"state": ...}) with
// one Waiter, which learns from the waits before: from the fifth, each poll says how long
// the wait has left, and a wait slower than the ones before says so.
func main() {
	base, jobs := os.Args[1], os.Args[2:]
	get := func(ctx context.Context, job string) (string, error) {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+"/"+job, nil)
		if err != nil {
			return "", err
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return "", err
		}
		defer resp.Body.Close()
		var v struct{ State string }
		err = json.NewDecoder(resp.Body).Decode(&v)
		return v.State, err
	}
	done := func(job, state string, err error) (bool, error) { return state == "done", err }
	w, err := waiter.NewFunc("JobDone", get, done,
		waiter.WithDelays(20*time.Millisecond, 200*time.Millisecond), waiter.WithLearnedSchedule())
	if err != nil {
		log.Fatal(err)
	}
	for _, job := range jobs {
		run := w.Start(context.Background(), job, time.Minute)
		for a := range run.Events() {
			if e := a.Estimate(); e.None == "" && a.Checkpoint.End == "" {
				fmt.Printf("%s: about %v left (p90 %v)\n", job, e.P50.Round(10*time.Millisecond), e.P90.Round(10*time.Millisecond))
			}
			if a.Estimate().Overdue {
				fmt.Printf("%s: slower than 95%% of the %d waits before it\n", job, a.Estimate().Past)
			}
		}
		if _, err := run.Result(); err != nil {
			log.Fatal(err)
		}
		fmt.Println(job, "done")
	}
}
