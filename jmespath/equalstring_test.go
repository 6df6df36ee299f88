package jmespath

import (
	"fmt"
	"testing"
)

// TestEqualStringCompliance: on the compliance suites' given values and
// their typed Go mirrors (which take the in-place path where the types
// allow), EqualString answers whether the expression's result is the
// string asked for.
func TestEqualStringCompliance(t *testing.T) {
	checked := 0
	for _, suite := range complianceDirs {
		for _, file := range loadCompliance(t, suite.dir) {
			for si, s := range file.suites {
				mirror, mirrorOK := mirrorOf(s.Given)
				for _, c := range s.Cases {
					if c.Error != "" || c.Bench != "" {
						continue
					}
					name := fmt.Sprintf("%s/%s/%d/%s", suite.name, file.name, si, c.Expression)
					e, err := Compile(c.Expression)
					if err != nil {
						t.Fatalf("%s: %v", name, err)
					}
					givens := []any{s.Given}
					if mirrorOK {
						givens = append(givens, mirror.Interface())
					}
					wants := wantsFor([]any{c.Result})
					for _, given := range givens {
						for _, want := range wants {
							checked++
							got, err := e.EqualString(given, want)
							if err != nil {
								t.Fatalf("%s on %T: %v", name, given, err)
							}
							if ref, ok := c.Result.(string); got != (ok && ref == want) {
								t.Errorf("%s on %T: EqualString(%q) = %v; the result is %#v", name, given, want, got, c.Result)
							}
						}
					}
				}
			}
		}
	}
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
