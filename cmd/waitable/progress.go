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
}

type attemptJSON struct {
	Attempt   int             `json:"attempt"`
	Start     time.Time       `json:"start"`
	LatencyMS float64         `json:"latency_ms"`
	State     string          `json:"state"`
	Acceptor  int             `json:"acceptor"`
	Matcher   string          `json:"matcher,omitempty"`
	Message   string          `json:"message,omitempty"`
	Error     string          `json:"error,omitempty"`
	Transient bool            `json:"transient,omitempty"`
	NextMS    float64         `json:"next_delay_ms"`
	HintMS    float64         `json:"hint_ms,omitempty"`
	Streak    int             `json:"streak,omitempty"`
	Output    json.RawMessage `json:"output,omitempty"`
	// OutputError says why output is null although there was output.
	OutputError string `json:"output_error,omitempty"`
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
	if p.live {
		fmt.Fprintf(p.w, "\r\033[K%s", line)
		p.wroteLive = true
	} else {
		fmt.Fprintln(p.w, line)
	}
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
