package classify

import (
	"reflect"
	"testing"

	"github.com/waitable/waitable/jmespath"
)

// TestExprRule: an expression's lookup and fields are the rule it runs by,
// with its member names.
func TestExprRule(t *testing.T) {
	type Out struct {
		Status string
		Meta   string
	}
	names := func(_ reflect.Type, f reflect.StructField) string {
		return map[string]string{"Status": "status", "Meta": "-"}[f.Name]
	}
	e, err := CompileExpr("status", jmespath.WithMemberNames(names))
	if err != nil {
		t.Fatal(err)
	}
	typ := reflect.TypeFor[Out]()
	if idx := e.lookup(typ, "status"); len(idx) != 1 || idx[0] != 0 {
		t.Errorf("lookup(status) = %v, want [0]", idx)
	}
	if idx := e.lookup(typ, "Meta"); idx != nil {
		t.Errorf("lookup(Meta) = %v, want none: the model says it is no member", idx)
	}
	if fs := e.fields(typ); len(fs) != 1 || fs[0].Key != "status" {
		t.Errorf("fields = %+v, want status only", fs)
	}
	plain, _ := CompileExpr("Meta")
	if idx := plain.lookup(typ, "Meta"); len(idx) != 1 || idx[0] != 1 {
		t.Errorf("without names: lookup(Meta) = %v, want [1]", idx)
	}
}

// TestIODocKeysStay: a model's names do not rename the {input, output}
// document an inputOutput matcher reads.
func TestIODocKeysStay(t *testing.T) {
	type In struct{ Name string }
	upper := func(_ reflect.Type, f reflect.StructField) string { return "X" + f.Name }
	set, err := Compile[*In, *In]([]Acceptor{
		{State: Success, Matcher: OnInputOutput("input.XName == output.XName", BooleanEquals, "true")},
	}, WithMemberNames(upper))
	if err != nil {
		t.Fatal(err)
	}
	if m := set.Match(&In{"a"}, &In{"a"}, nil); m.Index != 0 || m.Err != nil {
		t.Errorf("Match = %+v, want acceptor 0", m)
	}
}
