package classify

import (
	"encoding/base64"
	"reflect"
	"sync"
	"sync/atomic"
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

// exportedIndexes caches exportedFields: reflect.VisibleFields allocates a
// new slice on every call, too much for a value projection per attempt.
var exportedIndexes sync.Map // reflect.Type → [][]int

// exportedFields returns the index paths of struct type t's exported,
// non-embedded fields, the fields a value projection (.*) reads.
func exportedFields(t reflect.Type) [][]int {
	if v, ok := exportedIndexes.Load(t); ok {
		return v.([][]int)
	}
	var idx [][]int
	for _, f := range reflect.VisibleFields(t) {
		if f.IsExported() && !f.Anonymous {
			idx = append(idx, f.Index)
		}
	}
	v, _ := exportedIndexes.LoadOrStore(t, idx)
	return v.([][]int)
}

// fieldCache remembers, for one field node, how its name resolved on the
// last type it met, so that a node evaluated on 1,000 elements of the same
// type looks the name up once.
type fieldCache struct {
	hit atomic.Pointer[fieldHit]
}

type fieldHit struct {
	t     reflect.Type
	index []int         // struct field, nil if none
	key   reflect.Value // map key of the map's key type, if t is a map
}

func (c *fieldCache) lookup(t reflect.Type, name string) *fieldHit {
	if h := c.hit.Load(); h != nil && h.t == t {
		return h
	}
	h := &fieldHit{t: t}
	switch {
	case !isObjectType(t):
	case t.Kind() == reflect.Struct:
		h.index = resolveField(t, name)
	default:
		h.key = reflect.ValueOf(name).Convert(t.Key())
	}
	c.hit.Store(h)
	return h
}

// fieldOf returns the member n.name of v (after deref), or null.
func (n *node) fieldOf(v reflect.Value) reflect.Value {
	v = deref(v)
	if !v.IsValid() {
		return reflect.Value{}
	}
	h := n.field.lookup(v.Type(), n.name)
	if h.key.IsValid() {
		return v.MapIndex(h.key)
	}
	if h.index == nil {
		return reflect.Value{}
	}
	if len(h.index) == 1 {
		return v.Field(h.index[0])
	}
	f, err := v.FieldByIndexErr(h.index)
	if err != nil { // through a nil embedded pointer
		return reflect.Value{}
	}
	return f
}

// structPlan lists, for one struct type and one expression, the exported
// fields to convert and the keys each one appears under.
type structPlan struct {
	fields []planField
}

type planField struct {
	index []int
	keys  []string
}

// toModel converts v to the JMESPath data model of go-jmespath (nil, bool,
// float64, string, []any, map[string]any). Struct fields appear under the
// names the expression uses for them (so "status" finds Go's Status), and
// otherwise under their tag or Go name. Conversion stops at depth 64 (a
// cycle of pointers would otherwise never end): deeper values are null.
func (e *Expr) toModel(v reflect.Value, depth int) any {
	v = deref(v)
	if !v.IsValid() || depth > 64 {
		return nil
	}
	t := v.Type()
	switch t.Kind() {
	case reflect.Bool:
		return v.Bool()
	case reflect.String:
		return v.String()
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return float64(v.Int())
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return float64(v.Uint())
	case reflect.Float32, reflect.Float64:
		return v.Float()
	case reflect.Slice, reflect.Array:
		if isBytes(t) {
			return base64.StdEncoding.EncodeToString(v.Bytes())
		}
		out := make([]any, v.Len())
		for i := range out {
			out[i] = e.toModel(v.Index(i), depth+1)
		}
		return out
	case reflect.Map:
		if t.Key().Kind() != reflect.String {
			return nil
		}
		out := make(map[string]any, v.Len())
		for it := v.MapRange(); it.Next(); {
			out[it.Key().String()] = e.toModel(it.Value(), depth+1)
		}
		return out
	case reflect.Struct:
		if t == timeType {
			tm := v.Interface().(time.Time)
			return float64(tm.Unix()) + float64(tm.Nanosecond())/1e9
		}
		p := e.plan(t)
		out := make(map[string]any, len(p.fields))
		for _, f := range p.fields {
			fv, err := v.FieldByIndexErr(f.index)
			var m any
			if err == nil {
				m = e.toModel(fv, depth+1)
			}
			for _, k := range f.keys {
				out[k] = m
			}
		}
		return out
	}
	return nil
}

// plan returns the conversion plan of struct type t for this expression.
func (e *Expr) plan(t reflect.Type) *structPlan {
	if p, ok := e.plans.Load(t); ok {
		return p.(*structPlan)
	}
	keys := map[string][]string{} // field index (as string) → keys
	for name := range e.idents {
		if idx := resolveField(t, name); idx != nil {
			k := indexKey(idx)
			keys[k] = append(keys[k], name)
		}
	}
	p := &structPlan{}
	for _, f := range reflect.VisibleFields(t) {
		if !f.IsExported() || f.Anonymous {
			continue
		}
		ks := keys[indexKey(f.Index)]
		if ks == nil {
			name := f.Name
			if tag, ok := f.Tag.Lookup("jmespath"); ok {
				name = tag
			}
			ks = []string{name}
		}
		p.fields = append(p.fields, planField{index: f.Index, keys: ks})
	}
	e.plans.Store(t, p)
	return p
}

func indexKey(idx []int) string {
	b := make([]byte, 0, 4*len(idx))
	for _, i := range idx {
		b = append(b, byte(i>>24), byte(i>>16), byte(i>>8), byte(i))
	}
	return string(b)
}
