// Command scale measures durable waits at scale on one worker and the
// in-process Temporal server, for each mode of package temporal: it
// starts every wait at once (each done at its -polls'th poll, -delay
// apart), waits for them all, and prints the waits open at once, history
// events per attempt, attempts per second, the poll-interval stretch (the
// median time between a wait's polls ÷ the delay) and CPU per attempt,
// the worker's (a process of its own) and the server's and client's.
//
//	cd temporal/servertest && go run ./cmd/scale -waits 1000 -delay 1s -polls 20
//	cd temporal/servertest && go run ./cmd/scale -waits 10000 -delay 30s -polls 24 -heartbeat-timeout 2m -modes heartbeat
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/log"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/server/temporaltest"

	"github.com/waitable/waitable/classify"
	"github.com/waitable/waitable/telemetry"
	"github.com/waitable/waitable/temporal"
	"github.com/waitable/waitable/waiter"
)

type job struct{ ID string }

type status struct {
	ID    string
	State string
}

var def = waiter.Definition{Name: "Job", Acceptors: []classify.Acceptor{
	{State: classify.Success, Matcher: classify.OnOutput("State", classify.StringEquals, "done")},
}}

// config is what the worker process needs; it travels as JSON in an
// environment variable.
type config struct {
	HostPort, Namespace, Queue string
	Mode                       temporal.Mode
	Polls, Waits               int
	Delay, HeartbeatTimeout    time.Duration
	History                    int // past waits in the waiter's history
}

const envWorker = "WAITABLE_SCALE_WORKER"

// workerStats is what the worker process prints when its standard input
// closes.
type workerStats struct {
	Polls      int64
	Intervals  []time.Duration // each wait's median time between polls
	FirstPoll  time.Time
	LastPoll   time.Time
	OpenAtOnce int // the most waits between their first and last poll at one instant
	// SteadyPolls are the polls made while every wait was open (from the
	// last wait's first poll to the first wait's last), SteadyFor that
	// window's length: 0 if the waits were never all open at once.
	SteadyPolls int
	SteadyFor   time.Duration
	CPU         time.Duration
}

func main() {
	if env := os.Getenv(envWorker); env != "" {
		runWorker(env)
		return
	}
	waits := flag.Int("waits", 1000, "waits started at once")
	delay := flag.Duration("delay", time.Second, "the delay between a wait's polls")
	polls := flag.Int("polls", 20, "each wait is done at its n'th poll")
	modes := flag.String("modes", "timers,heartbeat", "the modes to measure, in order")
	hbTimeout := flag.Duration("heartbeat-timeout", temporal.DefaultHeartbeatTimeout, "temporal.WithHeartbeatTimeout: a heartbeating activity also heartbeats after half of it without a poll")
	past := flag.Int("history", waiter.HistoryWindow, "past waits in the waiter's history (each wait carries what it learnt from them in its Checkpoint, and polls on the learned schedule, its delays fixed at -delay)")
	flag.Parse()
	if *waits < 1 || *polls < 1 || *delay <= 0 {
		fmt.Fprintln(os.Stderr, "scale: -waits and -polls must be at least 1, -delay positive")
		os.Exit(64)
	}
	fmt.Printf("%d waits started at once on one worker, each done at its poll %d, %v apart (heartbeat timeout %v), learning from %d past waits; in-process server (SQLite)\n\n", *waits, *polls, *delay, *hbTimeout, *past)
	fmt.Printf("%-9s  %9s  %13s  %10s  %21s  %13s  %20s  %9s\n", "mode", "open", "events/poll", "polls/s", "stretch p50 (p99)", "worker CPU", "server+client CPU", "wall")
	defer fmt.Println("\nopen: the most waits open (between their first and last poll) at one instant. polls/s: while all were open\n(* they never were: over the whole run). stretch: the median time between a wait's polls ÷ the delay, over the waits.\nCPU: process CPU time per poll; the worker runs in a process of its own.")
	for _, m := range strings.Split(*modes, ",") {
		mode, ok := map[string]temporal.Mode{"timers": temporal.ModeTimers, "heartbeat": temporal.ModeHeartbeat, "auto": temporal.ModeAuto}[strings.TrimSpace(m)]
		if !ok {
			fmt.Fprintf(os.Stderr, "scale: unknown mode %q (timers, heartbeat, auto)\n", m)
			os.Exit(64)
		}
		if err := measure(config{Mode: mode, Polls: *polls, Waits: *waits, Delay: *delay, HeartbeatTimeout: *hbTimeout, History: *past}); err != nil {
			fmt.Fprintln(os.Stderr, "scale:", err)
			os.Exit(1)
		}
	}
}

func measure(cfg config) error {
	ts := temporaltest.NewServer(temporaltest.WithBaseClientOptions(client.Options{Logger: quiet()}))
	defer ts.Stop()
	cfg.HostPort, cfg.Namespace, cfg.Queue = ts.GetFrontendHostPort(), ts.GetDefaultNamespace(), "scale"
	env, _ := json.Marshal(cfg)
	self, err := os.Executable()
	if err != nil {
		return err
	}
	child := exec.Command(self)
	child.Env = append(os.Environ(), envWorker+"="+string(env))
	child.Stderr = os.Stderr
	stdin, err := child.StdinPipe()
	if err != nil {
		return err
	}
	stdout, err := child.StdoutPipe()
	if err != nil {
		return err
	}
	if err := child.Start(); err != nil {
		return err
	}
	defer child.Process.Kill()

	c := ts.GetDefaultClient()
	ctx := context.Background()
	cpu0, t0 := cpuTime(), time.Now()
	ids := make([]string, cfg.Waits)
	var wg sync.WaitGroup
	var failed atomic.Value
	next := atomic.Int64{}
	for range 16 { // starters
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := int(next.Add(1)) - 1; i < cfg.Waits; i = int(next.Add(1)) - 1 {
				ids[i] = fmt.Sprintf("job-%d", i)
				if _, err := temporal.Start[job, status](ctx, c, "Job", job{ids[i]}, time.Hour, client.StartWorkflowOptions{ID: ids[i], TaskQueue: cfg.Queue}); err != nil {
					failed.Store(err)
				}
			}
		}()
	}
	wg.Wait()
	if err, ok := failed.Load().(error); ok {
		return err
	}
	next.Store(0)
	for range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := int(next.Add(1)) - 1; i < cfg.Waits; i = int(next.Add(1)) - 1 {
				if _, err := temporal.Attach[status](ctx, c, ids[i], "").Get(ctx); err != nil {
					failed.Store(fmt.Errorf("%s: %w", ids[i], err))
				}
			}
		}()
	}
	wg.Wait()
	wall, cpu := time.Since(t0), cpuTime()-cpu0
	if err, ok := failed.Load().(error); ok {
		return err
	}
	stdin.Close() // the worker prints its figures and exits
	var ws workerStats
	if err := json.NewDecoder(stdout).Decode(&ws); err != nil {
		return fmt.Errorf("the worker's figures: %w", err)
	}
	child.Wait()

	events := 0
	for _, id := range ids { // after the CPU is measured
		d, err := c.DescribeWorkflowExecution(ctx, id, "")
		if err != nil {
			return err
		}
		events += int(d.GetWorkflowExecutionInfo().GetHistoryLength())
	}
	slices.Sort(ws.Intervals)
	q := func(f float64) float64 {
		return ws.Intervals[min(len(ws.Intervals)-1, int(f*float64(len(ws.Intervals))))].Seconds() / cfg.Delay.Seconds()
	}
	rate := fmt.Sprintf("%.0f", float64(ws.Polls)/ws.LastPoll.Sub(ws.FirstPoll).Seconds())
	if ws.SteadyFor > 0 {
		rate = fmt.Sprintf("%.0f", float64(ws.SteadyPolls)/ws.SteadyFor.Seconds()) // while all were open
	} else {
		rate += "*"
	}
	per := func(d time.Duration) string {
		return fmt.Sprintf("%.2f ms/poll", float64(d.Microseconds())/1000/float64(ws.Polls))
	}
	fmt.Printf("%-9s  %9d  %13.2f  %10s  %21s  %13s  %20s  %9v\n", cfg.Mode, ws.OpenAtOnce, float64(events)/float64(ws.Polls), rate,
		fmt.Sprintf("%.2f (%.2f)", q(0.5), q(0.99)), per(ws.CPU), per(cpu), wall.Round(time.Second))
	return nil
}

// runWorker is the worker process: it polls until its standard input
// closes, then prints its figures.
func runWorker(env string) {
	var cfg config
	if err := json.Unmarshal([]byte(env), &cfg); err != nil {
		fail(err)
	}
	var mu sync.Mutex
	times := make(map[string][]time.Time, cfg.Waits)
	var polls atomic.Int64
	op := func(ctx context.Context, in job) (status, error) {
		polls.Add(1)
		now := time.Now()
		mu.Lock()
		times[in.ID] = append(times[in.ID], now)
		n := len(times[in.ID])
		mu.Unlock()
		if n >= cfg.Polls {
			return status{in.ID, "done"}, nil
		}
		return status{in.ID, "running"}, nil
	}
	h := waiter.NewMemoryHistory()
	for i := range cfg.History { // past waits about as long as these
		done := time.Duration(cfg.Polls-1)*cfg.Delay + time.Duration(i%5)*cfg.Delay/5
		_ = h.Add(context.Background(), def.Name, "", waiter.Sample{Pending: done - cfg.Delay, Ready: done, End: "success"})
	}
	w, err := waiter.New(def, op, waiter.WithDelays(cfg.Delay, cfg.Delay), waiter.WithTelemetry(telemetry.Settings{Off: true}),
		waiter.WithHistory(h), waiter.WithLearnedSchedule())
	if err != nil {
		fail(err)
	}
	c, err := client.Dial(client.Options{HostPort: cfg.HostPort, Namespace: cfg.Namespace, Logger: quiet()})
	if err != nil {
		fail(err)
	}
	defer c.Close()
	wk := worker.New(c, cfg.Queue, worker.Options{
		MaxConcurrentActivityExecutionSize:     cfg.Waits + 100, // heartbeat mode: an activity per open wait
		MaxConcurrentWorkflowTaskExecutionSize: 1000,
		MaxConcurrentActivityTaskPollers:       8,
		MaxConcurrentWorkflowTaskPollers:       8,
	})
	if err := temporal.Register(wk, "Job", w, temporal.WithMode(cfg.Mode), temporal.WithHeartbeatTimeout(cfg.HeartbeatTimeout)); err != nil {
		fail(err)
	}
	cpu0 := cpuTime()
	if err := wk.Start(); err != nil {
		fail(err)
	}
	io.Copy(io.Discard, bufio.NewReader(os.Stdin))
	wk.Stop()
	s := workerStats{Polls: polls.Load(), CPU: cpuTime() - cpu0}
	type edge struct {
		at    time.Time
		delta int
	}
	var edges []edge
	for _, ts := range times {
		if len(ts) == 0 {
			continue
		}
		if s.FirstPoll.IsZero() || ts[0].Before(s.FirstPoll) {
			s.FirstPoll = ts[0]
		}
		if ts[len(ts)-1].After(s.LastPoll) {
			s.LastPoll = ts[len(ts)-1]
		}
		edges = append(edges, edge{ts[0], 1}, edge{ts[len(ts)-1], -1})
		if len(ts) > 1 {
			gaps := make([]time.Duration, len(ts)-1)
			for i := range gaps {
				gaps[i] = ts[i+1].Sub(ts[i])
			}
			slices.Sort(gaps)
			s.Intervals = append(s.Intervals, gaps[len(gaps)/2])
		}
	}
	var lastFirst, firstLast time.Time
	for _, ts := range times {
		if ts[0].After(lastFirst) {
			lastFirst = ts[0]
		}
		if firstLast.IsZero() || ts[len(ts)-1].Before(firstLast) {
			firstLast = ts[len(ts)-1]
		}
	}
	if firstLast.After(lastFirst) {
		s.SteadyFor = firstLast.Sub(lastFirst)
		for _, ts := range times {
			for _, t := range ts {
				if !t.Before(lastFirst) && !t.After(firstLast) {
					s.SteadyPolls++
				}
			}
		}
	}
	slices.SortFunc(edges, func(a, b edge) int {
		if c := a.at.Compare(b.at); c != 0 {
			return c
		}
		return b.delta - a.delta // open before close at one instant
	})
	open := 0
	for _, e := range edges {
		open += e.delta
		s.OpenAtOnce = max(s.OpenAtOnce, open)
	}
	if len(s.Intervals) == 0 {
		s.Intervals = []time.Duration{cfg.Delay}
	}
	json.NewEncoder(os.Stdout).Encode(s)
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func quiet() log.Logger {
	return log.NewStructuredLogger(slog.New(slog.NewTextHandler(io.Discard, nil)))
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "scale worker:", err)
	os.Exit(1)
}
