package main

import (
	"fmt"
	"os"
	"strings"

	"github.com/waitable/waitable/internal/plural"
	"github.com/waitable/waitable/internal/suggest"
	"github.com/waitable/waitable/waiter"
	"github.com/waitable/waitable/waiter/model"
)

// readWaiters reads the waiters of file, whichever of three forms it
// takes: a Smithy JSON AST model (its operations' smithy.waiters#waitable
// traits), botocore's waiters-2.json, or the JSON value of one
// smithy.waiters#waitable trait (a map of waiter names to waiters).
func readWaiters(file string) ([]waiter.Definition, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	// A model lint reads (Smithy or botocore), else a trait's value.
	l := newLinter(file, data)
	isBotocore := l.root != nil && l.root.get("version") != nil && l.root.get("waiters") != nil
	if !l.isSmithy() && !isBotocore {
		defs, err := model.ParseWaitable(data)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", file, err)
		}
		return defs, nil
	}
	c, err := l.load()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	var defs []waiter.Definition
	for _, n := range c.Names() {
		d, _ := c.Get(n)
		defs = append(defs, d)
	}
	return defs, nil
}

// pickWaiter returns the waiter of defs named name, or the only one when
// name is empty. flag is the flag that names it, for the error.
func pickWaiter(defs []waiter.Definition, file, name, flag string) (waiter.Definition, error) {
	var names []string
	for _, d := range defs {
		if d.Name == name || (name == "" && len(defs) == 1) {
			return d, nil
		}
		names = append(names, d.Name)
	}
	switch {
	case len(defs) == 0:
		return waiter.Definition{}, fmt.Errorf("%s has no waiters", file)
	case name == "":
		return waiter.Definition{}, fmt.Errorf("%s has %s (%s): choose one with %s", file, plural.N(len(defs), "waiter"), list(names), flag)
	}
	if near := suggest.Nearest(name, names, len(name)/3); near != "" {
		return waiter.Definition{}, fmt.Errorf("%s has no waiter %q; did you mean %s? (it has %s)", file, name, near, list(names))
	}
	return waiter.Definition{}, fmt.Errorf("%s has no waiter %q (it has %s)", file, name, list(names))
}

// list joins names, or says how many there are when they are too many to
// read.
func list(names []string) string {
	if len(names) > 12 {
		return plural.N(len(names), "waiter") + "; waitable list FILE lists them"
	}
	return strings.Join(names, ", ")
}
