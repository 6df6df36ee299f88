package classify

import (
	"encoding/base64"
	"reflect"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"
)

// The Smithy JMESPath data model for Go values (the specification's table
// "JMESPath data model"), as this package reads them:
//
//	Go value                                 JMESPath
//	nil pointer, nil interface               null
//	bool                                     boolean
//	string and string kinds (typed enums)    string
//	[]byte                                   string (standard base64)
//	ints, uints, floats                      number
//	time.Time                                number: epoch seconds with fraction
//	slice, array (a nil slice too)           array (a nil slice is [], not null)
//	map with string keys (a nil map too)     object
//	struct                                   object of its exported fields
//	anything else (chan, func, complex)      null
//
// A nil slice reads as an empty array because that is what aws-sdk-go-v2's
// generated waiters do (they compute len() of the Go slice), and real
// waiters rely on it: length(DBInstances) == `0` must hold when the SDK
// left DBInstances nil.
//
// A struct field is found by the name an expression uses: a field tagged
// `jmespath:"name"` first, then the exported field of that exact name, then
// the exported field whose name is the expression's with its first letter
// upper-cased (Smithy's "status" member is aws-sdk-go-v2's Status field).

var timeType = reflect.TypeFor[time.Time]()

// deref follows pointers and interfaces; a nil one gives the invalid Value,
// which stands for null.
func deref(v reflect.Value) reflect.Value {
	for v.IsValid() && (v.Kind() == reflect.Pointer || v.Kind() == reflect.Interface) {
		if v.IsNil() {
			return reflect.Value{}
		}
		v = v.Elem()
	}
	return v
}

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

// asString returns v as a JMESPath string, if it is one.
func asString(v reflect.Value) (string, bool) {
	v = deref(v)
	if !v.IsValid() {
		return "", false
	}
	if v.Kind() == reflect.String {
		return v.String(), true
	}
	if isBytes(v.Type()) {
		return base64.StdEncoding.EncodeToString(v.Bytes()), true
	}
	return "", false
}

// fieldKey identifies the resolution of one name on one struct type.
type fieldKey struct {
	t    reflect.Type
	name string
}

// fieldIndexes caches resolveField: struct types and names are few, and
// reflect's lookups by name are slow.
var fieldIndexes sync.Map // fieldKey → []int (nil: no such field)

// resolveField finds the field of struct type t that an expression's name
// refers to (see the data model above), or returns nil.
func resolveField(t reflect.Type, name string) []int {
	k := fieldKey{t, name}
	if idx, ok := fieldIndexes.Load(k); ok {
		return idx.([]int)
	}
	idx := lookupField(t, name)
	fieldIndexes.Store(k, idx)
	return idx
}

func lookupField(t reflect.Type, name string) []int {
	fields := reflect.VisibleFields(t)
	for _, f := range fields {
		if tag, ok := f.Tag.Lookup("jmespath"); ok && tag == name && f.IsExported() {
			return f.Index
		}
	}
	upper := upperFirst(name)
	for _, want := range []string{name, upper} {
		for _, f := range fields {
			if f.Name == want && f.IsExported() && !f.Anonymous {
				if _, tagged := f.Tag.Lookup("jmespath"); !tagged {
					return f.Index
				}
			}
		}
	}
	return nil
}

func upperFirst(s string) string {
	r, n := utf8.DecodeRuneInString(s)
	if r == utf8.RuneError || unicode.IsUpper(r) {
		return s
	}
	return string(unicode.ToUpper(r)) + s[n:]
}
