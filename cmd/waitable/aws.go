package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/waitable/waitable/classify"
)

// awsCommand is `waitable aws SERVICE WAITER`, with the command's flags
// and, after `--`, the AWS CLI's arguments: AWS's waiter WAITER run through
// the AWS CLI. `waitable aws list`, with a service or none, lists the
// waiters.
func (c *cli) awsCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use: "aws SERVICE WAITER [flags] -- [aws CLI arguments]\n" +
			"  waitable aws list [--waiters FILE] [SERVICE]",
		Short: "Run one of AWS's waiters, by the AWS CLI's names",
		Long: "SERVICE and WAITER are the AWS CLI's names (dynamodb table-exists), as in\n" +
			"aws SERVICE wait WAITER. Each poll runs aws SERVICE OPERATION ARGS --output json once,\n" +
			"with the CLI's own retries off (AWS_MAX_ATTEMPTS=1). waitable aws list lists the waiters.",
	}
	fs := cmd.Flags()
	file := fs.String("waiters", "", "a botocore waiters-2.json file whose waiters replace AWS's for the service")
	var wf waitFlags
	wf.register(fs, 0, "how long to wait in all (default: the waiter's delay × maxAttempts, as the AWS CLI's wait)")
	return c.leaf(cmd, func(ctx context.Context, cmd *cobra.Command, args []string) (int, error) {
		positional, cliArgs := args, []string(nil)
		if i := cmd.ArgsLenAtDash(); i >= 0 {
			positional, cliArgs = args[:i], args[i:]
		}
		return wf.aws(ctx, positional, cliArgs, *file, cmd.Flags().Changed("max-wait"), c.stdout, c.stderr)
	})
}

// aws runs AWS's waiter that positional names (SERVICE WAITER), or lists
// them (list, or list SERVICE), with cliArgs (nil: no --) the AWS CLI's;
// maxWaitSet says that --max-wait was given.
func (wf *waitFlags) aws(ctx context.Context, positional, cliArgs []string, file string, maxWaitSet bool, stdout, stderr io.Writer) (int, error) {
	if len(positional) > 0 && positional[0] == "list" {
		if len(positional) > 2 || cliArgs != nil {
			return exitUsage, usagef("list takes one SERVICE at most")
		}
		service := "" // every service
		if len(positional) == 2 {
			service = positional[1]
		}
		return exitSuccess, awsList(stdout, service, file)
	}
	if len(positional) != 2 {
		return exitUsage, usagef("want SERVICE WAITER (dynamodb table-exists), got %q; waitable aws list lists them", positional)
	}
	service, name := positional[0], positional[1]
	defs, err := awsWaiters(service, file)
	if err != nil {
		return exitUsage, usageError{err}
	}
	def, err := pickAWSWaiter(defs, service, name)
	if err != nil {
		return exitUsage, usageError{err}
	}
	if def.Operation.ID == "" {
		return exitUsage, usagef("waiter %s names no operation for the AWS CLI to run", def.Name)
	}
	maxWait := budget(def)
	if maxWaitSet {
		maxWait = wf.maxWait
	}
	switch {
	case maxWait <= 0 && def.MaxPolls == 0:
		return exitUsage, usagef("waiter %s has no maxAttempts to make a budget of: give --max-wait", def.Name)
	case maxWait <= 0:
		return exitUsage, usagef("--max-wait %v: want a positive duration", maxWait)
	}
	def.MaxPolls = 0 // the budget is the limit, as with http and exec
	for _, a := range cliArgs {
		if a == "--query" || strings.HasPrefix(a, "--query=") {
			return exitUsage, usagef("--query: the waiter's acceptors read the operation's whole output; leave it out")
		}
	}
	if code, err := runnable("aws"); err != nil {
		return code, fmt.Errorf("%w (install the AWS CLI: Debian's package awscli, or AWS's installer)", err)
	}
	argv := append(append([]string{"aws", service, cliName(def.Operation.ID)}, cliArgs...), "--output", "json")
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	return wf.wait(ctx, def, awsCall(argv, cancel), maxWait, shellQuote(argv), stdout, stderr)
}

// awsCall runs the AWS CLI's argv once per poll, with the CLI's own
// retries off: the waiter's schedule replaces them. Its standard output is
// the output; on a non-zero exit, what it printed on standard error is the
// error (see cliError). A usage or configuration error cancels the wait,
// through refuse.
func awsCall(argv []string, refuse context.CancelCauseFunc) call {
	env := []string{"AWS_MAX_ATTEMPTS=1", "AWS_RETRY_MODE=standard", "AWS_PAGER="}
	return func(ctx context.Context, _ struct{}) (*output, error) {
		stdout, stderr, err := runCommand(ctx, argv, env)
		raw, problem := decode(stdout, false)
		out := &output{raw: raw, status: 200, problem: problem}
		var ee *exec.ExitError
		if errors.As(err, &ee) && ctx.Err() == nil {
			err = cliError(ee.ExitCode(), stderr)
			var ce *callError
			var ue usageError
			switch {
			case errors.As(err, &ce):
				out.status = classify.Classify(err).StatusCode
				ce.out = out // as exec's: what it printed, null for nothing
			case errors.As(err, &ue):
				err = usagef("%s: exit %d, a usage or configuration error of the AWS CLI:\n%s",
					shellQuote(argv), ee.ExitCode(), bytes.TrimSpace(stderr))
				refuse(err)
			}
			return nil, err
		}
		if err != nil {
			return nil, err
		}
		return out, nil
	}
}

// serviceError is how the AWS CLI (v1 and v2) reports an error answer:
// "An error occurred (ThrottlingException) when calling the DescribeTable
// operation (reached max retries: 0): Rate exceeded".
var serviceError = regexp.MustCompile(`An error occurred \(([^()\s]*)\) when calling the (\w+) operation(?: \([^()]*\))?: ?`)

// Words with which the AWS CLI v1 reports a usage or configuration error
// (v2 says so with its exit statuses 252 and 253; both say 2 when
// argparse refuses a command line).
var cliUsage = []string{
	"usage: aws [options]", "aws: error:", "Unknown options:",
	"Parameter validation failed", "Unable to locate credentials",
	"You must specify a region", "The config profile (",
}

// Words with which the AWS CLI reports a call that reached no service,
// which its own retries would have retried.
var cliUnreachable = []string{
	"Could not connect to the endpoint URL", "Connect timeout on endpoint URL",
	"Read timeout on endpoint URL", "Connection was closed before we received a valid response",
}

// cliError is the error of an AWS CLI that exited with status exit and
// printed stderr: a service's error (callFailed's, whose code is the
// service's code, and whose status is the code when the code is a status,
// as botocore makes it for answers without one, S3's HEAD 404); a
// usageError; a call that reached no service, transient; or else, as for
// exec, callFailed's with the code "exit N".
func cliError(exit int, stderr []byte) error {
	if m := serviceError.FindSubmatchIndex(stderr); m != nil && exit != 252 && exit != 253 {
		code := string(stderr[m[2]:m[3]])
		status := 0
		if n, err := strconv.Atoi(code); err == nil && n >= 100 && n <= 599 {
			status = n
		}
		return callFailed(code, status, snippet(stderr[m[1]:]), 0, nil)
	}
	if exit == 2 || exit == 252 || exit == 253 || containsAny(stderr, cliUsage) {
		return usageError{errors.New(snippet(stderr))}
	}
	if containsAny(stderr, cliUnreachable) {
		// No request reached the service, or none was answered: the call
		// may be made again.
		return &classify.CallError{Err: errors.New(snippet(stderr)), Safety: classify.SafetyYes}
	}
	return callFailed(fmt.Sprintf("exit %d", exit), 0, snippet(stderr), 0, nil)
}

func containsAny(b []byte, words []string) bool {
	return slices.ContainsFunc(words, func(w string) bool { return bytes.Contains(b, []byte(w)) })
}

// awsList prints the waiters of service (of every service when it is
// ""), one a line: the CLI's names of the service, the waiter and the
// operation each poll calls, the delay, maxAttempts and their product,
// the default budget.
func awsList(w io.Writer, service, file string) error {
	services := []string{service}
	if service == "" {
		if file != "" {
			return usagef("with --waiters, name the service: waitable aws list --waiters FILE SERVICE")
		}
		services = slices.Sorted(maps.Keys(awsServices()))
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "SERVICE\tWAITER\tOPERATION\tDELAY\tATTEMPTS\tBUDGET")
	for _, s := range services {
		defs, err := awsWaiters(s, file)
		if err != nil {
			return usageError{err}
		}
		for _, d := range defs {
			op, delay, attempts, total := cliName(d.Operation.ID), d.MinDelay, "-", "-"
			if op == "" {
				op = "-"
			}
			if delay == 0 {
				delay = 2 * time.Second // a Smithy waiter's default
			}
			if d.MaxPolls > 0 {
				attempts, total = fmt.Sprint(d.MaxPolls), budget(d).String()
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", s, cliName(d.Name), op, delay, attempts, total)
		}
	}
	return tw.Flush()
}
