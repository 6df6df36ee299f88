// Command report measures Waitable against its peers on this machine and
// prints the tables of bench/README.md. Run it from the bench folder:
//
//	go run ./cmd/report            # about two minutes on 2 cores
//	go run ./cmd/report -million   # adds the 1,000,000-wait sizes and the real-clock rows
//	go run ./cmd/report -realclock # only the real-clock rows (100,000 and 1,000,000 waits)
//	go run ./cmd/report -realclock -realclock.cancellable # the same, under a cancellable caller's context
//	go run ./cmd/report -rows 3,3b # only these rows of the CPU table
//
// Every side of a row runs in the same process, interleaved round by
// round, and is measured by the process's CPU time (getrusage), because
// wall time on a shared machine moves too much to compare. The rows are
// the bench package's TestReport at full size; their workloads are also
// go test benchmarks of that package, for benchstat.
//
// The real-clock rows run each side at each size in a process of its own
// (this command, started again), the sides interleaved round by round,
// and compare each with the hand-written goroutine loop of the same
// round.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/waitable/waitable/bench"
)

func main() {
	million := flag.Bool("million", false, "add the 1,000,000-wait sizes to the idle-memory and scaling rows, and the real-clock rows")
	rows := flag.String("rows", "", "measure only these rows of the CPU table, by id, comma-separated (3,3b), and leave out the other tables")
	realOnly := flag.Bool("realclock", false, "measure only the real-clock rows")
	sizes := flag.String("realclock.n", "100000,1000000", "the real-clock rows' sizes, comma-separated")
	rounds := flag.Int("realclock.rounds", 3, "rounds of the real-clock rows")
	child := flag.String("realclock.run", "", "run one real-clock side at one size, SIDE@N, and print its figures as JSON (what the real-clock rows start)")
	cancellable := flag.Bool("realclock.cancellable", false, "run the real-clock rows' waits under a cancellable caller's context (context.WithCancel), not context.Background")
	flag.Parse()
	if *child != "" {
		runChild(*child, *cancellable)
		return
	}
	if !*realOnly {
		testReport(*million, *rows)
	}
	if *realOnly || *million {
		var ns []int
		for _, s := range strings.Split(*sizes, ",") {
			n, err := strconv.Atoi(strings.TrimSpace(s))
			if err != nil {
				fail(fmt.Errorf("-realclock.n: %w", err))
			}
			ns = append(ns, n)
		}
		realClock(os.Stdout, ns, *rounds, *cancellable)
	}
}

// testReport runs the bench package's TestReport and prints its tables.
func testReport(million bool, rows string) {
	dir, err := os.MkdirTemp("", "waitable-report")
	if err != nil {
		fail(err)
	}
	defer os.RemoveAll(dir)
	out := filepath.Join(dir, "report.md")
	args := []string{"test", "-run", "^TestReport$", "-count", "1", "-timeout", "60m", ".", "-args", "-report", "-report.out", out}
	if million {
		args = append(args, "-report.million")
	}
	if rows != "" {
		args = append(args, "-report.rows", rows)
	}
	cmd := exec.Command("go", args...)
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		fail(err)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		fail(err)
	}
	os.Stdout.Write(b)
}

// runChild runs one side at one size and prints its RealStats as JSON.
func runChild(spec string, cancellable bool) {
	side, size, ok := strings.Cut(spec, "@")
	n, err := strconv.Atoi(size)
	if !ok || err != nil {
		fail(fmt.Errorf("-realclock.run %q: want SIDE@N", spec))
	}
	ctx := context.Background()
	if cancellable {
		c, cancel := context.WithCancel(ctx)
		defer cancel()
		ctx = c
	}
	st, err := bench.RunRealClock(ctx, side, n, bench.RealDelay)
	if err != nil {
		fail(err)
	}
	if err := json.NewEncoder(os.Stdout).Encode(st); err != nil {
		fail(err)
	}
}

// realClock measures the real-clock rows, each run in a process of its
// own, and writes their table.
func realClock(w io.Writer, ns []int, rounds int, cancellable bool) {
	self, err := os.Executable()
	if err != nil {
		fail(err)
	}
	runs := map[int][][]bench.RealStats{} // by n, by side, one per round
	for _, n := range ns {
		runs[n] = make([][]bench.RealStats, len(bench.RealSides))
	}
	for r := range rounds {
		for _, n := range ns {
			for k := range bench.RealSides {
				i := (k + r) % len(bench.RealSides)
				side := bench.RealSides[i]
				fmt.Fprintf(os.Stderr, "real clock: round %d of %d, %s, n=%d\n", r+1, rounds, side, n)
				var out bytes.Buffer
				cmd := exec.Command(self, "-realclock.run", fmt.Sprintf("%s@%d", side, n),
					fmt.Sprintf("-realclock.cancellable=%t", cancellable))
				cmd.Stdout, cmd.Stderr = &out, os.Stderr
				if err := cmd.Run(); err != nil {
					fail(fmt.Errorf("%s at %d: %w", side, n, err))
				}
				var st bench.RealStats
				if err := json.Unmarshal(out.Bytes(), &st); err != nil {
					fail(fmt.Errorf("%s at %d: %w", side, n, err))
				}
				runs[n][i] = append(runs[n][i], st)
			}
		}
	}
	bench.WriteRealClock(w, ns, runs, rounds, cancellable)
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "report:", err)
	os.Exit(1)
}
