package jmespath

import (
	"reflect"
	"sync"
)

// MemberNames names struct fields as a model does: given a struct type and
// one of its exported fields, it returns the member name the field stands
// for, or "" to keep the default (the field's jmespath tag or Go name).
// It is called once per type and field; results are cached.
type MemberNames func(t reflect.Type, f reflect.StructField) string

// memberNames caches a MemberNames function's answers.
type memberNames struct {
	fn    MemberNames
	cache sync.Map // reflect.Type → []string, keys in field order
}

// key returns the key under which field f of struct type t is listed.
func (m *memberNames) key(t reflect.Type, f structField) string {
	if m == nil {
		return f.key
	}
	keys, ok := m.cache.Load(t)
	if !ok {
		s := structOf(t)
		ks := make(map[string]string, len(s.fields))
		for _, sf := range s.fields {
			k := sf.key
			if n := m.fn(t, t.FieldByIndex(sf.index)); n != "" {
				k = n
			}
			ks[sf.name] = k
		}
		keys, _ = m.cache.LoadOrStore(t, ks)
	}
	return keys.(map[string]string)[f.name]
}

// field returns the Go field that member name stands for on t, if the
// names say so.
func (m *memberNames) field(t reflect.Type, name string) (string, bool) {
	if m == nil {
		return "", false
	}
	for _, f := range structOf(t).fields {
		if m.key(t, f) == name {
			return f.name, true
		}
	}
	return "", false
}

// unionKey returns the key of an aws-sdk-go-v2 union member type t whose
// name ends in Member<name>.
func (m *memberNames) unionKey(t reflect.Type, name string) string {
	if m == nil {
		return name
	}
	if n := m.fn(t, reflect.StructField{Name: name, Type: t.Field(0).Type}); n != "" {
		return n
	}
	return name
}
