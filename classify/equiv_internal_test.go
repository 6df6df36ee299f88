package classify

import (
	"encoding/json"
	"reflect"
	"testing"
)

var comparators = []Comparator{StringEquals, BooleanEquals, AllStringEquals, AnyStringEquals}

// agree checks that the direct evaluation of a simple path gives the same
// verdict as go-jmespath on the converted value, for every comparator.
func agree(t *testing.T, e *Expr, v any, expected string) {
	t.Helper()
	rv := reflect.ValueOf(v)
	res, err := e.search(e.toModel(rv, 0))
	if err != nil {
		t.Fatalf("go-jmespath on %q: %v", e.src, err)
	}
	for _, c := range comparators {
		fast := compareSimple(e.simple, rv, c, expected)
		slow := compareModel(res, c, expected)
		if fast != slow {
			t.Fatalf("%q %s %q on %s: direct %v, go-jmespath %v (result %#v)", e.src, c, expected, jsonOf(v), fast, slow, res)
		}
	}
}

func jsonOf(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

var simplePaths = []string{
	"a", "a.b", "a.b.c", "a[0]", "a[-1]", "a[0].b", "a[]", "a[].b", "a[].b[]", "a[].b[].c",
	"a[*]", "a[*].b", "a[*].b[]", "a[*].b[0]", "a.*", "a.*.b", "a.*.b[0]", "a[][]", "a[0][0]",
	"a[].b[0].c", `"a"`, `"a"."b"`, "a.b[]", "a[*][0]",
}

var docs = []string{
	`null`, `{}`, `{"a": null}`, `{"a": "x"}`, `{"a": true}`, `{"a": 1}`, `{"a": []}`, `{"a": ["x", "x"]}`,
	`{"a": ["x", null, "x"]}`, `{"a": ["x", 1]}`, `{"a": [["x"], ["x", "x"]]}`, `{"a": [[], "x"]}`,
	`{"a": {"b": "x"}}`, `{"a": {"b": {"c": "x"}}}`, `{"a": [{"b": "x"}, {"b": "x"}]}`, `{"a": [{"b": "x"}, {"c": "x"}]}`,
	`{"a": [{"b": ["x", "y"]}, {"b": ["x"]}]}`, `{"a": [{"b": [{"c": "x"}]}, {"b": [{"c": "x"}, {"c": null}]}]}`,
	`{"a": [{"b": [[{"c": "x"}]]}]}`, `{"a": {"k1": {"b": "x"}, "k2": {"b": "x"}}}`, `{"a": {"k1": "x", "k2": "y"}}`,
	`{"a": {"k1": {"b": ["x"]}}}`, `{"a": [{"b": true}]}`, `{"a": [[["x"]]]}`, `[{"a": "x"}]`,
}

func TestSimplePathsAgreeWithGoJmespath(t *testing.T) {
	for _, p := range simplePaths {
		e, err := CompileExpr(p)
		if err != nil {
			t.Fatal(err)
		}
		if !e.Simple() {
			t.Fatalf("%q is not parsed as a simple path", p)
		}
		for _, d := range docs {
			var v any
			if err := json.Unmarshal([]byte(d), &v); err != nil {
				t.Fatal(err)
			}
			for _, want := range []string{"x", "true"} {
				agree(t, e, v, want)
			}
		}
	}
}

// TestSimplePathsOnGoValues runs the same comparison on typed Go values,
// where the direct evaluator follows pointers and typed enums itself.
func TestSimplePathsOnGoValues(t *testing.T) {
	type Name string
	type C struct{ C *Name }
	type B struct {
		B  []C
		BB *bool
	}
	x, y := Name("x"), Name("y")
	tr := true
	values := []any{
		struct{ A []B }{},
		&struct{ A []B }{A: []B{{B: []C{{&x}, {nil}, {&x}}}, {BB: &tr}}},
		&struct{ A []*B }{A: []*B{nil, {B: []C{{&y}}}}},
		struct{ A map[string]C }{A: map[string]C{"k": {&x}}},
		struct{ A [2]Name }{A: [2]Name{"x", "x"}},
		struct{ A *[]Name }{A: &[]Name{"x"}},
	}
	for _, p := range append(simplePaths, "A", "A[].B[].C", "A[*].BB", "A.*.C", "A[]", "A[0].B[0].C") {
		e, err := CompileExpr(p)
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range values {
			agree(t, e, v, "x")
			agree(t, e, v, "true")
		}
	}
}

// FuzzMatcher evaluates compiled matchers over arbitrary JSON documents:
// no panic, and simple paths agree with go-jmespath.
func FuzzMatcher(f *testing.F) {
	for i, p := range simplePaths {
		f.Add(p, docs[i%len(docs)], "x")
	}
	f.Add("length(a) == `0`", `{"a": []}`, "true")
	f.Add("@(foo)", `{}`, "x")
	f.Add("a[?b == 'x'].c", `{"a": [{"b": "x", "c": "y"}]}`, "y")
	f.Fuzz(func(t *testing.T, path, doc, expected string) {
		e, err := CompileExpr(path)
		if err != nil {
			return
		}
		var v any
		if json.Unmarshal([]byte(doc), &v) != nil {
			return
		}
		for _, c := range comparators {
			e.compare(reflect.ValueOf(v), c, expected) // must not panic
		}
		if e.Simple() {
			agree(t, e, v, expected)
		}
	})
}
