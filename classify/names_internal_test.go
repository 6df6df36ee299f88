package classify

import (
	"reflect"
	"strings"
	"testing"

	"github.com/waitable/waitable/jmespath"
)

// TestExprRule: an expression is checked by the rule it runs by, with its
// member names: a member is found by its model name, a field the model
// says is no member is not, and suggestions are model names.
func TestExprRule(t *testing.T) {
	type Out struct {
		Status string
		Meta   string
	}
	names := func(_ reflect.Type, f reflect.StructField) string {
		return map[string]string{"Status": "status", "Meta": "-"}[f.Name]
	}
	typ := reflect.TypeFor[Out]()
	check := func(src string, names jmespath.MemberNames) error {
		var opts []jmespath.Option
		if names != nil {
			opts = append(opts, jmespath.WithMemberNames(names))
		}
		e, err := CompileExpr(src, opts...)
		if err != nil {
			t.Fatal(err)
		}
		return e.Check(typ, StringEquals)
	}
	if err := check("status", names); err != nil {
		t.Errorf("status: %v, want it found", err)
	}
	if err := check("Meta", names); err == nil || !strings.Contains(err.Error(), `field "Meta" does not exist`) {
		t.Errorf("Meta: %v, want none: the model says it is no member", err)
	}
	if err := check("Stauts", names); err == nil || !strings.Contains(err.Error(), "(did you mean status?)") {
		t.Errorf("Stauts: %v, want the model's name suggested", err)
	}
	if err := check("Meta", nil); err != nil {
		t.Errorf("without names: Meta: %v, want it found", err)
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
