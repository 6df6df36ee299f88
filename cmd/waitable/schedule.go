package main

import (
	"context"
	"errors"
	"fmt"
	"html"
	"io"
	"math"
	"os"
	"slices"
	"strings"
	"time"
	"unicode"

	"github.com/spf13/cobra"
	flag "github.com/spf13/pflag"

	"github.com/waitable/waitable/classify"
	"github.com/waitable/waitable/internal/plural"
	"github.com/waitable/waitable/telemetry"
	"github.com/waitable/waitable/waiter"
)

type scheduleConfig struct {
	minDelay, maxDelay, maxWait, latency, reserve, hint time.Duration
	seeds                                               int
	maxPolls                                            int             // 0: no limit but the wait's
	readyAt                                             time.Duration   // when the resource becomes ready; 0: never
	stable                                              int             // success must hold this many polls in a row
	stableFor                                           time.Duration   // and over this long
	name                                                string          // the waiter's, from --model
	past                                                []waiter.Sample // --past: the waits before, for a learned schedule beside Smithy's
}

// stability says what a success must hold for, or "" when once is enough.
func (c scheduleConfig) stability() string {
	if c.stable <= 1 && c.stableFor <= 0 {
		return ""
	}
	s := "success must hold for " + plural.N(max(c.stable, 1), "poll") + " in a row"
	if c.stableFor > 0 {
		s += fmt.Sprintf(" over at least %v", c.stableFor)
	}
	return s + ": confirmations at the min delay"
}

// scheduleRow is one poll over every seed.
type scheduleRow struct {
	lo, mid, hi time.Duration
	runs        int
}

// scheduleCommand is waitable schedule: when a waiter's polls happen.
func (c *cli) scheduleCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "schedule [--model FILE [--waiter NAME]] [flags]",
		Short: "Show when a waiter's polls happen",
		Long: "When a waiter polls, over many jitter seeds, decided by the waiter's own core: until the deadline\n" +
			"(or --max-attempts), or, with --ready-at, until it sees the resource ready (and, with --stable,\n" +
			"confirms it). With --past, the schedule learnt from those waits beside it.",
	}
	fs := cmd.Flags()
	var sc scheduleConfig
	fs.DurationVar(&sc.minDelay, "min-delay", 2*time.Second, "the waiter's MinDelay")
	fs.DurationVar(&sc.maxDelay, "max-delay", 120*time.Second, "the waiter's MaxDelay")
	fs.DurationVar(&sc.maxWait, "max-wait", 5*time.Minute, "the caller's max wait")
	fs.DurationVar(&sc.latency, "latency", 100*time.Millisecond, "how long each call takes")
	sc.reserve = -1
	fs.Var(reserveFlag{&sc.reserve}, "reserve", "the final call's reserve, a `duration` (default: as the waiter does, the call latency, half as much again, and 20ms)")
	fs.DurationVar(&sc.hint, "hint", 0, "each pending answer's own hint of when to poll again (a 202's Retry-After): polls come no sooner")
	fs.IntVar(&sc.seeds, "seeds", 1000, "jitter seeds to simulate")
	fs.IntVar(&sc.maxPolls, "max-attempts", 0, "the most polls a wait makes (the waiter's WithMaxPolls); 0: no limit but the max wait")
	fs.DurationVar(&sc.readyAt, "ready-at", 0, "when the resource becomes ready: a poll that starts then or later succeeds; prints how long after it the waits see it")
	fs.IntVar(&sc.stable, "stable", 1, "with --ready-at: succeed only when success held this many polls in a row (as http's and exec's --stable)")
	fs.DurationVar(&sc.stableFor, "stable-for", 0, "with --ready-at: and over at least this long")
	model := fs.String("model", "", "take the delays and poll limit of a waiter in this file (a Smithy JSON AST model, botocore's waiters-2.json or a smithy.waiters#waitable trait's value); flags given override them")
	name := fs.String("waiter", "", "the waiter of --model (needed when the file has several)")
	svg := fs.String("svg", "", "also write the timeline as an SVG file")
	fs.Var(pastFlag{&sc.past}, "past", "the durations of past waits (9m30s,9m10s,...; LO..HI for one seen pending at LO and done by HI; @FILE to read them from a file): show the learned schedule (waitable http --learn) beside Smithy's")
	return c.leaf(cmd, func(_ context.Context, cmd *cobra.Command, args []string) (int, error) {
		return sc.run(cmd.Flags(), args, *model, *name, *svg, c.stdout)
	})
}

// run shows the schedule: fs holds the flags given, args what is left.
func (c scheduleConfig) run(fs *flag.FlagSet, args []string, model, name, svg string, stdout io.Writer) (int, error) {
	if len(args) > 0 {
		return exitUsage, usagef("unexpected arguments %q", args)
	}
	if c.maxWait <= 0 || c.seeds < 1 || c.latency < 0 || c.hint < 0 || c.maxPolls < 0 || c.readyAt < 0 || c.stable < 1 || c.stableFor < 0 {
		return exitUsage, usagef("--max-wait must be positive, --seeds and --stable at least 1, --latency, --hint, --max-attempts, --ready-at and --stable-for not negative")
	}
	if c.stability() != "" && c.readyAt == 0 {
		return exitUsage, usagef("--stable and --stable-for confirm a success: give --ready-at, when the resource becomes ready")
	}
	var from string
	if model != "" {
		set := map[string]bool{}
		fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
		defs, err := readWaiters(model)
		if err != nil {
			return exitUsage, usageError{err}
		}
		d, err := pickWaiter(defs, model, name, "--waiter")
		if err != nil {
			return exitUsage, usageError{err}
		}
		sched := d.Schedule()
		if !set["min-delay"] {
			c.minDelay = sched.MinDelay
		}
		if !set["max-delay"] {
			c.maxDelay = sched.MaxDelay
		}
		if !set["max-attempts"] {
			c.maxPolls = d.MaxPolls
		}
		from, c.name = fmt.Sprintf("waiter %s in %s: ", d.Name, model), d.Name
	} else if name != "" {
		return exitUsage, usagef("--waiter names a waiter of --model FILE: give the file")
	}
	smithy, err := simulateSchedule(c, false)
	if err != nil {
		return exitUsage, usageError{err}
	}
	sims := []simulation{smithy}
	if len(c.past) > 0 {
		learned, err := simulateSchedule(c, true)
		if err != nil {
			return exitUsage, usageError{err}
		}
		sims = append(sims, learned)
	}
	fmt.Fprintf(stdout, "%smin delay %v, max delay %v, max wait %v, call latency %v, %s\n", from, c.minDelay, c.maxDelay, c.maxWait, c.latency, plural.N(c.seeds, "seed"))
	if c.hint > 0 {
		fmt.Fprintf(stdout, "each pending answer says to poll again after %v: no poll comes sooner\n", c.hint)
	}
	if c.maxPolls > 0 {
		fmt.Fprintf(stdout, "at most %s a wait\n", plural.N(c.maxPolls, "poll"))
	}
	if st := c.stability(); st != "" {
		fmt.Fprintln(stdout, st)
	}
	for _, sim := range sims {
		if len(sims) > 1 {
			fmt.Fprintf(stdout, "\n%s:\n", sim.what)
		}
		fmt.Fprintf(stdout, "%5s  %10s  %10s  %10s  %s\n", "poll", "earliest", "median", "latest", "runs that make it")
		for i, r := range sim.rows {
			fmt.Fprintf(stdout, "%5d  %10v  %10v  %10v  %d (%s)\n", i+1, r.lo.Round(time.Millisecond), r.mid.Round(time.Millisecond), r.hi.Round(time.Millisecond), r.runs, share(r.runs, c.seeds))
		}
		fmt.Fprintf(stdout, "the last poll ends between %v and %v (deadline %v)\n", sim.lasts[0].Round(time.Millisecond), sim.lasts[len(sim.lasts)-1].Round(time.Millisecond), c.maxWait)
		if c.readyAt > 0 {
			fmt.Fprintf(stdout, "ready at %v: %s\n", c.readyAt, lagSummary(sim.lags, c.seeds, sim.polls))
		}
	}
	if svg != "" {
		if err := os.WriteFile(svg, []byte(scheduleSVG(c, sims)), 0o644); err != nil {
			return exitFailure, err
		}
		fmt.Fprintf(stdout, "wrote %s\n", svg)
	}
	return exitSuccess, nil
}

// share is n of total as a percentage, never rounded to 0% or 100% when
// it is neither.
func share(n, total int) string {
	p := 100 * float64(n) / float64(total)
	switch {
	case n > 0 && p < 0.1:
		return "<0.1%"
	case n > 0 && p < 1:
		return fmt.Sprintf("%.1f%%", p)
	case n < total && p > 99:
		return fmt.Sprintf("%.1f%%", min(p, 99.9))
	}
	return fmt.Sprintf("%.0f%%", p)
}

// lagSummary describes the detection lags (sorted) of the runs that saw
// the resource ready, out of seeds runs, and the polls they made (their
// mean).
func lagSummary(lags []time.Duration, seeds int, polls float64) string {
	if len(lags) == 0 {
		return fmt.Sprintf("no wait sees it (0 of %d runs)", seeds)
	}
	q := func(f float64) time.Duration {
		return lags[min(len(lags)-1, int(f*float64(len(lags))))].Round(time.Millisecond)
	}
	out := fmt.Sprintf("seen after p50 %v, p90 %v, p99 %v, at most %v (the time from ready to the end of the poll that ends the wait)", q(0.5), q(0.9), q(0.99), lags[len(lags)-1].Round(time.Millisecond))
	if missed := seeds - len(lags); missed > 0 {
		out += fmt.Sprintf("; %d of %d runs end before they see it", missed, seeds)
	}
	return out + fmt.Sprintf("; %.1f polls a wait", polls)
}

// simulation is what simulateSchedule finds of one schedule.
type simulation struct {
	what  string        // which schedule: Smithy's, or the one learnt from the past waits
	rows  []scheduleRow // each poll's start over the seeds
	lasts []time.Duration
	lags  []time.Duration // with readyAt: how long after it each run that saw it ready saw it, sorted
	polls float64         // the mean polls a wait makes
}

// staticHistory is a History of the waits --past gives.
type staticHistory []waiter.Sample

func (h staticHistory) Load(context.Context, string, string) ([]waiter.Sample, error) { return h, nil }
func (h staticHistory) Add(context.Context, string, string, waiter.Sample) error      { return nil }

// simulateSchedule returns, for each poll number, when it starts over the
// seeds, when the last poll of each seed ends (sorted), and, with
// readyAt, how long after it each run that sees the resource ready sees
// it (sorted): on the Smithy schedule, or, learned, on the schedule
// learnt from c.past.
func simulateSchedule(c scheduleConfig, learned bool) (simulation, error) {
	opts := []waiter.Option{waiter.WithDelays(c.minDelay, c.maxDelay), waiter.WithTelemetry(telemetry.Settings{Off: true}), waiter.WithMaxPolls(c.maxPolls)}
	if c.reserve >= 0 {
		opts = append(opts, waiter.WithFinalReserve(c.reserve))
	}
	if c.stability() != "" {
		opts = append(opts, waiter.WithStability(c.stable, c.stableFor))
	}
	sim := simulation{what: "the Smithy schedule"}
	if learned {
		opts = append(opts, waiter.WithLearnedSchedule(), waiter.WithHistory(staticHistory(c.past)))
	}
	never := func(struct{}, struct{}, error) (bool, error) { return false, nil }
	call := func(context.Context, struct{}) (struct{}, error) { return struct{}{}, nil }
	w, err := waiter.NewFunc("Schedule", call, never, opts...)
	if err != nil {
		return sim, err
	}
	var prior *waiter.Prior
	if learned {
		if prior = w.Learn(context.Background(), struct{}{}); prior.Chance == 0 {
			return sim, fmt.Errorf("--past: %s", prior.Note)
		}
		sim.what = fmt.Sprintf("the schedule learnt from %s (waitable http --learn)", plural.N(prior.Waits, "past wait"))
	}
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	retry := waiter.Judgment{Acceptor: -1, State: classify.Retry} // not there yet
	success := waiter.Judgment{Acceptor: 0, State: classify.Success}
	var runs [][]time.Duration
	for seed := range c.seeds {
		s, err := w.Begin(t0, c.maxWait, uint64(seed)+1)
		if err != nil {
			return sim, err
		}
		s.Prior = prior
		var starts []time.Duration
		for at := t0; ; at = s.Next {
			starts = append(starts, at.Sub(t0))
			judged := retry
			if c.readyAt > 0 && at.Sub(t0) >= c.readyAt {
				judged = success
			}
			judged.Hint, judged.Backoff = c.hint, c.hint
			p := waiter.Answer[struct{}]{Start: at, Latency: c.latency, Judgment: judged}
			a, err := w.Step(s, p, at.Add(c.latency))
			s = a.Checkpoint
			if a.Checkpoint.End != "" {
				if err == nil { // seen ready, and confirmed
					sim.lags = append(sim.lags, at.Sub(t0)+c.latency-c.readyAt)
				}
				break
			}
		}
		runs = append(runs, starts)
	}
	most, total := 0, 0
	for _, r := range runs {
		most = max(most, len(r))
		total += len(r)
		sim.lasts = append(sim.lasts, r[len(r)-1]+c.latency)
	}
	sim.polls = float64(total) / float64(len(runs))
	slices.Sort(sim.lasts)
	slices.Sort(sim.lags)
	sim.rows = make([]scheduleRow, most)
	for p := range sim.rows {
		var at []time.Duration
		for _, r := range runs {
			if p < len(r) {
				at = append(at, r[p])
			}
		}
		slices.Sort(at)
		sim.rows[p] = scheduleRow{at[0], at[len(at)/2], at[len(at)-1], len(at)}
	}
	return sim, nil
}

// pastFlag is --past: durations of past waits, each seen done by then
// (a second after it was seen pending), or LO..HI, or @FILE holding them.
type pastFlag struct{ s *[]waiter.Sample }

func (f pastFlag) String() string { return "" }
func (f pastFlag) Type() string   { return "durations" }

func (f pastFlag) Set(v string) error {
	if file, ok := strings.CutPrefix(v, "@"); ok {
		b, err := os.ReadFile(file)
		if err != nil {
			return err
		}
		v = string(b)
	}
	for _, d := range strings.FieldsFunc(v, func(r rune) bool { return r == ',' || unicode.IsSpace(r) }) {
		lo, hi, interval := strings.Cut(d, "..")
		if !interval {
			hi = lo
		}
		done, err := time.ParseDuration(hi)
		if err != nil {
			return err
		}
		pending := max(done-time.Second, 0)
		if interval {
			if pending, err = time.ParseDuration(lo); err != nil {
				return err
			}
		}
		if pending < 0 || done < pending {
			return fmt.Errorf("%s: want 0 <= LO <= HI", d)
		}
		*f.s = append(*f.s, waiter.Sample{Pending: pending, Ready: done, End: "success"})
	}
	return nil
}

// scheduleSVG draws the polls of each simulation on a time axis, one
// below the other: a bar from the earliest to the latest start over the
// seeds, a tick at the median, the deadline, a legend and a caption.
// Colours follow the page's light or dark scheme.
func scheduleSVG(c scheduleConfig, sims []simulation) string {
	const width, left, right, rowH = 860.0, 48.0, 24.0, 16.0
	rows, lasts := sims[0].rows, sims[0].lasts
	nRows := 0
	for _, sim := range sims {
		nRows += len(sim.rows)
	}
	if len(sims) > 1 {
		nRows += 2*len(sims) - 1 // a title above each, a space between
	}
	top := 56.0
	if c.readyAt > 0 && c.readyAt <= c.maxWait {
		top += 14 // room for the ready line's label under the legend
	}
	plotW := width - left - right
	x := func(d time.Duration) float64 { return left + plotW*d.Seconds()/c.maxWait.Seconds() }
	plotH := rowH * float64(nRows)
	axisY := top + plotH + 8
	var notes []string // what else decides the polls
	if c.hint > 0 {
		notes = append(notes, fmt.Sprintf("polls no sooner than the service's %v hint", c.hint))
	}
	if st := c.stability(); st != "" {
		notes = append(notes, st)
	}
	if c.maxPolls > 0 {
		notes = append(notes, fmt.Sprintf("at most %s a wait", plural.N(c.maxPolls, "poll")))
	}
	height := axisY + 70
	if len(notes) > 0 {
		height += 16
	}
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%.0f" height="%.0f" viewBox="0 0 %.0f %.0f" font-family="system-ui, sans-serif" font-size="12">`+"\n", width, height, width, height)
	b.WriteString(`<style>
  .bg { fill: #fff; } text { fill: #1a1a1a; } .axis { stroke: #555; } .grid { stroke: #ddd; }
  .range { fill: #7fb3e6; } .median { stroke: #0b3d91; } .learned { fill: #f0a35e; } .learned-median { stroke: #8a3b00; } .deadline { stroke: #c62828; } .deadline-label { fill: #c62828; }
  .ready { stroke: #2e7d32; } .ready-label { fill: #2e7d32; }
  @media (prefers-color-scheme: dark) {
    .bg { fill: #16181c; } text { fill: #e8e8e8; } .axis { stroke: #aaa; } .grid { stroke: #333; }
    .range { fill: #3d6fa3; } .median { stroke: #cfe3ff; } .learned { fill: #b5692a; } .learned-median { stroke: #ffe0c2; } .deadline { stroke: #ff6b6b; } .deadline-label { fill: #ff6b6b; }
    .ready { stroke: #66bb6a; } .ready-label { fill: #66bb6a; }
  }
</style>
<rect class="bg" width="100%" height="100%"/>
`)
	who := "a waiter"
	if c.name != "" {
		who = c.name
	}
	fmt.Fprintf(&b, `<text x="%.0f" y="20" font-size="14" font-weight="600">When %s polls: min delay %v, max delay %v, max wait %v</text>`+"\n", left, html.EscapeString(who), c.minDelay, c.maxDelay, c.maxWait)
	// Legend.
	lx := left
	fmt.Fprintf(&b, `<rect class="range" x="%.0f" y="30" width="24" height="10"/><text x="%.0f" y="39">earliest to latest start over %s</text>`+"\n", lx, lx+30, plural.N(c.seeds, "seed"))
	lx += 270
	fmt.Fprintf(&b, `<line class="median" x1="%.0f" y1="29" x2="%.0f" y2="41" stroke-width="2"/><text x="%.0f" y="39">median</text>`+"\n", lx+12, lx+12, lx+22)
	lx += 90
	fmt.Fprintf(&b, `<line class="deadline" x1="%.0f" y1="29" x2="%.0f" y2="41" stroke-width="2"/><text x="%.0f" y="39">deadline</text>`+"\n", lx+12, lx+12, lx+22)
	// Grid and axis.
	step := niceStep(c.maxWait)
	for t := time.Duration(0); t <= c.maxWait; t += step {
		fmt.Fprintf(&b, `<line class="grid" x1="%.1f" y1="%.0f" x2="%.1f" y2="%.0f"/>`, x(t), top-4, x(t), axisY)
		fmt.Fprintf(&b, `<line class="axis" x1="%.1f" y1="%.0f" x2="%.1f" y2="%.0f"/><text x="%.1f" y="%.0f" text-anchor="middle">%s</text>`+"\n", x(t), axisY, x(t), axisY+5, x(t), axisY+18, shortDuration(t))
	}
	fmt.Fprintf(&b, `<line class="axis" x1="%.0f" y1="%.0f" x2="%.0f" y2="%.0f"/>`+"\n", left, axisY, left+plotW, axisY)
	fmt.Fprintf(&b, `<text x="%.0f" y="%.0f" text-anchor="middle">time since the wait began</text>`+"\n", left+plotW/2, axisY+34)
	y := top
	for k, sim := range sims {
		bar, tick := "range", "median"
		if k > 0 {
			bar, tick = "learned", "learned-median"
			y += rowH
		}
		if len(sims) > 1 {
			fmt.Fprintf(&b, `<text x="%.0f" y="%.1f" font-weight="600">%s: %.1f polls a wait</text>`+"\n", left, y+11, html.EscapeString(sim.what), sim.polls)
			y += rowH
		}
		for i, r := range sim.rows {
			fmt.Fprintf(&b, `<text x="%.0f" y="%.1f" text-anchor="end">#%d</text><rect class="%s" x="%.1f" y="%.1f" width="%.1f" height="10"/><line class="%s" x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke-width="2"/>`+"\n",
				left-6, y+10, i+1, bar, x(r.lo), y+1, max(x(r.hi)-x(r.lo), 1.5), tick, x(r.mid), y, x(r.mid), y+12)
			if r.runs < c.seeds { // a poll not every run makes: how rare it is
				fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" font-size="10">%s of runs</text>`+"\n", min(x(r.hi)+6, width-right-60), y+10, share(r.runs, c.seeds))
			}
			y += rowH
		}
	}
	fmt.Fprintf(&b, `<line class="deadline" x1="%.1f" y1="%.0f" x2="%.1f" y2="%.0f" stroke-width="2"/><text class="deadline-label" x="%.1f" y="%.0f" text-anchor="end">deadline</text>`+"\n", x(c.maxWait), top-8, x(c.maxWait), axisY, x(c.maxWait)-4, top-10)
	if c.readyAt > 0 && c.readyAt <= c.maxWait {
		fmt.Fprintf(&b, `<line class="ready" x1="%.1f" y1="%.0f" x2="%.1f" y2="%.0f" stroke-width="2" stroke-dasharray="4 3"/><text class="ready-label" x="%.1f" y="%.0f">ready at %v</text>`+"\n", x(c.readyAt), top-8, x(c.readyAt), axisY, x(c.readyAt)+4, top-10, c.readyAt)
	}
	caption := fmt.Sprintf("%s at most; each call takes %v; the last poll ends between %v and %v. Drawn by waitable schedule from the waiter's own core.",
		plural.N(len(rows), "poll"), c.latency, lasts[0].Round(time.Millisecond), lasts[len(lasts)-1].Round(time.Millisecond))
	if len(sims) > 1 {
		caption = fmt.Sprintf("Each call takes %v. Drawn by waitable schedule from the waiter's own core.", c.latency)
	}
	if len(notes) > 0 {
		fmt.Fprintf(&b, `<text x="%.0f" y="%.0f" font-size="11">%s</text>`+"\n", left, height-24, html.EscapeString(strings.Join(notes, "; ")+"."))
	}
	fmt.Fprintf(&b, `<text x="%.0f" y="%.0f" font-size="11">%s</text>`+"\n", left, height-8, html.EscapeString(caption))
	b.WriteString("</svg>\n")
	return b.String()
}

// niceStep picks an axis step giving about 5 to 10 ticks.
func niceStep(total time.Duration) time.Duration {
	for _, s := range []time.Duration{time.Second, 2 * time.Second, 5 * time.Second, 10 * time.Second, 15 * time.Second, 30 * time.Second,
		time.Minute, 2 * time.Minute, 5 * time.Minute, 10 * time.Minute, 15 * time.Minute, 30 * time.Minute, time.Hour, 2 * time.Hour, 6 * time.Hour} {
		if total/s <= 10 {
			return s
		}
	}
	return time.Duration(math.Ceil(total.Hours()/10)) * time.Hour
}

func shortDuration(d time.Duration) string {
	h, m, sec := int(d.Hours()), int(d.Minutes())%60, int(d.Seconds())%60
	var b strings.Builder
	if h > 0 {
		fmt.Fprintf(&b, "%dh", h)
	}
	if m > 0 {
		fmt.Fprintf(&b, "%dm", m)
	}
	if sec > 0 || b.Len() == 0 {
		fmt.Fprintf(&b, "%ds", sec)
	}
	return b.String()
}

// reserveFlag is --reserve: unset (negative) means the waiter's own.
type reserveFlag struct{ d *time.Duration }

func (f reserveFlag) String() string {
	if f.d == nil || *f.d < 0 {
		return ""
	}
	return f.d.String()
}

func (f reserveFlag) Type() string { return "duration" }

func (f reserveFlag) Set(v string) error {
	d, err := time.ParseDuration(v)
	if err == nil && d < 0 {
		err = errors.New("negative")
	}
	if err != nil {
		return err
	}
	*f.d = d
	return nil
}
