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
	if _, err := Compile(strings.Repeat("(", MaxDepth-2) + "a" + strings.Repeat(")", MaxDepth-2)); err != nil {
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
		_, err := MustCompile(tt.expr).Search(tt.v)
		if !errors.Is(err, ErrTooLarge) {
			t.Errorf("%s: Search = %v, want ErrTooLarge", tt.expr, err)
		}
	}
	if got, err := MustCompile("Next.Next.Next.Name").Search(loop); err != nil || got != "a" {
		t.Errorf("Next.Next.Next.Name = %v, %v", got, err)
	}
	if got, err := MustCompile("length(L.L.R.L)").Search(shared); err != nil || got != 4.0 {
		t.Errorf("length(L.L.R.L) = %v, %v", got, err)
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
		got, err := MustCompile(expr).Search(v)
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
	e := MustCompile("keys(@)", WithMemberNames(func(_ reflect.Type, f reflect.StructField) string {
		return strings.ToLower(f.Name[:1]) + f.Name[1:]
	}))
	got, err := e.Search(&struct{ Status, ClusterName string }{})
	if err != nil || canonical(t, got) != `["status","clusterName"]` {
		t.Errorf("keys = %v, %v", got, err)
	}
	got, err = MustCompile("keys(@)").Search(&struct{ Status, ClusterName string }{})
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
			got, err := MustCompile(expr).Search(v)
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
	if got, _ := MustCompile("length(@)").Search(v); canonical(t, got) != "3" {
		t.Errorf("with Inner set: length(@) = %s, want 3", canonical(t, got))
	}
}
