package jmespath

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// argType is what a function argument may be: a set of kinds, or an
// expression reference.
type argType uint16

const (
	aNull argType = 1 << iota
	aBool
	aNumber
	aString
	aArray
	aObject
	aExpref
	aAny        = aNull | aBool | aNumber | aString | aArray | aObject
	aArrayNum   = aArray | 1<<10 // an array of numbers
	aArrayStr   = aArray | 1<<11 // an array of strings
	aArrayNumOr = aArray | 1<<12 // an array of numbers or of strings
)

type function struct {
	args     []argType
	variadic bool // the last argument repeats (at least once)
	call     func(ev *evaluator, n *node, args []any) (any, error)
}

var functions map[string]*function

func init() {
	num := func(f func(float64) float64) func(*evaluator, *node, []any) (any, error) {
		return func(_ *evaluator, _ *node, a []any) (any, error) { return f(a[0].(float64)), nil }
	}
	functions = map[string]*function{
		"abs":   {args: []argType{aNumber}, call: num(math.Abs)},
		"ceil":  {args: []argType{aNumber}, call: num(math.Ceil)},
		"floor": {args: []argType{aNumber}, call: num(math.Floor)},
		"avg": {args: []argType{aArrayNum}, call: func(ev *evaluator, _ *node, a []any) (any, error) {
			xs, err := ev.elements(a[0])
			if err != nil || len(xs) == 0 {
				return nil, err
			}
			s := 0.0
			for _, x := range xs {
				s += x.(float64)
			}
			return s / float64(len(xs)), nil
		}},
		"sum": {args: []argType{aArrayNum}, call: func(ev *evaluator, _ *node, a []any) (any, error) {
			xs, err := ev.elements(a[0])
			s := 0.0
			for _, x := range xs {
				s += x.(float64)
			}
			return s, err
		}},
		"contains": {args: []argType{aArray | aString, aAny}, call: func(ev *evaluator, _ *node, a []any) (any, error) {
			if s, ok := a[0].(string); ok {
				sub, ok := a[1].(string)
				return ok && strings.Contains(s, sub), nil
			}
			for i := range arrayLen(a[0]) {
				if eq, err := ev.equal(arrayAt(a[0], i), a[1], 0); eq || err != nil {
					return eq, err
				}
			}
			return false, nil
		}},
		"ends_with": {args: []argType{aString, aString}, call: func(_ *evaluator, _ *node, a []any) (any, error) {
			return strings.HasSuffix(a[0].(string), a[1].(string)), nil
		}},
		"starts_with": {args: []argType{aString, aString}, call: func(_ *evaluator, _ *node, a []any) (any, error) {
			return strings.HasPrefix(a[0].(string), a[1].(string)), nil
		}},
		"join": {args: []argType{aString, aArrayStr}, call: func(ev *evaluator, _ *node, a []any) (any, error) {
			xs, err := ev.elements(a[1])
			parts := make([]string, len(xs))
			for i, x := range xs {
				parts[i] = x.(string)
			}
			return strings.Join(parts, a[0].(string)), err
		}},
		"keys": {args: []argType{aObject}, call: func(ev *evaluator, _ *node, a []any) (any, error) {
			out := []any{}
			eachMember(a[0], func(k string, _ any) bool { out = append(out, k); return true })
			return out, ev.spend(len(out))
		}},
		"values": {args: []argType{aObject}, call: func(ev *evaluator, _ *node, a []any) (any, error) {
			out := []any{}
			eachMember(a[0], func(_ string, v any) bool { out = append(out, v); return true })
			return out, ev.spend(len(out))
		}},
		"length": {args: []argType{aString | aArray | aObject}, call: func(_ *evaluator, _ *node, a []any) (any, error) {
			switch kindOf(a[0]) {
			case String:
				return float64(utf8.RuneCountInString(a[0].(string))), nil
			case Array:
				return float64(arrayLen(a[0])), nil
			}
			return float64(objectLen(a[0])), nil
		}},
		"map": {args: []argType{aExpref, aArray}, call: func(ev *evaluator, _ *node, a []any) (any, error) {
			out := make([]any, arrayLen(a[1]))
			for i := range out {
				v, err := ev.eval(a[0].(expref).n, arrayAt(a[1], i))
				if err != nil {
					return nil, err
				}
				out[i] = v
			}
			return out, ev.spend(len(out))
		}},
		"max":    {args: []argType{aArrayNumOr}, call: extreme(1)},
		"min":    {args: []argType{aArrayNumOr}, call: extreme(-1)},
		"max_by": {args: []argType{aArray, aExpref}, call: extremeBy(1)},
		"min_by": {args: []argType{aArray, aExpref}, call: extremeBy(-1)},
		"merge": {args: []argType{aObject}, variadic: true, call: func(ev *evaluator, _ *node, a []any) (any, error) {
			out := map[string]any{}
			for _, o := range a {
				eachMember(o, func(k string, v any) bool { out[k] = v; return true })
			}
			return out, ev.spend(len(out))
		}},
		"not_null": {args: []argType{aAny}, variadic: true, call: func(_ *evaluator, _ *node, a []any) (any, error) {
			for _, x := range a {
				if x != nil {
					return x, nil
				}
			}
			return nil, nil
		}},
		"reverse": {args: []argType{aArray | aString}, call: func(ev *evaluator, _ *node, a []any) (any, error) {
			if s, ok := a[0].(string); ok {
				r := []rune(s)
				slices.Reverse(r)
				return string(r), nil
			}
			xs, err := ev.elements(a[0])
			out := slices.Clone(xs)
			slices.Reverse(out)
			return nonNil(out), err
		}},
		"sort": {args: []argType{aArrayNumOr}, call: func(ev *evaluator, _ *node, a []any) (any, error) {
			xs, err := ev.elements(a[0])
			out := slices.Clone(xs)
			slices.SortStableFunc(out, compareScalars)
			return nonNil(out), err
		}},
		"sort_by": {args: []argType{aArray, aExpref}, call: func(ev *evaluator, n *node, a []any) (any, error) {
			xs, err := ev.elements(a[0])
			if err != nil {
				return nil, err
			}
			keys, err := ev.keysBy(n, a[1].(expref), xs)
			if err != nil {
				return nil, err
			}
			idx := make([]int, len(xs))
			for i := range idx {
				idx[i] = i
			}
			slices.SortStableFunc(idx, func(i, j int) int { return compareScalars(keys[i], keys[j]) })
			out := make([]any, len(xs))
			for i, j := range idx {
				out[i] = xs[j]
			}
			return out, nil
		}},
		"to_array": {args: []argType{aAny}, call: func(_ *evaluator, _ *node, a []any) (any, error) {
			if kindOf(a[0]) == Array {
				return a[0], nil
			}
			return []any{a[0]}, nil
		}},
		"to_string": {args: []argType{aAny}, call: func(ev *evaluator, _ *node, a []any) (any, error) {
			if s, ok := a[0].(string); ok {
				return s, nil
			}
			return ev.toJSON(a[0])
		}},
		"to_number": {args: []argType{aAny}, call: func(_ *evaluator, _ *node, a []any) (any, error) {
			switch x := a[0].(type) {
			case float64:
				return x, nil
			case string:
				if f, err := strconv.ParseFloat(x, 64); err == nil && !strings.ContainsAny(x, "xXpP_") && !math.IsInf(f, 0) && !math.IsNaN(f) {
					return f, nil
				}
			}
			return nil, nil
		}},
		"type": {args: []argType{aAny}, call: func(_ *evaluator, _ *node, a []any) (any, error) {
			return kindOf(a[0]).String(), nil
		}},
	}
}

// resolveCall finds a call's function and checks its number of arguments.
func resolveCall(src string, call *node) error {
	f, ok := functions[call.name]
	if !ok {
		return syntaxErr(src, call.position, "unknown function %s()", call.name)
	}
	n := len(call.args)
	if (!f.variadic && n != len(f.args)) || (f.variadic && n < len(f.args)) {
		want := fmt.Sprint(len(f.args))
		if f.variadic {
			want = "at least " + want
		}
		return syntaxErr(src, call.position, "%s() takes %s arguments, not %d", call.name, want, n)
	}
	call.fn = &function{args: f.args, variadic: f.variadic, call: func(ev *evaluator, n *node, args []any) (any, error) {
		for i, a := range args {
			t := f.args[min(i, len(f.args)-1)]
			if err := checkArg(ev, call.name, i, t, a); err != nil {
				return nil, err
			}
		}
		return f.call(ev, n, args)
	}}
	return nil
}

func checkArg(ev *evaluator, fn string, i int, t argType, a any) error {
	_, isRef := a.(expref)
	k := kindOf(a)
	ok := (isRef && t&aExpref != 0) || (!isRef && t&(1<<k) != 0)
	if ok && k == Array && t&^aAny&^aExpref != 0 {
		want := Kind(0)
		for j := range arrayLen(a) {
			ek := kindOf(arrayAt(a, j))
			switch {
			case t == aArrayNum && ek != Number, t == aArrayStr && ek != String,
				t == aArrayNumOr && ek != Number && ek != String, j > 0 && ek != want:
				ok = false
			}
			want = ek
			if !ok {
				break
			}
		}
		if err := ev.spend(arrayLen(a)); err != nil {
			return err
		}
	}
	if !ok {
		what := k.String()
		if isRef {
			what = "an expression reference"
		}
		return fmt.Errorf("invalid type: argument %d of %s() cannot be %s", i+1, fn, what)
	}
	return nil
}

// compareScalars orders two numbers or two strings.
func compareScalars(a, b any) int {
	switch a := a.(type) {
	case float64:
		b, _ := b.(float64)
		switch {
		case a < b:
			return -1
		case a > b:
			return 1
		}
		return 0
	case string:
		return strings.Compare(a, b.(string))
	}
	return 0
}

func extreme(sign int) func(*evaluator, *node, []any) (any, error) {
	return func(ev *evaluator, _ *node, a []any) (any, error) {
		xs, err := ev.elements(a[0])
		var best any
		for _, x := range xs {
			if best == nil || compareScalars(x, best)*sign > 0 {
				best = x
			}
		}
		return best, err
	}
}

func extremeBy(sign int) func(*evaluator, *node, []any) (any, error) {
	return func(ev *evaluator, n *node, a []any) (any, error) {
		xs, err := ev.elements(a[0])
		if err != nil {
			return nil, err
		}
		keys, err := ev.keysBy(n, a[1].(expref), xs)
		if err != nil {
			return nil, err
		}
		best := -1
		for i := range xs {
			if best < 0 || compareScalars(keys[i], keys[best])*sign > 0 {
				best = i
			}
		}
		if best < 0 {
			return nil, nil
		}
		return xs[best], nil
	}
}

// keysBy evaluates a sort key on each element; the keys must be all
// numbers or all strings.
func (ev *evaluator) keysBy(n *node, ref expref, xs []any) ([]any, error) {
	keys := make([]any, len(xs))
	for i, x := range xs {
		k, err := ev.eval(ref.n, x)
		if err != nil {
			return nil, err
		}
		if kk := kindOf(k); (kk != Number && kk != String) || (i > 0 && kk != kindOf(keys[0])) {
			return nil, fmt.Errorf("invalid type: %s() keys must be all numbers or all strings, not %s", n.name, kk)
		}
		keys[i] = k
	}
	return keys, nil
}

// toJSON renders a value as compact JSON.
func (ev *evaluator) toJSON(x any) (string, error) {
	m, err := ev.materialize(x, 0)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(m); err != nil {
		return "", err
	}
	return strings.TrimSuffix(b.String(), "\n"), nil
}
