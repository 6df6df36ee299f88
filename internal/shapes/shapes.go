// Package shapes reads the shapes of service models, a Smithy JSON AST
// model's or a botocore service-2.json's, as the static types of package
// jmespath, so that waiters' paths are type-checked against a model as
// they are against Go types.
package shapes

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"

	"github.com/waitable/waitable/jmespath"
)

// Model is the shapes of one service model.
type Model struct {
	shapes map[string]*shape
	ops    map[string]operation
	prefix string // the prelude's namespace, for Smithy: "smithy.api#"
}

type shape struct {
	id      string
	typ     string
	members []member // structure, union
	elem    string   // list, set: the member's target; map: the value's
	open    bool     // a document
}

type member struct{ name, target string }

type operation struct{ input, output string }

// Operation returns the types of an operation's input and output: the
// operation's shape ID in a Smithy model, its name in a botocore one. A
// type is nil where the operation has none (Smithy's Unit). ok is false
// for an operation the model does not have.
func (m *Model) Operation(id string) (in, out jmespath.Type, ok bool) {
	op, ok := m.ops[id]
	if !ok {
		return nil, nil, false
	}
	return m.typeOf(op.input), m.typeOf(op.output), true
}

// Operations returns the names (botocore) or shape IDs (Smithy) of the
// model's operations, sorted.
func (m *Model) Operations() []string { return slices.Sorted(maps.Keys(m.ops)) }

// typeOf returns the type of the shape target; nil for none.
func (m *Model) typeOf(target string) jmespath.Type {
	if target == "" {
		return nil
	}
	return shapeType{m, target}
}

// smithyFile is the part of a Smithy JSON AST model read here.
type smithyFile struct {
	Smithy string                     `json:"smithy"`
	Shapes map[string]json.RawMessage `json:"shapes"`
}

type smithyShape struct {
	Type    string                  `json:"type"`
	Members map[string]smithyTarget `json:"members"`
	Member  *smithyTarget           `json:"member"`
	Value   *smithyTarget           `json:"value"`
	Input   *smithyTarget           `json:"input"`
	Output  *smithyTarget           `json:"output"`
	Mixins  []smithyTarget          `json:"mixins"`
}

type smithyTarget struct {
	Target string `json:"target"`
}

// Smithy reads the shapes of a Smithy JSON AST model. A shape it cannot
// read is an error naming it; the others are read.
func Smithy(data []byte) (*Model, error) {
	var f smithyFile
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, fmt.Errorf("a Smithy JSON AST model: %w", err)
	}
	m := &Model{shapes: map[string]*shape{}, ops: map[string]operation{}, prefix: "smithy.api#"}
	var errs []error
	raw := map[string]smithyShape{}
	for _, id := range slices.Sorted(maps.Keys(f.Shapes)) {
		var s smithyShape
		if err := json.Unmarshal(f.Shapes[id], &s); err != nil {
			errs = append(errs, shapeError(id, err))
			continue
		}
		raw[id] = s
	}
	for id, s := range raw {
		sh := &shape{id: id, typ: s.Type, open: s.Type == "document"}
		switch s.Type {
		case "structure", "union":
			sh.members = smithyMembers(raw, id, map[string]bool{})
		case "list", "set":
			if s.Member != nil {
				sh.elem = s.Member.Target
			}
		case "map":
			if s.Value != nil {
				sh.elem = s.Value.Target
			}
		case "operation":
			op := operation{}
			if s.Input != nil && s.Input.Target != "smithy.api#Unit" {
				op.input = s.Input.Target
			}
			if s.Output != nil && s.Output.Target != "smithy.api#Unit" {
				op.output = s.Output.Target
			}
			m.ops[id] = op
		}
		m.shapes[id] = sh
	}
	return m, errors.Join(errs...)
}

// smithyMembers returns a structure's members, its mixins' first.
func smithyMembers(raw map[string]smithyShape, id string, seen map[string]bool) []member {
	if seen[id] {
		return nil
	}
	seen[id] = true
	s := raw[id]
	var out []member
	for _, mx := range s.Mixins {
		for _, mm := range smithyMembers(raw, mx.Target, seen) {
			if _, own := s.Members[mm.name]; !own {
				out = append(out, mm)
			}
		}
	}
	for _, name := range slices.Sorted(maps.Keys(s.Members)) {
		out = append(out, member{name, s.Members[name].Target})
	}
	return out
}

// botocoreFile is the part of a botocore service-2.json read here.
type botocoreFile struct {
	Operations map[string]struct {
		Input  *botocoreRef `json:"input"`
		Output *botocoreRef `json:"output"`
	} `json:"operations"`
	Shapes map[string]json.RawMessage `json:"shapes"`
}

type botocoreRef struct {
	Shape string `json:"shape"`
}

type botocoreShape struct {
	Type     string                 `json:"type"`
	Members  map[string]botocoreRef `json:"members"`
	Member   *botocoreRef           `json:"member"`
	Value    *botocoreRef           `json:"value"`
	Document bool                   `json:"document"`
}

// Botocore reads the operations and shapes of a botocore service-2.json.
// A shape it cannot read is an error naming it; the others are read.
func Botocore(data []byte) (*Model, error) {
	var f botocoreFile
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, fmt.Errorf("a botocore service-2.json: %w", err)
	}
	if f.Operations == nil || f.Shapes == nil {
		return nil, errors.New(`a botocore service-2.json has "operations" and "shapes"`)
	}
	m := &Model{shapes: map[string]*shape{}, ops: map[string]operation{}}
	for name, op := range f.Operations {
		var o operation
		if op.Input != nil {
			o.input = op.Input.Shape
		}
		if op.Output != nil {
			o.output = op.Output.Shape
		}
		m.ops[name] = o
	}
	var errs []error
	for _, name := range slices.Sorted(maps.Keys(f.Shapes)) {
		var s botocoreShape
		if err := json.Unmarshal(f.Shapes[name], &s); err != nil {
			errs = append(errs, shapeError(name, err))
			continue
		}
		sh := &shape{id: name, typ: s.Type, open: s.Document}
		switch s.Type {
		case "structure":
			for _, n := range slices.Sorted(maps.Keys(s.Members)) {
				sh.members = append(sh.members, member{n, s.Members[n].Shape})
			}
		case "list":
			if s.Member != nil {
				sh.elem = s.Member.Shape
			}
		case "map":
			if s.Value != nil {
				sh.elem = s.Value.Shape
			}
		}
		m.shapes[name] = sh
	}
	return m, errors.Join(errs...)
}

// ShapeError is a shape that does not decode: it is of unknown type.
type ShapeError struct {
	ID    string // the shape's ID or name
	Field string // the member of the shape's JSON at fault, if known
	Err   error
}

// Error returns "shape <id>: <field>: <problem>".
func (e *ShapeError) Error() string {
	if e.Field == "" {
		return fmt.Sprintf("shape %s: %v", e.ID, e.Err)
	}
	return fmt.Sprintf("shape %s: %s: %v", e.ID, e.Field, e.Err)
}

// Unwrap returns the problem.
func (e *ShapeError) Unwrap() error { return e.Err }

// shapeError describes a shape's decoding error in JSON's terms.
func shapeError(id string, err error) error {
	var typ *json.UnmarshalTypeError
	if errors.As(err, &typ) {
		field, _, _ := strings.Cut(typ.Field, ".")
		want := "another kind of value"
		switch typ.Type.Kind() {
		case reflect.Map, reflect.Struct, reflect.Pointer:
			want = "an object"
		case reflect.Slice:
			want = "an array"
		case reflect.String:
			want = "a string"
		case reflect.Bool:
			want = "a boolean"
		}
		got := "a " + typ.Value
		switch v, _, _ := strings.Cut(typ.Value, " "); v {
		case "array", "object":
			got = "an " + v
		case "bool":
			got = "a boolean"
		case "number", "string":
			got = "a " + v
		}
		return &ShapeError{ID: id, Field: field, Err: fmt.Errorf("%s where %s is expected", got, want)}
	}
	return &ShapeError{ID: id, Err: err}
}

// shapeType is a shape as a jmespath.Type: what JMESPath reads from data
// of the shape, by the Smithy JMESPath data model (timestamps as epoch
// seconds, blobs as base64 strings, enums as their values).
type shapeType struct {
	m  *Model
	id string
}

// shape returns the shape, or nil for one the model does not define.
func (t shapeType) shape() *shape {
	if s, ok := t.m.shapes[t.id]; ok {
		return s
	}
	if t.m.prefix != "" && strings.HasPrefix(t.id, t.m.prefix) {
		return prelude(strings.TrimPrefix(t.id, t.m.prefix))
	}
	return nil
}

// prelude returns a shape of Smithy's prelude.
func prelude(name string) *shape {
	name = strings.TrimPrefix(name, "Primitive")
	switch name {
	case "String", "Blob", "Boolean", "Byte", "Short", "Integer", "Long", "Float", "Double",
		"BigInteger", "BigDecimal", "Timestamp", "Document":
		typ := strings.ToLower(name[:1]) + name[1:]
		return &shape{id: "smithy.api#" + name, typ: typ, open: name == "Document"}
	case "Unit":
		return &shape{id: "smithy.api#Unit", typ: "structure"}
	}
	return nil
}

// Kind returns the JMESPath type of the shape's data; it is unknown for a
// document and a shape the model does not define.
func (t shapeType) Kind() (jmespath.Kind, bool) {
	s := t.shape()
	if s == nil || s.open {
		return jmespath.Null, false
	}
	switch s.typ {
	case "structure", "union":
		return jmespath.Object, true
	case "map":
		return jmespath.Object, s.elem != "" // without its value's shape, a map's members are unknown
	case "list", "set":
		return jmespath.Array, true
	case "string", "enum", "blob", "character":
		return jmespath.String, true
	case "boolean":
		return jmespath.Boolean, true
	case "byte", "short", "integer", "long", "float", "double", "bigInteger", "bigDecimal", "intEnum", "timestamp":
		return jmespath.Number, true
	}
	return jmespath.Null, false
}

// Elem returns the type of a list's members or a map's values.
func (t shapeType) Elem() jmespath.Type {
	s := t.shape()
	if s == nil || s.open || s.elem == "" {
		return nil
	}
	switch s.typ {
	case "list", "set", "map":
		return shapeType{t.m, s.elem}
	}
	return nil
}

// Member returns the type of a structure's or a union's member of that
// name (exactly: data from the service has the model's member names).
func (t shapeType) Member(name string) (jmespath.Type, bool) {
	s := t.shape()
	if s == nil {
		return nil, false
	}
	for _, m := range s.members {
		if m.name == name {
			return shapeType{t.m, m.target}, true
		}
	}
	return nil, false
}

// Members returns the names of a structure's or a union's members.
func (t shapeType) Members() []string {
	s := t.shape()
	if s == nil {
		return nil
	}
	names := make([]string, len(s.members))
	for i, m := range s.members {
		names[i] = m.name
	}
	return names
}

// String returns the shape's ID (Smithy) or name (botocore).
func (t shapeType) String() string { return t.id }
