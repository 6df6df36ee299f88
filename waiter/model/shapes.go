package model

import (
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/waitable/waitable/jmespath"
)

// Shapes is the [waiter.Model] of a model document: the shapes of an
// operation's input and output. Its member names reach Go types by their
// structure: the Go type of the input (or output) stands for the Input (or
// Output) shape; a struct field stands for the member whose name finds it
// by package jmespath's Go rule (a jmespath or json tag of that name, else
// the field named so with its first letter upper-cased: member status,
// field Status), and its type for the member's target; a slice's or
// array's element for a list's member; a map's value for a map's value. A
// field of a struct that stands for a structure but for none of its
// members is no member (aws-sdk-go-v2's ResultMetadata). Types the shapes
// do not reach keep the Go rule. [LoadSmithy] and [LoadBotocoreService]
// set one as each definition's Operation.Model; build one yourself for
// shapes read another way. A Shapes is safe for concurrent use as long as
// nobody changes it; its zero value names no members (the Go rule
// throughout).
type Shapes struct {
	// Input and Output are the shape IDs of the operation's input and
	// output; empty for none.
	Input, Output string
	// Shapes are the aggregate shapes that Input and Output reach, by
	// shape ID. A target that is not among them is a simple shape (or a
	// document): it has no members.
	Shapes map[string]Shape
}

// Shape is an aggregate shape of a model, as far as member names go.
type Shape struct {
	// Type is "structure", "union", "list" (a set too) or "map".
	Type string `json:"type"`
	// Members maps a structure's or union's member names to the shape IDs
	// of their targets.
	Members map[string]string `json:"members,omitempty"`
	// Member is the shape ID of a list's member or of a map's value.
	Member string `json:"member,omitempty"`
}

// MemberNames maps the model's shapes onto the Go types input and output
// (either may be nil) as the type's documentation says. It fails if one Go
// struct type stands for two shapes whose members name its fields
// differently.
func (m *Shapes) MemberNames(input, output reflect.Type) (jmespath.MemberNames, error) {
	if m == nil {
		return nil, nil
	}
	n := &shapeNames{m: m, types: map[reflect.Type]typeNames{}, unions: map[reflect.Type]string{}}
	var errs []error
	for _, root := range []struct {
		t  reflect.Type
		id string
	}{{input, m.Input}, {output, m.Output}} {
		if root.t != nil && root.id != "" {
			errs = append(errs, n.walk(root.t, root.id)...)
		}
	}
	if len(errs) > 0 {
		return nil, errs[0]
	}
	return n.name, nil
}

// shapeNames is a Shapes mapped onto Go types.
type shapeNames struct {
	m      *Shapes
	mu     sync.Mutex
	types  map[reflect.Type]typeNames // struct types: field name → member name
	unions map[reflect.Type]string    // interface types that stand for a union → its shape ID
}

type typeNames struct {
	shape string
	keys  map[string]string
}

// walk maps shape id onto Go type t and what it reaches.
func (n *shapeNames) walk(t reflect.Type, id string) []error {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	sh, ok := n.m.Shapes[id]
	if !ok {
		return nil
	}
	switch {
	case (sh.Type == "list" || sh.Type == "set") && (t.Kind() == reflect.Slice || t.Kind() == reflect.Array):
		return n.walk(t.Elem(), sh.Member)
	case sh.Type == "map" && t.Kind() == reflect.Map:
		return n.walk(t.Elem(), sh.Member)
	case sh.Type == "union" && t.Kind() == reflect.Interface:
		n.unions[t] = id
		return nil
	case (sh.Type == "structure" || sh.Type == "union") && t.Kind() == reflect.Struct:
	default:
		return nil // the Go type is not of the shape's kind: the static checks speak of it
	}
	keys := map[string]string{}
	targets := map[string]string{}
	for _, member := range slices.Sorted(maps.Keys(sh.Members)) {
		if f, ok := jmespath.Lookup(t, member, nil); ok {
			keys[f.Name] = member
			targets[f.Name] = sh.Members[member]
		}
	}
	if have, ok := n.types[t]; ok {
		if have.shape == id || maps.Equal(have.keys, keys) {
			return nil
		}
		return []error{
			fmt.Errorf(
				"the Go type %v stands for shapes %s and %s, whose members name its fields differently (%s and %s)",
				t,
				have.shape,
				id,
				describeKeys(have.keys),
				describeKeys(keys),
			),
		}
	}
	n.types[t] = typeNames{shape: id, keys: keys}
	var errs []error
	for _, f := range jmespath.Fields(t, nil) {
		if target, ok := targets[f.Name]; ok {
			errs = append(errs, n.walk(f.Type, target)...)
		}
	}
	return errs
}

func describeKeys(keys map[string]string) string {
	var parts []string
	for _, f := range slices.Sorted(maps.Keys(keys)) {
		parts = append(parts, f+"="+keys[f])
	}
	if parts == nil {
		return "no members"
	}
	return strings.Join(parts, " ")
}

// name is the jmespath.MemberNames of the mapping.
func (n *shapeNames) name(t reflect.Type, f reflect.StructField) string {
	n.mu.Lock()
	defer n.mu.Unlock()
	if tn, ok := n.types[t]; ok {
		if k, ok := tn.keys[f.Name]; ok {
			return k
		}
		return "-"
	}
	// An aws-sdk-go-v2 union member (<Union>Member<Name>, one field
	// Value) of an interface that stands for a union: f.Name is <Name>.
	if t.Kind() != reflect.Struct || t.NumField() != 1 || t.Field(0).Name != "Value" ||
		!strings.HasSuffix(t.Name(), "Member"+f.Name) {
		return ""
	}
	for _, iface := range slices.SortedFunc(maps.Keys(n.unions), func(a, b reflect.Type) int { return strings.Compare(a.String(), b.String()) }) {
		if iface.NumMethod() == 0 ||
			!t.Implements(iface) && !reflect.PointerTo(t).Implements(iface) {
			continue
		}
		sh := n.m.Shapes[n.unions[iface]]
		for _, member := range slices.Sorted(maps.Keys(sh.Members)) {
			if member == f.Name || upperFirst(member) == f.Name {
				n.walk(t.Field(0).Type, sh.Members[member])
				return member
			}
		}
	}
	return ""
}

// upperFirst returns s with its first letter upper-cased.
func upperFirst(s string) string {
	r, size := utf8.DecodeRuneInString(s)
	if r == utf8.RuneError {
		return s
	}
	return string(unicode.ToUpper(r)) + s[size:]
}
