package classify

import (
	"reflect"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"
)

// The types of the Smithy JMESPath data model, as far as the static checks
// (check.go) need them; package jmespath reads the values.

var timeType = reflect.TypeFor[time.Time]()

// derefType follows pointer types (not interfaces: their dynamic type is
// unknown until run time).
func derefType(t reflect.Type) reflect.Type {
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t
}

func isBytes(t reflect.Type) bool {
	return t.Kind() == reflect.Slice && t.Elem().Kind() == reflect.Uint8
}

// isListType reports whether values of t are JMESPath arrays.
func isListType(t reflect.Type) bool {
	return (t.Kind() == reflect.Slice && !isBytes(t)) || t.Kind() == reflect.Array
}

// isObjectType reports whether values of t are JMESPath objects.
func isObjectType(t reflect.Type) bool {
	return (t.Kind() == reflect.Struct && t != timeType) || (t.Kind() == reflect.Map && t.Key().Kind() == reflect.String)
}

// resolveField finds the field of struct type t that an expression's name
// refers to, by the rules package jmespath reads values with, or returns
// nil: the field tagged `jmespath:"name"`, else the untagged exported
// field of that name, else the one with the name's first letter
// upper-cased. It repeats jmespath's lookup rather than calling it, so that
// package jmespath stays free of this module's other packages (it is
// usable alone) and exports nothing for this one;
// TestResolveFieldAgreesWithJMESPath holds the two to the same answers.
func resolveField(t reflect.Type, name string) []int {
	if t.Kind() != reflect.Struct {
		return nil
	}
	fields := fieldsOf(t)
	for _, f := range fields {
		if f.key == name && f.key != f.Name {
			return f.Index
		}
	}
	for _, want := range []string{name, upperFirst(name)} {
		for _, f := range fields {
			if f.Name == want && f.key == f.Name {
				return f.Index
			}
		}
	}
	return nil
}

// keyedField is an exported, non-embedded field of a struct and the key
// an expression's name finds it by: its jmespath tag, else its Go name.
type keyedField struct {
	reflect.StructField
	key string
}

var structFields sync.Map // reflect.Type → []keyedField

// fieldsOf returns the keyed fields of struct type t, in order.
func fieldsOf(t reflect.Type) []keyedField {
	if fs, ok := structFields.Load(t); ok {
		return fs.([]keyedField)
	}
	var fs []keyedField
	for _, f := range reflect.VisibleFields(t) {
		if !f.IsExported() || f.Anonymous {
			continue
		}
		key := f.Name
		if tag, ok := f.Tag.Lookup("jmespath"); ok {
			key = tag
		}
		fs = append(fs, keyedField{f, key})
	}
	got, _ := structFields.LoadOrStore(t, fs)
	return got.([]keyedField)
}

func upperFirst(s string) string {
	r, n := utf8.DecodeRuneInString(s)
	if r == utf8.RuneError || unicode.IsUpper(r) {
		return s
	}
	return string(unicode.ToUpper(r)) + s[n:]
}
