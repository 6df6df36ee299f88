package main

import (
	"context"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/waitable/waitable/internal/plural"
)

// listCommand lists the waiters of model files (Smithy JSON AST models or
// botocore waiters-2.json documents, told apart by their content): each
// waiter's operation, acceptors and delays, after the problems of a file
// that does not load whole.
func (c *cli) listCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "list MODEL...",
		Short: "List the waiters of model files",
		Long:  "MODEL is a Smithy JSON AST model or a botocore waiters-2.json document.",
	}
	warnings := cmd.Flags().Bool("warnings", false, "also print what the loader allows but finds suspicious")
	return c.leaf(cmd, func(_ context.Context, _ *cobra.Command, files []string) (int, error) {
		return listWaiters(files, *warnings, c.stdout)
	})
}

// listWaiters lists the waiters of files (and, if warnings, the loader's
// warnings).
func listWaiters(files []string, warnings bool, stdout io.Writer) (int, error) {
	if len(files) == 0 {
		return exitUsage, usagef("give at least one model file")
	}
	problems := 0
	for _, file := range files {
		l, c, err := loadModel(file)
		if err != nil {
			return exitUsage, err
		}
		problems += l.report(stdout)
		if c != nil {
			for _, n := range c.Names() {
				d, _ := c.Get(n)
				maxDelay := d.MaxDelay.String()
				if d.MaxDelay == 0 {
					maxDelay = "120s (the default)"
				}
				minDelay := d.MinDelay.String()
				if d.MinDelay == 0 {
					minDelay = "2s (the default)"
				}
				fmt.Fprintf(stdout, "%s: %s on %s: %s, delays %s to %s\n", file, n, d.Operation.ID, plural.N(len(d.Acceptors), "acceptor"), minDelay, maxDelay)
			}
		}
		l.warn(stdout, c, warnings)
	}
	return lintStatus(problems)
}
