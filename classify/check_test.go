package classify_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/waitable/waitable/classify"
	"github.com/waitable/waitable/jmespath"
)

// Types shaped like aws-sdk-go-v2's eks.DescribeClusterOutput: a pointer
// to a struct with a typed string enum, a map (which once stopped every
// check of names), a time, a slice of structs, and an interface.

type ClusterStatus string

type Logging struct {
	ClusterLogging []LogSetup
}

type LogSetup struct {
	Enabled *bool
	Types   []string
}

type Cluster struct {
	Name      *string
	Status    ClusterStatus
	Tags      map[string]string
	CreatedAt *time.Time
	Logging   *Logging
	Version   *string
}

type DescribeClusterInput struct {
	Name *string
}

type DescribeClusterOutput struct {
	Cluster        *Cluster
	ResultMetadata any // stands for middleware.Metadata: not checked
}

type ListClustersOutput struct {
	Clusters []string
	Items    []Cluster
}

// checkProblems compiles one output acceptor on O and returns its
// problems ("" for none).
func checkProblems[O any](path string, c classify.Comparator) string {
	expected := "x"
	if c == classify.BooleanEquals {
		expected = "true"
	}
	_, err := classify.Compile[*DescribeClusterInput, O]([]classify.Acceptor{{State: classify.Success, Matcher: classify.OnOutput(path, c, expected)}})
	if err == nil {
		return ""
	}
	return err.Error()
}

// TestCheckBeyondSimplePaths: the three expressions that once passed on
// eks.DescribeClusterOutput-like types are refused, each with the path
// at fault, its offset and, for a name, the nearest one.
func TestCheckBeyondSimplePaths(t *testing.T) {
	for _, tt := range []struct {
		got  string
		want []string
	}{
		{checkProblems[*DescribeClusterOutput]("length(cluster.statuss) > `0`", classify.BooleanEquals),
			[]string{"type error at offset 15", "cluster.statuss", `field "statuss" does not exist on classify_test.Cluster`, "(did you mean status?)"}},
		{checkProblems[*ListClustersOutput]("length(Items)", classify.StringEquals),
			[]string{"length(Items)", "stringEquals needs a string, but the path gives a number"}},
		{checkProblems[*DescribeClusterOutput]("abs(cluster.status)", classify.StringEquals),
			[]string{"type error at offset 4", "argument 1 of abs() must be a number, but cluster.status is a string (classify_test.ClusterStatus)",
				"stringEquals needs a string, but the path gives a number"}},
	} {
		if tt.got == "" {
			t.Errorf("no problem, want %q", tt.want)
		}
		for _, w := range tt.want {
			if !strings.Contains(tt.got, w) {
				t.Errorf("problem %q\ndoes not contain %q", tt.got, w)
			}
		}
	}
}

// TestCheckExpressions: what the checker refuses in expressions of every
// kind, and what it accepts (valid expressions, and anything read through
// an interface).
func TestCheckExpressions(t *testing.T) {
	for _, tt := range []struct {
		path string
		cmp  classify.Comparator
		want string // "" for no problem
	}{
		// Valid: what real waiters write.
		{"cluster.status", classify.StringEquals, ""},
		{"Cluster.Status", classify.StringEquals, ""},
		{"length(cluster.logging.clusterLogging[?enabled]) > `0`", classify.BooleanEquals, ""},
		{"cluster.logging.clusterLogging[].types[]", classify.AnyStringEquals, ""},
		{"contains(cluster.logging.clusterLogging[].types[], 'api')", classify.BooleanEquals, ""},
		{"cluster.tags.team", classify.StringEquals, ""},
		{"cluster.tags.*", classify.AllStringEquals, ""},
		{"keys(cluster.tags)", classify.AnyStringEquals, ""},
		{"cluster.createdAt > `0`", classify.BooleanEquals, ""},
		{"cluster.name == 'demo' && cluster.status == 'ACTIVE'", classify.BooleanEquals, ""},
		{"cluster.version || 'none'", classify.StringEquals, ""},
		{"to_string(length(cluster.tags))", classify.StringEquals, ""},
		{"cluster.status == `null`", classify.BooleanEquals, ""},
		{"resultMetadata.anything[0].at.all", classify.StringEquals, ""},
		{"length(resultMetadata) == `1`", classify.BooleanEquals, ""},
		{"sort_by(cluster.logging.clusterLogging, &to_string(enabled))[0].types", classify.AnyStringEquals, ""},
		{"max_by(cluster.logging.clusterLogging, &length(types)).enabled", classify.BooleanEquals, ""},
		{"{s: cluster.status}.s", classify.StringEquals, ""},
		{"[cluster.status, cluster.version]", classify.AllStringEquals, ""},
		{"cluster.status | @", classify.StringEquals, ""},
		// Refused: names, in every position.
		{"cluster.logging.clusterLogging[?enabeld]", classify.AnyStringEquals, `field "enabeld" does not exist on classify_test.LogSetup (did you mean enabled?)`},
		{"cluster.logging.clusterLogging[].typs[]", classify.AnyStringEquals, `cluster.logging.clusterLogging[].typs: field "typs"`},
		{"sort_by(cluster.logging.clusterLogging, &enabld)", classify.AnyStringEquals, `field "enabld"`},
		{"{s: cluster.stauts}.s", classify.StringEquals, `field "stauts"`},
		{"cluster.status || cluster.verison", classify.StringEquals, `type error at offset 26: cluster.verison: field "verison"`},
		// Refused: what the value is.
		{"cluster.status.code", classify.StringEquals, `field "code" is read from a string (classify_test.ClusterStatus), which is not an object`},
		{"cluster.logging.clusterLogging.enabled", classify.BooleanEquals, "to read it from each element: cluster.logging.clusterLogging[].enabled"},
		{"cluster.status[0]", classify.StringEquals, "index [0] is applied to cluster.status, a string (classify_test.ClusterStatus), which is not an array"},
		{"cluster.name[*]", classify.AnyStringEquals, "a projection [*] is applied to cluster.name"},
		{"cluster.name[]", classify.AnyStringEquals, "a flatten [] is applied to cluster.name"},
		{"cluster.name[?@]", classify.AnyStringEquals, "a filter [?] is applied to cluster.name"},
		{"cluster.logging.*", classify.AnyStringEquals, ""}, // a struct's values: of no one type
		{"cluster.status.*", classify.AnyStringEquals, "a value projection * is applied to cluster.status"},
		// Refused: functions' arguments.
		{"length(cluster.createdAt) > `0`", classify.BooleanEquals, "argument 1 of length() must be a string, an array or an object, but cluster.createdAt is a timestamp (time.Time, read as a number of epoch seconds)"},
		{"starts_with(cluster.tags, 'x')", classify.BooleanEquals, "argument 1 of starts_with() must be a string, but cluster.tags is an object (map[string]string)"},
		{"join(',', cluster.logging.clusterLogging[].enabled)", classify.StringEquals, "argument 2 of join() must be an array of strings, but cluster.logging.clusterLogging[].enabled is an array of booleans"},
		{"sum(cluster.logging.clusterLogging[].types[])", classify.BooleanEquals, "argument 1 of sum() must be an array of numbers"},
		{"sort_by(cluster.logging.clusterLogging, &types)", classify.AnyStringEquals, "the key of sort_by() must be a number or a string, but types is an array ([]string)"},
		{"sort_by(cluster.logging.clusterLogging, enabled)", classify.AnyStringEquals, "argument 2 of sort_by() must be an expression reference: &enabled, not enabled"},
		{"length(&cluster)", classify.BooleanEquals, "argument 1 of length() is an expression reference (&)"},
		{"abs(`\"1\"`) > `0`", classify.BooleanEquals, "argument 1 of abs() must be a number, but `\"1\"` is a string"},
		// Refused: comparisons.
		{"cluster.status == `1`", classify.BooleanEquals, "== compares cluster.status, a string (classify_test.ClusterStatus), with `1`, a number: values of different types are never equal"},
		{"cluster.status > `1`", classify.BooleanEquals, "> compares numbers, but cluster.status is a string"},
		// Refused: the comparator.
		{"cluster.status", classify.BooleanEquals, "booleanEquals needs a boolean, but the path gives a string (classify_test.ClusterStatus)"},
		{"cluster.logging.clusterLogging[].types[]", classify.StringEquals, "stringEquals needs a string, but the path gives an array of strings"},
		{"cluster.logging.clusterLogging[].enabled", classify.AllStringEquals, "allStringEquals needs an array of strings, but the path gives an array of booleans"},
		{"cluster.status", classify.AnyStringEquals, "anyStringEquals needs an array of strings, but the path gives a string"},
		{"length(cluster.tags) > `0`", classify.StringEquals, "stringEquals needs a string, but the path gives a boolean"},
	} {
		got := checkProblems[*DescribeClusterOutput](tt.path, tt.cmp)
		switch {
		case tt.want == "" && got != "":
			t.Errorf("%s %s: %s, want no problem", tt.path, tt.cmp, got)
		case tt.want != "" && !strings.Contains(got, tt.want):
			t.Errorf("%s %s: %q, want a problem containing %q", tt.path, tt.cmp, got, tt.want)
		}
	}
}

// TestCheckEveryProblem: one acceptor with several problems reports each,
// an AcceptorError apiece, the type errors as *jmespath.TypeError with
// their offsets.
func TestCheckEveryProblem(t *testing.T) {
	_, err := classify.Compile[*DescribeClusterInput, *DescribeClusterOutput]([]classify.Acceptor{
		{State: classify.Success, Matcher: classify.OnOutput("cluster.stats == 'A' || cluster.nmae == 'B'", classify.StringEquals, "x")},
		{State: classify.Failure, Matcher: classify.OnSuccess(false), Message: "cluster.stauts"},
	})
	errs := err.(interface{ Unwrap() []error }).Unwrap()
	var offsets []int
	var rules []string
	for _, e := range errs {
		var ae *classify.AcceptorError
		if !errors.As(e, &ae) {
			t.Fatalf("%v is not an AcceptorError", e)
		}
		rules = append(rules, ae.Rule)
		var te *jmespath.TypeError
		if errors.As(e, &te) {
			offsets = append(offsets, te.Offset)
		}
	}
	if strings.Join(rules, ",") != "path,path,path,message" || len(offsets) != 3 || offsets[0] != 8 || offsets[1] != 32 || offsets[2] != 8 {
		t.Errorf("problems %v: rules %v, offsets %v; want path, path, path (the comparator), message at 8, 32 and 8", errs, rules, offsets)
	}
}

// TestCheckInputOutput: inputOutput paths read input and output, each
// checked against its type; an interface type is not checked.
func TestCheckInputOutput(t *testing.T) {
	ok := []classify.Acceptor{{State: classify.Success, Matcher: classify.OnInputOutput("input.name == output.cluster.name", classify.BooleanEquals, "true")}}
	if _, err := classify.Compile[*DescribeClusterInput, *DescribeClusterOutput](ok); err != nil {
		t.Errorf("valid inputOutput path: %v", err)
	}
	bad := []classify.Acceptor{{State: classify.Success, Matcher: classify.OnInputOutput("input.nmae == output.cluster.name", classify.BooleanEquals, "true")}}
	if _, err := classify.Compile[*DescribeClusterInput, *DescribeClusterOutput](bad); err == nil || !strings.Contains(err.Error(), "input.nmae: field \"nmae\" does not exist on classify_test.DescribeClusterInput (did you mean name?)") {
		t.Errorf("typo on input: %v", err)
	}
	if _, err := classify.Compile[any, *DescribeClusterOutput](bad); err != nil {
		t.Errorf("typo on an input of type any: %v, want it unchecked", err)
	}
	if _, err := classify.Compile[any, any](bad); err != nil {
		t.Errorf("typo on types any: %v, want it unchecked", err)
	}
}

// object is a model's structure, as a jmespath.Type.
type object map[string]jmespath.Type

func (object) Kind() (jmespath.Kind, bool) { return jmespath.Object, true }
func (object) Elem() jmespath.Type         { return nil }
func (o object) Members() []string {
	var names []string
	for n := range o {
		names = append(names, n)
	}
	return names
}
func (object) String() string { return "structure" }
func (o object) Member(name string) (jmespath.Type, bool) {
	t, ok := o[name]
	return t, ok
}

type scalar jmespath.Kind

func (s scalar) Kind() (jmespath.Kind, bool)       { return jmespath.Kind(s), true }
func (scalar) Elem() jmespath.Type                 { return nil }
func (scalar) Members() []string                   { return nil }
func (s scalar) String() string                    { return jmespath.Kind(s).String() }
func (scalar) Member(string) (jmespath.Type, bool) { return nil, false }

// TestCheckTypes: acceptors checked against a model's shapes rather than
// Go types, as waitable lint does.
func TestCheckTypes(t *testing.T) {
	in := object{"name": scalar(jmespath.String)}
	out := object{"cluster": object{"status": scalar(jmespath.String), "name": scalar(jmespath.String)}}
	errs := classify.CheckTypes([]classify.Acceptor{
		{State: classify.Success, Matcher: classify.OnOutput("cluster.status", classify.StringEquals, "ACTIVE")},
		{State: classify.Failure, Matcher: classify.OnOutput("cluster.statsu", classify.StringEquals, "FAILED")},
		{State: classify.Retry, Matcher: classify.OnInputOutput("input.name == output.cluster.name", classify.BooleanEquals, "true")},
		{State: classify.Retry, Matcher: classify.OnInputOutput("input.nam", classify.StringEquals, "x")},
		{State: classify.Retry, Matcher: classify.OnOutput("length(cluster.name)", classify.StringEquals, "x")},
		{State: classify.Retry, Matcher: classify.OnOutput("cluster[", classify.StringEquals, "x")}, // left to Validate
	}, in, out)
	want := []string{
		`acceptor 1: path: cluster.statsu: type error at offset 8: field "statsu" does not exist on structure (did you mean status?)`,
		`acceptor 3: path: input.nam: type error at offset 6: field "nam" does not exist on structure (did you mean name?)`,
		`acceptor 4: path: length(cluster.name): stringEquals needs a string, but the path gives a number`,
	}
	if len(errs) != len(want) {
		t.Fatalf("CheckTypes = %v, want %d problems", errs, len(want))
	}
	for i, err := range errs {
		if err.Error() != want[i] || !errors.Is(err, classify.ErrInvalidAcceptor) {
			t.Errorf("problem %d = %q, want %q matching ErrInvalidAcceptor", i, err, want[i])
		}
	}
	if errs := classify.CheckTypes([]classify.Acceptor{{State: classify.Success, Matcher: classify.OnOutput("a.b.c", classify.StringEquals, "x")}}, nil, nil); errs != nil {
		t.Errorf("CheckTypes on nil types = %v, want nothing checked", errs)
	}
}
