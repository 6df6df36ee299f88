package jmespath

import (
	"math/big"
	"reflect"
	"testing"
	"time"
)

// TestByPointerComplianceMirrors: on every compliance case whose given
// value has a typed Go mirror (a struct), the struct passed by value and a
// pointer to it evaluate to the same result, and EqualString answers the
// same on both.
func TestByPointerComplianceMirrors(t *testing.T) {
	checked := 0
	resultCases(t, func(c resultCase) {
		if !c.mirror.IsValid() || !ByPointer(c.mirror.Type().Elem()) {
			return
		}
		checked++
		byValue, byPointer := c.mirror.Elem().Interface(), c.mirror.Interface()
		sameEval(t, c.name, c.e, byValue, byPointer)
		for _, want := range wantsFor([]any{c.result}) {
			v, errV := c.e.EqualString(byValue, want)
			p, errP := c.e.EqualString(byPointer, want)
			if v != p || (errV == nil) != (errP == nil) {
				t.Errorf("%s: EqualString(%q) by value %v (%v), by pointer %v (%v)", c.name, want, v, errV, p, errP)
			}
		}
	})
	if checked == 0 {
		t.Fatal("no compliance case has a struct mirror")
	}
	t.Logf("%d cases checked", checked)
}

// sameEval fails unless e evaluates byValue and byPointer to the same
// result.
func sameEval(t *testing.T, name string, e *Expr, byValue, byPointer any) {
	t.Helper()
	v, errV := e.Search(byValue)
	p, errP := e.Search(byPointer)
	if (errV == nil) != (errP == nil) || !reflect.DeepEqual(v, p) {
		t.Errorf("%s: by value %#v (%v), by pointer %#v (%v)", name, v, errV, p, errP)
	}
}

type byPointerDoc struct{ A int }

func (*byPointerDoc) MarshalSmithyDocument() ([]byte, error) { return []byte(`{"a": 1}`), nil }

// TestByPointerTypes: the types a pointer to which reads otherwise (a big
// number, a Smithy document) and those that are no structs are not read
// by pointer; a struct with times, numbers and nested pointers is, and
// evaluates the same both ways.
func TestByPointerTypes(t *testing.T) {
	for _, c := range []struct {
		t    reflect.Type
		want bool
	}{
		{reflect.TypeFor[big.Int](), false},
		{reflect.TypeFor[big.Float](), false},
		{reflect.TypeFor[byPointerDoc](), false},
		{reflect.TypeFor[document](), false}, // a document by value too
		{reflect.TypeFor[string](), false},
		{reflect.TypeFor[map[string]any](), false},
		{reflect.TypeFor[[]int](), false},
		{reflect.TypeFor[*struct{ A int }](), false},
		{nil, false},
		{reflect.TypeFor[time.Time](), true},
		{reflect.TypeFor[modelled](), true},
		{reflect.TypeFor[struct{ A int }](), true},
	} {
		if got := ByPointer(c.t); got != c.want {
			t.Errorf("ByPointer(%v) = %v, want %v", c.t, got, c.want)
		}
	}
	type inner struct {
		Name  *string
		Count int32
	}
	type out struct {
		At     time.Time
		Status string
		Inner  *inner
		List   []inner
		Tags   map[string]string
	}
	name := "n"
	v := out{At: time.Unix(1700000000, 5e8), Status: "ready", Inner: &inner{Name: &name, Count: 3},
		List: []inner{{Count: 1}, {Name: &name}}, Tags: map[string]string{"k": "v"}}
	for _, expr := range []string{"@", "At", "Status", "Inner.Name", "Inner.Count", "List[].Count", "List[?Name].Name", "Tags.k", "length(List)", "Missing"} {
		e, err := Compile(expr)
		if err != nil {
			t.Fatal(err)
		}
		sameEval(t, expr, e, v, &v)
	}
	e, _ := Compile("@")
	sameEval(t, "time", e, v.At, &v.At)
	status, _ := Compile("Status")
	if n := testing.AllocsPerRun(100, func() {
		if ok, _ := status.EqualString(&v, "ready"); !ok {
			t.Fatal("Status is not ready")
		}
	}); n != 0 {
		t.Errorf("EqualString on a pointer to a struct: %v allocations, want 0", n)
	}
}
