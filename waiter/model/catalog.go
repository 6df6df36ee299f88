package model

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/waitable/waitable/internal/suggest"
	"github.com/waitable/waitable/waiter"
)

// Catalog holds the waiter definitions of one model, by name, as
// [LoadSmithy], [LoadBotocore] and [LoadBotocoreService] return them.
// Names are case-insensitively unique within a service, as the
// specification requires, and a Catalog holds one namespace of names. A
// Catalog is read-only and safe for concurrent use; its zero value is an
// empty catalog.
type Catalog struct {
	defs     map[string]waiter.Definition
	lower    map[string]string // lower-case name → name
	warnings []string
}

func newCatalog() *Catalog {
	return &Catalog{defs: map[string]waiter.Definition{}, lower: map[string]string{}}
}

// add adds a validated definition, rejecting a name already taken.
func (c *Catalog) add(d waiter.Definition) error {
	low := strings.ToLower(d.Name)
	if prev, ok := c.lower[low]; ok {
		other := c.defs[prev]
		return &waiter.DefinitionError{
			Waiter:   d.Name,
			Acceptor: -1,
			Rule:     "name",
			Err: fmt.Errorf(
				"the name is taken (case-insensitively) by waiter %s on %s",
				prev,
				other.Operation.ID,
			),
		}
	}
	c.defs[d.Name] = d
	c.lower[low] = d.Name
	c.warnings = append(c.warnings, warningsOf(d)...)
	return nil
}

// ErrUnknownWaiter is matched by errors.Is for the error [Catalog.Get]
// returns when no waiter has the name asked for, and for awswait's (New,
// Definition) when AWS publishes no waiter of that name for the service.
var ErrUnknownWaiter = errors.New("model: no such waiter")

// Get returns the definition named name (exactly). For any other name it
// returns an error matching [ErrUnknownWaiter] that suggests the nearest
// name the catalog holds.
func (c *Catalog) Get(name string) (waiter.Definition, error) {
	if d, ok := c.defs[name]; ok {
		return d, nil
	}
	return waiter.Definition{}, &unknownWaiterError{name: name, suggestion: c.nearest(name)}
}

type unknownWaiterError struct{ name, suggestion string }

func (e *unknownWaiterError) Error() string {
	if e.suggestion == "" {
		return fmt.Sprintf("model: no waiter %q in the model", e.name)
	}
	return fmt.Sprintf("model: no waiter %q in the model; did you mean %s?", e.name, e.suggestion)
}

func (e *unknownWaiterError) Is(target error) bool { return target == ErrUnknownWaiter }

// nearest returns the name that differs from name only in case, or else
// the one fewest edits away when that is at most a third of its length.
func (c *Catalog) nearest(name string) string {
	return suggest.Nearest(name, c.Names(), len(name)/3)
}

// Names returns the names of every definition, sorted; its length is the
// number of definitions.
func (c *Catalog) Names() []string {
	return slices.Sorted(maps.Keys(c.defs))
}

// Warnings returns what the loader found suspicious but allowed, as
// Smithy's validator warns about it: an errorType that names none of the
// operation's modelled errors (real models do this for framework errors
// such as ValidationException). They come in the order found.
func (c *Catalog) Warnings() []string { return append([]string(nil), c.warnings...) }

// warningsOf returns what is suspicious but allowed in d (see
// [Catalog.Warnings]); nil when the operation's errors are unknown
// (Operation.Errors is nil).
func warningsOf(d waiter.Definition) []string {
	if d.Operation.Errors == nil {
		return nil
	}
	name := func(id string) string { return id[strings.LastIndexByte(id, '#')+1:] } // the name part of a shape ID
	known := map[string]bool{}
	for _, id := range d.Operation.Errors {
		known[name(id)] = true
	}
	var warns []string
	for i, a := range d.Acceptors {
		if t := a.Matcher.ErrorType; t != "" && !known[name(t)] {
			warns = append(warns, fmt.Sprintf("waiter %s: acceptor %d: errorType %q is not among the errors of %s",
				d.Name, i, t, d.Operation.ID))
		}
	}
	return warns
}
