package waiter

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// Catalog holds the waiter definitions of one model, by name. Names are
// case-insensitively unique within a service, as the specification
// requires, and a Catalog holds one namespace of names. A Catalog is safe
// for concurrent reads.
type Catalog struct {
	defs     map[string]Definition
	lower    map[string]string // lower-case name → name
	warnings []string
}

func newCatalog() *Catalog {
	return &Catalog{defs: map[string]Definition{}, lower: map[string]string{}}
}

// add adds a validated definition, rejecting a name already taken.
func (c *Catalog) add(d Definition) error {
	low := strings.ToLower(d.Name)
	if prev, ok := c.lower[low]; ok {
		other := c.defs[prev]
		return &DefinitionError{Waiter: d.Name, Acceptor: -1, Rule: "name", Err: fmt.Errorf("the name is taken (case-insensitively) by waiter %s on %s", prev, other.Operation.ID)}
	}
	c.defs[d.Name] = d
	c.lower[low] = d.Name
	c.warnings = append(c.warnings, d.Warnings()...)
	return nil
}

// Get returns the definition named name (exactly), and whether there is one.
func (c *Catalog) Get(name string) (Definition, bool) {
	d, ok := c.defs[name]
	return d, ok
}

// Names returns the names of every definition, sorted.
func (c *Catalog) Names() []string {
	return slices.Sorted(maps.Keys(c.defs))
}

// Len returns the number of definitions.
func (c *Catalog) Len() int { return len(c.defs) }

// Warnings returns what the loader found suspicious but allowed (see
// [Definition.Warnings]), in the order it found it.
func (c *Catalog) Warnings() []string { return append([]string(nil), c.warnings...) }
