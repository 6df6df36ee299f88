package jmespath

import (
	"fmt"
	"strings"
	"testing"
)

// countRef is CountString's contract, counted on a result in the types of
// encoding/json: the elements of an array that are strings equal to want,
// and its elements; 0 and 0 for anything else.
func countRef(res any, want string) (eq, n int) {
	list, ok := res.([]any)
	if !ok {
		return 0, 0
	}
	for _, x := range list {
		if s, ok := x.(string); ok && s == want {
			eq++
		}
	}
	return eq, len(list)
}

// wantsFor returns the strings to count in a result: each string in it,
// each with its first, middle or last byte changed, and some that are in
// no result.
func wantsFor(res any) []string {
	wants := []string{"", "no such string", "a string of more than sixteen bytes"}
	if list, ok := res.([]any); ok {
		for _, x := range list {
			if s, ok := x.(string); ok {
				wants = append(wants, s)
				for _, i := range []int{0, len(s) / 2, len(s) - 1} {
					if i >= 0 && i < len(s) {
						b := []byte(s)
						b[i] ^= 1
						wants = append(wants, string(b))
					}
				}
			}
		}
	}
	return wants
}

// TestCountStringCompliance: on the compliance suites' given values and
// their typed Go mirrors (which run the planned paths where the types
// allow), CountString counts what the expression's result holds.
func TestCountStringCompliance(t *testing.T) {
	checked := 0
	resultCases(t, func(c resultCase) {
		for _, given := range c.givens() {
			v, err := c.e.Eval(given)
			if err != nil {
				t.Fatalf("%s on %T: %v", c.name, given, err)
			}
			for _, want := range wantsFor(c.result) {
				checked++
				eq, n := v.CountString(want)
				if weq, wn := countRef(c.result, want); eq != weq || n != wn {
					t.Errorf("%s on %T: CountString(%q) = %d, %d; want %d, %d", c.name, given, want, eq, n, weq, wn)
				}
			}
		}
	})
	t.Logf("%d counts checked", checked)
}

// Shapes of the output types the SDKs generate, and variations of them:
// struct and pointer elements, enum and pointer strings, fields behind
// pointers and not, other leaf types.
type (
	cState struct {
		Code *int32
		Name string
	}
	cInstance struct {
		ID    *string
		State *cState
		Tags  []cTag
		Plain cState
		Enum  cEnum
		Ptr   *string
		Boxed any
	}
	cEnum        string
	cTag         struct{ Key, Value *string }
	cReservation struct {
		Owner     string
		Instances []cInstance
		Pointers  []*cInstance
		Group     *cGroup
	}
	cGroup  struct{ Instances []cInstance }
	cOutput struct {
		Reservations []cReservation
		ByPointer    []*cReservation
		Names        []string
		Nested       [][]string
	}
)

// shapesOutput builds an output of the SDKs' shapes holding names: a
// reservation per name, with i%4 instances, some without a State.
func shapesOutput(names []string) *cOutput {
	code := int32(16)
	out := &cOutput{Names: names, Nested: [][]string{names, nil, {}}}
	for i, name := range names {
		r := cReservation{Owner: name}
		for j := range i % 4 {
			s := names[(i+j)%len(names)]
			in := cInstance{ID: &s, Plain: cState{Name: s}, Enum: cEnum(s), Tags: []cTag{{Key: &s}, {}}, Boxed: s}
			if (i+j)%5 != 0 {
				in.State = &cState{Name: s, Code: &code}
				in.Ptr = &s
			}
			r.Instances = append(r.Instances, in)
			r.Pointers = append(r.Pointers, &r.Instances[len(r.Instances)-1], nil)
		}
		if i%3 != 0 {
			r.Group = &cGroup{Instances: r.Instances}
		}
		out.Reservations = append(out.Reservations, r)
		out.ByPointer = append(out.ByPointer, &out.Reservations[len(out.Reservations)-1], nil)
	}
	out.Reservations = append(out.Reservations, cReservation{}, cReservation{Instances: []cInstance{}})
	return out
}

var shapeExprs = []string{
	"Names", "Names[]", "Nested[]", "Nested[][]", "Reservations[].Owner", "ByPointer[].Owner",
	"Reservations[].Instances[].State.Name", "Reservations[].Instances[].State.Code",
	"Reservations[].Instances[].Plain.Name", "Reservations[].Instances[].Enum",
	"Reservations[].Instances[].Ptr", "Reservations[].Instances[].ID", "Reservations[].Instances[].Boxed",
	"Reservations[].Instances[].Tags[].Key", "Reservations[].Pointers[].State.Name",
	"ByPointer[].Instances[].State.Name", "ByPointer[].Pointers[].Enum",
	"Reservations[].Group.Instances[].State.Name", "Reservations[].Instances[].State",
	"Reservations[].Instances[0].State.Name", "Reservations[0].Instances[].Enum",
	"Reservations[].Instances[].Tags[].Key[]", "Reservations[*].Instances[*].State.Name",
	"Reservations[].Instances[*].Enum", "Reservations[*].Instances[].Plain.Name",
}

// checkShapes checks CountString against Search for each of shapeExprs
// on out, counting wants and the strings wantsFor finds.
func checkShapes(t *testing.T, out *cOutput, wants ...string) {
	for _, expr := range shapeExprs {
		e := MustCompile(expr)
		res, err := e.Search(out)
		if err != nil {
			t.Fatalf("%s: %v", expr, err)
		}
		v, err := e.Eval(out)
		if err != nil {
			t.Fatalf("%s: %v", expr, err)
		}
		for _, want := range append(wantsFor(res), wants...) {
			eq, n := v.CountString(want)
			if weq, wn := countRef(res, want); eq != weq || n != wn {
				t.Errorf("%s: CountString(%q) = %d, %d; want %d, %d", expr, want, eq, n, weq, wn)
			}
		}
	}
}

// TestCountStringShapes: CountString on typed outputs of the SDKs' shapes
// counts what Search returns, for strings of every length up to past 16
// bytes that differ from the result's at their first, middle or last byte,
// with nil pointers, empty and nil slices and non-string leaves on the way.
func TestCountStringShapes(t *testing.T) {
	var names []string
	for n := range 20 {
		names = append(names, strings.Repeat("x", n), fmt.Sprintf("%.*s", n, "running-with-a-long-suffix"))
	}
	checkShapes(t, shapesOutput(names))
}

// FuzzCountStringShapes: CountString counts what Search returns on outputs
// of the SDKs' shapes holding any strings.
func FuzzCountStringShapes(f *testing.F) {
	f.Add("running,pending,running,stopping,terminated,shutting-down", "running")
	f.Add("a,ab,abc,abcd,abcde,abcdefgh,abcdefghi,abcdefghijklmnop,abcdefghijklmnopq", "abcdefghijklmnop")
	f.Add(",,\x00,\x00\x00\x00\x00", "\x00\x00\x00\x00")
	f.Fuzz(func(t *testing.T, names, want string) {
		if len(names) > 4096 {
			return
		}
		checkShapes(t, shapesOutput(strings.Split(names, ",")), want)
	})
}
