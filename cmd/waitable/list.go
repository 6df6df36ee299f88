package main

import (
	"fmt"
	"io"

	flag "github.com/spf13/pflag"

	"github.com/waitable/waitable/internal/plural"
)

// listCommand lists the waiters of model files (Smithy JSON AST models or
// botocore waiters-2.json documents, told apart by their content): each
// waiter's operation, acceptors and delays, after the problems of a file
// that does not load whole.
func listCommand(args []string, stdout io.Writer) (int, error) {
	fs := flag.NewFlagSet("list", flag.ContinueOnError)
	fs.SetOutput(stdout)
	warnings := fs.Bool("warnings", false, "also print what the loader allows but finds suspicious")
	fs.Usage = func() {
		fmt.Fprintf(stdout, "Usage: waitable list MODEL...\n\nMODEL is a Smithy JSON AST model or a botocore waiters-2.json document.\n")
		fs.PrintDefaults()
	}
	if help, err := parseModelFlags(fs, args); help || err != nil {
		return modelFlagsStatus(err)
	}
	problems := 0
	for _, file := range fs.Args() {
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
		l.warn(stdout, c, *warnings)
	}
	return lintStatus(problems)
}
