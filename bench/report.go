package bench

import (
	"fmt"
	"io"
	"os"
	"runtime"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/waitable/waitable/internal/plural"
	"github.com/waitable/waitable/telemetry"
	"github.com/waitable/waitable/waiter"
)

// ReportOptions sets the sizes of a report.
type ReportOptions struct {
	Measure  Config // rounds and CPU time per measurement of the ratio rows
	IdleRuns []int  // runs sleeping at once, for the idle-memory row
	LongRuns []int  // runs at once, for the memory rows of long waits (after longPolls polls) and of ended runs
	FanoutN  int    // resources in the fan-out scenario
	OutageN  int    // waits per client in the outage scenario
	ScaleN   []int  // concurrent waits in the scaling row
	// LearnedN is the waits per distribution of the learned-schedule
	// tables, SpeedUpRuns the runs of its speed-up.
	LearnedN, SpeedUpRuns int
	// Rows, if not empty, are the ids of the ratio rows to measure ("3",
	// "3b"); the report then has the ratio table only, with those rows.
	Rows []string
}

// longPolls is how many times the runs of the long-wait memory row have
// polled: more than a Run keeps unread by default.
const longPolls = 20

// FullReport is what `go run ./cmd/report` measures; million adds the
// 1,000,000-wait sizes (about a minute more).
func FullReport(million bool) ReportOptions {
	o := ReportOptions{Measure: Config{Rounds: 7, Target: 40 * time.Millisecond},
		IdleRuns: []int{100_000}, LongRuns: []int{100_000}, FanoutN: 10_000, OutageN: 100, ScaleN: []int{1_000, 10_000, 100_000},
		LearnedN: 1000, SpeedUpRuns: 50}
	if million {
		o.IdleRuns = append(o.IdleRuns, 1_000_000)
		o.ScaleN = append(o.ScaleN, 1_000_000)
	}
	return o
}

// QuickReport runs every row at a small size, so that a plain go test
// checks that the report still works.
func QuickReport() ReportOptions {
	return ReportOptions{Measure: Config{Rounds: 2, Target: time.Millisecond},
		IdleRuns: []int{1000}, LongRuns: []int{1000}, FanoutN: 300, OutageN: 20, ScaleN: []int{100, 300},
		LearnedN: 50, SpeedUpRuns: 2}
}

// measuredOn is the report's first line: the machine and the rounds.
func measuredOn(goos, goarch string, cpus int, cpu, goVersion string, rounds int, target time.Duration) string {
	return fmt.Sprintf("Measured on %s/%s, %s (%s), %s; %s of about %v of CPU per side.",
		goos, goarch, plural.N(cpus, "CPU"), cpu, goVersion, plural.N(rounds, "interleaved round"), target)
}

// ratioRow is one row of the CPU table: a workload, its sides, and where
// the sides run.
type ratioRow struct {
	id, what string
	sides    []Side
	virtual  bool // in a synctest bubble: time is virtual
}

func ratioRows() []ratioRow {
	return []ratioRow{
		{"1", "waiter delay computation", delaySides(), false},
		{"2a", "retry loop, 10 failures then success, zero delay (per call)", retrySides(0), false},
		{"2b", "retry loop, 10 failures then success, 1ns delays, real time (per call)", retrySides(time.Nanosecond), false},
		{"2c", "retry loop, 10 failures then success, 1s delays, virtual time (per call)", retrySides(time.Second), true},
		{"3", "InstanceRunning acceptors on 1,000 typed instances, the last pending: every acceptor scans all (per evaluation)", matcherSides(fleetOutput(1000)), false},
		{"3b", "InstanceRunning acceptors on 1,000 typed instances, all running: the success acceptor matches after one scan (per evaluation)", matcherSides(runningFleet(1000)), false},
		{"4a", "waiter run of 11 polls, 1ns delays, real time (per run)", pollSides(time.Nanosecond, false), false},
		{"4b", "waiter run of 11 polls, 2s delays, virtual time (per run)", pollSides(2*time.Second, false), true},
		{"4c", "waiter run of 11 polls, 1ns delays, real time, under a cancellable caller's context (per run)", pollSides(time.Nanosecond, true), false},
		{"5a", "11 polls through the real aws-sdk-go-v2 DynamoDB client, canned HTTP, 1ns delays (per run)", sdkSides(time.Nanosecond), false},
		{"5b", "11 polls through the real aws-sdk-go-v2 DynamoDB client, canned HTTP, 1s delays, virtual time (per run)", sdkSides(time.Second), true},
	}
}

// bubbled runs each op of s in a synctest bubble, where time is virtual.
func bubbled(t *testing.T, s Side) Side {
	return Side{Name: s.Name, Op: func(n int) {
		synctest.Test(t, func(*testing.T) { s.Op(n) })
	}}
}

// Report measures every row and writes the report as Markdown tables. It
// reports each row's failures to t.
func Report(t *testing.T, o ReportOptions, w io.Writer) {
	fmt.Fprintf(w, "%s\n\n", measuredOn(runtime.GOOS, runtime.GOARCH, runtime.NumCPU(), cpuName(), runtime.Version(), o.Measure.Rounds, o.Measure.Target))

	fmt.Fprintln(w, "CPU is the process's user+system time (getrusage) per operation, median [min–max] over the rounds;")
	fmt.Fprintln(w, "the ratio is this side's CPU ÷ Waitable's, round by round (above 1: Waitable uses less).")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| # | what | implementation | CPU per op | wall per op (median) | allocs per op | CPU ÷ Waitable's |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|")
	for _, row := range ratioRows() {
		if len(o.Rows) > 0 && !slices.Contains(o.Rows, row.id) {
			continue
		}
		sides := row.sides
		if row.virtual {
			for i := range sides {
				sides[i] = bubbled(t, sides[i])
			}
		}
		samples := Measure(o.Measure, sides...)
		for i, s := range samples {
			ratio := "—"
			if i > 0 {
				ratio = RatioOf(samples[0], s).String()
			}
			fmt.Fprintf(w, "| %s | %s | %s | %s | %s | %.1f | %s |\n", row.id, row.what, s.Name, spread(s.CPU), nsFmt(median(s.Wall)), s.Allocs, ratio)
		}
	}
	if len(o.Rows) > 0 {
		return
	}

	fmt.Fprintln(w)
	fmt.Fprintln(w, "Memory of idle runs (each has polled once and sleeps an hour on its timer), heap and stacks after a GC:")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| runs | default telemetry | telemetry off |")
	fmt.Fprintln(w, "|---|---|---|")
	off := waiter.WithTelemetry(telemetry.Settings{Off: true})
	for _, n := range o.IdleRuns {
		fmt.Fprintf(w, "| %d | %.0f B/run | %.0f B/run |\n", n, IdleBytesPerRun(n, 1), IdleBytesPerRun(n, 1, off))
	}

	fmt.Fprintln(w)
	fmt.Fprintf(w, "Memory of long waits: runs that have polled %d times (1ms apart, telemetry off, nobody reading their events) and sleep an hour on their timers, heap and stacks after a GC:\n\n", longPolls)
	fmt.Fprintln(w, "| runs | default (a Run keeps up to 16 unread attempts) | WithEventBuffer(0) | ratio |")
	fmt.Fprintln(w, "|---|---|---|---|")
	for _, n := range o.LongRuns {
		kept, none := IdleBytesPerRun(n, longPolls, off), IdleBytesPerRun(n, longPolls, off, waiter.WithEventBuffer(0))
		fmt.Fprintf(w, "| %d | %.0f B/run | %.0f B/run | %.3g× |\n", n, kept, none, none/kept)
	}

	fmt.Fprintln(w)
	fmt.Fprintln(w, "Memory of ended runs: Start runs that ended at their first poll (telemetry off), which the caller still holds, heap and stacks after a GC:")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| runs | default (the Run keeps its unread attempt) | WithEventBuffer(0) |")
	fmt.Fprintln(w, "|---|---|---|")
	for _, n := range o.LongRuns {
		fmt.Fprintf(w, "| %d | %.0f B/run | %.0f B/run |\n", n, EndedBytesPerRun(n, off), EndedBytesPerRun(n, off, waiter.WithEventBuffer(0)))
	}

	fmt.Fprintln(w)
	writeFanout(w, o.FanoutN, fanoutRows(t, o.FanoutN))

	fmt.Fprintln(w)
	var outages []OutageStats
	for _, c := range OutageClients {
		outages = append(outages, RunOutage(t, c, o.OutageN, outageBudget, 1))
	}
	writeOutage(w, o.OutageN, outages)

	fmt.Fprintln(w)
	writeLastPoll(w, append(RunLastPoll(30*time.Second, 20), RunLastPoll(2*time.Minute, 20)...))

	fmt.Fprintln(w)
	if err := WriteLearned(w, o.LearnedN, o.SpeedUpRuns); err != nil {
		t.Error(err)
	}

	fmt.Fprintln(w)
	fmt.Fprintf(w, "Scaling: n concurrent waits in virtual time, each succeeding on its %dth poll, polls %v apart; b fits CPU ∝ n^b:\n\n", scalePolls, scaleDelay)
	fmt.Fprintln(w, "| implementation | n | CPU per poll | bytes per sleeping wait | GC share of CPU | longest GC pause |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|")
	exps := map[string]float64{}
	for _, side := range ScaleSides {
		var stats []ScaleStats
		for _, n := range o.ScaleN {
			st := RunScale(t, side, n)
			stats = append(stats, st)
			fmt.Fprintf(w, "| %s | %d | %s | %.0f | %.1f%% | %v |\n", side, n, nsFmt(st.CPUPerPoll), st.BytesPerWait, 100*st.GCShare, st.MaxPause.Round(10*time.Microsecond))
		}
		exps[side] = Exponent(stats)
	}
	fmt.Fprintln(w)
	var parts []string
	for _, side := range ScaleSides {
		parts = append(parts, fmt.Sprintf("%s %.2f", side, exps[side]))
	}
	fmt.Fprintf(w, "Fitted exponent b: %s.\n", strings.Join(parts, "; "))
}

// fanoutRows runs the fan-out table's rows on n resources (seed 7), in
// the table's order: each poller followed by its lower bound, and the
// poller told about events after the lower bound of polling one resource
// a call (which bounds polling alone, not events).
func fanoutRows(t *testing.T, n int) []ScenarioStats {
	return []ScenarioStats{
		RunScenario(t, "independent", n, 7), RunScenario(t, "waitable", n, 7), LowerBound(n, 1, 7),
		RunScenario(t, "waitable + events", n, 7),
		RunScenario(t, "waitable batch 10", n, 7), LowerBound(n, 10, 7),
		RunScenario(t, "waitable batch 100", n, 7), LowerBound(n, 100, 7),
	}
}

// writeFanout writes the fan-out table.
func writeFanout(w io.Writer, n int, stats []ScenarioStats) {
	fmt.Fprintf(w, "Fan-out: %d resources ready at random over %v, a service that throttles above %d requests/s; detection lag from ready to the first \"ready\" answer, over all resources (a resource never answered \"ready\" counts as never detected):\n\n", n, scenarioWindow, scenarioLimit)
	fmt.Fprintln(w, "| client | told about the limit | calls | resources asked about | throttled | never detected | p50 lag | p99 lag |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|---|")
	for _, st := range stats {
		fmt.Fprintf(w, "| %s | %s | %d | %d | %d | %d | %s | %s |\n", st.Client, st.Told, st.Calls, st.Polled, st.Throttled, st.Undetected, lagFmt(st.P50), lagFmt(st.P99))
	}
}

func cpuName() string {
	b, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return "unknown CPU"
	}
	for _, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(l, "model name") {
			if i := strings.Index(l, ":"); i >= 0 {
				return strings.TrimSpace(l[i+1:])
			}
		}
	}
	return "unknown CPU"
}
