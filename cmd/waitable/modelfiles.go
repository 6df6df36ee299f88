package main

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/waitable/waitable/internal/plural"
	"github.com/waitable/waitable/waiter/model"
)

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
