package classify_test

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/waitable/waitable/classify"
	"github.com/waitable/waitable/jmespath"
)

// instanceRunning is EC2's InstanceRunning waiter (botocore's acceptors in
// Smithy form).
var instanceRunning = []classify.Acceptor{
	{State: classify.Success, Matcher: classify.OnOutput("Reservations[].Instances[].State.Name", classify.AllStringEquals, "running")},
	{State: classify.Failure, Matcher: classify.OnOutput("Reservations[].Instances[].State.Name", classify.AnyStringEquals, "shutting-down")},
	{State: classify.Failure, Matcher: classify.OnOutput("Reservations[].Instances[].State.Name", classify.AnyStringEquals, "terminated")},
	{State: classify.Failure, Matcher: classify.OnOutput("Reservations[].Instances[].State.Name", classify.AnyStringEquals, "stopping")},
	{State: classify.Retry, Matcher: classify.OnErrorType("InvalidInstanceID.NotFound")},
}

type apiError struct{ code string }

func (e *apiError) Error() string     { return "api error " + e.code }
func (e *apiError) ErrorCode() string { return e.code }

type NotFound struct{}

func (*NotFound) Error() string { return "not found" }

func TestInstanceRunning(t *testing.T) {
	set, err := classify.Compile[*DescribeInstancesInput, *DescribeInstancesOutput](instanceRunning)
	if err != nil {
		t.Fatal(err)
	}
	in := &DescribeInstancesInput{InstanceIds: []string{"i-1"}}
	tests := []struct {
		name  string
		out   *DescribeInstancesOutput
		err   error
		index int
		state classify.State
	}{
		{"all running", instances("running", "running", "running", "running"), nil, 0, classify.Success},
		{"one pending", instances("running", "pending", "running", "running"), nil, -1, classify.Retry},
		{"one terminated", instances("running", "pending", "terminated"), nil, 2, classify.Failure},
		{"shutting down", instances("shutting-down"), nil, 1, classify.Failure},
		{"no reservations (nil slice)", &DescribeInstancesOutput{}, nil, -1, classify.Retry},
		{"nil output", nil, nil, -1, classify.Retry},
		{"nil state", &DescribeInstancesOutput{Reservations: []Reservation{{Instances: []Instance{{InstanceId: ptr("i")}}}}}, nil, -1, classify.Retry},
		{"instance not found yet", nil, &apiError{"InvalidInstanceID.NotFound"}, 4, classify.Retry},
		{"wrapped not found", nil, fmt.Errorf("op: %w", &apiError{"InvalidInstanceID.NotFound"}), 4, classify.Retry},
		{"other error", nil, &apiError{"AccessDenied"}, -1, classify.Failure},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := set.Match(in, tt.out, tt.err)
			if m.Index != tt.index || m.State != tt.state || m.Err != nil {
				t.Errorf("Match() = %+v, want index %d, state %v", m, tt.index, tt.state)
			}
		})
	}
}

// TestAcceptorsCopy: Acceptors returns the acceptors in order, and a copy:
// changing it, down to a matcher's path, does not change the Set.
func TestAcceptorsCopy(t *testing.T) {
	set, err := classify.Compile[*DescribeInstancesInput, *DescribeInstancesOutput](instanceRunning)
	if err != nil {
		t.Fatal(err)
	}
	got := set.Acceptors()
	if !reflect.DeepEqual(got, instanceRunning) {
		t.Fatalf("Acceptors() = %v, want %v", got, instanceRunning)
	}
	got[0].State = classify.Failure
	got[0].Matcher.Output.Expected = "stopped"
	if again := set.Acceptors(); !reflect.DeepEqual(again, instanceRunning) {
		t.Errorf("after changing the copy, Acceptors() = %v, want %v", again, instanceRunning)
	}
	if m := set.Match(nil, instances("running"), nil); m.Index != 0 || m.State != classify.Success {
		t.Errorf("after changing the copy, Match = %+v, want acceptor 0, success", m)
	}
}

func TestComparators(t *testing.T) {
	type Out struct {
		Status  *string
		Enabled *bool
		Names   []string
		Tags    map[string]string
		Blob    []byte
		Count   int64
		When    time.Time
		Any     any
	}
	out := &Out{
		Status: ptr("ACTIVE"), Enabled: ptr(true), Names: []string{"a", "a"},
		Tags: map[string]string{"env": "prod"}, Blob: []byte("hi"), Count: 3,
		When: time.Unix(1700000000, 500000000), Any: map[string]any{"k": "v"},
	}
	tests := []struct {
		path     string
		cmp      classify.Comparator
		expected string
		want     bool
	}{
		{"Status", classify.StringEquals, "ACTIVE", true},
		{"Status", classify.StringEquals, "active", false},
		{"status", classify.StringEquals, "ACTIVE", true}, // Smithy member name
		{"Enabled", classify.BooleanEquals, "true", true},
		{"Enabled", classify.BooleanEquals, "false", false},
		{"Enabled", classify.StringEquals, "true", false}, // a boolean is not a string
		{"Count", classify.StringEquals, "3", false},      // a number is not a string
		{"Names", classify.AllStringEquals, "a", true},
		{"Names", classify.AnyStringEquals, "a", true},
		{"Names[0]", classify.StringEquals, "a", true},
		{"Names[-1]", classify.StringEquals, "a", true},
		{"Names[5]", classify.StringEquals, "a", false},
		{"Names", classify.StringEquals, "a", false},
		{"Tags.env", classify.StringEquals, "prod", true},
		{"Tags.*", classify.AllStringEquals, "prod", true},
		{"Blob", classify.StringEquals, "aGk=", true}, // base64
		{"Count == `3`", classify.BooleanEquals, "true", true},
		{"When > `1700000000`", classify.BooleanEquals, "true", true},
		{"When < `1700000000.6`", classify.BooleanEquals, "true", true},
		{"length(Names) == `2`", classify.BooleanEquals, "true", true},
		{"contains(Names, 'a')", classify.BooleanEquals, "true", true},
		{"Any.k", classify.StringEquals, "v", true},
		{"Status != 'DELETING'", classify.BooleanEquals, "true", true},
	}
	for _, tt := range tests {
		// any: the static check would reject some of these on purpose.
		set, err := classify.Compile[any, any]([]classify.Acceptor{{State: classify.Success, Matcher: classify.OnOutput(tt.path, tt.cmp, tt.expected)}})
		if err != nil {
			t.Errorf("Compile(%s): %v", tt.path, err)
			continue
		}
		m := set.Match(nil, out, nil)
		if got := m.Index == 0; got != tt.want || m.Err != nil {
			t.Errorf("%s %s %q = %v (err %v), want %v", tt.path, tt.cmp, tt.expected, got, m.Err, tt.want)
		}
	}
}

// TestEmptyArrays: allStringEquals needs at least one element; a nil slice
// is an empty array, so length() is 0 (what aws-sdk-go-v2's waiters do).
func TestEmptyArrays(t *testing.T) {
	set, err := classify.Compile[any, *DescribeDBInstancesOutput]([]classify.Acceptor{
		{State: classify.Success, Matcher: classify.OnOutput("length(DBInstances) == `0`", classify.BooleanEquals, "true")},
		{State: classify.Failure, Matcher: classify.OnOutput("DBInstances[].DBInstanceStatus", classify.AllStringEquals, "deleting")},
	})
	if err != nil {
		t.Fatal(err)
	}
	if m := set.Match(nil, &DescribeDBInstancesOutput{}, nil); m.Index != 0 || m.Err != nil {
		t.Errorf("nil DBInstances: Match = %+v, want acceptor 0 (length 0)", m)
	}
	one := &DescribeDBInstancesOutput{DBInstances: []DBInstance{{DBInstanceStatus: ptr("deleting")}}}
	if m := set.Match(nil, one, nil); m.Index != 1 {
		t.Errorf("one deleting: Match = %+v, want acceptor 1", m)
	}
	all, _ := classify.Compile[any, *DescribeDBInstancesOutput]([]classify.Acceptor{
		{State: classify.Success, Matcher: classify.OnOutput("DBInstances[].DBInstanceStatus", classify.AllStringEquals, "available")},
	})
	if m := all.Match(nil, &DescribeDBInstancesOutput{DBInstances: []DBInstance{}}, nil); m.Index != -1 {
		t.Errorf("allStringEquals on [] matched: %+v", m)
	}
}

// TestECSServicesStable: a real filter expression with lower-case member
// names over Go's upper-case fields.
func TestECSServicesStable(t *testing.T) {
	set, err := classify.Compile[any, *DescribeServicesOutput]([]classify.Acceptor{
		{State: classify.Failure, Matcher: classify.OnOutput("services[].status", classify.AnyStringEquals, "INACTIVE")},
		{State: classify.Success, Matcher: classify.OnOutput("length(services[?!(length(deployments) == `1` && runningCount == desiredCount)]) == `0`", classify.BooleanEquals, "true")},
	})
	if err != nil {
		t.Fatal(err)
	}
	stable := &DescribeServicesOutput{Services: []Service{{Status: ptr("ACTIVE"), Deployments: []Deployment{{}}, RunningCount: 2, DesiredCount: 2}}}
	if m := set.Match(nil, stable, nil); m.Index != 1 || m.Err != nil {
		t.Errorf("stable: %+v, want acceptor 1", m)
	}
	rolling := &DescribeServicesOutput{Services: []Service{{Status: ptr("ACTIVE"), Deployments: []Deployment{{}, {}}, RunningCount: 2, DesiredCount: 2}}}
	if m := set.Match(nil, rolling, nil); m.Index != -1 || m.Err != nil {
		t.Errorf("rolling: %+v, want no match", m)
	}
	inactive := &DescribeServicesOutput{Services: []Service{{Status: ptr("INACTIVE")}}}
	if m := set.Match(nil, inactive, nil); m.Index != 0 {
		t.Errorf("inactive: %+v, want acceptor 0", m)
	}
}

func TestSuccessAndErrorType(t *testing.T) {
	set, err := classify.Compile[any, any]([]classify.Acceptor{
		{State: classify.Retry, Matcher: classify.OnErrorType("com.amazonaws.s3#NotFound")},
		{State: classify.Success, Matcher: classify.OnSuccess(true)},
		{State: classify.Failure, Matcher: classify.OnSuccess(false)},
	})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		err   error
		index int
	}{
		{nil, 1},
		{&apiError{"NotFound"}, 0},
		{&NotFound{}, 0}, // by Go type name
		{errors.Join(errors.New("x"), &NotFound{}), 0}, // joined
		{fmt.Errorf("a: %w", fmt.Errorf("b: %w", &apiError{"NotFound"})), 0},
		{&apiError{"NoSuchBucket"}, 2},
	}
	for _, tt := range tests {
		if m := set.Match(nil, nil, tt.err); m.Index != tt.index {
			t.Errorf("Match(err=%v) = %+v, want index %d", tt.err, m, tt.index)
		}
	}
}

func TestInputOutputAndMessage(t *testing.T) {
	type In struct{ Groups []string }
	type Out struct {
		Groups []string
		Status string
		Reason *string
	}
	set, err := classify.Compile[In, Out]([]classify.Acceptor{
		{State: classify.Failure, Matcher: classify.OnOutput("Status", classify.StringEquals, "FAILED"), Message: "Reason"},
		{State: classify.Success, Matcher: classify.OnInputOutput("length(input.Groups) == length(output.Groups)", classify.BooleanEquals, "true")},
	})
	if err != nil {
		t.Fatal(err)
	}
	in := In{Groups: []string{"a", "b"}}
	if m := set.Match(in, Out{Groups: []string{"a", "b"}}, nil); m.Index != 1 {
		t.Errorf("groups equal: %+v, want acceptor 1", m)
	}
	if m := set.Match(in, Out{Groups: []string{"a"}}, nil); m.Index != -1 {
		t.Errorf("groups differ: %+v, want no match", m)
	}
	m := set.Match(in, Out{Status: "FAILED", Reason: ptr("quota exceeded")}, nil)
	if m.Index != 0 || m.State != classify.Failure || m.Message != "quota exceeded" {
		t.Errorf("failed: %+v, want acceptor 0 with message", m)
	}
}

func TestValidate(t *testing.T) {
	tr := true
	errs := classify.Validate([]classify.Acceptor{
		{State: 0, Matcher: classify.OnSuccess(true)},
		{State: classify.Success, Matcher: classify.Matcher{Success: &tr, ErrorType: "X"}},
		{State: classify.Success},
		{State: classify.Success, Matcher: classify.OnOutput("a", "stringEqual", "x")},
		{State: classify.Success, Matcher: classify.OnOutput("a", classify.BooleanEquals, "yes")},
		{State: classify.Success, Matcher: classify.OnOutput("a[", classify.StringEquals, "x")},
		{State: classify.Success, Matcher: classify.OnOutput("@(foo)", classify.StringEquals, "x")},
		{State: classify.Success, Matcher: classify.OnSuccess(true), Message: "foo"},
		{State: classify.Failure, Matcher: classify.OnSuccess(false), Message: "foo["},
		{State: classify.Success, Matcher: classify.OnOutput("", classify.StringEquals, "x")},
	})
	want := []string{
		"acceptor 0: state: State(0) is not success, failure or retry",
		"acceptor 1: matcher: success, errorType are all set",
		"acceptor 2: matcher: no member set",
		`acceptor 3: comparator: "stringEqual" is not`,
		`acceptor 4: expected: booleanEquals expects "true" or "false", not "yes"`,
		`acceptor 5: path: classify: JMESPath expression "a["`,
		`acceptor 6: path: classify: JMESPath expression "@(foo)": syntax error at offset 1: only a name can be called`,
		"acceptor 7: message: a message is allowed on failure acceptors only, not on success",
		`acceptor 8: message: classify: JMESPath expression "foo["`,
		"acceptor 9: path: the path is empty",
	}
	if len(errs) != len(want) {
		t.Fatalf("Validate found %d problems, want %d:\n%v", len(errs), len(want), errors.Join(errs...))
	}
	for i, err := range errs {
		if !strings.HasPrefix(err.Error(), want[i]) {
			t.Errorf("problem %d = %q, want prefix %q", i, err, want[i])
		}
		if !errors.Is(err, classify.ErrInvalidAcceptor) {
			t.Errorf("problem %d does not match ErrInvalidAcceptor", i)
		}
	}
	var ae *classify.AcceptorError
	if !errors.As(errs[5], &ae) || ae.Index != 5 || !errors.Is(errs[5], classify.ErrExpression) {
		t.Errorf("errs[5] = %v, want an AcceptorError for index 5 wrapping ErrExpression", errs[5])
	}
}

// TestErrExpression: an expression that does not parse and one that fails
// while it is evaluated both match ErrExpression, name the expression in
// the message, and let errors.As reach the problem.
func TestErrExpression(t *testing.T) {
	_, err := classify.CompileExpr("a[")
	var se *jmespath.SyntaxError
	if !errors.Is(err, classify.ErrExpression) || !errors.As(err, &se) {
		t.Errorf(`CompileExpr("a[") = %v, want ErrExpression wrapping a *jmespath.SyntaxError`, err)
	}
	want := `classify: JMESPath expression "a[": `
	if err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf(`CompileExpr("a[") = %v, want prefix %q`, err, want)
	}

	e, err := classify.CompileExpr("abs(@)")
	if err != nil {
		t.Fatal(err)
	}
	_, err = e.Search("x")
	var je *jmespath.Error
	if !errors.Is(err, classify.ErrExpression) || !errors.As(err, &je) {
		t.Errorf(`Search("x") = %v, want ErrExpression wrapping a *jmespath.Error`, err)
	}
	want = `classify: JMESPath expression "abs(@)": `
	if err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf(`Search("x") = %v, want prefix %q`, err, want)
	}
}

func TestStaticCheck(t *testing.T) {
	tests := []struct {
		path string
		cmp  classify.Comparator
		want string // "" = no problem
	}{
		{"Reservations[].Instances[].State.Name", classify.AllStringEquals, ""},
		{"Reservations[].Instances[].State.Statuss", classify.AllStringEquals, `field "Statuss" does not exist on classify_test.InstanceState`},
		{"Reservations[].Instance[].State.Name", classify.AllStringEquals, "(did you mean Instances?)"},
		{"Reservations[].Instances[].State.Name", classify.StringEquals, "stringEquals needs a string, but the path gives an array of strings"},
		{"Reservations[0].Instances[0].State.Name", classify.StringEquals, ""},
		{"Reservations[0].Instances[0].State.Name", classify.BooleanEquals, "booleanEquals needs a boolean, but the path gives a string (classify_test.InstanceStateName)"},
		{"Reservations[0].Instances[0].EbsOptimized", classify.BooleanEquals, ""},
		{"Reservations[0].Instances[0].State", classify.AnyStringEquals, "anyStringEquals needs an array of strings"},
		{"NextToken.Foo", classify.StringEquals, "which is not an object"},
		{"NextToken[0]", classify.StringEquals, "which is not an array"},
		{"length(Reservations[].Instances[]) > `0`", classify.BooleanEquals, ""},
		{"length(Reservatoins) > `0`", classify.BooleanEquals, `type error at offset 7: field "Reservatoins" does not exist on classify_test.DescribeInstancesOutput (did you mean Reservations?)`},
	}
	for _, tt := range tests {
		expected := "x"
		if tt.cmp == classify.BooleanEquals {
			expected = "true"
		}
		_, err := classify.Compile[any, *DescribeInstancesOutput]([]classify.Acceptor{{State: classify.Success, Matcher: classify.OnOutput(tt.path, tt.cmp, expected)}})
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("%s %s: %v, want no problem", tt.path, tt.cmp, err)
		case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
			t.Errorf("%s %s: %v, want a problem containing %q", tt.path, tt.cmp, err, tt.want)
		}
	}
	// inputOutput paths are checked against both types.
	_, err := classify.Compile[*DescribeInstancesInput, *DescribeInstancesOutput]([]classify.Acceptor{{State: classify.Success, Matcher: classify.OnInputOutput("input.InstanceId", classify.StringEquals, "x")}})
	if err == nil || !strings.Contains(err.Error(), `"InstanceId" does not exist`) {
		t.Errorf("inputOutput typo: %v", err)
	}
}

func TestStateText(t *testing.T) {
	for _, s := range []classify.State{classify.Success, classify.Failure, classify.Retry} {
		b, err := s.MarshalText()
		if err != nil {
			t.Fatal(err)
		}
		var back classify.State
		if err := back.UnmarshalText(b); err != nil || back != s {
			t.Errorf("round trip of %v = %v, %v", s, back, err)
		}
	}
	var s classify.State
	if err := s.UnmarshalText([]byte("succes")); err == nil {
		t.Error(`UnmarshalText("succes") succeeded`)
	}
	if _, err := classify.State(9).MarshalText(); err == nil {
		t.Error("MarshalText of State(9) succeeded")
	}
}

type statusOutput struct{ code int }

func (s statusOutput) HTTPStatusCode() int { return s.code }

func TestHTTPStatus(t *testing.T) {
	set, err := classify.Compile[any, any]([]classify.Acceptor{
		{State: classify.Success, Matcher: classify.OnHTTPStatus(200)},
		{State: classify.Retry, Matcher: classify.OnHTTPStatus(404)},
	})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		out   any
		err   error
		index int
	}{
		{nil, nil, 0}, // a success without status information is a 200
		{statusOutput{200}, nil, 0},
		{statusOutput{204}, nil, -1},
		{nil, fmt.Errorf("head: %w", &httpError{404, "NotFound"}), 1},
		{nil, errors.New("no status"), -1},
	}
	for _, tt := range tests {
		if m := set.Match(nil, tt.out, tt.err); m.Index != tt.index {
			t.Errorf("Match(%v, %v) = %+v, want index %d", tt.out, tt.err, m, tt.index)
		}
	}
	if errs := classify.Validate([]classify.Acceptor{{State: classify.Success, Matcher: classify.OnHTTPStatus(42)}}); len(errs) != 1 {
		t.Errorf("status 42 accepted: %v", errs)
	}
}

// TestMatchStructOutput: an output that is a struct, not a pointer to one,
// matches as a pointer to it does, and a Match on it copies it once (the
// JMESPath engine reads its fields in place), whatever the number of
// output acceptors tried.
func TestMatchStructOutput(t *testing.T) {
	byPointer, err := classify.Compile[*DescribeInstancesInput, *DescribeInstancesOutput](instanceRunning)
	if err != nil {
		t.Fatal(err)
	}
	byValue, err := classify.Compile[*DescribeInstancesInput, DescribeInstancesOutput](instanceRunning)
	if err != nil {
		t.Fatal(err)
	}
	in := &DescribeInstancesInput{InstanceIds: []string{"i-1"}}
	for _, states := range [][]InstanceStateName{{"running", "running"}, {"running", "pending"}, {"terminated"}, {"stopping", "running"}, {}} {
		out := instances(states...)
		p, v := byPointer.Match(in, out, nil), byValue.Match(in, *out, nil)
		if p.Index != v.Index || p.State != v.State || (p.Err == nil) != (v.Err == nil) {
			t.Errorf("%v: by value %+v, by pointer %+v", states, v, p)
		}
	}

	type status struct{ State string }
	set, err := classify.Compile[string, status]([]classify.Acceptor{
		{State: classify.Success, Matcher: classify.OnOutput("State", classify.StringEquals, "ready")},
		{State: classify.Failure, Matcher: classify.OnOutput("State", classify.StringEquals, "failed")},
		{State: classify.Failure, Matcher: classify.OnOutput("State", classify.StringEquals, "deleted")},
	})
	if err != nil {
		t.Fatal(err)
	}
	out := status{"pending"}
	if n := testing.AllocsPerRun(100, func() {
		if m := set.Match("a", out, nil); m.Index != -1 {
			t.Fatalf("pending matched acceptor %d", m.Index)
		}
	}); n != 1 {
		t.Errorf("Match on a struct output, three acceptors tried: %v allocations, want 1", n)
	}
}

// TestMessage: a failure acceptor's message reads the output, as
// smithy-lang/smithy#3151 defines it; it must resolve to a string or an
// array of strings (joined with ", "), checked when the set is compiled;
// a call that failed has no output, and so no message.
func TestMessage(t *testing.T) {
	type Out struct {
		Status  string
		Reasons []string
		Flags   []bool
		Done    bool
	}
	compile := func(message string, m classify.Matcher) (*classify.Set[string, Out], error) {
		return classify.Compile[string, Out]([]classify.Acceptor{{State: classify.Failure, Matcher: m, Message: message}})
	}
	failed := classify.OnOutput("Status", classify.StringEquals, "failed")
	for _, tt := range []struct {
		message, want string
	}{
		{"Status", "failed"},
		{"Reasons", "quota, limit"},
		{"join(' and ', Reasons)", "quota and limit"},
		{"'no more capacity'", "no more capacity"},
	} {
		set, err := compile(tt.message, failed)
		if err != nil {
			t.Errorf("Compile(message %q) = %v", tt.message, err)
			continue
		}
		m := set.Match("a", Out{Status: "failed", Reasons: []string{"quota", "limit"}}, nil)
		if m.Index != 0 || m.Message != tt.want || m.Err != nil {
			t.Errorf("message %q: %+v, want %q", tt.message, m, tt.want)
		}
	}
	for _, tt := range []struct {
		message, want string
	}{
		{"Done", "message: Done: a message must resolve to a string or an array of strings, but the expression gives a boolean"},
		{"Flags", "but the expression gives an array ([]bool)"},
		{"input", `field "input" does not exist`},
		{"Statsu", `field "Statsu" does not exist`},
	} {
		_, err := compile(tt.message, failed)
		if err == nil || !strings.Contains(err.Error(), tt.want) || !errors.Is(err, classify.ErrInvalidAcceptor) ||
			strings.Contains(err.Error(), "classify.") {
			t.Errorf("Compile(message %q) = %v, want an error with %q that names no type of this package", tt.message, err, tt.want)
		}
	}
	set, err := compile("Status", classify.OnErrorType("Boom"))
	if err != nil {
		t.Fatal(err)
	}
	if m := set.Match("a", Out{Status: "x"}, boom{}); m.Index != 0 || m.Message != "" {
		t.Errorf("errorType failure: %+v, want a match with no message (no output)", m)
	}
}

// TestInputOutputErrorsNameUserTypes: a type error in an inputOutput path
// names {input, output} and the user's types, never this package's own.
func TestInputOutputErrorsNameUserTypes(t *testing.T) {
	type In struct{ Name string }
	type Out struct{ Status string }
	_, err := classify.Compile[In, Out]([]classify.Acceptor{{State: classify.Success,
		Matcher: classify.OnInputOutput("input.Nmae == output.Status", classify.BooleanEquals, "true")}})
	if err == nil || strings.Contains(err.Error(), "ioDoc") || strings.Contains(err.Error(), "classify.") {
		t.Errorf("Compile = %v, want an error that names no type of package classify", err)
	}
}

// boom is a service error whose code is Boom.
type boom struct{}

func (boom) Error() string     { return "boom" }
func (boom) ErrorCode() string { return "Boom" }
