package jmespath

import (
	"encoding/base64"
	"encoding/json"
	"math"
	"math/big"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"
)

// Kind is the type of a JMESPath value.
type Kind uint8

// The JMESPath types.
const (
	Null Kind = iota
	Boolean
	Number
	String
	Array
	Object
)

var kindNames = [...]string{"null", "boolean", "number", "string", "array", "object"}

// String returns the type's name as the JMESPath type() function does.
func (k Kind) String() string { return kindNames[k] }

// goVal is a composite Go value (struct, map with string keys, slice or
// array) read lazily: nothing under it is converted until an expression
// reaches it.
type goVal struct {
	v     reflect.Value
	names *memberNames
}

// expref is a &expression, an argument of sort_by and the like.
type expref struct{ n *node }

var (
	timeType     = reflect.TypeFor[time.Time]()
	bigIntType   = reflect.TypeFor[big.Int]()
	bigFloatType = reflect.TypeFor[big.Float]()
	docType      = reflect.TypeFor[interface{ MarshalSmithyDocument() ([]byte, error) }]()
)

// fromGo returns v's value in the data model: a scalar as bool, float64 or
// string, a composite as a goVal, null as nil.
func fromGo(v reflect.Value, names *memberNames) any {
	for v.IsValid() && (v.Kind() == reflect.Pointer || v.Kind() == reflect.Interface) {
		if v.IsNil() {
			return nil
		}
		if v.Type().Implements(docType) {
			return fromDocument(v)
		}
		if v.Kind() == reflect.Pointer && (v.Type().Elem() == bigIntType || v.Type().Elem() == bigFloatType) {
			return bigNumber(v)
		}
		v = v.Elem()
	}
	if !v.IsValid() {
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
	case reflect.Float32:
		return float32to64(float32(v.Float()))
	case reflect.Float64:
		return v.Float()
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			return base64.StdEncoding.EncodeToString(v.Bytes())
		}
		return goVal{v, names}
	case reflect.Array:
		return goVal{v, names}
	case reflect.Map:
		if t.Key().Kind() != reflect.String {
			return nil
		}
		return goVal{v, names}
	case reflect.Struct:
		switch t {
		case timeType:
			return epochSeconds(v)
		case bigIntType, bigFloatType:
			if v.CanAddr() {
				return bigNumber(v.Addr())
			}
			return nil
		}
		if name, ok := unionMember(t); ok {
			return unionVal{name: names.unionKey(t, name), v: v.Field(0), names: names}
		}
		return goVal{v, names}
	}
	return nil
}

// epochSeconds reads a time.Time as epoch seconds with fraction, in place
// where v is addressable.
func epochSeconds(v reflect.Value) float64 {
	var tm time.Time
	if v.CanAddr() {
		tm = *v.Addr().Interface().(*time.Time)
	} else {
		tm = v.Interface().(time.Time)
	}
	return float64(tm.Unix()) + float64(tm.Nanosecond())/1e9
}

// float32to64 widens f to the float64 nearest its shortest decimal, so
// that a float32 1.2 compares equal to the literal 1.2.
func float32to64(f float32) float64 {
	if math.IsInf(float64(f), 0) || math.IsNaN(float64(f)) {
		return float64(f)
	}
	var buf [32]byte // the shortest decimal of a float32 fits, on the stack
	x, _ := strconv.ParseFloat(string(strconv.AppendFloat(buf[:0], float64(f), 'g', -1, 32)), 64)
	return x
}

func bigNumber(p reflect.Value) any {
	switch b := p.Interface().(type) {
	case *big.Int:
		f, _ := new(big.Float).SetInt(b).Float64()
		return f
	case *big.Float:
		f, _ := b.Float64()
		return f
	}
	return nil
}

// fromDocument reads a Smithy document (smithy-go's document.Interface)
// as the JSON it marshals to.
func fromDocument(v reflect.Value) any {
	data, err := v.Interface().(interface{ MarshalSmithyDocument() ([]byte, error) }).MarshalSmithyDocument()
	if err != nil {
		return nil
	}
	var x any
	d := json.NewDecoder(strings.NewReader(string(data)))
	d.UseNumber()
	if d.Decode(&x) != nil {
		return nil
	}
	return fromJSON(x)
}

// fromJSON turns encoding/json's json.Number into float64 throughout.
func fromJSON(x any) any {
	switch x := x.(type) {
	case json.Number:
		f, _ := x.Float64()
		return f
	case []any:
		for i := range x {
			x[i] = fromJSON(x[i])
		}
	case map[string]any:
		for k := range x {
			x[k] = fromJSON(x[k])
		}
	}
	return x
}

// unionVal is an aws-sdk-go-v2 union member: a struct named
// <Union>Member<Name> whose one field is Value. It reads as an object of
// one key.
type unionVal struct {
	name  string
	v     reflect.Value
	names *memberNames
}

func unionMember(t reflect.Type) (string, bool) {
	if t.NumField() != 1 || t.Field(0).Name != "Value" {
		return "", false
	}
	i := strings.LastIndex(t.Name(), "Member")
	if i < 0 || i+len("Member") == len(t.Name()) {
		return "", false
	}
	return t.Name()[i+len("Member"):], true
}

// kindOf returns the JMESPath type of a data model value.
func kindOf(x any) Kind {
	switch x := x.(type) {
	case nil:
		return Null
	case bool:
		return Boolean
	case float64:
		return Number
	case string:
		return String
	case []any:
		return Array
	case map[string]any, unionVal:
		return Object
	case goVal:
		switch x.v.Kind() {
		case reflect.Slice, reflect.Array:
			return Array
		}
		return Object
	case expref:
		return Null
	}
	return Null
}

// arrayLen returns the length of an array value.
func arrayLen(x any) int {
	switch x := x.(type) {
	case []any:
		return len(x)
	case goVal:
		return x.v.Len()
	}
	return 0
}

// arrayAt returns element i of an array value.
func arrayAt(x any, i int) any {
	switch x := x.(type) {
	case []any:
		return x[i]
	case goVal:
		return fromGo(x.v.Index(i), x.names)
	}
	return nil
}

// field returns member name of an object value, or null.
func field(x any, name string) any {
	switch x := x.(type) {
	case map[string]any:
		return x[name]
	case unionVal:
		if name == x.name || strings.EqualFold(name, x.name) && upperFirst(name) == upperFirst(x.name) {
			return fromGo(x.v, x.names)
		}
	case goVal:
		switch x.v.Kind() {
		case reflect.Map:
			v := x.v.MapIndex(reflect.ValueOf(name).Convert(x.v.Type().Key()))
			return fromGo(v, x.names)
		case reflect.Struct:
			idx := x.names.lookup(x.v.Type(), name)
			if idx == nil {
				return nil
			}
			f, err := x.v.FieldByIndexErr(idx)
			if err != nil {
				return nil
			}
			return fromGo(f, x.names)
		}
	}
	return nil
}

// eachMember calls yield with every key and value of an object value, in
// a stable order (a struct's field order, a map's sorted keys).
func eachMember(x any, yield func(string, any) bool) {
	switch x := x.(type) {
	case map[string]any:
		for _, k := range sortedKeys(x) {
			if !yield(k, x[k]) {
				return
			}
		}
	case unionVal:
		yield(x.name, fromGo(x.v, x.names))
	case goVal:
		switch x.v.Kind() {
		case reflect.Map:
			keys := x.v.MapKeys()
			strs := make([]string, len(keys))
			for i, k := range keys {
				strs[i] = k.String()
			}
			order := sortIndex(strs)
			for _, i := range order {
				if !yield(strs[i], fromGo(x.v.MapIndex(keys[i]), x.names)) {
					return
				}
			}
		case reflect.Struct:
			for _, f := range x.names.fields(x.v.Type()) {
				fv, err := x.v.FieldByIndexErr(f.index)
				if err != nil {
					continue
				}
				if !yield(f.key, fromGo(fv, x.names)) {
					return
				}
			}
		}
	}
}

// countMembers returns the number of fields of v (a struct of type t)
// that are members: those promoted through a nil embedded pointer are not.
func countMembers(v reflect.Value, names *memberNames) int {
	fs := names.fields(v.Type())
	if !structOf(v.Type()).deep {
		return len(fs)
	}
	n := 0
	for _, f := range fs {
		if _, err := v.FieldByIndexErr(f.index); err == nil {
			n++
		}
	}
	return n
}

// structInfo is what this package knows of one struct type.
type structInfo struct {
	fields []structField // the members by the Go rule, in order
	deep   bool          // some field is promoted from an embedded struct
	byName sync.Map      // name → []int (nil: none)
}

type structField struct {
	name   string // Go name
	key    string // the key: a model's member name, or the Go rule's
	tagged bool   // a tag gives the field another key than its Go name
	index  []int
	sf     reflect.StructField // as reflect.VisibleFields gives it: Index is the whole path
}

var structs sync.Map // reflect.Type → *structInfo

// structOf returns what the Go rule makes of struct type t: its exported,
// non-embedded fields (promoted ones too) but those tagged `json:"-"`, each
// with its key.
func structOf(t reflect.Type) *structInfo {
	if s, ok := structs.Load(t); ok {
		return s.(*structInfo)
	}
	s := &structInfo{}
	for _, f := range reflect.VisibleFields(t) {
		if !f.IsExported() || f.Anonymous {
			continue
		}
		key, listed := goKey(f)
		if !listed {
			continue
		}
		s.fields = append(s.fields, structField{name: f.Name, key: key, tagged: key != f.Name, index: f.Index, sf: f})
		s.deep = s.deep || len(f.Index) > 1
	}
	got, _ := structs.LoadOrStore(t, s)
	return got.(*structInfo)
}

// lookup finds the field an expression's name refers to by the Go rule.
func (s *structInfo) lookup(name string) []int {
	if idx, ok := s.byName.Load(name); ok {
		return idx.([]int)
	}
	var idx []int
	if i := find(s.fields, name); i >= 0 {
		idx = s.fields[i].index
	}
	s.byName.Store(name, idx)
	return idx
}

func upperFirst(s string) string {
	r, n := utf8.DecodeRuneInString(s)
	if r == utf8.RuneError || unicode.IsUpper(r) {
		return s
	}
	return string(unicode.ToUpper(r)) + s[n:]
}
