package main

import (
	"errors"
	"fmt"
	"io"
	"os"

	flag "github.com/spf13/pflag"

	"github.com/waitable/waitable/internal/plural"
	"github.com/waitable/waitable/waiter/model"
)

// parseModelFlags parses lint's or list's flags, and reports whether
// they asked for help; bad usage, or no model file, is a usageError.
func parseModelFlags(fs *flag.FlagSet, args []string) (help bool, err error) {
	if err := fs.Parse(args); err != nil {
		if err == flag.ErrHelp {
			return true, nil
		}
		return false, usageError{err}
	}
	if fs.NArg() == 0 {
		return false, usagef("give at least one model file")
	}
	return false, nil
}

// modelFlagsStatus is the exit status of lint's or list's flags that
// asked for help (err nil) or were bad usage.
func modelFlagsStatus(err error) (int, error) {
	if err != nil {
		return exitUsage, err
	}
	return exitSuccess, nil
}

// loadModel reads and loads a model file, the problems of its loading
// noted in its linter; a file that cannot be read is a usageError.
func loadModel(file string) (*linter, *model.Catalog, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, nil, usageError{err}
	}
	l := newLinter(file, data)
	c, err := l.load()
	l.loadProblems(err)
	return l, c, nil
}

// report prints the linter's problems and returns how many there are.
func (l *linter) report(stdout io.Writer) int {
	for _, p := range l.sorted() {
		fmt.Fprintln(stdout, p)
	}
	return len(l.problems)
}

// warn prints, if on, the loader's warnings of the catalog c (nil if it
// did not load).
func (l *linter) warn(stdout io.Writer, c *model.Catalog, on bool) {
	if c != nil && on {
		for _, w := range c.Warnings() {
			fmt.Fprintf(stdout, "%s: warning: %s\n", l.file, w)
		}
	}
}

// lintStatus is lint's and list's exit status: exitLint when there were
// problems.
func lintStatus(problems int) (int, error) {
	if problems > 0 {
		return exitLint, errors.New(plural.N(problems, "problem"))
	}
	return exitSuccess, nil
}
