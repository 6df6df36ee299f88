// Command events is a small service that starts waits and streams their
// attempts, as they happen, to a web page as Server-Sent Events; the page
// draws each wait's timeline.
//
//	go run ./examples/events        # then open http://127.0.0.1:8080
package main

import (
	"context"
	_ "embed"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"net/http"
	"sync"
	"time"

	"github.com/waitable/waitable/classify"
	"github.com/waitable/waitable/waiter"
)

//go:embed page.html
var page []byte

type Deployment struct{ Status string }

var deploymentDone = waiter.Definition{
	Name: "DeploymentDone",
	Acceptors: []classify.Acceptor{
		{State: classify.Success, Matcher: classify.OnOutput("Status", classify.StringEquals, "SUCCEEDED")},
		{State: classify.Failure, Matcher: classify.OnOutput("Status", classify.StringEquals, "FAILED")},
	},
}

// event is one SSE message: an attempt of one wait, or its end.
type event struct {
	Wait    string `json:"wait"`
	Attempt int    `json:"attempt,omitempty"`
	AtMs    int64  `json:"at_ms"`
	State   string `json:"state"`
	Status  string `json:"status,omitempty"`
	NextMs  int64  `json:"next_ms,omitempty"`
	Error   string `json:"error,omitempty"`
	Done    bool   `json:"done,omitempty"`
}

// handler serves the page and, at /events, starts three simulated
// deployments and streams their attempts until all three end.
func handler(delay time.Duration) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write(page)
	})
	mux.HandleFunc("GET /events", func(w http.ResponseWriter, r *http.Request) {
		flusher, ok := w.(http.Flusher)
		if !ok {
			http.Error(w, "streaming unsupported", http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		w.Header().Set("Cache-Control", "no-cache")
		start := time.Now()
		events := make(chan event)
		var wg sync.WaitGroup
		for _, plan := range []struct {
			name  string
			ready int
			final string
		}{{"api", 3, "SUCCEEDED"}, {"worker", 5, "SUCCEEDED"}, {"batch", 4, "FAILED"}} {
			calls := 0
			op := func(ctx context.Context, name string) (Deployment, error) {
				if calls++; calls < plan.ready {
					return Deployment{"IN_PROGRESS"}, nil
				}
				return Deployment{plan.final}, nil
			}
			wt, err := waiter.New(deploymentDone, op, waiter.WithDelays(delay, 4*delay))
			if err != nil {
				http.Error(w, err.Error(), http.StatusInternalServerError)
				return
			}
			run := wt.Start(r.Context(), plan.name, time.Minute)
			wg.Add(1)
			go func() {
				defer wg.Done()
				for a := range run.Events() {
					e := event{Wait: plan.name, Attempt: a.Checkpoint.Attempts, AtMs: a.Start.Sub(start).Milliseconds(), State: a.Decision.String(), Status: a.Output.Status, NextMs: a.NextDelay.Milliseconds()}
					select {
					case events <- e:
					case <-r.Context().Done():
						run.Cancel()
						return
					}
				}
				_, err := run.Result()
				e := event{Wait: plan.name, AtMs: time.Since(start).Milliseconds(), State: "ended", Done: true}
				if err != nil {
					e.Error = err.Error()
				}
				select {
				case events <- e:
				case <-r.Context().Done():
				}
			}()
		}
		go func() { wg.Wait(); close(events) }()
		for e := range events {
			b, _ := json.Marshal(e)
			fmt.Fprintf(w, "data: %s\n\n", b)
			flusher.Flush()
		}
		fmt.Fprint(w, "event: end\ndata: {}\n\n")
		flusher.Flush()
	})
	return mux
}

func main() {
	addr := flag.String("addr", "127.0.0.1:8080", "where to listen (loopback)")
	flag.Parse()
	log.Printf("open http://%s", *addr)
	log.Fatal(http.ListenAndServe(*addr, handler(300*time.Millisecond)))
}
