package jmespath

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"
)

// searchEvaluator is Search through the evaluator alone, never a plan: the
// reference the plans are checked against.
func searchEvaluator(e *Expr, v any) (any, error) {
	ev := evaluator{e: e}
	x, err := ev.eval(e.root, fromGo(reflect.ValueOf(v), e.names))
	if err != nil {
		return nil, err
	}
	return valueOf(x, e).Interface()
}

// TestElementsCompliance: on the compliance suites' given values and their
// typed Go mirrors (which run the planned paths where the types allow),
// Eval's Value yields, through Elements, the elements of an array result
// in order, and nothing for any other result.
func TestElementsCompliance(t *testing.T) {
	checked := 0
	resultCases(t, func(c resultCase) {
		want := []any{}
		if list, ok := c.result.([]any); ok {
			want = list
		}
		for _, given := range c.givens() {
			v, err := c.e.Eval(given)
			if err != nil {
				t.Fatalf("%s on %T: %v", c.name, given, err)
			}
			got := []any{}
			v.Elements(func(x Value) bool {
				e, err := x.Interface()
				if err != nil {
					t.Fatalf("%s on %T: an element: %v", c.name, given, err)
				}
				got = append(got, e)
				return true
			})
			checked++
			if g, w := canonical(t, got), canonical(t, want); g != w {
				t.Errorf("%s on %T: Elements = %s, want %s", c.name, given, g, w)
			}
		}
	})
	t.Logf("%d results checked", checked)
}

// Shapes of the output types the SDKs generate, and variations of them:
// struct and pointer elements, enum and pointer strings, fields behind
// pointers and not, promoted fields, other leaf types.
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
		cLeaves
	}
	// cLeaves are leaves of every numeric kind and a time, promoted into
	// cInstance.
	cLeaves struct {
		Zone   string
		Cores  uint16
		Ratio  float32
		Small  int8
		Big    uint64
		Launch *time.Time
		Since  time.Time
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
			launch := time.Unix(int64(1700000000+i), int64(j)*250_000_000)
			in.cLeaves = cLeaves{Zone: s, Cores: uint16(i * 7), Ratio: 1.2 * float32(j), Small: int8(-i),
				Big: 1<<63 + uint64(i), Since: launch}
			if j%2 == 0 {
				in.Launch = &launch
			}
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
	"Reservations[0].Owner", "Reservations[1].Instances[0].State.Name",
	"Reservations[1].Instances[0].Enum",
	"Reservations[5].Instances[1].State.Name", "Reservations[-1].Instances[0].Ptr",
	"Reservations[2].Instances[1].Boxed", "Reservations[0].Instances[0].ID", "Names[3]",
	"Reservations[3].Group.Instances[0].Plain.Name", "Reservations[0].Instances[0].State.Code",
	"Reservations[].Instances[].Zone", "Reservations[0].Instances[1].Zone",
	"Reservations[].Instances[].Cores", "Reservations[].Instances[].Ratio",
	"Reservations[].Instances[].Small", "Reservations[].Instances[].Big",
	"Reservations[].Instances[].Launch", "Reservations[].Instances[].Since",
	"Reservations[1].Instances[0].Ratio", "Reservations[2].Instances[1].Launch",
}

// unplanned are the shapeExprs no plan covers: a result of an interface
// type, and a projection of a projection (a list of lists).
var unplanned = map[string]bool{
	"Reservations[].Instances[].Boxed": true, "Reservations[2].Instances[1].Boxed": true,
	"Reservations[*].Instances[*].State.Name": true, "Reservations[].Instances[*].Enum": true,
}

// checkShapes checks, for each of shapeExprs, that the plan made for the
// SDKs' shapes gives what the evaluator gives, on out, on a nil *cOutput
// and on a cOutput by value.
func checkShapes(t *testing.T, out *cOutput) {
	var nilOut *cOutput
	for _, expr := range shapeExprs {
		e := compile(t, expr)
		if p := e.plan(reflect.ValueOf(out)); p == nil && !unplanned[expr] {
			t.Errorf("%s: no plan for %T", expr, out)
		}
		for _, v := range []any{out, nilOut, *out} {
			got, err := e.Search(v)
			if err != nil {
				t.Fatalf("%s on %T: %v", expr, v, err)
			}
			want, err := searchEvaluator(e, v)
			if err != nil {
				t.Fatalf("%s on %T: the evaluator: %v", expr, v, err)
			}
			if g, w := canonical(t, got), canonical(t, want); g != w {
				t.Errorf("%s on %T: %s, the evaluator %s", expr, v, g, w)
			}
		}
	}
}

// TestPlanShapes: on typed outputs of the SDKs' shapes, with nil pointers,
// empty and nil slices, indexes out of range and non-string leaves on the
// way, a planned path reads what the evaluator reads.
func TestPlanShapes(t *testing.T) {
	var names []string
	for n := range 20 {
		names = append(names, strings.Repeat("x", n), fmt.Sprintf("%.*s", n, "running-with-a-long-suffix"))
	}
	checkShapes(t, shapesOutput(names))
}

// FuzzPlanShapes: a planned path reads what the evaluator reads, on
// outputs of the SDKs' shapes holding any strings.
func FuzzPlanShapes(f *testing.F) {
	f.Add("running,pending,running,stopping,terminated,shutting-down")
	f.Add("a,ab,abc,abcd,abcde,abcdefgh,abcdefghi,abcdefghijklmnop,abcdefghijklmnopq")
	f.Add(",,\x00,\x00\x00\x00\x00")
	f.Fuzz(func(t *testing.T, names string) {
		if len(names) > 4096 {
			return
		}
		checkShapes(t, shapesOutput(strings.Split(names, ",")))
	})
}

// TestPlanLeavesAllocateNothing: a planned projection reads its leaves in
// place, whatever their kind (strings and enums, numbers of every kind,
// times, behind pointers or not): evaluating it and reading every element
// allocates nothing.
func TestPlanLeavesAllocateNothing(t *testing.T) {
	out := shapesOutput([]string{"running", "pending", "a", "", "stopping", "terminated", "b"})
	for _, leaf := range []string{"State.Name", "Enum", "Ptr", "State.Code", "Zone", "Cores", "Ratio", "Small", "Big", "Launch", "Since"} {
		e := compile(t, "Reservations[].Instances[]."+leaf)
		seen := 0
		n := testing.AllocsPerRun(20, func() {
			v, err := e.Eval(out)
			if err != nil {
				t.Fatal(err)
			}
			seen = 0
			v.Elements(func(x Value) bool {
				if x.Kind() != Null {
					seen++
				}
				return true
			})
		})
		if n != 0 || seen == 0 {
			t.Errorf("%s: %v allocations for %d elements, want none", e, n, seen)
		}
	}
}
