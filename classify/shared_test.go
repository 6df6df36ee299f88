package classify_test

import (
	"fmt"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/waitable/waitable/classify"
	"github.com/waitable/waitable/internal/errjoin"
)

// The output of the shared-path tests: aws-sdk-go-v2's shapes (pointer
// fields, a typed enum, nil slices), values of mixed types behind
// interfaces, and a nested output under the key "output", so that one
// path text reads one thing on the output and another on {input, output}.
type (
	sharedName  string
	sharedState struct {
		Name sharedName
		Code *int32
	}
	sharedInstance struct {
		State *sharedState
		Tag   any
	}
	sharedReservation struct{ Instances []sharedInstance }
	sharedOutput      struct {
		Reservations []sharedReservation
		Status       *string
		Ready        *bool
		Names        []string
		Items        []any
		Nested       *sharedOutput `jmespath:"output"`
	}
)

// sharedPaths are the paths the acceptors of the shared-path tests read:
// a planned projection of enums, projections of mixed types and of
// numbers, scalars, a function, one that fails on every value
// (abs of a string or null), and the same texts under "output.", read on
// the output and on {input, output} alike.
var sharedPaths = []string{
	"Reservations[].Instances[].State.Name", "Reservations[].Instances[].Tag", "Items",
	"Status", "Ready", "Names", "Reservations[].Instances[].State.Code",
	"length(Names) > `1`", "Reservations[0].Instances[].State.Name", "abs(Status)",
	"output.Reservations[].Instances[].State.Name", "output.Reservations[].Instances[].Tag", "output.Items",
	"output.Status", "output.Ready", "output.Names", "output.Reservations[].Instances[].State.Code",
	"length(output.Names) > `1`", "output.Reservations[0].Instances[].State.Name", "abs(output.Status)",
}

var (
	sharedComparators = []classify.Comparator{classify.AllStringEquals, classify.AnyStringEquals, classify.StringEquals, classify.BooleanEquals}
	sharedExpected    = []string{"running", "pending", "", "true", "false", "1"}
)

// sharedAcceptors makes acceptors from spec, three bytes each: the path,
// the comparator and the expected value, each an index into its list;
// the path's byte also says whether the matcher reads the output or
// {input, output} (the paths under "output." only). A fourth kind of
// acceptor, an errorType one, stands between them when the comparator's
// byte says so. It leaves out an acceptor whose comparator can never
// match its path (Compile refuses it: stringEquals on a projection).
func sharedAcceptors(spec []byte) []classify.Acceptor {
	var as []classify.Acceptor
	for ; len(spec) >= 3; spec = spec[3:] {
		path := sharedPaths[int(spec[0]&0x7f)%len(sharedPaths)]
		cmp := sharedComparators[int(spec[1]&0x7f)%len(sharedComparators)]
		expected := sharedExpected[int(spec[2])%len(sharedExpected)]
		state := classify.State(1 + int(spec[2])%3)
		m := classify.OnOutput(path, cmp, expected)
		if strings.Contains(path, "output.") && spec[0]&0x80 != 0 {
			m = classify.OnInputOutput(path, cmp, expected)
		}
		if spec[1]&0x80 != 0 {
			m = classify.OnErrorType("Boom")
		}
		a := classify.Acceptor{State: state, Matcher: m}
		if _, err := classify.Compile[any, any]([]classify.Acceptor{a}); err == nil {
			as = append(as, a) // not a comparator that can never match
		}
	}
	return as
}

// sharedOutputOf makes an output from tokens, one instance each, three to
// a reservation: "~" an instance without a state, "#n" a tag that is the
// number n, "!" a tag true, "[]" an empty reservation; every token is
// also an item (a number, a boolean, null or a string) and a name. The
// nested output holds the tokens in reverse.
func sharedOutputOf(tokens []string, nested bool) *sharedOutput {
	out := &sharedOutput{}
	code := int32(16)
	for i, tok := range tokens {
		if i%3 == 0 {
			out.Reservations = append(out.Reservations, sharedReservation{})
		}
		r := &out.Reservations[len(out.Reservations)-1]
		var item any = tok
		in := sharedInstance{State: &sharedState{Name: sharedName(tok), Code: &code}, Tag: tok}
		switch {
		case tok == "~":
			in.State, in.Tag, item = nil, nil, nil
		case tok == "!":
			in.Tag, item = true, true
		case strings.HasPrefix(tok, "#"):
			n, _ := strconv.Atoi(tok[1:])
			in.Tag, item = float64(n), n
		case tok == "[]":
			out.Reservations = append(out.Reservations, sharedReservation{Instances: []sharedInstance{}})
			continue
		}
		r.Instances = append(r.Instances, in)
		out.Items = append(out.Items, item)
		out.Names = append(out.Names, tok)
	}
	if len(tokens) > 0 {
		out.Status, out.Ready = &tokens[0], ptr(tokens[0] == "!")
	}
	if nested {
		rev := make([]string, len(tokens))
		for i, tok := range tokens {
			rev[len(tokens)-1-i] = tok
		}
		out.Nested = sharedOutputOf(rev, false)
	}
	return out
}

// oneByOne is what each acceptor makes of out on its own, in a Set of its
// own (no path shared): whether it matched, and whether its path failed.
func oneByOne(t *testing.T, as []classify.Acceptor, in string, out *sharedOutput, err error) (matched, failed []bool) {
	for _, a := range as {
		set, cerr := classify.Compile[any, any]([]classify.Acceptor{a})
		if cerr != nil {
			t.Fatalf("Compile(%v): %v", a.Matcher, cerr)
		}
		m := set.Match(in, out, err)
		matched, failed = append(matched, m.Index == 0), append(failed, m.Err != nil)
	}
	return matched, failed
}

// checkShared checks that a Set of as, whose acceptors share paths, makes
// of out what the acceptors make of it one by one: the first that
// matches, its state, and an error for each acceptor tried whose path
// failed.
func checkShared(t *testing.T, as []classify.Acceptor, out *sharedOutput, err error) {
	t.Helper()
	set, cerr := classify.Compile[any, any](as)
	if cerr != nil {
		t.Fatalf("Compile: %v", cerr)
	}
	matched, failed := oneByOne(t, as, "in", out, err)
	want, wantErrs := -1, 0
	for i := range as {
		if failed[i] {
			wantErrs++
		}
		if matched[i] {
			want = i
			break
		}
	}
	m := set.Match("in", out, err)
	if m.Index != want || (want >= 0 && m.State != as[want].State) || len(errjoin.Split(m.Err)) != wantErrs {
		t.Errorf("Match = %d %v (%d errors: %v), one by one %d (%d errors)\nacceptors: %v",
			m.Index, m.State, len(errjoin.Split(m.Err)), m.Err, want, wantErrs, matchers(as))
	}
}

func matchers(as []classify.Acceptor) string {
	var b strings.Builder
	for i, a := range as {
		fmt.Fprintf(&b, "\n  %d %v %v", i, a.State, a.Matcher)
	}
	return b.String()
}

// instanceRunningAgain is InstanceRunning's four path acceptors, the same
// four on {input, output}, more on their path, and every comparator on
// paths of strings and arrays alike, for the table test.
var instanceRunningAgain = func() []classify.Acceptor {
	as := append([]classify.Acceptor{}, instanceRunning[:4]...)
	for _, a := range instanceRunning[:4] {
		p := a.Matcher.Output
		as = append(as, classify.Acceptor{State: a.State, Matcher: classify.OnInputOutput("output."+p.Path, p.Comparator, p.Expected)})
	}
	const names = "Reservations[].Instances[].State.Name"
	as = append(as,
		classify.Acceptor{State: classify.Success, Matcher: classify.OnOutput(names, classify.AnyStringEquals, "pending")},
		classify.Acceptor{State: classify.Failure, Matcher: classify.OnOutput(names, classify.AllStringEquals, "pending")},
		classify.Acceptor{State: classify.Retry, Matcher: classify.OnOutput(names, classify.AnyStringEquals, "running")},
	)
	for _, path := range []string{"Names", "Status"} {
		as = append(as,
			classify.Acceptor{State: classify.Success, Matcher: classify.OnOutput(path, classify.StringEquals, "running")},
			classify.Acceptor{State: classify.Failure, Matcher: classify.OnOutput(path, classify.BooleanEquals, "true")},
			classify.Acceptor{State: classify.Retry, Matcher: classify.OnOutput(path, classify.AllStringEquals, "running")},
			classify.Acceptor{State: classify.Success, Matcher: classify.OnOutput(path, classify.AnyStringEquals, "pending")},
		)
	}
	return as
}()

// TestSharedPathsAgree: acceptors that share a path, judged in one
// evaluation and one pass over its elements, match as each acceptor does
// on its own: on nil outputs and nil states, empty lists, values of mixed
// types, paths that fail, a path read on the output and on {input,
// output}, acceptors beyond the 64th, and a failed call.
func TestSharedPathsAgree(t *testing.T) {
	outputs := map[string]*sharedOutput{
		"nil output":               nil,
		"no reservations":          {},
		"empty reservations":       sharedOutputOf([]string{"[]", "[]"}, false),
		"all running":              sharedOutputOf(strings.Split("running,running,running,running", ","), true),
		"the last pending":         sharedOutputOf(strings.Split("running,running,running,pending", ","), true),
		"one without a state":      sharedOutputOf(strings.Split("running,~,running", ","), true),
		"only without a state":     sharedOutputOf([]string{"~"}, true),
		"mixed types":              sharedOutputOf(strings.Split("running,#1,!,~,pending,,[],true", ","), true),
		"empty strings":            sharedOutputOf([]string{"", ""}, false),
		"nested differs":           sharedOutputOf(strings.Split("pending,running", ","), true),
		"stopping then terminated": sharedOutputOf(strings.Split("running,stopping,terminated", ","), false),
	}
	sets := map[string][]classify.Acceptor{
		"InstanceRunning": instanceRunning[:4],
		"InstanceRunning, on {input, output} and the output, and more comparators": instanceRunningAgain,
		"every path and comparator": sharedAcceptors(func() []byte {
			var spec []byte
			for p := range len(sharedPaths) {
				for c := range sharedComparators {
					spec = append(spec, byte(p)|0x80, byte(c), byte(p+c))
					spec = append(spec, byte(p), byte(c), byte(p+c+1))
				}
			}
			return spec
		}()),
		"errorType between": sharedAcceptors([]byte{0, 0, 0, 0, 0x80, 0, 0, 1, 1, 0, 1, 0, 0, 1, 1}),
		"one path text on {input, output}, then on the output": {
			{State: classify.Failure, Matcher: classify.OnInputOutput("output.Status", classify.StringEquals, "running")},
			{State: classify.Retry, Matcher: classify.OnInputOutput("output.Names", classify.AnyStringEquals, "running")},
			{State: classify.Success, Matcher: classify.OnOutput("output.Status", classify.StringEquals, "running")},
			{State: classify.Retry, Matcher: classify.OnOutput("output.Names", classify.AnyStringEquals, "running")},
		},
		"one path text on the output, then on {input, output}": {
			{State: classify.Failure, Matcher: classify.OnOutput("output.Names", classify.AllStringEquals, "pending")},
			{State: classify.Retry, Matcher: classify.OnOutput("output.Status", classify.StringEquals, "pending")},
			{State: classify.Success, Matcher: classify.OnInputOutput("output.Status", classify.StringEquals, "pending")},
			{State: classify.Failure, Matcher: classify.OnInputOutput("output.Names", classify.AllStringEquals, "pending")},
		},
	}
	for sname, as := range sets {
		for oname, out := range outputs {
			t.Run(sname+"/"+oname, func(t *testing.T) {
				checkShared(t, as, out, nil)
				checkShared(t, as, out, &apiError{"Boom"})
			})
		}
	}
}

// TestSharedPathsConcurrent: a Set whose acceptors share paths is safe for
// concurrent use (run with -race): each Match keeps what its passes find
// to itself.
func TestSharedPathsConcurrent(t *testing.T) {
	set, err := classify.Compile[any, any](instanceRunningAgain)
	if err != nil {
		t.Fatal(err)
	}
	outs := []*sharedOutput{
		sharedOutputOf(strings.Split("running,running,running", ","), true),
		sharedOutputOf(strings.Split("running,terminated,running", ","), true),
		sharedOutputOf(strings.Split("running,running,pending", ","), true),
	}
	want := make([]int, len(outs))
	for i, out := range outs {
		want[i] = set.Match(nil, out, nil).Index
	}
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for n := range 200 {
				i := (g + n) % len(outs)
				if got := set.Match(nil, outs[i], nil).Index; got != want[i] {
					t.Errorf("output %d: Match = %d, want %d", i, got, want[i])
					return
				}
			}
		})
	}
	wg.Wait()
}

// FuzzSharedPaths: acceptors that share paths match as each does on its
// own, on outputs of any tokens.
func FuzzSharedPaths(f *testing.F) {
	f.Add([]byte{0, 0, 0, 0, 1, 2, 0, 1, 3, 0, 1, 4}, "running,running,pending", true)
	f.Add([]byte{1, 0, 0, 1, 1, 5, 2, 1, 0, 2, 0, 2, 3, 2, 3, 4, 3, 4}, "running,#1,!,~,pending,,[]", true)
	f.Add([]byte{0x8a, 0, 0, 10, 0, 0, 0x8a, 1, 1, 10, 1, 1, 9, 2, 0, 0x93, 2, 0}, "pending,running", true)
	f.Add([]byte{17, 0, 3, 18, 3, 3, 0x91, 1, 3, 7, 3, 3}, "~,~", false)
	long := make([]byte, 0, 3*70)
	for i := range 70 {
		long = append(long, byte(i%2), byte(i%4), byte(i%6))
	}
	f.Add(long, "running,stopping", true)
	f.Fuzz(func(t *testing.T, spec []byte, tokens string, nested bool) {
		if len(spec) > 3*80 || len(tokens) > 256 {
			return
		}
		as := sharedAcceptors(spec)
		if len(as) == 0 {
			return
		}
		var toks []string
		if tokens != "" {
			toks = strings.Split(tokens, ",")
		}
		checkShared(t, as, sharedOutputOf(toks, nested), nil)
	})
}

// countedDoc is an output read as a Smithy document, which counts how
// often it is read.
type countedDoc struct {
	json  string
	reads *int
}

func (d countedDoc) MarshalSmithyDocument() ([]byte, error) {
	*d.reads++
	return []byte(d.json), nil
}

// TestSharedPathEvaluatedOnce: a path that several acceptors read is
// evaluated once per Match, however many of them are tried.
func TestSharedPathEvaluatedOnce(t *testing.T) {
	set, err := classify.Compile[any, *countedDoc]([]classify.Acceptor{
		{State: classify.Success, Matcher: classify.OnOutput("items[].state", classify.AllStringEquals, "running")},
		{State: classify.Failure, Matcher: classify.OnOutput("items[].state", classify.AnyStringEquals, "terminated")},
		{State: classify.Failure, Matcher: classify.OnOutput("items[].state", classify.AnyStringEquals, "stopping")},
		{State: classify.Failure, Matcher: classify.OnOutput("status", classify.StringEquals, "failed")},
		{State: classify.Retry, Matcher: classify.OnOutput("items[].state", classify.AnyStringEquals, "pending")},
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		json  string
		index int
		reads int
	}{
		{`{"items": [{"state": "running"}, {"state": "running"}]}`, 0, 1},
		{`{"items": [{"state": "running"}, {"state": "stopping"}]}`, 2, 1},
		{`{"items": [{"state": "running"}, {"state": "pending"}], "status": "ok"}`, 4, 2},
		{`{"items": [], "status": "failed"}`, 3, 2},
	} {
		reads := 0
		if m := set.Match(nil, &countedDoc{tt.json, &reads}, nil); m.Index != tt.index || reads != tt.reads {
			t.Errorf("Match(%s) = %d after %d reads of the output, want %d after %d", tt.json, m.Index, reads, tt.index, tt.reads)
		}
	}
}

// TestInputOutputDocumentBuiltOnce: the {input, output} document is built
// once per Match, however many inputOutput acceptors read it.
func TestInputOutputDocumentBuiltOnce(t *testing.T) {
	set, err := classify.Compile[*DescribeInstancesInput, *DescribeInstancesOutput]([]classify.Acceptor{
		{State: classify.Success, Matcher: classify.OnInputOutput("output.NextToken", classify.StringEquals, "x")},
		{State: classify.Failure, Matcher: classify.OnInputOutput("input.InstanceIds[0]", classify.StringEquals, "i-2")},
		{State: classify.Failure, Matcher: classify.OnInputOutput("output.Reservations[].ReservationId", classify.AnyStringEquals, "r-2")},
	})
	if err != nil {
		t.Fatal(err)
	}
	in, out := &DescribeInstancesInput{InstanceIds: []string{"i-1"}}, instances("running", "pending")
	if n := testing.AllocsPerRun(100, func() {
		if m := set.Match(in, out, nil); m.Index != -1 || m.Err != nil {
			t.Fatalf("Match = %+v, want no match", m)
		}
	}); n != 1 {
		t.Errorf("Match with three inputOutput acceptors: %v allocations, want 1", n)
	}
}
