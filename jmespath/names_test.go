package jmespath

import (
	"reflect"
	"strings"
	"testing"
)

// The rule of the package documentation ("Struct fields and their keys"),
// sentence by sentence.

type tagged struct {
	Status   string `json:"status"`
	Secret   string `json:"-"`
	Plain    string
	Opts     string `json:",omitempty"`
	Both     string `json:"fromJSON" jmespath:"fromJMESPath"`
	Same     string `json:"Same"`
	internal string
}

func newTagged() *tagged {
	return &tagged{Status: "s", Secret: "x", Plain: "p", Opts: "o", Both: "b", Same: "m", internal: "i"}
}

func search(t *testing.T, expr string, v any, opts ...Option) string {
	t.Helper()
	got, err := compile(t, expr, opts...).Search(v)
	if err != nil {
		t.Fatalf("%s: %v", expr, err)
	}
	return canonical(t, got)
}

// TestKeysGoRule: without a model, a field's key is its jmespath tag, else
// the name part of its json tag, else its Go name; the json tag "-" leaves
// the field out (a jmespath tag is the key, whatever it is); an expression's name finds the field whose key it is, or else
// an untagged field by its Go name with the first letter upper-cased.
func TestKeysGoRule(t *testing.T) {
	v := newTagged()
	for expr, want := range map[string]string{
		"keys(@)":      `["status","Plain","Opts","fromJMESPath","Same"]`,
		"length(@)":    "5",
		"values(@)":    `["s","p","o","b","m"]`,
		"to_string(@)": `"{\"Opts\":\"o\",\"Plain\":\"p\",\"Same\":\"m\",\"fromJMESPath\":\"b\",\"status\":\"s\"}"`,
		// The key finds a tagged field; its Go name does not.
		"status": `"s"`,
		"Status": "null",
		// json:"-": neither listed nor found.
		"Secret": "null",
		"secret": "null",
		// An untagged field: its Go name, or the name with its first
		// letter upper-cased.
		"Plain": `"p"`,
		"plain": `"p"`,
		// json:",omitempty" names nothing: the Go name stays.
		"Opts": `"o"`,
		"opts": `"o"`,
		// The jmespath tag wins over the json tag.
		"fromJMESPath": `"b"`,
		"fromJSON":     "null",
		"Both":         "null",
		// A tag that repeats the Go name is no renaming.
		"same": `"m"`,
		// Unexported fields are no members.
		"internal": "null",
	} {
		if got := search(t, expr, v); got != want {
			t.Errorf("%s = %s, want %s", expr, got, want)
		}
	}
}

// TestKeysGoOnlyWaiterStatus is the case of a Go-only waiter's output with
// json tags: contains(keys(@), 'status') matches.
func TestKeysGoOnlyWaiterStatus(t *testing.T) {
	type Out struct {
		Status string `json:"status"`
		Name   string
	}
	if got := search(t, "contains(keys(@), 'status')", &Out{}); got != "true" {
		t.Errorf("contains(keys(@), 'status') = %s, want true", got)
	}
	if got := search(t, "keys(@)", &Out{}); got != `["status","Name"]` {
		t.Errorf("keys(@) = %s, want the tag's name and the untagged field's Go name", got)
	}
}

// lowerFirst is a model's names for the tests: every member name is the Go
// name with its first letter lowered, except what except says ("-": no
// member).
func lowerFirst(except map[string]string) MemberNames {
	return func(_ reflect.Type, f reflect.StructField) string {
		if n, ok := except[f.Name]; ok {
			return n
		}
		return strings.ToLower(f.Name[:1]) + f.Name[1:]
	}
}

type modelValues struct {
	ValueOne, ValueTwo *string
}

type modelOut struct {
	Status         string
	ObjectOne      *modelValues
	ObjectTwo      *modelValues
	ResultMetadata map[string]string
	Tagged         string `json:"fromJSON"`
	Kept           string
}

func newModelOut() *modelOut {
	one, two, three := "foo", "bar", "baz"
	return &modelOut{
		Status:         "ACTIVE",
		ObjectOne:      &modelValues{ValueOne: &one, ValueTwo: &two},
		ObjectTwo:      &modelValues{ValueOne: &three},
		ResultMetadata: map[string]string{"RequestId": "r"},
		Tagged:         "t",
		Kept:           "k",
	}
}

// TestKeysModelRule: with a model's names, a field's key is its member
// name; a field the model gives "-" is no member, neither listed nor
// found; one it gives "" keeps the Go rule's key; an untagged field is
// still found by its Go name.
func TestKeysModelRule(t *testing.T) {
	names := WithMemberNames(lowerFirst(map[string]string{"ResultMetadata": "-", "Kept": ""}))
	v := newModelOut()
	for expr, want := range map[string]string{
		"keys(@)":                              `["status","objectOne","objectTwo","tagged","Kept"]`,
		"contains(keys(@), 'status')":          "true",
		"merge(objectOne, objectTwo).valueOne": `"baz"`,
		"merge(objectOne, objectTwo).valueTwo": "null", // objectTwo's valueTwo is null, and a later object wins
		"keys(merge(objectOne, objectTwo))":    `["valueOne","valueTwo"]`,
		"to_string(objectOne)":                 `"{\"valueOne\":\"foo\",\"valueTwo\":\"bar\"}"`,
		"objectOne":                            `{"valueOne":"foo","valueTwo":"bar"}`,
		"length(@)":                            "5",
		"length(*)":                            "5",
		"objectOne == `{\"valueOne\":\"foo\",\"valueTwo\":\"bar\"}`": "true",
		"objectOne == `{\"ValueOne\":\"foo\",\"ValueTwo\":\"bar\"}`": "false",
		"status":         `"ACTIVE"`,
		"Status":         `"ACTIVE"`,
		"ResultMetadata": "null",
		"resultMetadata": "null",
		// The model's name wins over the json tag; the tag's name is
		// no key, and the tagged field has no Go name to be found by.
		"tagged":   `"t"`,
		"fromJSON": "null",
		"Tagged":   "null",
		"Kept":     `"k"`,
	} {
		if got := search(t, expr, v, names); got != want {
			t.Errorf("%s = %s, want %s", expr, got, want)
		}
	}
	// Without the model, Go names: a merge is an object of Go names, and
	// a name finds a key of it exactly (upper-casing finds struct fields
	// only).
	if got := search(t, "merge(ObjectOne, ObjectTwo).ValueOne", v); got != `"baz"` {
		t.Errorf("merge without a model, .ValueOne = %s", got)
	}
	if got := search(t, "merge(ObjectOne, ObjectTwo).valueOne", v); got != "null" {
		t.Errorf("merge without a model, .valueOne = %s", got)
	}
	// A jmespath tag is the key, "-" too.
	if got := search(t, "keys(@)", &struct {
		A string `jmespath:"-"`
	}{}); got != `["-"]` {
		t.Errorf(`keys of a field tagged jmespath:"-" = %s, want ["-"]`, got)
	}
	if got := search(t, "keys(merge(ObjectOne, ObjectTwo))", v); got != `["ValueOne","ValueTwo"]` {
		t.Errorf("keys of a merge without a model = %s", got)
	}
}

// TestModelRulePlanned: paths that run on a plan (fields over pointers,
// projections) read the model's names too, and a struct they return lists
// its members under them.
func TestModelRulePlanned(t *testing.T) {
	type Item struct{ State string }
	type Out struct {
		Items []Item
		First *Item
	}
	names := WithMemberNames(lowerFirst(nil))
	v := &Out{Items: []Item{{"a"}, {"b"}}, First: &Item{"c"}}
	for expr, want := range map[string]string{
		"items[].state": `["a","b"]`,
		"first.state":   `"c"`,
		"first":         `{"state":"c"}`,
		"items[0]":      `{"state":"a"}`,
		"items[]":       `[{"state":"a"},{"state":"b"}]`,
	} {
		e := compile(t, expr, names)
		if e.plan(reflect.ValueOf(v)) == nil && expr != "items[]" {
			t.Errorf("%s: no plan with member names", expr)
		}
		if got := search(t, expr, v, names); got != want {
			t.Errorf("%s = %s, want %s", expr, got, want)
		}
	}
}

// TestFieldsAndLookup: the exported rule is the one expressions read by.
func TestFieldsAndLookup(t *testing.T) {
	typ := reflect.TypeFor[tagged]()
	var keys []string
	for _, f := range Fields(typ, nil) {
		keys = append(keys, f.Name+"="+f.Key)
	}
	if got := strings.Join(keys, " "); got != "Status=status Plain=Plain Opts=Opts Both=fromJMESPath Same=Same" {
		t.Errorf("Fields = %s", got)
	}
	for name, want := range map[string]string{"status": "Status", "Status": "", "plain": "Plain", "Secret": "", "fromJMESPath": "Both"} {
		f, ok := Lookup(typ, name, nil)
		if ok != (want != "") || ok && f.Name != want {
			t.Errorf("Lookup(%q) = %s, %t; want %q", name, f.Name, ok, want)
		}
	}
	names := lowerFirst(map[string]string{"ResultMetadata": "-"})
	mt := reflect.TypeFor[modelOut]()
	keys = nil
	for _, f := range Fields(mt, names) {
		keys = append(keys, f.Key)
	}
	if got := strings.Join(keys, " "); got != "status objectOne objectTwo tagged kept" {
		t.Errorf("Fields with names = %s", got)
	}
	if f, ok := Lookup(mt, "objectOne", names); !ok || f.Name != "ObjectOne" || len(f.Index) != 1 {
		t.Errorf("Lookup(objectOne) = %+v, %t", f, ok)
	}
	if _, ok := Lookup(mt, "ResultMetadata", names); ok {
		t.Error("Lookup found a field the model says is no member")
	}
	if Fields(reflect.TypeFor[string](), nil) != nil {
		t.Error("Fields of a string")
	}
	if _, ok := Lookup(reflect.TypeFor[int](), "x", nil); ok {
		t.Error("Lookup on an int")
	}
	fn := lowerFirst(nil)
	if got := compile(t, "a", WithMemberNames(fn)).MemberNames(); got == nil {
		t.Error("MemberNames() = nil for an expression compiled with names")
	}
	if got := compile(t, "a").MemberNames(); got != nil {
		t.Error("MemberNames() != nil for an expression compiled without")
	}
}

// TestFieldsPromoted: a promoted field's Index is its whole path, as
// reflect.VisibleFields gives it.
func TestFieldsPromoted(t *testing.T) {
	type Inner struct{ Deep string }
	type Outer struct {
		*Inner
		Top string
	}
	fs := Fields(reflect.TypeFor[Outer](), nil)
	if len(fs) != 2 || fs[0].Key != "Deep" || !reflect.DeepEqual(fs[0].Index, []int{0, 0}) || fs[1].Key != "Top" {
		t.Errorf("Fields = %+v, want Deep at [0 0] then Top", fs)
	}
	if f, ok := Lookup(reflect.TypeFor[Outer](), "deep", nil); !ok || !reflect.DeepEqual(f.Index, []int{0, 0}) {
		t.Errorf("Lookup(deep) = %+v, %t", f, ok)
	}
}
