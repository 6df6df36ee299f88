package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"runtime/debug"

	"github.com/spf13/cobra"
)

// cli is waitable's command line, built as kubectl's and Helm's are: a
// cobra command per command, each with its pflag flags (GNU style),
// its help on standard output, and completion of the commands, their
// flags and kubectl's values for bash, zsh and fish.
type cli struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	connect        kubeConnect // how waitable kube reaches its cluster
	// code is the exit status of the command that ran; ran says that one
	// did (an error before it is bad usage).
	code int
	ran  bool
}

// execute runs the command line args: it returns the command that ran
// (as it names itself in errors: "http", "" for waitable's own), its
// exit status and its error, which it does not print.
func (c *cli) execute(ctx context.Context, args []string) (string, int, error) {
	root := c.root()
	root.SetArgs(args)
	cmd, err := root.ExecuteContextC(ctx)
	name := ""
	if cmd != nil && cmd != root {
		name = cmd.Name()
	}
	if err != nil && !c.ran {
		var ue usageError
		if !errors.As(err, &ue) { // an unknown command
			err = usageError{flagError{"waitable", err}}
		}
		return name, exitUsage, err
	}
	return name, c.code, err
}

// root is the command waitable, with every command under it.
func (c *cli) root() *cobra.Command {
	root := &cobra.Command{
		Use:               "waitable",
		Short:             "Wait on anything from a shell, the way a Smithy waiter does",
		SilenceErrors:     true,
		SilenceUsage:      true,
		CompletionOptions: cobra.CompletionOptions{DisableDefaultCmd: true},
	}
	root.SetIn(c.stdin)
	root.SetOut(c.stdout)
	root.SetErr(c.stderr)
	root.SetFlagErrorFunc(func(cmd *cobra.Command, err error) error {
		return usageError{flagError{cmd.CommandPath(), err}}
	})
	help := root.HelpFunc()
	root.SetHelpFunc(func(cmd *cobra.Command, args []string) {
		if cmd == root {
			fmt.Fprint(cmd.OutOrStdout(), usage)
			return
		}
		help(cmd, args)
	})
	root.AddCommand(c.httpCommand(), c.execCommand(), c.awsCommand(), c.kubeCommand(), c.scheduleCommand(),
		c.lintCommand(), c.listCommand(), c.versionCommand(), c.completionCommand(root))
	return root
}

// leaf makes cmd run run with its context, its arguments left once
// cobra took its flags, and records the exit status.
func (c *cli) leaf(cmd *cobra.Command, run func(ctx context.Context, cmd *cobra.Command, args []string) (int, error)) *cobra.Command {
	cmd.DisableFlagsInUseLine = true
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		c.ran = true
		var err error
		c.code, err = run(cmd.Context(), cmd, args)
		return err
	}
	return cmd
}

// flagError is a flag that the command does not take, or a value that
// its flag refuses: said once, in pflag's GNU style, with kubectl's hint.
type flagError struct {
	command string // waitable kube
	err     error
}

func (e flagError) Error() string {
	return e.err.Error() + "\nSee '" + e.command + " --help' for usage."
}
func (e flagError) Unwrap() error { return e.err }

// versionCommand is waitable version (also --version).
func (c *cli) versionCommand() *cobra.Command {
	return c.leaf(&cobra.Command{Use: "version", Short: "Print the version"},
		func(_ context.Context, cmd *cobra.Command, args []string) (int, error) {
			if len(args) > 0 {
				return exitUsage, usagef("version takes no arguments, got %q", args)
			}
			fmt.Fprintln(c.stdout, versionLine(debug.ReadBuildInfo()))
			return exitSuccess, nil
		})
}

// completionCommand is waitable completion bash|zsh|fish: it prints the
// shell's completion script, whose completions cobra's hidden command
// (__complete) gives: the commands, their flags, kubectl's completions
// of kube's values.
func (c *cli) completionCommand(root *cobra.Command) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "completion bash|zsh|fish",
		Short: "Print the shell's completion script (source <(waitable completion bash))",
		Long: "Prints the completion script of bash, zsh or fish, which completes waitable's commands,\n" +
			"their flags, and kube's values as kubectl completes them:\n\n" +
			"  source <(waitable completion bash)\n" +
			"  waitable completion zsh > \"${fpath[1]}/_waitable\"\n" +
			"  waitable completion fish | source",
		ValidArgs: []string{"bash", "zsh", "fish"},
	}
	return c.leaf(cmd, func(_ context.Context, cmd *cobra.Command, args []string) (int, error) {
		if len(args) != 1 {
			return exitUsage, usagef("want completion bash, zsh or fish")
		}
		var err error
		switch args[0] {
		case "bash":
			err = root.GenBashCompletionV2(c.stdout, true)
		case "zsh":
			err = root.GenZshCompletion(c.stdout)
		case "fish":
			err = root.GenFishCompletion(c.stdout, true)
		default:
			return exitUsage, usagef("completion %q: want bash, zsh or fish", args[0])
		}
		return exitSuccess, err
	})
}
