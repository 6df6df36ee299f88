// Command schedule prints when a waiter polls: for a configuration (delays,
// wait time, call latency) it simulates the Smithy delay algorithm over
// many jitter seeds, with the waiter's own core, and shows, for each poll, its earliest, median and
// latest time, and when the last poll lands; with -svg it also draws the
// timeline.
//
//	go run ./examples/schedule -min 2s -max 120s -wait 5m
//	go run ./examples/schedule -min 15s -max 15s -wait 10m -svg schedule.svg
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/waitable/waitable/classify"
	"github.com/waitable/waitable/waiter"
)

type config struct {
	minDelay, maxDelay, maxWait, latency, reserve time.Duration
	seeds                                         int
}

func main() {
	var c config
	var svg string
	flag.DurationVar(&c.minDelay, "min", 2*time.Second, "the waiter's MinDelay")
	flag.DurationVar(&c.maxDelay, "max", 120*time.Second, "the waiter's MaxDelay")
	flag.DurationVar(&c.maxWait, "wait", 5*time.Minute, "the caller's max wait")
	flag.DurationVar(&c.latency, "latency", 100*time.Millisecond, "how long each call takes")
	flag.DurationVar(&c.reserve, "reserve", -1, "final-call reserve (default: the latency, as the waiter does)")
	flag.IntVar(&c.seeds, "seeds", 1000, "jitter seeds to simulate")
	flag.StringVar(&svg, "svg", "", "also write the timeline as an SVG file")
	flag.Parse()
	if err := run(c, os.Stdout, svg); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
}

// simulate returns the start time of every call of one wait, seeded:
// the waiter's own core (Begin, Step) decides each delay, as it does for
// a real wait, with no call made and no time spent.
func simulate(c config, w *waiter.Waiter[struct{}, struct{}], seed uint64) ([]time.Duration, error) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	s, err := w.Begin(t0, c.maxWait, seed)
	if err != nil {
		return nil, err
	}
	retry := waiter.Judgment{Acceptor: -1, State: classify.Retry} // the resource never gets there
	var starts []time.Duration
	at := t0
	for {
		starts = append(starts, at.Sub(t0))
		var d waiter.Decision
		s, d = w.Step(s, waiter.Poll{Start: at, Latency: c.latency, Judgment: retry}, at.Add(c.latency))
		if d.Done {
			return starts, nil
		}
		at = s.Next
	}
}

// newWaiter is a waiter of the configuration's delays that never succeeds.
func newWaiter(c config) (*waiter.Waiter[struct{}, struct{}], error) {
	opts := []waiter.Option{waiter.WithDelays(c.minDelay, c.maxDelay), waiter.WithoutTelemetry()}
	if c.reserve >= 0 {
		opts = append(opts, waiter.WithFinalReserve(c.reserve))
	}
	never := func(struct{}, struct{}, error) (bool, error) { return false, nil }
	call := func(context.Context, struct{}) (struct{}, error) { return struct{}{}, nil }
	return waiter.NewFunc("Schedule", call, never, opts...)
}

func run(c config, w io.Writer, svgPath string) error {
	if c.maxWait <= 0 || c.seeds < 1 {
		return fmt.Errorf("schedule: -wait must be positive and -seeds at least 1")
	}
	wt, err := newWaiter(c)
	if err != nil {
		return err
	}
	runs := make([][]time.Duration, c.seeds)
	for s := range runs {
		if runs[s], err = simulate(c, wt, uint64(s)+1); err != nil {
			return err
		}
	}
	most := 0
	for _, r := range runs {
		most = max(most, len(r))
	}
	fmt.Fprintf(w, "min %v, max %v, wait %v, call latency %v, %d seeds\n", c.minDelay, c.maxDelay, c.maxWait, c.latency, c.seeds)
	fmt.Fprintf(w, "%5s  %10s  %10s  %10s  %s\n", "poll", "earliest", "median", "latest", "runs")
	type row struct{ lo, mid, hi time.Duration }
	var rows []row
	for p := range most {
		var at []time.Duration
		for _, r := range runs {
			if p < len(r) {
				at = append(at, r[p])
			}
		}
		slices.Sort(at)
		rw := row{at[0], at[len(at)/2], at[len(at)-1]}
		rows = append(rows, rw)
		fmt.Fprintf(w, "%5d  %10v  %10v  %10v  %d\n", p+1, rw.lo.Round(time.Millisecond), rw.mid.Round(time.Millisecond), rw.hi.Round(time.Millisecond), len(at))
	}
	var lasts []time.Duration
	counts := map[int]int{}
	for _, r := range runs {
		lasts = append(lasts, r[len(r)-1]+c.latency)
		counts[len(r)]++
	}
	slices.Sort(lasts)
	fmt.Fprintf(w, "the last poll ends between %v and %v (deadline %v)\n", lasts[0].Round(time.Millisecond), lasts[len(lasts)-1].Round(time.Millisecond), c.maxWait)
	if svgPath == "" {
		return nil
	}
	var b strings.Builder
	const width, rowH = 800.0, 14.0
	x := func(d time.Duration) float64 { return 40 + (width-60)*d.Seconds()/c.maxWait.Seconds() }
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%.0f" height="%.0f" font-family="sans-serif" font-size="10">`+"\n", width, rowH*float64(len(rows)+3))
	fmt.Fprintf(&b, `<line x1="%.1f" y1="0" x2="%.1f" y2="%.0f" stroke="red"/><text x="%.1f" y="10" fill="red">deadline</text>`+"\n", x(c.maxWait), x(c.maxWait), rowH*float64(len(rows)+2), x(c.maxWait)-45)
	for i, r := range rows {
		y := rowH * (float64(i) + 1.5)
		fmt.Fprintf(&b, `<text x="2" y="%.1f">#%d</text><rect x="%.1f" y="%.1f" width="%.1f" height="8" fill="#9cf"/><line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#036" stroke-width="2"/>`+"\n",
			y+8, i+1, x(r.lo), y, max(x(r.hi)-x(r.lo), 1), x(r.mid), y, x(r.mid), y+8)
	}
	b.WriteString("</svg>\n")
	if err := os.WriteFile(svgPath, []byte(b.String()), 0o644); err != nil {
		return err
	}
	fmt.Fprintf(w, "wrote %s\n", svgPath)
	return nil
}
