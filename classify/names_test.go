package classify_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/waitable/waitable/classify"
	"github.com/waitable/waitable/jmespath"
)

// lowered is a model's member names for the tests: the Go name with its
// first letter lowered (EKS's cluster, status), and ResultMetadata no
// member.
func lowered(_ reflect.Type, f reflect.StructField) string {
	if f.Name == "ResultMetadata" {
		return "-"
	}
	return strings.ToLower(f.Name[:1]) + f.Name[1:]
}

type clusterOut struct {
	Status         string
	Name           *string
	ResultMetadata struct{ RequestID string }
}

// TestCompileWithMemberNames: acceptors compiled with a model's names list
// struct fields under them (keys, to_string), in output and inputOutput
// matchers and messages alike; without, under Go names.
func TestCompileWithMemberNames(t *testing.T) {
	name := "c1"
	in, out := &clusterOut{Name: &name}, &clusterOut{Status: "ACTIVE", Name: &name}
	acceptors := []classify.Acceptor{
		{State: classify.Failure, Matcher: classify.OnOutput("contains(keys(@), 'ResultMetadata')", classify.BooleanEquals, "true"), Message: "'no member listed'"},
		{State: classify.Success, Matcher: classify.OnOutput("contains(keys(@), 'status')", classify.BooleanEquals, "true")},
	}
	set, err := classify.Compile[*clusterOut, *clusterOut](acceptors, classify.WithMemberNames(lowered))
	if err != nil {
		t.Fatal(err)
	}
	if m := set.Match(in, out, nil); m.Index != 1 || m.Err != nil {
		t.Errorf("with member names: Match = %+v, want acceptor 1", m)
	}
	plain, err := classify.Compile[*clusterOut, *clusterOut](acceptors)
	if err != nil {
		t.Fatal(err)
	}
	if m := plain.Match(in, out, nil); m.Index != 0 || m.Message != "no member listed" {
		t.Errorf("without: Match = %+v, want acceptor 0 (Go names: ResultMetadata is listed, status is not)", m)
	}

	io := []classify.Acceptor{
		{State: classify.Failure, Matcher: classify.OnInputOutput("to_string(output) == to_string(input)", classify.BooleanEquals, "true"), Message: "to_string(@)"},
		{State: classify.Success, Matcher: classify.OnSuccess(true)},
	}
	set, err = classify.Compile[*clusterOut, *clusterOut](io, classify.WithMemberNames(lowered))
	if err != nil {
		t.Fatal(err)
	}
	m := set.Match(out, out, nil)
	if want := `{"name":"c1","status":"ACTIVE"}`; m.Index != 0 || m.Message != want {
		t.Errorf("inputOutput with member names: Match = %+v, want acceptor 0 with message %s", m, want)
	}
}

// TestCompileExprWithMemberNames: CompileExpr takes package jmespath's
// options.
func TestCompileExprWithMemberNames(t *testing.T) {
	e, err := classify.CompileExpr("keys(@)", jmespath.WithMemberNames(lowered))
	if err != nil {
		t.Fatal(err)
	}
	got, err := e.Search(&clusterOut{})
	if err != nil || !reflect.DeepEqual(got, []any{"status", "name"}) {
		t.Errorf("keys(@) = %v, %v; want [status name]", got, err)
	}
}

// TestJSONTags: a Go-only waiter's types key fields by their json tags:
// a path by the tag's name compiles and matches, one by the Go name of a
// tagged field is an error before any call, and json:"-" hides a field.
func TestJSONTags(t *testing.T) {
	type Out struct {
		Status string `json:"status"`
		Secret string `json:"-"`
		Name   string
	}
	set, err := classify.Compile[any, *Out]([]classify.Acceptor{
		{State: classify.Success, Matcher: classify.OnOutput("contains(keys(@), 'status') && !contains(keys(@), 'Secret') && contains(keys(@), 'Name')", classify.BooleanEquals, "true")},
		{State: classify.Failure, Matcher: classify.OnOutput("status", classify.StringEquals, "FAILED")},
	})
	if err != nil {
		t.Fatal(err)
	}
	if m := set.Match(nil, &Out{Status: "ACTIVE", Secret: "x"}, nil); m.Index != 0 {
		t.Errorf("Match = %+v, want acceptor 0", m)
	}
	for _, path := range []string{"Status", "Secret"} {
		_, err := classify.Compile[any, *Out]([]classify.Acceptor{{State: classify.Success, Matcher: classify.OnOutput(path, classify.StringEquals, "x")}})
		if err == nil || !strings.Contains(err.Error(), `field "`+path+`" does not exist`) {
			t.Errorf("path %s: Compile = %v, want an error: no such field", path, err)
		}
	}
}
