package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/waitable/waitable/classify"
	"github.com/waitable/waitable/internal/plural"
	"github.com/waitable/waitable/waiter"
)

// progress prints a wait's attempts: a line each on standard error (one
// line rewritten in place on a terminal), or a JSON object each on
// standard output with --json.
type progress struct {
	w, out      io.Writer
	json, quiet bool
	live        bool
	first       time.Time
	n           int
	wroteLive   bool
	saidOverdue bool // a line said the wait is overdue
}

type attemptJSON struct {
	Attempt   int       `json:"attempt"`
	Start     time.Time `json:"start"`
	LatencyMS float64   `json:"latency_ms"`
	State     string    `json:"state"`
	Acceptor  int       `json:"acceptor"`
	Matcher   string    `json:"matcher,omitempty"`
	Message   string    `json:"message,omitempty"`
	Error     string    `json:"error,omitempty"`
	Transient bool      `json:"transient,omitempty"`
	NextMS    float64   `json:"next_delay_ms"`
	HintMS    float64   `json:"hint_ms,omitempty"`
	Streak    int       `json:"streak,omitempty"`
	// ETA is the time the wait has left, estimated from the waits before
	// it; NoETA says why there is none, Overdue that the wait has run
	// longer than 95% of them.
	ETA     *etaJSON        `json:"eta,omitempty"`
	NoETA   string          `json:"no_eta,omitempty"`
	Overdue bool            `json:"overdue,omitempty"`
	Output  json.RawMessage `json:"output,omitempty"`
	// OutputError says why output is null although there was output.
	OutputError string `json:"output_error,omitempty"`
}

// etaJSON is an estimate's percentiles, in milliseconds.
type etaJSON struct {
	P10 float64 `json:"p10_ms"`
	P50 float64 `json:"p50_ms"`
	P90 float64 `json:"p90_ms"`
}

type resultJSON struct {
	Result   string             `json:"result"`
	Attempts int                `json:"attempts"`
	Error    string             `json:"error,omitempty"`
	Seen     []waiter.SeenCount `json:"seen,omitempty"`
	Output   json.RawMessage    `json:"output"`
}

func (p *progress) attempt(a waiter.Attempt[*output]) {
	p.n = a.Checkpoint.Attempts
	if p.first.IsZero() {
		p.first = a.Start
	}
	out := a.Output
	var ce *callError
	if errors.As(a.Err, &ce) {
		out = ce.out
	}
	if p.json {
		j := attemptJSON{Attempt: a.Checkpoint.Attempts, Start: a.Start, LatencyMS: ms(a.Latency), State: a.Decision.String(), Acceptor: a.Acceptor,
			Matcher: a.Matcher, Message: a.Message, Transient: a.Transient, NextMS: ms(a.NextDelay), HintMS: ms(a.Hint), Streak: a.Checkpoint.Streak}
		if a.Err != nil {
			j.Error = a.Err.Error()
		}
		if out != nil {
			j.Output, j.OutputError = out.raw, out.problem
		}
		if e := a.Estimate(); a.Checkpoint.End == "" && e.None == "" {
			j.ETA = &etaJSON{ms(e.P10), ms(e.P50), ms(e.P90)}
		} else if a.Checkpoint.End == "" {
			j.NoETA = e.None
		}
		j.Overdue = a.Estimate().Overdue
		writeJSON(p.out, j)
		return
	}
	if p.quiet {
		return
	}
	what := "no condition held"
	switch {
	case a.Acceptor >= 0:
		// A --success condition reads as written.
		what = strings.TrimSuffix(strings.TrimPrefix(a.Matcher, "output: "), ` booleanEquals "true"`)
		if what == a.Matcher[min(len(a.Matcher), len("output: ")):] && strings.HasPrefix(a.Matcher, "output: ") {
			what = a.Matcher
		}
	case a.Transient:
		what = "transient error, retried: " + a.Err.Error()
	case a.Err != nil:
		what = "error: " + a.Err.Error()
	}
	if out != nil && out.problem != "" && a.Err == nil { // an error's body need not be JSON
		what = out.problem + "; " + what
	}
	if a.Checkpoint.Streak > 0 && a.Decision != classify.Success {
		what += fmt.Sprintf(", %d in a row", a.Checkpoint.Streak)
	}
	line := fmt.Sprintf("#%d  +%s  %s  (%s)", a.Checkpoint.Attempts, short(a.Start.Sub(p.first)), a.Decision, what)
	if a.NextDelay > 0 {
		line += fmt.Sprintf("; next poll in %s", short(a.NextDelay))
		if a.Hint > 0 {
			line += " (the service's hint)"
		}
	}
	line += p.eta(a)
	if p.live {
		fmt.Fprintf(p.w, "\r\033[K%s", line)
		p.wroteLive = true
	} else {
		fmt.Fprintln(p.w, line)
	}
}

// eta is what a progress line says of the time the wait has left: the
// estimate (ETA 3m10s (p90 4m20s)) while the wait goes on; on the first
// attempt, why there is none, unless no wait came before or --history is
// off; once, that the wait is overdue.
func (p *progress) eta(a waiter.Attempt[*output]) string {
	e := a.Estimate()
	var s string
	if a.Checkpoint.Attempts == 1 && e.None != "" && (e.Past > 0 || strings.HasPrefix(e.None, "the history")) {
		s = "; no ETA: " + e.None // too few waits yet, or a history that cannot be used
	}
	return s + etaText(e, a.Checkpoint.End != "", &p.saidOverdue)
}

// etaText says an estimate on a progress line: ETA 3m10s (p90 4m20s)
// while the wait goes on, and, the first time (*saidOverdue false), that
// it is overdue.
func etaText(e waiter.Estimate, ended bool, saidOverdue *bool) string {
	var s string
	if !ended && e.None == "" {
		s = fmt.Sprintf("; ETA %v (p90 %v)", e.P50.Round(time.Second), e.P90.Round(time.Second))
	}
	if e.Overdue && !*saidOverdue {
		*saidOverdue = true
		s += fmt.Sprintf("; overdue: slower than 95%% of the %s before it", plural.N(e.Past, "wait"))
	}
	return s
}

// result prints how the wait ended and the last output, and returns the
// exit status.
func (p *progress) result(err error, last *output, seen []waiter.SeenCount) (int, error) {
	code, word := exitSuccess, "success"
	switch {
	case err == nil:
	case errors.Is(err, context.Canceled):
		code, word = exitInterrupted, "interrupted"
	case errors.Is(err, waiter.ErrTimeout), errors.Is(err, waiter.ErrMaxPolls):
		code, word = exitTimeout, "timeout"
	default:
		code, word = exitFailure, "failure"
	}
	raw := json.RawMessage("null")
	if last != nil {
		raw = last.raw
	}
	if p.json {
		r := resultJSON{Result: word, Attempts: p.n, Seen: seen, Output: raw}
		if err != nil {
			r.Error = err.Error()
		}
		writeJSON(p.out, r)
		return code, nil
	}
	if p.wroteLive {
		fmt.Fprintln(p.w)
	}
	if last != nil {
		fmt.Fprintf(p.out, "%s\n", raw)
	}
	var we *waiter.Error
	switch {
	case errors.As(err, &we) && code == exitInterrupted:
		fmt.Fprintf(p.w, "waitable: interrupted: %v\n", err)
	case errors.As(err, &we):
		fmt.Fprintf(p.w, "waitable: %v\n", err) // it says how the wait ended, after how many polls
	case err != nil:
		fmt.Fprintf(p.w, "waitable: %s after %s: %v\n", word, plural.N(p.n, "poll"), err)
	case !p.quiet:
		fmt.Fprintf(p.w, "waitable: success after %s\n", plural.N(p.n, "poll"))
	}
	if len(seen) > 0 && (err != nil || !p.quiet) {
		kinds := make([]string, len(seen))
		for i, c := range seen {
			kinds[i] = c.String()
		}
		fmt.Fprintf(p.w, "waitable: seen %s\n", strings.Join(kinds, ", "))
	}
	return code, nil
}

func writeJSON(w io.Writer, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		b, _ = json.Marshal(map[string]string{"error": err.Error()})
	}
	fmt.Fprintf(w, "%s\n", b)
}

// short rounds d for a progress line: to the millisecond under a second,
// to a tenth of a second above.
func short(d time.Duration) time.Duration {
	if d < time.Second {
		return d.Round(time.Millisecond)
	}
	return d.Round(100 * time.Millisecond)
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
