package jmespath

import (
	"reflect"
	"strings"
	"sync"
)

// MemberNames names struct fields as a model does: given a struct type and
// one of its exported fields, it returns the member name the field stands
// for, "-" for a field that stands for no member of the model (it is
// neither listed nor found, as a field tagged `json:"-"`), or "" to keep
// the key the Go rule gives it (see the package documentation). It is
// called once per type and field of each expression; results are cached.
type MemberNames func(t reflect.Type, f reflect.StructField) string

// Field is an exported field of a struct type that is a member of the
// objects the type reads as, with Key, the key it is listed under.
type Field struct {
	reflect.StructField
	Key string
}

// Fields returns the members of struct type t, in field order, each with
// its key, by the rule of the package documentation under a model's names
// (nil: no model, the Go rule). A field promoted through an embedded
// pointer is listed: it is a member of the values whose pointer is set.
// Fields returns nil for a type that is not a struct.
func Fields(t reflect.Type, names MemberNames) []Field {
	if t == nil || t.Kind() != reflect.Struct {
		return nil
	}
	var out []Field
	for _, f := range newMemberNames(names).fields(t) {
		out = append(out, Field{StructField: f.sf, Key: f.key})
	}
	return out
}

// Lookup returns the member of struct type t that an expression's name
// finds, by the rule of the package documentation under a model's names
// (nil: no model); ok is false if the name finds none or t is not a
// struct.
func Lookup(t reflect.Type, name string, names MemberNames) (f Field, ok bool) {
	if t == nil || t.Kind() != reflect.Struct {
		return Field{}, false
	}
	fs := newMemberNames(names).fields(t)
	i := find(fs, name)
	if i < 0 {
		return Field{}, false
	}
	return Field{StructField: fs[i].sf, Key: fs[i].key}, true
}

// MemberNames returns the names the expression was compiled with
// ([WithMemberNames]), or nil.
func (e *Expr) MemberNames() MemberNames {
	if e.names == nil {
		return nil
	}
	return e.names.fn
}

// memberNames caches a MemberNames function's answers.
type memberNames struct {
	fn     MemberNames
	cache  sync.Map // reflect.Type → []structField: the members, keyed by the model
	byName sync.Map // nameKey → []int (nil: none)
}

type nameKey struct {
	t    reflect.Type
	name string
}

func newMemberNames(fn MemberNames) *memberNames {
	if fn == nil {
		return nil
	}
	return &memberNames{fn: fn}
}

// fields returns the members of struct type t with their keys: the Go
// rule's (structOf) without names, else the model's.
func (m *memberNames) fields(t reflect.Type) []structField {
	if m == nil {
		return structOf(t).fields
	}
	if fs, ok := m.cache.Load(t); ok {
		return fs.([]structField)
	}
	var fs []structField
	for _, sf := range structOf(t).fields {
		switch n := m.fn(t, sf.sf); n {
		case "-":
			continue
		case "":
		default:
			sf.key = n
		}
		fs = append(fs, sf)
	}
	got, _ := m.cache.LoadOrStore(t, fs)
	return got.([]structField)
}

// lookup finds the field an expression's name refers to on struct type t.
func (m *memberNames) lookup(t reflect.Type, name string) []int {
	if m == nil {
		return structOf(t).lookup(name)
	}
	k := nameKey{t, name}
	if idx, ok := m.byName.Load(k); ok {
		return idx.([]int)
	}
	var idx []int
	fs := m.fields(t)
	if i := find(fs, name); i >= 0 {
		idx = fs[i].index
	}
	m.byName.Store(k, idx)
	return idx
}

// find returns the index in fs of the field name finds: the field whose
// key is name (one renamed by a tag or a model before one whose key is
// its Go name), or else a field no tag renames whose Go name is name with
// its first letter upper-cased; -1 for none.
func find(fs []structField, name string) int {
	plain := -1
	for i, f := range fs {
		if f.key != name {
			continue
		}
		if f.key != f.name {
			return i
		}
		if plain < 0 {
			plain = i
		}
	}
	if plain >= 0 {
		return plain
	}
	upper := upperFirst(name)
	for i, f := range fs {
		if !f.tagged && f.name == upper {
			return i
		}
	}
	return -1
}

// unionKey returns the key of an aws-sdk-go-v2 union member type t whose
// name ends in Member<name>.
func (m *memberNames) unionKey(t reflect.Type, name string) string {
	if m == nil {
		return name
	}
	if n := m.fn(t, reflect.StructField{Name: name, Type: t.Field(0).Type}); n != "" && n != "-" {
		return n
	}
	return name
}

// goKey returns the key the Go rule gives a struct field, and whether it
// is listed at all: its jmespath tag (whatever it is: "-" too), else the
// name part of its json tag, else its Go name; the json tag "-" leaves it
// out.
func goKey(f reflect.StructField) (key string, listed bool) {
	if tag, ok := f.Tag.Lookup("jmespath"); ok {
		return tag, true
	}
	if tag, ok := f.Tag.Lookup("json"); ok {
		if tag == "-" {
			return "", false
		}
		if name, _, _ := strings.Cut(tag, ","); name != "" {
			return name, true
		}
	}
	return f.Name, true
}
