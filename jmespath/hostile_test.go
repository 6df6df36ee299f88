package jmespath

import (
	"errors"
	"math/big"
	"reflect"
	"strings"
	"testing"
)

// TestDeepNesting: about a megabyte of nesting is a syntax error naming
// the limit, not a stack overflow.
func TestDeepNesting(t *testing.T) {
	const n = 600_000
	for name, src := range map[string]string{
		"parens":  strings.Repeat("(", n) + "a" + strings.Repeat(")", n),
		"dots":    "a" + strings.Repeat(".a", n),
		"nots":    strings.Repeat("!", n) + "a",
		"pipes":   "a" + strings.Repeat("|a", n),
		"indexes": "a" + strings.Repeat("[0]", n),
		"lists":   strings.Repeat("[", n) + "a" + strings.Repeat("]", n),
	} {
		_, err := Compile(src)
		var se *SyntaxError
		if !errors.As(err, &se) || !strings.Contains(err.Error(), "nested deeper than 256 levels") {
			t.Errorf("%s: Compile = %v, want a syntax error naming the limit", name, err)
		}
	}
	if _, err := Compile(strings.Repeat("(", maxDepth-2) + "a" + strings.Repeat(")", maxDepth-2)); err != nil {
		t.Errorf("nesting within the limit: %v", err)
	}
}

type cyclic struct {
	Name string
	Next *cyclic
	L, R *cyclic
}

// TestCyclesAndSharing: a cycle of pointers and widely shared pointers,
// read whole, end with ErrTooLarge after a bounded amount of work; paths
// that do not read them whole evaluate as usual.
func TestCyclesAndSharing(t *testing.T) {
	loop := &cyclic{Name: "a"}
	loop.Next = loop
	shared := &cyclic{Name: "leaf"}
	for range 60 { // 2^60 paths through 60 nodes
		shared = &cyclic{Name: "n", L: shared, R: shared}
	}
	for _, tt := range []struct {
		v    any
		expr string
	}{
		{loop, "to_string(@)"},
		{loop, "@ == Next"},
		{loop, "Next"},
		{shared, "to_string(@)"},
		{shared, "L == R"},
		{shared, "@"},
	} {
		_, err := compile(t, tt.expr).Search(tt.v)
		if !errors.Is(err, ErrTooLarge) {
			t.Errorf("%s: Search = %v, want ErrTooLarge", tt.expr, err)
		}
	}
	if got, err := compile(t, "Next.Next.Next.Name").Search(loop); err != nil || got != "a" {
		t.Errorf("Next.Next.Next.Name = %v, %v", got, err)
	}
	if got, err := compile(t, "length(L.L.R.L)").Search(shared); err != nil || got != 4.0 {
		t.Errorf("length(L.L.R.L) = %v, %v", got, err)
	}
}

// TestLimitsAsDocumented: the limits the package documentation states by
// number (256 levels of expression, 2^20 values and 512 levels read whole)
// are the ones enforced and named in the errors.
func TestLimitsAsDocumented(t *testing.T) {
	if maxDepth != 256 || maxNodes != 1<<20 || maxValueDepth != 512 {
		t.Errorf("limits = %d, %d, %d, want 256, 1<<20, 512 as the package doc says",
			maxDepth, maxNodes, maxValueDepth)
	}
	deep := any("x")
	for range maxValueDepth + 1 {
		deep = []any{deep}
	}
	shared := &cyclic{Name: "leaf"}
	for range 30 {
		shared = &cyclic{Name: "n", L: shared, R: shared}
	}
	for _, tt := range []struct {
		v    any
		want string
	}{
		{deep, "nested deeper than 512 levels"},
		{shared, "more than 1048576 values"},
	} {
		_, err := compile(t, "to_string(@)").Search(tt.v)
		if !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("to_string(@) = %v, want ErrTooLarge saying %q", err, tt.want)
		}
	}
	deep = deep.([]any)[0]
	if _, err := compile(t, "to_string(@)").Search(deep); err != nil {
		t.Errorf("to_string(@) on a value 512 levels deep = %v, want no error", err)
	}
}

type union interface{ isUnion() }
type ShapeMemberCircle struct{ Value float64 }

func (*ShapeMemberCircle) isUnion() {}

type document struct{ json string }

func (d document) MarshalSmithyDocument() ([]byte, error) { return []byte(d.json), nil }

type modelled struct {
	Decimals []float32
	Big      *big.Int
	BigF     *big.Float
	Doc      interface{ MarshalSmithyDocument() ([]byte, error) }
	Shape    union
	Bytes    []byte
	Nil      []string
	Status   string
}

// TestDataModel: the Smithy data model's gaps closed: float32 as its
// shortest decimal, big numbers, documents, unions by member name, nil
// slices as [].
func TestDataModel(t *testing.T) {
	v := &modelled{
		Decimals: []float32{1.2, 3.5},
		Big:      big.NewInt(1 << 40),
		BigF:     big.NewFloat(2.5),
		Doc:      document{`{"color": "blue", "n": [1, 2]}`},
		Shape:    &ShapeMemberCircle{Value: 3},
		Bytes:    []byte("hi"),
		Status:   "ok",
	}
	for expr, want := range map[string]string{
		"contains(Decimals, `1.2`)": "true",
		"Big":                       "1099511627776",
		"BigF":                      "2.5",
		"Doc.color":                 `"blue"`,
		"Doc.n[1]":                  "2",
		"Shape":                     `{"Circle":3}`,
		"Shape.Circle":              "3",
		"keys(Shape)":               `["Circle"]`,
		"Bytes":                     `"aGk="`,
		"Nil":                       "[]",
		"length(Nil)":               "0",
		"status":                    `"ok"`,
		"type(merge(Shape, Shape))": `"object"`,
	} {
		got, err := compile(t, expr).Search(v)
		if err != nil {
			t.Errorf("%s: %v", expr, err)
			continue
		}
		if g := canonical(t, got); g != want {
			t.Errorf("%s = %s, want %s", expr, g, want)
		}
	}
}

// TestMemberNames: with names from a model, keys are member names.
func TestMemberNames(t *testing.T) {
	e := compile(t, "keys(@)", WithMemberNames(func(_ reflect.Type, f reflect.StructField) string {
		return strings.ToLower(f.Name[:1]) + f.Name[1:]
	}))
	got, err := e.Search(&struct{ Status, ClusterName string }{})
	if err != nil || canonical(t, got) != `["status","clusterName"]` {
		t.Errorf("keys = %v, %v", got, err)
	}
	got, err = compile(t, "keys(@)").Search(&struct{ Status, ClusterName string }{})
	if err != nil || canonical(t, got) != `["Status","ClusterName"]` {
		t.Errorf("keys without names = %v, %v", got, err)
	}
}

// TestEmbeddedNilPointer: fields promoted through a nil embedded pointer
// are not members; every way of counting or listing members agrees.
func TestEmbeddedNilPointer(t *testing.T) {
	type Inner struct{ A, B int }
	type Outer struct {
		*Inner
		C int
	}
	for _, v := range []any{&Outer{C: 1}, Outer{C: 1}} {
		for expr, want := range map[string]string{
			"keys(@)":           `["C"]`,
			"length(@)":         "1",
			"length(keys(@))":   "1",
			"length(values(@))": "1",
			"A":                 "null",
		} {
			got, err := compile(t, expr).Search(v)
			if err != nil {
				t.Errorf("%T %s: %v", v, expr, err)
				continue
			}
			if g := canonical(t, got); g != want {
				t.Errorf("%T %s = %s, want %s", v, expr, g, want)
			}
		}
	}
	v := &Outer{Inner: &Inner{A: 2}, C: 1}
	if got, _ := compile(t, "length(@)").Search(v); canonical(t, got) != "3" {
		t.Errorf("with Inner set: length(@) = %s, want 3", canonical(t, got))
	}
}
