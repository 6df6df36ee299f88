package jmespath

import (
	"encoding/json"
	"errors"
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

// complianceDirs are the vendored compliance suites, each named for its
// source: the one go-jmespath v0.4.0 ships, and the latest of
// github.com/jmespath/jmespath.test (see the README in each).
var complianceDirs = []struct{ name, dir string }{
	{"go-jmespath-v0.4.0", "testdata/compliance"},
	{"jmespath.test", "testdata/compliance-jmespath-test"},
}

type complianceFile struct {
	name   string
	suites []complianceSuite
}

// loadCompliance reads the compliance files under dir, in order of name.
func loadCompliance(t testing.TB, dir string) []complianceFile {
	files, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no compliance files in %s: %v", dir, err)
	}
	var out []complianceFile
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
		out = append(out, complianceFile{filepath.Base(f), suites})
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

// TestCompliance runs each JMESPath compliance suite on JSON values, and
// again on typed Go mirrors of each given value (structs with pointer
// fields, typed slices), which run through the planned paths where the
// types allow. Each case is a subtest named suite/file/N.M:expression,
// N the test suite's index in the file and M the case's in the suite.
// A case whose error is "syntax" must be a *SyntaxError from Compile with
// an offset within the expression; other errors may come from Compile or
// from Search. A benchmark case (no result given) must compile and, unless
// it benchmarks only the parse, evaluate without an error.
func TestCompliance(t *testing.T) {
	for _, suite := range complianceDirs {
		t.Run(suite.name, func(t *testing.T) {
			total, passed, typed := 0, 0, 0
			for _, file := range loadCompliance(t, suite.dir) {
				t.Run(file.name, func(t *testing.T) {
					for si, s := range file.suites {
						mirror, mirrorOK := mirrorOf(s.Given)
						for ci, c := range s.Cases {
							total++
							tested := false
							ok := t.Run(fmt.Sprintf("%d.%d:%s", si, ci, c.Expression), func(t *testing.T) {
								tested = runComplianceCase(t, c.Expression, c.Result, c.Error, c.Bench, s.Given, mirror, mirrorOK)
							})
							if ok {
								passed++
							}
							if ok && tested {
								typed++
							}
						}
					}
				})
			}
			t.Logf("%s: %d of %d cases pass, %d also on typed Go mirrors", suite.name, passed, total, typed)
		})
	}
}

// runComplianceCase checks one case; it reports whether the case also ran
// on the typed mirror.
func runComplianceCase(t *testing.T, expr string, result any, wantErr, bench string, given any, mirror reflect.Value, mirrorOK bool) bool {
	e, err := Compile(expr)
	switch {
	case wantErr == "syntax":
		var se *SyntaxError
		if !errors.As(err, &se) {
			t.Fatalf("Compile: %v, want a *SyntaxError", err)
		}
		if se.Offset < 0 || se.Offset > len(expr) {
			t.Fatalf("%v: offset outside the expression", err)
		}
		return false
	case wantErr != "":
		if err == nil {
			_, err = e.Search(given)
		}
		if err == nil {
			t.Fatalf("no error, want %s", wantErr)
		}
		return false
	case err != nil:
		t.Fatal(err)
	case bench == "parse":
		return false
	}
	got, err := e.Search(given)
	if err != nil {
		t.Fatal(err)
	}
	if bench != "" {
		return false // no result given
	}
	want := canonical(t, result)
	if g := canonical(t, got); g != want {
		t.Fatalf("got %s, want %s", g, want)
	}
	if !mirrorOK {
		return false
	}
	got, err = e.Search(mirror.Interface())
	if err != nil {
		t.Fatalf("typed %s: %v", mirror.Type(), err)
	}
	if g := canonical(t, got); g != want {
		t.Fatalf("typed %s: got %s, want %s", mirror.Type(), g, want)
	}
	return true
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

// resultCase is a compliance case that gives a result, its expression
// compiled, with the suite's given value and that value's typed Go
// mirror (a pointer to it), if it has one.
type resultCase struct {
	name   string // suite/file/N/expression
	e      *Expr
	given  any
	mirror reflect.Value // not valid: the given has no mirror
	result any
}

// givens are the values the case evaluates: the given, and its mirror.
func (c resultCase) givens() []any {
	if !c.mirror.IsValid() {
		return []any{c.given}
	}
	return []any{c.given, c.mirror.Interface()}
}

// resultCases calls f on each case of the compliance suites that gives a
// result (not an error, not a benchmark).
func resultCases(t *testing.T, f func(resultCase)) {
	t.Helper()
	for _, suite := range complianceDirs {
		for _, file := range loadCompliance(t, suite.dir) {
			for si, s := range file.suites {
				mirror, _ := mirrorOf(s.Given)
				for _, c := range s.Cases {
					if c.Error != "" || c.Bench != "" {
						continue
					}
					name := fmt.Sprintf("%s/%s/%d/%s", suite.name, file.name, si, c.Expression)
					e, err := Compile(c.Expression)
					if err != nil {
						t.Fatalf("%s: %v", name, err)
					}
					f(resultCase{name: name, e: e, given: s.Given, mirror: mirror, result: c.Result})
				}
			}
		}
	}
}
