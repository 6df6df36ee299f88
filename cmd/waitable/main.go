// Command waitable waits on anything from a shell, the way a Smithy waiter
// does: it polls an HTTP endpoint or a command whose output is JSON until a
// success condition holds, stops early when a failure condition holds, and
// reports the last state it saw when time runs out. waitable aws runs one
// of AWS's waiters by the AWS CLI's names, each poll one run of the CLI
// with its own retries off. waitable kube waits for Kubernetes objects as
// kubectl wait does (kubectl's arguments and --for rules, a kubeconfig read
// as kubectl reads it), watching every object at once. It also shows when a
// waiter's polls happen (schedule) and checks waiter models (lint, list);
// waitable version (or --version) says which build it is.
//
//	waitable http https://api.example.com/jobs/42 --success "status == 'done'" --failure "status == 'failed'"
//	waitable exec --success "Table.TableStatus == 'ACTIVE'" -- aws dynamodb describe-table --table-name t
//	waitable aws dynamodb table-exists --max-wait 10m -- --table-name t
//	waitable kube --for condition=Complete --fail-on condition=Failed --timeout 10m job/migrate
//	waitable schedule --min-delay 2s --max-delay 120s --max-wait 10m --svg schedule.svg
//	waitable schedule --model waiters-2.json --waiter TableExists --ready-at 90s
//	waitable lint model.json waiters-2.json
//
// Install it with (Go 1.26.2 or later: the command is a module of its own,
// github.com/waitable/waitable/cmd/waitable, at the Go version client-go
// needs; the library's module stays at Go 1.25)
//
//	go install github.com/waitable/waitable/cmd/waitable@latest
//
// A call that fails for a transient reason no condition names (a refused
// connection, a timeout, HTTP 429 or 5xx) is polled again until --max-wait
// runs out, never sooner than the response's Retry-After.
//
// Each wait of http, exec, aws and kube keeps its duration in a history
// ($XDG_STATE_HOME/waitable/history.db; --history FILE or off,
// $WAITABLE_HISTORY): from the fifth wait of the same target on, its
// progress lines say how long it has left (ETA 3m10s (p90 4m20s)), and one
// says when it is slower than 95% of those before; --learn polls where
// the history says the end is likely.
//
// Exit statuses: 0 the success condition held; 1 a failure condition held
// (or a call failed in a way that is not transient); 2 the wait timed out; 3 lint found problems;
// 64 bad usage or input; 126 exec's command is not executable, 127 it
// does not exist (as a shell's statuses); 128+n stopped by signal n
// (SIGINT 130, SIGTERM 143, SIGHUP 129: the call in flight is cancelled
// and the summary printed). An exec'd command runs in a process group of
// its own, which a cancelled call ends whole, as timeout(1) does.
//
// waitable kube is built as kubectl is, on k8s.io/cli-runtime: kubectl's
// global flags, object names, manifests and printers. Its statuses
// differ from kubectl wait's, which exits 1 for any error: bad usage or
// input (a type the server does not have, a kubeconfig or a manifest
// that cannot be read) is 64; an object that failed, and -l or --all
// matching no object, 1; a timeout 2; an API server that cannot be
// reached, or answers 5xx to the end, 69 (EX_UNAVAILABLE); one that
// refuses our credentials or the resource (401, 403) 77 (EX_NOPERM).
// Its --timeout (default 30s) is kubectl's: 0 checks once, a negative
// one waits a week.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"syscall"
)

// Exit statuses.
const (
	exitSuccess = 0
	exitFailure = 1
	exitTimeout = 2
	exitLint    = 3
	exitUsage   = 64
	// A command for exec that cannot run, as a shell says: 126 not
	// executable, 127 not found.
	exitNotExecutable = 126
	exitNotFound      = 127
	exitInterrupted   = 130
)

const usage = `waitable: wait on anything from a shell, the way a Smithy waiter does.

Usage:
  waitable http URL [flags]          poll an HTTP endpoint whose body is JSON
  waitable exec [flags] -- CMD ARGS  poll a command whose standard output is JSON
  waitable aws SERVICE WAITER [flags] -- [aws CLI arguments]
                                     run one of AWS's waiters, by the AWS CLI's names
                                     (aws SERVICE wait WAITER), each poll one run of the CLI
  waitable aws list [SERVICE]        list AWS's waiters
  waitable kube [flags] TYPE/NAME... | TYPE NAME... | -f FILE... | TYPE (-l SELECTOR | --all)
                                     wait for Kubernetes objects as kubectl wait does
                                     (--for condition=Ready, jsonpath=..., create, delete;
                                     several --for one after another; kubectl's flags)
  waitable schedule [flags]          show when a waiter's polls happen
  waitable lint MODEL...             check every waiter in Smithy JSON AST or botocore files,
                                     its paths against the model's shapes
  waitable list MODEL...             list the waiters in model files
  waitable version                   print the version (also --version)
  waitable completion bash|zsh|fish  print the shell's completion script (source <(waitable completion bash))

Conditions (http and exec), tried in the order given; the first that holds
decides:
  --success COND   the wait succeeds       --failure COND   the wait fails now
  --retry COND     poll again
where COND is a JMESPath expression on the JSON output that must be true
(status == 'ready', length(items[?phase != 'Running']) == ` + "`0`" + `), or
  ok               the call succeeded      error            the call failed
  error=CODE       the call failed with CODE (HTTP 404, exit 3)
  status=N         the HTTP status was N (http only)
Or --waiter FILE [--name NAME] instead of conditions: a waiter from the
JSON value of a smithy.waiters#waitable trait, a Smithy JSON AST model or
botocore's waiters-2.json.

A call that fails for a transient reason no condition names (a refused
connection, a timeout, HTTP 429 or 5xx) is polled again until --max-wait
runs out, never sooner than the response's Retry-After; other failures (a
4xx, a command that exits non-zero) end the wait with status 1. A pending
answer's Retry-After (an HTTP 202 that says when to look again) is
honoured too.

Run 'waitable COMMAND --help' for a command's flags.

Exit statuses: 0 success; 1 failure; 2 timeout; 3 lint found problems;
64 bad usage or input (for kube, a type the server does not have, a
kubeconfig it cannot read); 69 (kube) the API server could not be
reached or answered 5xx to the end, 77 it refused access; 126 exec's command is not executable, 127 it
does not exist; 128+n stopped by signal n (Ctrl-C 130, SIGTERM 143,
SIGHUP 129).
exec runs the command in a process group of its own: a cancelled call (its
deadline, the wait's, a signal) ends the whole group, as timeout(1) does.

Examples:
  waitable http http://localhost:8080/health --success ok --max-wait 30s
  waitable http https://api.example.com/jobs/42 -H 'Authorization: Bearer '"$TOKEN" \
      --success "state == 'done'" --failure "state == 'failed'" --json | jq .
  waitable exec --success "Table.TableStatus == 'ACTIVE'" -- \
      aws dynamodb describe-table --table-name orders
  waitable aws dynamodb table-exists --max-wait 10m -- --table-name orders --region eu-west-1
  waitable kube --for condition=Available --timeout 5m -n prod deployment/web
  waitable kube --for condition=Ready -l app=web --count 3 pods
  waitable schedule --min-delay 15s --max-delay 15s --max-wait 10m
  waitable schedule --model waiters-2.json --waiter TableExists --ready-at 90s --svg s.svg
  waitable lint testdata/aws/models/*.json
`

func main() {
	// SIGINT, SIGTERM and SIGHUP cancel the call in flight; the summary is
	// printed and the exit status is 128+n. A second signal ends the
	// process at once.
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	go func() {
		if s, ok := <-sigs; ok {
			signal.Stop(sigs)
			cancel(signalled{s})
		}
	}()
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	var s signalled
	if code == exitInterrupted && errors.As(context.Cause(ctx), &s) {
		code = s.status()
	}
	os.Exit(code)
}

// signalled is the cause of a wait that a signal cancelled.
type signalled struct{ sig os.Signal }

func (s signalled) Error() string { return "interrupted by " + s.sig.String() }

// status is a shell's exit status for the signal: 128+n.
func (s signalled) status() int {
	if n, ok := s.sig.(syscall.Signal); ok {
		return 128 + int(n)
	}
	return exitInterrupted
}

// usageError is bad usage or input: exit status 64.
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

func usagef(format string, args ...any) error { return usageError{fmt.Errorf(format, args...)} }

// run runs the command with args and returns its exit status.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return exitUsage
	}
	args = slices.Clone(args)
	switch args[0] { // Go's single-dash spellings, which pflag reads as shorthands
	case "-version", "--version":
		args[0] = "version"
	case "-help":
		args[0] = "--help"
	}
	c := &cli{stdin: os.Stdin, stdout: stdout, stderr: stderr, connect: kubeconfigCluster}
	name, code, err := c.execute(ctx, args)
	return exitStatus(name, code, err, stderr)
}

// exitStatus prints a command's error (command "": waitable's own) and
// returns its exit status: 64 for a usageError, 1 for another error that
// came with status 0.
func exitStatus(command string, code int, err error, stderr io.Writer) int {
	if err != nil {
		prefix := "waitable"
		if command != "" {
			prefix += " " + command
		}
		fmt.Fprintf(stderr, "%s: %v\n", prefix, err)
		var ue usageError
		if errors.As(err, &ue) {
			return exitUsage
		}
		if code == exitSuccess {
			code = exitFailure
		}
	}
	return code
}
