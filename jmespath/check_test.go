package jmespath

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"reflect"
	"strings"
	"testing"
	"time"
)

// Types for the checks: shaped like aws-sdk-go-v2's outputs, with the
// Go types the data model reads specially.
type (
	ckStatus string
	ckDoc    struct{}
	ckItem   struct {
		ID    *string `jmespath:"id"`
		Count int32
		Tags  [][]string
		Raw   []byte
		When  time.Time
		Big   *big.Int
	}
	ckUnion           interface{ isUnion() }
	ckUnionMemberName struct{ Value string } // a union member of ckUnion
	ckOutput          struct {
		Status  ckStatus
		Items   []ckItem
		ByName  map[string]ckItem
		ByInt   map[int]string // not an object: null
		Any     any
		Doc     ckDoc
		DocPtr  *ckDoc
		Union   ckUnion
		Member  ckUnionMemberName
		Nothing chan int // null
		Fixed   [2]ckStatus
	}
)

func (ckDoc) MarshalSmithyDocument() ([]byte, error) { return []byte("{}"), nil }
func (ckUnionMemberName) isUnion()                   {}

// TestCheck: what Check infers and refuses on Go types.
func TestCheck(t *testing.T) {
	root := reflect.TypeFor[*ckOutput]()
	for _, tt := range []struct {
		expr   string
		result string // the result, described
		want   string // a problem, or "" for none
	}{
		{"Status", "a string (jmespath.ckStatus)", ""},
		{"status", "a string (jmespath.ckStatus)", ""},
		{"Items[].id", "an array of strings", ""},
		{"Items[].ID", "an array", `type error at offset 8: field "ID" does not exist on jmespath.ckItem (did you mean id?)`},
		{"length(Items[].ID)", "a number", `type error at offset 15: Items[].ID: field "ID" does not exist on jmespath.ckItem (did you mean id?)`},
		{"Items[0].Count", "a number (int32)", ""},
		{"Items[0].Raw", "a string ([]uint8)", ""},
		{"Items[0].When", "a timestamp (time.Time, read as a number of epoch seconds)", ""},
		{"Items[0].Big", "a number (big.Int)", ""},
		{"Items[].Tags[]", "an array of arrays", ""},
		{"Items[].Tags[][]", "an array of strings", ""},
		{"Items[1:].Count", "an array of numbers", ""},
		{"ByName.x.Count", "a number (int32)", ""},
		{"ByName.*.id", "an array of strings", ""},
		{"values(ByName)[0].Count", "a number (int32)", ""},
		{"ByInt.x", "a value of unknown type", ""},
		{"Fixed[0]", "a string (jmespath.ckStatus)", ""},
		{"Any.a.b[0].c", "a value of unknown type", ""},
		{"Doc.a.b", "a value of unknown type", ""},
		{"DocPtr.a.b", "a value of unknown type", ""},
		{"Union.Anything", "a value of unknown type", ""},
		{"Member.Name", "a string", ""},
		{"Member.name", "a string", ""},
		{"Member.Nmae", "a value of unknown type", "(did you mean Name?)"},
		{"Member.Other", "a value of unknown type", `field "Other" does not exist on jmespath.ckUnionMemberName`},
		{"Nothing", "null (chan int)", ""},
		{"Nothing.x", "a value of unknown type", ""},
		{"length(Items) > `1` && Status == 'A'", "a boolean", ""},
		{"Items[?Count > `1`] | [0].id", "a string", ""},
		{"map(&Count, Items)", "an array of numbers", ""},
		{"max_by(Items, &Count).id", "a string", ""},
		{"to_array(Status)", "an array of strings", ""},
		{"not_null(Items[0].id, Status)", "a string", ""},
		{"merge(ByName, `{}`).anything", "a value of unknown type", ""},
		{"`[1, 2]`", "an array of numbers", ""},
		{"{a: Status, b: Items[0].Count}.b", "a number (int32)", ""},
		{"Status.length", "a value of unknown type", `field "length" is read from a string (jmespath.ckStatus), which is not an object`},
		{"Items.id", "a value of unknown type", "(to read it from each element: Items[].id)"},
		{"Status == null", "a boolean", `field "null" does not exist on jmespath.ckOutput (a JSON literal is written ` + "`null`)"},
		{"Status < `1`", "a boolean", "< compares numbers, but Status is a string"},
		{"Items[0].Count == '1'", "a boolean", "== compares Items[0].Count, a number (int32), with '1', a string"},
		{"avg(Items[].id)", "a number", "argument 1 of avg() must be an array of numbers, but Items[].id is an array of strings"},
		{"min(Items)", "a value of unknown type", "argument 1 of min() must be an array of numbers or of strings, but Items is an array ([]jmespath.ckItem)"},
		{"merge(Items)", "an object", "argument 1 of merge() must be an object, but Items is an array"},
		{"to_number(@)", "a number", ""},
		{"abs(@)", "a number", "argument 1 of abs() must be a number, but @ is an object (jmespath.ckOutput)"},
		{"Items[?@]", "an array ([]jmespath.ckItem)", ""},
		{"@.Items | [0] | Count", "a number (int32)", ""},
	} {
		e := compile(t, tt.expr)
		rt, err := e.Check(e.GoType(root))
		got := ""
		if err != nil {
			got = err.Error()
		}
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("%s: %v, want no problem", tt.expr, err)
		case tt.want != "" && !strings.Contains(got, tt.want):
			t.Errorf("%s: %q, want a problem containing %q", tt.expr, got, tt.want)
		}
		if d := Describe(rt); d != tt.result && !(tt.result == "an array ([]jmespath.ckItem)" && d == "an array of objects") {
			t.Errorf("%s: the result is %s, want %s", tt.expr, d, tt.result)
		}
	}
}

// TestCheckProblems: every problem is reported, each a *TypeError at the
// offset of the part at fault, in the order of the expression.
func TestCheckProblems(t *testing.T) {
	e := compile(t, "Stauts == 'A' || length(Items[?Cuont > `1`]) > abs(Status)")
	_, err := e.Check(e.GoType(reflect.TypeFor[ckOutput]()))
	j, ok := err.(interface{ Unwrap() []error })
	if !ok {
		t.Fatalf("Check = %v, want several problems", err)
	}
	var got []string
	for _, err := range j.Unwrap() {
		var te *TypeError
		if !errors.As(err, &te) || te.Expr != e.String() {
			t.Fatalf("%v is not a *TypeError on the expression", err)
		}
		got = append(got, fmt.Sprintf("%d %s", te.Offset, te.Expr[te.Offset:te.Offset+3]))
	}
	if want := "0 Sta,31 Cuo,51 Sta"; strings.Join(got, ",") != want {
		t.Errorf("problems at %q, want %q: %v", strings.Join(got, ","), want, err)
	}
	if _, err := compile(t, "Status").Check(nil); err != nil {
		t.Errorf("Check(nil) = %v, want nothing checked", err)
	}
}

// TestCheckMemberNames: with member names, a struct's fields are found
// and suggested by them.
func TestCheckMemberNames(t *testing.T) {
	names := WithMemberNames(func(t reflect.Type, f reflect.StructField) string {
		if f.Name == "Count" {
			return "itemCount"
		}
		return ""
	})
	e := compile(t, "Items[0].itemCount", names)
	if _, err := e.Check(e.GoType(reflect.TypeFor[ckOutput]())); err != nil {
		t.Errorf("a member name: %v", err)
	}
	e = compile(t, "Items[0].itemCuont", names)
	if _, err := e.Check(e.GoType(reflect.TypeFor[ckOutput]())); err == nil || !strings.Contains(err.Error(), "did you mean itemCount?") {
		t.Errorf("a misspelt member name: %v, want the member name suggested", err)
	}
}

// TestCheckInfersComplianceResults: on the JMESPath compliance suite, with
// each document's own type, the type Check infers for a result that is
// not null is the result's (an array's elements may be null: a
// multi-select list keeps them).
func TestCheckInfersComplianceResults(t *testing.T) {
	known := 0
	for file, s := range complianceSuites(t) {
		for _, c := range s.Cases {
			e, err := Compile(c.Expression)
			if err != nil || c.Error != "" || c.Result == nil {
				continue
			}
			rt, _ := e.Check(literalType(s.Given))
			k, ok := rt.Kind()
			if !ok {
				continue
			}
			known++
			if k != kindOf(c.Result) {
				t.Errorf("%s: %s gives %s; Check infers %s", file, c.Expression, canonical(t, c.Result), Describe(rt))
				continue
			}
			ek, ok := elemOf(rt).Kind()
			for i := range arrayLen(c.Result) {
				if k := kindOf(arrayAt(c.Result, i)); ok && k != ek && k != Null {
					t.Errorf("%s: %s gives %s; Check infers %s", file, c.Expression, canonical(t, c.Result), Describe(rt))
					break
				}
			}
		}
	}
	if known < 500 {
		t.Errorf("Check knew the type of %d results, want most of the suite's", known)
	}
}

// TestCheckUnknownCompliance: on values of unknown type, Check reports
// only what fails whatever the value (an argument of the wrong type given
// as a literal): in the compliance suite, expressions that fail with
// invalid-type or give null.
func TestCheckUnknownCompliance(t *testing.T) {
	found := 0
	for file, s := range complianceSuites(t) {
		for _, c := range s.Cases {
			e, err := Compile(c.Expression)
			if err != nil {
				continue
			}
			if _, err := e.Check(nil); err != nil {
				found++
				if c.Error != "invalid-type" && c.Result != nil {
					t.Errorf("%s: %s gives %s; Check(nil) = %v", file, c.Expression, canonical(t, c.Result), err)
				}
			}
		}
	}
	if found < 10 {
		t.Errorf("Check(nil) found %d problems in the suite, want its invalid-type cases", found)
	}
}

// complianceSuites yields every suite of the vendored compliance
// suites, with the name of its file.
func complianceSuites(t *testing.T) func(yield func(string, complianceSuite) bool) {
	return func(yield func(string, complianceSuite) bool) {
		for _, d := range complianceDirs {
			for _, f := range loadCompliance(t, d.dir) {
				for _, s := range f.suites {
					if !yield(d.name+"/"+f.name, s) {
						return
					}
				}
			}
		}
	}
}

// FuzzCheck: any expression that compiles is checked, against an unknown
// type, a Go type and a document's type, without panicking, and every
// problem's offset is within the expression.
func FuzzCheck(f *testing.F) {
	seedCorpus(f)
	f.Fuzz(func(t *testing.T, expr, doc string) {
		e, err := Compile(expr)
		if err != nil {
			return
		}
		var v any
		if json.Unmarshal([]byte(doc), &v) != nil {
			v = nil
		}
		for _, root := range []Type{nil, e.GoType(reflect.TypeFor[*ckOutput]()), literalType(fromJSON(v))} {
			rt, err := e.Check(root)
			if rt == nil {
				t.Fatalf("%q: nil result type", expr)
			}
			errs := []error{err}
			if j, ok := err.(interface{ Unwrap() []error }); ok {
				errs = j.Unwrap()
			}
			for _, err := range errs {
				var te *TypeError
				if err != nil && (!errors.As(err, &te) || te.Offset < 0 || te.Offset > len(expr)) {
					t.Fatalf("%q: %v, want a *TypeError within the expression", expr, err)
				}
			}
		}
	})
}

// Struct types for TestGoTypeAgreesWithEval: tags, a tag that takes
// another field's name, an empty tag, promoted fields, a field hidden by a
// shallower one, unexported fields, upper-casing of a non-ASCII first
// letter.
type (
	fieldsInner struct {
		Deep  string
		Shade string // hidden by fieldsOuter.Shade
		Named string `jmespath:"innerName"`
	}
	FieldsEmbedded struct{ Promoted string }
	fieldsOuter    struct {
		fieldsInner
		*FieldsEmbedded
		Status  string
		Tagged  string `jmespath:"renamed"`
		Same    string `jmespath:"Same"`
		Taker   string `jmespath:"Other"` // takes the name of the field Other
		Other   string
		Empty   string `jmespath:""`
		Shade   string
		État    string
		private string
	}
)

// TestGoTypeAgreesWithEval: the static type has a member for a name
// exactly where an evaluation reads a field, and Check refuses the names
// an evaluation reads nothing for.
func TestGoTypeAgreesWithEval(t *testing.T) {
	names := []string{
		"Status", "status", "STATUS", "renamed", "Tagged", "tagged", "Same", "same",
		"Other", "other", "Taker", "taker", "Empty", "empty", "", "Shade", "shade",
		"Deep", "deep", "Named", "innerName", "named", "Promoted", "promoted",
		"État", "état", "private", "Private", "fieldsInner", "FieldsEmbedded", "missing",
	}
	var v fieldsOuter
	v.FieldsEmbedded = &FieldsEmbedded{}
	v.private = "an unexported field is no member"
	rv := reflect.ValueOf(&v).Elem()
	for _, f := range reflect.VisibleFields(rv.Type()) {
		if f.Type.Kind() == reflect.String && f.IsExported() {
			rv.FieldByIndex(f.Index).SetString(f.Name)
		}
	}
	members := 0
	for _, name := range names {
		quoted, _ := json.Marshal(name)
		e := compile(t, string(quoted))
		got, err := e.Eval(&v)
		if err != nil {
			t.Fatal(err)
		}
		typ := e.GoType(rv.Type())
		_, member := typ.Member(name)
		_, checkErr := e.Check(typ)
		if read := got.Kind() != Null; read != member || read == (checkErr != nil) {
			t.Errorf("%s: the evaluation reads %v; Member finds one: %t; Check: %v", quoted, got, member, checkErr)
		}
		if member {
			members++
		}
	}
	if members < 10 {
		t.Errorf("%d names are members, want most", members)
	}
	for _, k := range typeOfKeys(t, &v) {
		if _, ok := compile(t, "@").GoType(rv.Type()).Member(k); !ok && k != "Other" {
			t.Errorf("keys() lists %q, which Member does not find", k)
		}
	}
}

// typeOfKeys returns keys(@) of v.
func typeOfKeys(t *testing.T, v any) []string {
	t.Helper()
	res, err := compile(t, "keys(@)").Search(v)
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, k := range res.([]any) {
		keys = append(keys, k.(string))
	}
	return keys
}
