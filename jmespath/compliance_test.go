package jmespath

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

type complianceSuite struct {
	Given any `json:"given"`
	Cases []struct {
		Expression string `json:"expression"`
		Result     any    `json:"result"`
		Error      string `json:"error"`
		Bench      string `json:"bench"`
	} `json:"cases"`
}

func loadCompliance(t testing.TB) map[string][]complianceSuite {
	files, err := filepath.Glob("testdata/compliance/*.json")
	if err != nil || len(files) == 0 {
		t.Fatalf("no compliance files: %v", err)
	}
	out := map[string][]complianceSuite{}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var suites []complianceSuite
		d := json.NewDecoder(strings.NewReader(string(data)))
		d.UseNumber()
		if err := d.Decode(&suites); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		for i := range suites {
			suites[i].Given = fromJSON(suites[i].Given)
			for j := range suites[i].Cases {
				suites[i].Cases[j].Result = fromJSON(suites[i].Cases[j].Result)
			}
		}
		out[filepath.Base(f)] = suites
	}
	return out
}

func canonical(t testing.TB, x any) string {
	b, err := json.Marshal(x)
	if err != nil {
		t.Fatalf("marshal %v: %v", x, err)
	}
	return string(b)
}

// TestCompliance runs the JMESPath compliance suite on JSON values, and
// again on typed Go mirrors of each given value (structs with pointer
// fields, typed slices), which run through the planned paths where the
// types allow.
func TestCompliance(t *testing.T) {
	total, typed := 0, 0
	for file, suites := range loadCompliance(t) {
		for si, s := range suites {
			mirror, mirrorOK := mirrorOf(s.Given)
			for _, c := range s.Cases {
				total++
				name := fmt.Sprintf("%s/%d/%s", file, si, c.Expression)
				e, err := Compile(c.Expression)
				if c.Error != "" {
					if err == nil {
						_, err = e.Search(s.Given)
					}
					if err == nil {
						t.Errorf("%s: no error, want %s", name, c.Error)
					}
					continue
				}
				if err != nil {
					t.Errorf("%s: %v", name, err)
					continue
				}
				got, err := e.Search(s.Given)
				if err != nil {
					t.Errorf("%s: %v", name, err)
					continue
				}
				want := canonical(t, c.Result)
				if g := canonical(t, got); g != want {
					t.Errorf("%s: got %s, want %s", name, g, want)
				}
				if !mirrorOK {
					continue
				}
				typed++
				if os.Getenv("JPDEBUG") != "" {
					fmt.Fprintln(os.Stderr, name)
				}
				got, err = e.Search(mirror.Interface())
				if err != nil {
					t.Errorf("%s (typed): %v", name, err)
					continue
				}
				if g := canonical(t, got); g != want {
					t.Errorf("%s (typed %s): got %s, want %s", name, mirror.Type(), g, want)
				}
			}
		}
	}
	t.Logf("%d cases, %d also on typed Go mirrors", total, typed)
}

// mirrorOf builds a typed Go value equal to x in the data model: a pointer
// to a struct whose fields (sorted by key, tagged with it) are pointers,
// slices of one element type where the elements share a type. ok is false
// for a given value that is not an object.
func mirrorOf(x any) (reflect.Value, bool) {
	m, ok := x.(map[string]any)
	if !ok {
		return reflect.Value{}, false
	}
	v := mirror(m)
	p := reflect.New(v.Type())
	p.Elem().Set(v)
	return p, true
}

var anyType = reflect.TypeFor[any]()

func mirror(x any) reflect.Value {
	switch x := x.(type) {
	case nil:
		return reflect.Zero(anyType)
	case bool, float64, string:
		return reflect.ValueOf(x)
	case []any:
		elems := make([]reflect.Value, len(x))
		var et reflect.Type
		for i, e := range x {
			elems[i] = mirror(e)
			if i == 0 {
				et = elems[i].Type()
			} else if et != elems[i].Type() {
				et = anyType
			}
		}
		if et == nil {
			et = anyType
		}
		if et.Kind() == reflect.Struct {
			et = reflect.PointerTo(et)
		}
		s := reflect.MakeSlice(reflect.SliceOf(et), len(x), len(x))
		for i, e := range elems {
			s.Index(i).Set(pointerIf(e, et))
		}
		return s
	case map[string]any:
		keys := slices.Sorted(func(yield func(string) bool) {
			for k := range x {
				if !yield(k) {
					return
				}
			}
		})
		fields := make([]reflect.StructField, len(keys))
		vals := make([]reflect.Value, len(keys))
		for i, k := range keys {
			vals[i] = mirror(x[k])
			ft := vals[i].Type()
			switch ft.Kind() {
			case reflect.Bool, reflect.Float64, reflect.String, reflect.Struct:
				ft = reflect.PointerTo(ft)
			}
			fields[i] = reflect.StructField{Name: fmt.Sprintf("F%d", i), Type: ft, Tag: reflect.StructTag(fmt.Sprintf(`jmespath:%q`, k))}
		}
		v := reflect.New(reflect.StructOf(fields)).Elem()
		for i := range keys {
			v.Field(i).Set(pointerIf(vals[i], fields[i].Type))
		}
		return v
	}
	panic(fmt.Sprintf("mirror of %T", x))
}

func pointerIf(v reflect.Value, t reflect.Type) reflect.Value {
	if t.Kind() == reflect.Pointer && v.Type() != t {
		p := reflect.New(v.Type())
		p.Elem().Set(v)
		return p
	}
	if t == anyType && v.Kind() != reflect.Interface {
		out := reflect.New(anyType).Elem()
		if v.IsValid() {
			out.Set(v)
		}
		return out
	}
	return v
}
