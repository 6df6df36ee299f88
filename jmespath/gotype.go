package jmespath

import (
	"reflect"
	"strings"
)

// GoType returns the static type of Go values of type t as e reads them:
// through the data model of the package documentation, with a struct's
// members found and listed by the same key rule as an evaluation's (with
// e's member names, given by [WithMemberNames], if any). A nil t, an interface type and
// a Smithy document (a type with a MarshalSmithyDocument method) are of
// unknown type: nothing read from them is checked.
func (e *Expr) GoType(t reflect.Type) Type { return goTypeOf(t, e.names) }

// goType is a Go type other than a pointer, an interface or a document.
type goType struct {
	t     reflect.Type
	kind  Kind
	names *memberNames
	union string // the key of an aws-sdk-go-v2 union member
}

func goTypeOf(t reflect.Type, names *memberNames) Type {
	for t != nil && (t.Kind() == reflect.Pointer || t.Kind() == reflect.Interface) {
		if t.Kind() == reflect.Interface || t.Implements(docType) {
			return unknown
		}
		if e := t.Elem(); e == bigIntType || e == bigFloatType {
			return goType{t: e, kind: Number}
		}
		t = t.Elem()
	}
	if t == nil || reflect.PointerTo(t).Implements(docType) {
		return unknown // a document: read as the JSON it marshals to
	}
	g := goType{t: t, kind: Null, names: names}
	switch t.Kind() {
	case reflect.Bool:
		g.kind = Boolean
	case reflect.String:
		g.kind = String
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64:
		g.kind = Number
	case reflect.Slice:
		g.kind = Array
		if t.Elem().Kind() == reflect.Uint8 {
			g.kind = String
		}
	case reflect.Array:
		g.kind = Array
	case reflect.Map:
		if t.Key().Kind() == reflect.String {
			g.kind = Object
		}
	case reflect.Struct:
		switch t {
		case timeType, bigIntType, bigFloatType:
			g.kind = Number
		default:
			g.kind = Object
			if name, ok := unionMember(t); ok {
				g.union = names.unionKey(t, name)
			}
		}
	}
	return g
}

// Kind returns the type's JMESPath type.
func (g goType) Kind() (Kind, bool) { return g.kind, true }

// Elem returns a slice's, an array's or a map's element type.
func (g goType) Elem() Type {
	switch {
	case g.kind == Array, g.kind == Object && g.t.Kind() == reflect.Map:
		return goTypeOf(g.t.Elem(), g.names)
	}
	return nil
}

// Member returns the type of the field name finds on a struct.
func (g goType) Member(name string) (Type, bool) {
	if g.kind != Object || g.t.Kind() != reflect.Struct {
		return nil, false
	}
	if g.union != "" {
		if name == g.union || strings.EqualFold(name, g.union) && upperFirst(name) == upperFirst(g.union) {
			return goTypeOf(g.t.Field(0).Type, g.names), true
		}
		return nil, false
	}
	idx := g.names.lookup(g.t, name)
	if idx == nil {
		return nil, false
	}
	return goTypeOf(g.t.FieldByIndex(idx).Type, g.names), true
}

// Members returns the keys of a struct's fields, as keys() lists them.
func (g goType) Members() []string {
	if g.kind != Object || g.t.Kind() != reflect.Struct {
		return nil
	}
	if g.union != "" {
		return []string{g.union}
	}
	fs := g.names.fields(g.t)
	keys := make([]string, len(fs))
	for i, f := range fs {
		keys[i] = f.key
	}
	return keys
}

// String returns the Go type.
func (g goType) String() string { return g.t.String() }
