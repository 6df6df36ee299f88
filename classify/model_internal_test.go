package classify

import (
	"encoding/json"
	"fmt"
	"reflect"
	"testing"

	"github.com/waitable/waitable/jmespath"
)

// Struct types for TestResolveFieldAgreesWithJMESPath: tags, a tag that
// takes another field's name, an empty tag, promoted fields, a field
// hidden by a shallower one, unexported fields, upper-casing of a
// non-ASCII first letter.
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

// TestResolveFieldAgreesWithJMESPath: the static checks find the field
// that package jmespath reads for a name, and no field where it reads
// none (resolveField repeats jmespath's lookup; this holds them together).
func TestResolveFieldAgreesWithJMESPath(t *testing.T) {
	names := []string{
		"Status", "status", "STATUS", "renamed", "Tagged", "tagged", "Same", "same",
		"Other", "other", "Taker", "taker", "Empty", "empty", "", "Shade", "shade",
		"Deep", "deep", "Named", "innerName", "named", "Promoted", "promoted",
		"État", "état", "private", "Private", "fieldsInner", "FieldsEmbedded", "missing",
	}
	// Every string field holds its own index path, so that the value read
	// names the field it came from.
	var v fieldsOuter
	v.FieldsEmbedded = &FieldsEmbedded{}
	v.private = "an unexported field is no member"
	rv := reflect.ValueOf(&v).Elem()
	for _, f := range reflect.VisibleFields(rv.Type()) {
		if f.Type.Kind() == reflect.String && f.IsExported() {
			rv.FieldByIndex(f.Index).SetString(fmt.Sprint(f.Index))
		}
	}
	for _, name := range names {
		quoted, _ := json.Marshal(name)
		e, err := jmespath.Compile(string(quoted))
		if err != nil {
			t.Fatal(err)
		}
		want := ""
		if idx := resolveField(rv.Type(), name, nil); idx != nil {
			want = fmt.Sprint(idx)
		}
		for _, x := range []any{&v, v} {
			got, err := e.Eval(x)
			if err != nil {
				t.Fatalf("%s on %T: %v", quoted, x, err)
			}
			s, ok := got.String()
			if want == "" && got.Kind() != jmespath.Null {
				t.Errorf("%s on %T: jmespath reads %v, resolveField finds no field", quoted, x, got)
			} else if want != "" && (!ok || s != want) {
				t.Errorf("%s on %T: jmespath reads %v, resolveField finds field %s", quoted, x, got, want)
			}
		}
	}
	if resolveField(reflect.TypeFor[string](), "Status", nil) != nil {
		t.Error("resolveField found a field on a string")
	}
}
