package jmespath

import (
	"testing"
)

// TestEqualStringCompliance: on the compliance suites' given values and
// their typed Go mirrors (which take the in-place path where the types
// allow), EqualString answers whether the expression's result is the
// string asked for.
func TestEqualStringCompliance(t *testing.T) {
	checked := 0
	resultCases(t, func(c resultCase) {
		wants := wantsFor([]any{c.result})
		for _, given := range c.givens() {
			for _, want := range wants {
				checked++
				got, err := c.e.EqualString(given, want)
				if err != nil {
					t.Fatalf("%s on %T: %v", c.name, given, err)
				}
				if ref, ok := c.result.(string); got != (ok && ref == want) {
					t.Errorf("%s on %T: EqualString(%q) = %v; the result is %#v", c.name, given, want, got, c.result)
				}
			}
		}
	})
	t.Logf("%d comparisons checked", checked)
}

// TestEqualStringShapes: the shapes of the SDKs' outputs (fields behind
// pointers, enum strings, indexes, a nil root or link) answer as Eval
// does.
func TestEqualStringShapes(t *testing.T) {
	out := shapesOutput([]string{"running", "pending", "stopped", "terminated", "running"})
	var nilOut *cOutput
	for _, path := range []string{
		"Reservations[0].Owner", "Reservations[1].Instances[0].State.Name", "Reservations[1].Instances[0].Enum",
		"Reservations[5].Instances[1].State.Name", "Reservations[-1].Instances[0].Ptr", "Reservations[2].Instances[1].Boxed",
		"Reservations[0].Instances[0].ID", "Names[3]", "Reservations[].Owner", "Reservations[3].Group.Instances[0].Plain.Name",
		"Reservations[0].Instances[0].State.Code",
	} {
		e := MustCompile(path)
		for _, v := range []any{out, nilOut} {
			r, err := e.Eval(v)
			if err != nil {
				t.Fatalf("%s: %v", path, err)
			}
			s, isString := r.String()
			for _, want := range []string{"running", "pending", "stopped", "terminated", ""} {
				got, err := e.EqualString(v, want)
				if err != nil {
					t.Fatalf("%s: EqualString: %v", path, err)
				}
				if got != (isString && s == want) {
					t.Errorf("%s on %T: EqualString(%q) = %v; Eval gives %q (a string: %v)", path, v, want, got, s, isString)
				}
			}
		}
	}
}
