package classify

import (
	"reflect"
	"time"

	"github.com/waitable/waitable/jmespath"
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
// refers to by package jmespath's key rule with a model's member names
// (nil: none, the Go rule), or returns nil.
func resolveField(t reflect.Type, name string, names jmespath.MemberNames) []int {
	f, ok := jmespath.Lookup(t, name, names)
	if !ok {
		return nil
	}
	return f.Index
}
