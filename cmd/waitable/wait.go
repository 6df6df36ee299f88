package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	flag "github.com/spf13/pflag"

	"github.com/waitable/waitable/classify"
	"github.com/waitable/waitable/telemetry"
	"github.com/waitable/waitable/waiter"
)

// output is one call's JSON output. The engine reads it as the JSON it
// holds (it is a Smithy document), and status matchers read its HTTP
// status.
type output struct {
	raw     json.RawMessage
	status  int
	after   time.Duration // the response's Retry-After, 0 if none
	problem string        // why raw is null although there was output ("output is not JSON: …")
}

// RetryAfter is a pending response's Retry-After (an HTTP 202 that says
// when to look again): the next poll comes no sooner.
func (o *output) RetryAfter() time.Duration { return o.after }

// MarshalSmithyDocument returns the JSON output.
func (o *output) MarshalSmithyDocument() ([]byte, error) { return o.raw, nil }

// HTTPStatusCode returns the response's status (200 for a command).
func (o *output) HTTPStatusCode() int { return o.status }

// callError is a call that failed: an HTTP status that is not 2xx, or a
// command that exited non-zero; what it printed, and its output. Its facts
// are on the *classify.CallError that wraps it (see callFailed).
type callError struct {
	msg string // "HTTP 503: " and the start of the body, "exit 3: " and of standard error
	out *output
}

func (e *callError) Error() string { return e.msg }

// callFailed returns the error of a call that failed with code (what an
// error=CODE condition matches: "HTTP 503", "exit 3", a service's code),
// the HTTP status (for status=N conditions and the retry rules: 5xx and
// 429 are retried as transient; 0 for none), what it printed (detail),
// the response's Retry-After (or x-amz-retry-after: the next poll comes
// no sooner) and its output.
func callFailed(code string, status int, detail string, after time.Duration, out *output) error {
	msg := code
	if detail != "" {
		msg += ": " + detail
	}
	return &classify.CallError{Err: &callError{msg: msg, out: out}, Code: code, StatusCode: status, RetryAfter: after}
}

// conditions is the ordered list of --success, --failure and --retry.
type conditions struct{ acceptors []classify.Acceptor }

type condFlag struct {
	c     *conditions
	state classify.State
}

func (f condFlag) String() string { return "" }
func (f condFlag) Type() string   { return "condition" }

func (f condFlag) Set(s string) error {
	m, err := parseCondition(s)
	if err != nil {
		return err
	}
	f.c.acceptors = append(f.c.acceptors, classify.Acceptor{State: f.state, Matcher: m})
	return nil
}

// parseCondition reads one COND of the usage.
func parseCondition(s string) (classify.Matcher, error) {
	switch {
	case s == "ok":
		return classify.OnSuccess(true), nil
	case s == "error":
		return classify.OnSuccess(false), nil
	case strings.HasPrefix(s, "error="):
		return classify.OnErrorType(strings.TrimPrefix(s, "error=")), nil
	case strings.HasPrefix(s, "status="):
		n, err := strconv.Atoi(strings.TrimPrefix(s, "status="))
		if err != nil || n < 100 || n > 599 {
			return classify.Matcher{}, fmt.Errorf("status=%s: not an HTTP status", strings.TrimPrefix(s, "status="))
		}
		return classify.OnHTTPStatus(n), nil
	case strings.TrimSpace(s) == "":
		return classify.Matcher{}, errors.New("empty condition")
	}
	e, err := classify.CompileExpr(s)
	if err != nil {
		return classify.Matcher{}, err
	}
	return classify.OnOutput(e.String(), classify.BooleanEquals, "true"), nil
}

// waitFlags are the flags of every wait: http's, exec's and aws's.
type waitFlags struct {
	maxWait, minDelay, maxDelay, attemptTimeout, stableFor time.Duration
	stable, notFoundLimit                                  int
	identity                                               string
	json, quiet                                            bool
	history                                                string // --history: a file, "off", or "" for the default
	learn                                                  bool
}

// register defines the flags on fs; maxWait is --max-wait's default and
// budget its help.
func (f *waitFlags) register(fs *flag.FlagSet, maxWait time.Duration, budget string) {
	fs.DurationVar(&f.maxWait, "max-wait", maxWait, budget)
	fs.DurationVar(&f.minDelay, "min-delay", 0, "the shortest delay between polls (default: the waiter's, or 2s)")
	fs.DurationVar(&f.maxDelay, "max-delay", 0, "the longest delay between polls (default: the waiter's, or 120s)")
	fs.DurationVar(&f.attemptTimeout, "attempt-timeout", 0, "a limit on each call (default: none but the wait's)")
	fs.IntVar(&f.stable, "stable", 1, "succeed only when the success condition held this many polls in a row (for eventually consistent APIs)")
	fs.DurationVar(&f.stableFor, "stable-for", 0, "and over at least this long")
	fs.IntVar(&f.notFoundLimit, "not-found-limit", 0, "fail after this many not-found answers in a row (HTTP 404, a NotFound error code); 0: no limit")
	fs.StringVar(&f.identity, "identity", "", "a JMESPath expression that identifies the resource (an ARN, a UID): fail if it changes (deleted and recreated)")
	fs.StringVar(&f.history, "history", "", "the `FILE` that keeps the durations of past waits, from which each wait says how long it has left, or off (default: $WAITABLE_HISTORY, else $XDG_STATE_HOME/waitable/history.db)")
	fs.BoolVar(&f.learn, "learn", false, "poll where the history says the end is likely (each poll the same chance of seeing it, within --min-delay and --max-delay), not on the Smithy schedule")
	fs.BoolVar(&f.json, "json", false, "print one JSON object per attempt on standard output, then the result")
	fs.BoolVar(&f.quiet, "quiet", false, "print no progress")
}

// options returns the waiter options the flags ask for.
func (f *waitFlags) options() ([]waiter.Option, error) {
	opts := []waiter.Option{waiter.WithTelemetry(telemetry.Settings{Off: true})}
	if f.minDelay > 0 || f.maxDelay > 0 {
		lo, hi := f.minDelay, f.maxDelay
		if lo == 0 {
			lo = min(2*time.Second, hi)
		}
		if hi == 0 {
			hi = max(120*time.Second, lo)
		}
		opts = append(opts, waiter.WithDelays(lo, hi))
	}
	if f.attemptTimeout > 0 {
		opts = append(opts, waiter.WithAttemptTimeout(f.attemptTimeout))
	}
	switch {
	case f.stable < 1:
		return nil, usagef("--stable %d: at least 1", f.stable)
	case f.stableFor < 0:
		return nil, usagef("--stable-for %v: negative", f.stableFor)
	case f.notFoundLimit < 0:
		return nil, usagef("--not-found-limit %d: negative", f.notFoundLimit)
	case f.stable != 1 || f.stableFor != 0:
		opts = append(opts, waiter.WithStability(f.stable, f.stableFor))
	}
	if f.notFoundLimit > 0 {
		opts = append(opts, waiter.WithNotFoundLimit(f.notFoundLimit))
	}
	if f.identity != "" {
		opts = append(opts, waiter.WithIdentity(f.identity))
	}
	return opts, nil
}

// historyFile returns the history --history names (else
// $WAITABLE_HISTORY, else the default), nil for off or when the user has
// no state directory.
func (f *waitFlags) historyFile() *fileHistory { return historyFileFor(f.history) }

// historyFileFor returns the history a --history flag names (path, else
// $WAITABLE_HISTORY, else the default), nil for off or when the user has
// no state directory.
func historyFileFor(path string) *fileHistory {
	if path == "" {
		path = os.Getenv("WAITABLE_HISTORY")
	}
	switch path {
	case "off":
		return nil
	case "":
		if path = defaultHistoryPath(); path == "" {
			return nil
		}
	}
	return &fileHistory{path: path}
}

// call is one poll of a wait: an HTTP request, a command, the AWS CLI.
type call = func(context.Context, struct{}) (*output, error)

// wait waits with def on call for maxWait, printing each attempt, then
// the result, and returns the exit status; target names what is polled
// in the summary (the URL, the command line). A call that finds the
// command's usage bad cancels ctx with a usageError as its cause: the
// wait then ends at once, with that error and no attempt printed for it.
func (f *waitFlags) wait(ctx context.Context, def waiter.Definition, poll call, maxWait time.Duration, target string, stdout, stderr io.Writer) (int, error) {
	opts, err := f.options()
	if err != nil {
		return exitUsage, err
	}
	store := f.historyFile()
	if store != nil {
		opts = append(opts, waiter.WithHistory(store), waiter.WithHistoryKey(func(struct{}) string { return target }))
	} else {
		opts = append(opts, waiter.WithHistory(nil))
	}
	if f.learn {
		opts = append(opts, waiter.WithLearnedSchedule())
	}
	w, err := waiter.New(def, poll, opts...)
	if err != nil {
		return exitUsage, usageError{err}
	}
	p := progress{w: stderr, json: f.json, out: stdout, quiet: f.quiet, live: isTerminal(stderr)}
	if store != nil {
		defer func() {
			if err := store.save(); err != nil {
				fmt.Fprintf(stderr, "waitable: the wait's duration was not saved in the history: %v\n", err)
			}
		}()
	}
	r := w.Start(ctx, struct{}{}, maxWait)
	var last *output
	for a := range r.Events() {
		if badUsage(ctx) != nil {
			continue // not a poll: the call was refused before it was made
		}
		if a.Output != nil {
			last = a.Output
		}
		var ce *callError
		if errors.As(a.Err, &ce) && ce.out != nil {
			last = ce.out
		}
		p.attempt(a)
	}
	_, err = r.Result()
	if ue := badUsage(ctx); ue != nil {
		return exitUsage, ue
	}
	if we := (*waiter.Error)(nil); errors.As(err, &we) && we.Input == "" {
		we.Input = target // name what was polled: the URL, the command line
	}
	return p.result(err, last, r.Checkpoint().Seen)
}

// badUsage returns the usageError that ctx was cancelled with, if any.
func badUsage(ctx context.Context) error {
	var ue usageError
	if errors.As(context.Cause(ctx), &ue) {
		return ue
	}
	return nil
}

// pollFlags are the flags http and exec share: the conditions (or a
// waiter file), the waiter's schedule and --text.
type pollFlags struct {
	conds            conditions
	waiterFile, name string
	wf               waitFlags
	text             bool
}

// register adds the flags to fs.
func (p *pollFlags) register(fs *flag.FlagSet) {
	fs.Var(condFlag{&p.conds, classify.Success}, "success", "a condition that ends the wait with success (repeatable)")
	fs.Var(condFlag{&p.conds, classify.Failure}, "failure", "a condition that ends the wait with failure (repeatable)")
	fs.Var(condFlag{&p.conds, classify.Retry}, "retry", "a condition that means poll again (repeatable)")
	fs.StringVar(&p.waiterFile, "waiter", "", "a file of waiters instead of conditions: the JSON value of a smithy.waiters#waitable trait, a Smithy JSON AST model or botocore's waiters-2.json")
	fs.StringVar(&p.name, "name", "", "the waiter of --waiter to use (needed when the file has several)")
	p.wf.register(fs, 5*time.Minute, "how long to wait in all")
	fs.BoolVar(&p.text, "text", false, "read the output as text, not JSON: @ is the output as a string, whitespace trimmed (contains(@, 'ready'))")
}

// conditionsHelp ends the help of http and exec: what a condition is.
const conditionsHelp = `

Conditions (--success, --failure, --retry), tried in the order given; the first that holds
decides: a JMESPath expression on the JSON output that must be true (status == 'ready'), or
ok (the call succeeded), error (it failed), error=CODE (it failed with CODE: HTTP 404, exit 3),
status=N (the HTTP status was N, http only). Or --waiter FILE [--name NAME] instead.`

// run waits on poll, which polls target, under the waiter that the
// conditions or --waiter define (waiterName names a waiter of
// conditions).
func (p *pollFlags) run(ctx context.Context, waiterName string, poll call, target string, stdout, stderr io.Writer) (int, error) {
	def, err := definition(&p.conds, p.waiterFile, p.name, waiterName)
	if err != nil {
		return exitUsage, usageError{err}
	}
	return p.wf.wait(ctx, def, poll, p.wf.maxWait, target, stdout, stderr)
}

// definition builds the waiter's definition from the conditions (a
// waiter named waiterName) or the waiter file.
func definition(c *conditions, file, name, waiterName string) (waiter.Definition, error) {
	if file == "" {
		if len(c.acceptors) == 0 {
			return waiter.Definition{}, errors.New("give at least one --success condition (or --waiter FILE)")
		}
		// Messages add what was polled.
		return waiter.Definition{Name: waiterName, Acceptors: c.acceptors}, nil
	}
	if len(c.acceptors) > 0 {
		return waiter.Definition{}, errors.New("give conditions or --waiter, not both")
	}
	defs, err := readWaiters(file)
	if err != nil {
		return waiter.Definition{}, err
	}
	return pickWaiter(defs, file, name, "--name")
}

// decode returns what conditions read of output data: with --text, the
// text as a JSON string (whitespace trimmed at both ends); else data if it
// is one JSON value, and null, with the reason, if it is not (null without
// one for no output).
func decode(data []byte, text bool) (json.RawMessage, string) {
	data = bytes.TrimSpace(data)
	if text {
		s, _ := json.Marshal(string(data)) // invalid UTF-8 becomes U+FFFD
		return s, ""
	}
	if len(data) == 0 {
		return json.RawMessage("null"), ""
	}
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		off := int64(len(data))
		var se *json.SyntaxError
		if errors.As(err, &se) && se.Offset > 0 && err.Error() != "unexpected end of JSON input" {
			off = se.Offset - 1 // the offending byte: Offset counts it as read
		}
		return json.RawMessage("null"), fmt.Sprintf("output is not JSON: %v at offset %d", err, off)
	}
	return data, ""
}

func snippet(b []byte) string {
	s := strings.Join(strings.Fields(string(b)), " ")
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return s
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
