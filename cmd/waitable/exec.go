package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/spf13/cobra"
)

// execCommand is waitable exec: it polls the command after --, whose
// standard output is JSON.
func (c *cli) execCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "exec [flags] -- CMD ARGS...",
		Short: "Poll a command whose standard output is JSON",
		Long: "Polls the command CMD ARGS..., whose standard output is JSON, until a condition decides. The command\n" +
			"is what follows -- (or the first argument that is not a flag); it runs in a process group of its own,\n" +
			"which a cancelled call ends whole, as timeout(1) does." + conditionsHelp,
	}
	var p pollFlags
	p.register(cmd.Flags())
	cmd.Flags().SetInterspersed(false) // the command's own flags are not ours
	return c.leaf(cmd, func(ctx context.Context, _ *cobra.Command, args []string) (int, error) {
		if len(args) == 0 {
			return exitUsage, usagef("want a command after --")
		}
		if code, err := runnable(args[0]); err != nil {
			return code, err
		}
		return p.run(ctx, "Command", execCall(args, p.text), shellQuote(args), c.stdout, c.stderr)
	})
}

// shellQuote writes argv as a shell would read it back: an argument with
// anything but letters, digits and -_./:=@%+, in single quotes.
func shellQuote(argv []string) string {
	quoted := make([]string, len(argv))
	for i, a := range argv {
		if a != "" && strings.IndexFunc(a, func(r rune) bool {
			return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./:=@%+,", r))
		}) < 0 {
			quoted[i] = a
			continue
		}
		quoted[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
	}
	return strings.Join(quoted, " ")
}

// runnable checks, as a shell does before it runs a command, that the
// command exists (else exit status 127) and may be executed (else 126).
func runnable(name string) (int, error) {
	_, err := exec.LookPath(name)
	switch {
	case err == nil:
		return exitSuccess, nil
	case errors.Is(err, fs.ErrPermission):
		return exitNotExecutable, fmt.Errorf("%s: not executable: permission denied", name)
	default: // not in $PATH, or no such file
		return exitNotFound, fmt.Errorf("%s: command not found", name)
	}
}

// execCall runs the command; its standard output is the JSON output.
func execCall(argv []string, text bool) call {
	return func(ctx context.Context, _ struct{}) (*output, error) {
		stdout, stderr, err := runCommand(ctx, argv, nil)
		raw, problem := decode(stdout, text)
		out := &output{raw: raw, status: 200, problem: problem}
		var ee *exec.ExitError
		if errors.As(err, &ee) && ctx.Err() == nil {
			return nil, callFailed(fmt.Sprintf("exit %d", ee.ExitCode()), 0, snippet(stderr), 0, out)
		}
		if err != nil {
			return nil, err
		}
		return out, nil
	}
}

// runCommand runs argv, with env added to the command's environment, in
// a process group of its own that a cancelled call ends whole, and
// returns what it printed and how it ended (an *exec.ExitError for a
// non-zero exit, or for a command the cancellation ended).
func runCommand(ctx context.Context, argv, env []string) (stdout, stderr []byte, err error) {
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	if env != nil {
		cmd.Env = append(os.Environ(), env...)
	}
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	cmd.WaitDelay = time.Second
	cleanup := inOwnGroup(cmd)
	err = cmd.Run()
	if ctx.Err() != nil {
		cleanup() // what the group's SIGTERM left
	}
	return out.Bytes(), errOut.Bytes(), err
}
