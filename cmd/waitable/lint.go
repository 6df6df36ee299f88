package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/waitable/waitable/internal/plural"
	"github.com/waitable/waitable/waiter"
)

// lintCommand checks (or, with list, lists) the waiters of model files:
// Smithy JSON AST models or botocore waiters-2.json documents, told apart
// by their content.
func lintCommand(args []string, stdout io.Writer, list bool) (int, error) {
	name := "lint"
	if list {
		name = "list"
	}
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stdout)
	warnings := fs.Bool("warnings", false, "also print what the loader allows but finds suspicious")
	fs.Usage = func() {
		fmt.Fprintf(stdout, "Usage: waitable %s MODEL...\n\nMODEL is a Smithy JSON AST model or a botocore waiters-2.json document.\n", name)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if err == flag.ErrHelp {
			return exitSuccess, nil
		}
		return exitUsage, usageError{err}
	}
	if fs.NArg() == 0 {
		return exitUsage, usagef("give at least one model file")
	}
	problems := 0
	for _, file := range fs.Args() {
		data, err := os.ReadFile(file)
		if err != nil {
			return exitUsage, usageError{err}
		}
		c, err := load(data)
		if err != nil {
			for _, p := range flatten(err) {
				fmt.Fprintf(stdout, "%s: %s\n", file, strings.TrimPrefix(p, "waiter: model: "))
				problems++
			}
			continue
		}
		for _, n := range c.Names() {
			d, _ := c.Get(n)
			if list {
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
		if *warnings {
			for _, w := range c.Warnings() {
				fmt.Fprintf(stdout, "%s: warning: %s\n", file, w)
			}
		}
		if !list {
			fmt.Fprintf(stdout, "%s: %s, ok\n", file, plural.N(c.Len(), "waiter"))
		}
	}
	if problems > 0 {
		return exitLint, errors.New(plural.N(problems, "problem"))
	}
	return exitSuccess, nil
}

// load reads a Smithy model or a botocore document, whichever data is.
func load(data []byte) (*waiter.Catalog, error) {
	if bytes.Contains(data[:min(len(data), 4096)], []byte(`"smithy"`)) {
		return waiter.LoadSmithy(bytes.NewReader(data))
	}
	return waiter.LoadBotocore(bytes.NewReader(data))
}

// flatten lists the problems of a joined error, one each.
func flatten(err error) []string {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		var out []string
		for _, e := range j.Unwrap() {
			out = append(out, flatten(e)...)
		}
		return out
	}
	var de *waiter.DefinitionError
	if errors.As(err, &de) {
		return []string{de.Error()}
	}
	return []string{err.Error()}
}
