package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"strings"
	"time"

	flag "github.com/spf13/pflag"
)

// execCommand is waitable exec: it polls the command after --, whose
// standard output is JSON.
func execCommand(ctx context.Context, args []string, stdout, stderr io.Writer) (int, error) {
	fs := flag.NewFlagSet("exec", flag.ContinueOnError)
	fs.SetOutput(stdout)
	var p pollFlags
	p.register(fs)
	fs.Usage = p.usage(fs, "Usage: waitable exec [flags] -- CMD ARGS...", stdout)
	positional, err := p.parse(fs, args, true)
	switch {
	case errors.Is(err, flag.ErrHelp):
		return exitSuccess, nil
	case err != nil:
		return exitUsage, err
	case len(positional) == 0:
		return exitUsage, usagef("want a command after --")
	}
	if code, err := runnable(positional[0]); err != nil {
		return code, err
	}
	return p.run(ctx, "Command", execCall(positional, p.text), shellQuote(positional), stdout, stderr)
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
			return nil, &callError{code: fmt.Sprintf("exit %d", ee.ExitCode()), detail: snippet(stderr), out: out}
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
