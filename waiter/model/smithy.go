package model

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/waitable/waitable/classify"
	"github.com/waitable/waitable/waiter"
)

// smithyWaiter is a waiter as the waitable trait writes it.
type smithyWaiter struct {
	Documentation string            `json:"documentation"`
	Description   string            `json:"description"` // not in the spec; some real models use it
	Acceptors     []json.RawMessage `json:"acceptors"`
	MinDelay      *int64            `json:"minDelay"`
	MaxDelay      *int64            `json:"maxDelay"`
	Deprecated    bool              `json:"deprecated"`
	Tags          []string          `json:"tags"`
}

// ParseWaitable decodes the value of a smithy.waiters#waitable trait (a
// JSON object of waiter names to waiters) and returns its definitions,
// sorted by name, each validated. It reports every problem at once.
// Operation is left empty: the trait does not say which operation it is
// on, nor what its members are named (no Model).
func ParseWaitable(data []byte) ([]waiter.Definition, error) {
	src := source{data}
	if kind := src.sniff(); kind == "smithy" || kind == "botocore" || kind == "botocore-service" {
		return nil, &Error{
			Err: fmt.Errorf(
				"this is %s, not the value of a waitable trait",
				hint(kind, "ParseWaitable"),
			),
		}
	}
	return src.parseWaitable(data, "")
}

func (src source) parseWaitable(data []byte, where string) ([]waiter.Definition, error) {
	var raw map[string]json.RawMessage
	if err := src.decode(data, &raw); err != nil {
		return nil, &Error{
			Where: where,
			Err: fmt.Errorf(
				"the waitable trait must be an object of waiter names to waiters: %w",
				err,
			),
		}
	}
	names := slices.Sorted(maps.Keys(raw))
	var defs []waiter.Definition
	var errs []error
	lower := map[string]string{}
	for _, name := range names {
		if twin, ok := lower[strings.ToLower(name)]; ok {
			errs = append(
				errs,
				&waiter.DefinitionError{
					Waiter:   name,
					Acceptor: -1,
					Rule:     "name",
					Err: fmt.Errorf(
						"the name equals waiter %s case-insensitively; names must differ in more than case",
						twin,
					),
				},
			)
			continue
		}
		lower[strings.ToLower(name)] = name
		d, err := src.parseSmithyWaiter(name, raw[name], join(where, name))
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if err := d.Validate(); err != nil {
			errs = append(errs, err)
			continue
		}
		defs = append(defs, d)
	}
	return defs, errors.Join(errs...)
}

func join(where, name string) string {
	if where == "" {
		return name
	}
	return where + "." + name
}

func (src source) parseSmithyWaiter(
	name string,
	data []byte,
	where string,
) (waiter.Definition, error) {
	var w smithyWaiter
	var errs []error
	bad := src.decodeEach(data, &w)
	for _, err := range bad {
		errs = append(errs, &Error{Where: where, Err: err})
	}
	d := waiter.Definition{
		Name:          name,
		Documentation: w.Documentation,
		Deprecated:    w.Deprecated,
		Tags:          w.Tags,
	}
	if d.Documentation == "" {
		d.Documentation = w.Description
	}
	seconds := func(field string, v *int64) time.Duration {
		if v == nil || failed(bad, field) {
			return 0
		}
		if *v < 1 || *v > 1<<31 {
			errs = append(
				errs,
				&Error{
					Where: where + "." + field,
					Err:   fmt.Errorf("%d seconds is out of range (1 to 2^31)", *v),
				},
			)
			return 0
		}
		return time.Duration(*v) * time.Second
	}
	d.MinDelay = seconds("minDelay", w.MinDelay)
	d.MaxDelay = seconds("maxDelay", w.MaxDelay)
	for i, raw := range w.Acceptors {
		var a classify.Acceptor
		if bad := src.decodeEach(raw, &a); bad != nil {
			for _, err := range bad {
				errs = append(
					errs,
					&Error{Where: fmt.Sprintf("%s.acceptors[%d]", where, i), Err: err},
				)
			}
			continue
		}
		d.Acceptors = append(d.Acceptors, a)
	}
	return d, errors.Join(errs...)
}

// smithyModel is the part of a Smithy JSON AST this package reads.
type smithyModel struct {
	Smithy string                 `json:"smithy"`
	Shapes map[string]smithyShape `json:"shapes"`
}

// smithyFile is a Smithy JSON AST whose shapes are still to be decoded,
// one at a time.
type smithyFile struct {
	Smithy string                     `json:"smithy"`
	Shapes map[string]json.RawMessage `json:"shapes"`
}

type smithyShape struct {
	Type       string                     `json:"type"`
	Input      *smithyTarget              `json:"input"`
	Output     *smithyTarget              `json:"output"`
	Errors     []smithyTarget             `json:"errors"`
	Operations []smithyTarget             `json:"operations"`
	Resources  []smithyTarget             `json:"resources"`
	Traits     map[string]json.RawMessage `json:"traits"`
	// Resource lifecycle operations.
	Create, Put, Read, Update, Delete, List *smithyTarget
	CollectionOperations                    []smithyTarget `json:"collectionOperations"`
	// Aggregate shapes: a structure's or union's members, a list's or
	// set's member, a map's value, and the mixins whose members a shape
	// takes.
	Members map[string]smithyTarget `json:"members"`
	Member  *smithyTarget           `json:"member"`
	Value   *smithyTarget           `json:"value"`
	Mixins  []smithyTarget          `json:"mixins"`
}

type smithyTarget struct {
	Target string `json:"target"`
}

const waitableTrait = "smithy.waiters#waitable"

// LoadSmithy reads a whole Smithy JSON AST model and returns a [Catalog] of
// every waiter on its operations, each with its operation's shape ID,
// service, input, output and modelled errors, and its Model: a
// [*Shapes] of the shapes its input and output reach (mixins'
// members included), whose member names [waiter.New] keys struct fields
// by. Waiter names must be case-insensitively unique within a service. Problems are reported all at
// once; an errorType naming an error the operation does not model is a
// warning ([Catalog.Warnings]), as in Smithy, not an error.
func LoadSmithy(r io.Reader) (*Catalog, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, &Error{Err: err}
	}
	src := source{data}
	if kind := src.sniff(); kind != "smithy" && kind != "" {
		return nil, &Error{
			Err: fmt.Errorf("this is %s, not a Smithy JSON AST model", hint(kind, "LoadSmithy")),
		}
	}
	var f smithyFile
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, &Error{Err: src.explain(data, err, 0)}
	}
	if !strings.HasPrefix(f.Smithy, "1.") && !strings.HasPrefix(f.Smithy, "2.") {
		return nil, &Error{
			Where: "smithy",
			Err:   fmt.Errorf("version %q is not 1.x or 2.x", f.Smithy),
		}
	}
	// Each shape on its own: one that does not decode is a problem, and
	// the others are read.
	m := smithyModel{Smithy: f.Smithy, Shapes: map[string]smithyShape{}}
	var errs []error
	for _, id := range slices.Sorted(maps.Keys(f.Shapes)) {
		var sh smithyShape
		if bad := src.decodeKnown(f.Shapes[id], &sh); bad != nil {
			for _, err := range bad {
				errs = append(errs, &Error{Where: fmt.Sprintf("shapes[%q]", id), Err: err})
			}
			continue
		}
		m.Shapes[id] = sh
	}
	services := m.operationServices()
	ids := slices.Sorted(maps.Keys(m.Shapes))
	c := newCatalog()
	for _, id := range ids {
		op := m.Shapes[id]
		trait, ok := op.Traits[waitableTrait]
		if !ok {
			continue
		}
		where := fmt.Sprintf("shapes[%q].traits[%q]", id, waitableTrait)
		if op.Type != "operation" {
			errs = append(
				errs,
				&Error{
					Where: where,
					Err:   fmt.Errorf("the trait is on a %s, not an operation", op.Type),
				},
			)
			continue
		}
		defs, err := src.parseWaitable(trait, where)
		if err != nil {
			errs = append(errs, err)
		}
		info := waiter.Operation{ID: id, Service: services[id], Errors: []string{}}
		if op.Input != nil && op.Input.Target != "smithy.api#Unit" {
			info.Input = op.Input.Target
		}
		if op.Output != nil && op.Output.Target != "smithy.api#Unit" {
			info.Output = op.Output.Target
		}
		for _, e := range op.Errors {
			info.Errors = append(info.Errors, e.Target)
		}
		info.Model = m.shapeModel(info.Input, info.Output)
		for _, d := range defs {
			d.Operation = info
			if info.Output == "" {
				if i := slices.IndexFunc(d.Acceptors, func(a classify.Acceptor) bool { return a.Matcher.Output != nil }); i >= 0 {
					errs = append(
						errs,
						&waiter.DefinitionError{
							Waiter:   d.Name,
							Acceptor: i,
							Rule:     "matcher",
							Err: fmt.Errorf(
								"an output matcher on %s, which has no output",
								id,
							),
						},
					)
					continue
				}
			}
			if err := c.add(d); err != nil {
				errs = append(errs, err)
			}
		}
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return c, nil
}

// shapeModel returns the model of an operation whose input and output are
// shapes in and out (empty: none): the aggregate shapes they reach.
func (m *smithyModel) shapeModel(in, out string) *Shapes {
	sm := &Shapes{Input: in, Output: out, Shapes: map[string]Shape{}}
	var visit func(id string)
	visit = func(id string) {
		if _, seen := sm.Shapes[id]; seen {
			return
		}
		sh, ok := m.Shapes[id]
		if !ok {
			return
		}
		switch sh.Type {
		case "structure", "union":
			members := map[string]string{}
			m.members(id, members, map[string]bool{})
			sm.Shapes[id] = Shape{Type: sh.Type, Members: members}
			for _, target := range members {
				visit(target)
			}
		case "list", "set":
			if sh.Member != nil {
				sm.Shapes[id] = Shape{Type: "list", Member: sh.Member.Target}
				visit(sh.Member.Target)
			}
		case "map":
			if sh.Value != nil {
				sm.Shapes[id] = Shape{Type: "map", Member: sh.Value.Target}
				visit(sh.Value.Target)
			}
		}
	}
	for _, id := range []string{in, out} {
		if id != "" {
			visit(id)
		}
	}
	return sm
}

// members adds the members of shape id to out, its mixins' first (its own
// win), following each mixin once.
func (m *smithyModel) members(id string, out map[string]string, seen map[string]bool) {
	if seen[id] {
		return
	}
	seen[id] = true
	sh := m.Shapes[id]
	for _, mixin := range sh.Mixins {
		m.members(mixin.Target, out, seen)
	}
	for name, t := range sh.Members {
		out[name] = t.Target
	}
}

// operationServices maps each operation to the service whose closure holds
// it (through resources too).
func (m *smithyModel) operationServices() map[string]string {
	out := map[string]string{}
	for id, s := range m.Shapes {
		if s.Type != "service" {
			continue
		}
		seen := map[string]bool{}
		var visit func(shape string)
		visit = func(shape string) {
			if seen[shape] {
				return
			}
			seen[shape] = true
			sh, ok := m.Shapes[shape]
			if !ok {
				return
			}
			if sh.Type == "operation" {
				if _, taken := out[shape]; !taken {
					out[shape] = id
				}
				return
			}
			for _, t := range sh.Operations {
				visit(t.Target)
			}
			for _, t := range sh.CollectionOperations {
				visit(t.Target)
			}
			for _, t := range []*smithyTarget{sh.Create, sh.Put, sh.Read, sh.Update, sh.Delete, sh.List} {
				if t != nil {
					visit(t.Target)
				}
			}
			for _, t := range sh.Resources {
				visit(t.Target)
			}
		}
		visit(id)
	}
	return out
}
