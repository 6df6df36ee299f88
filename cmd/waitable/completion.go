package main

import (
	"context"
	"fmt"
	"io"

	"github.com/spf13/cobra"
)

// completionCommand is `waitable completion bash|zsh|fish`, which prints
// the shell's completion script, and the hidden command those scripts
// call (cobra's __complete): the commands' names, and kube's flags and
// kubectl's completions of their values.
func completionCommand(ctx context.Context, args []string, stdout, stderr io.Writer) (int, error) {
	root := &cobra.Command{
		Use:               "waitable",
		Short:             "Wait on anything from a shell, the way a Smithy waiter does",
		SilenceErrors:     true,
		SilenceUsage:      true,
		CompletionOptions: cobra.CompletionOptions{HiddenDefaultCmd: true},
	}
	for _, c := range []struct{ use, short string }{
		{"http", "Poll an HTTP endpoint whose body is JSON"},
		{"exec", "Poll a command whose standard output is JSON"},
		{"aws", "Run one of AWS's waiters, by the AWS CLI's names"},
		{"schedule", "Show when a waiter's polls happen"},
		{"lint", "Check the waiters of model files"},
		{"list", "List the waiters of model files"},
		{"version", "Print the version"},
	} {
		root.AddCommand(&cobra.Command{Use: c.use, Short: c.short, DisableFlagParsing: true, Run: func(*cobra.Command, []string) {}})
	}
	kube := newKubeOptions()
	kubeCmd := &cobra.Command{Use: "kube", Short: "Wait for Kubernetes objects as kubectl wait does", Run: func(*cobra.Command, []string) {}}
	kube.addFlags(kubeCmd)
	root.AddCommand(kubeCmd)
	root.SetArgs(args)
	root.SetOut(stdout)
	root.SetErr(stderr)
	if len(args) > 0 && args[0] == "completion" {
		if len(args) != 2 {
			return exitUsage, usagef("want completion bash, zsh or fish")
		}
		var err error
		switch args[1] {
		case "bash":
			err = root.GenBashCompletionV2(stdout, true)
		case "zsh":
			err = root.GenZshCompletion(stdout)
		case "fish":
			err = root.GenFishCompletion(stdout, true)
		default:
			return exitUsage, usagef("completion %q: want bash, zsh or fish", args[1])
		}
		return exitSuccess, err
	}
	if err := root.ExecuteContext(ctx); err != nil {
		return exitFailure, fmt.Errorf("completion: %w", err)
	}
	return exitSuccess, nil
}
