package jmespath

import (
	"reflect"
	"testing"
	"time"
)

// TestStructByValueComplianceMirrors: on every compliance case whose given
// value has a typed Go mirror (a struct), the struct passed by value and a
// pointer to it evaluate to the same result.
func TestStructByValueComplianceMirrors(t *testing.T) {
	checked := 0
	resultCases(t, func(c resultCase) {
		if !c.mirror.IsValid() {
			return
		}
		checked++
		sameEval(t, c.name, c.e, c.mirror.Elem().Interface(), c.mirror.Interface())
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

// TestStructByValue: a struct with times, numbers and nested pointers
// evaluates the same by value and by pointer, and a path of fields on a
// pointer to a struct or on a struct allocates nothing.
func TestStructByValue(t *testing.T) {
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
	for _, expr := range []string{
		"@", "At", "Status", "Inner.Name", "Inner.Count", "List[].Count", "List[?Name].Name", "Tags.k",
		"length(List)", "Missing",
	} {
		e, err := Compile(expr)
		if err != nil {
			t.Fatal(err)
		}
		sameEval(t, expr, e, v, &v)
	}
	e, _ := Compile("@")
	sameEval(t, "time", e, v.At, &v.At)
	status, _ := Compile("Inner.Name")
	var doc any = v // boxed once, as a caller holding a struct output does
	for _, x := range []any{&v, doc} {
		if n := testing.AllocsPerRun(100, func() {
			if r, _ := status.Eval(x); r.Kind() != String {
				t.Fatal("Inner.Name is not a string")
			}
		}); n != 0 {
			t.Errorf("Eval(Inner.Name) on %T: %v allocations, want 0", x, n)
		}
	}
}
