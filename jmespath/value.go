package jmespath

import "reflect"

// A Value is the result of an expression, read from the Go value in place.
// The zero Value is null.
type Value struct {
	kind Kind
	s    string
	n    float64 // a number, or a boolean: 1 for true
	// x is a composite from the evaluator (e its expression), or, for a
	// projection planned on static types (plan), the value the expression
	// was evaluated on, which the projection reads.
	x    any
	e    *Expr
	plan *plan
}

func valueOf(x any, e *Expr) Value {
	switch x := x.(type) {
	case nil:
		return Value{}
	case bool:
		return boolean(x)
	case float64:
		return Value{kind: Number, n: x}
	case string:
		return Value{kind: String, s: x}
	}
	return Value{kind: kindOf(x), x: x, e: e}
}

// boolean is b as a Value.
func boolean(b bool) Value {
	v := Value{kind: Boolean}
	if b {
		v.n = 1
	}
	return v
}

// composite returns the evaluator's composite that v holds, if it holds
// one.
func (v Value) composite() (any, bool) { return v.x, v.x != nil && v.plan == nil }

// Kind returns the value's JMESPath type.
func (v Value) Kind() Kind {
	if x, ok := v.composite(); ok {
		return kindOf(x)
	}
	return v.kind
}

// String returns the value if it is a string.
func (v Value) String() (string, bool) {
	if x, ok := v.composite(); ok {
		s, ok := x.(string)
		return s, ok
	}
	return v.s, v.kind == String
}

// Bool returns the value if it is a boolean.
func (v Value) Bool() (bool, bool) {
	if x, ok := v.composite(); ok {
		b, ok := x.(bool)
		return b, ok
	}
	return v.n != 0, v.kind == Boolean
}

// Number returns the value if it is a number.
func (v Value) Number() (float64, bool) {
	if x, ok := v.composite(); ok {
		n, ok := x.(float64)
		return n, ok
	}
	return v.n, v.kind == Number
}

// Elements calls yield with each element of an array, in order, until
// yield returns false; for any other value it does nothing.
func (v Value) Elements(yield func(Value) bool) {
	if p := v.plan; p != nil {
		walk(p.each, follow(p.prefix, reflect.ValueOf(v.x)), func(at reflect.Value) bool {
			return yield(p.leafValue(at))
		})
		return
	}
	if v.x == nil || kindOf(v.x) != Array {
		return
	}
	for i := range arrayLen(v.x) {
		if !yield(valueOf(arrayAt(v.x, i), v.e)) {
			return
		}
	}
}

// Interface returns the value in the types of encoding/json: nil, bool,
// float64, string, []any or map[string]any. It fails with ErrTooLarge on
// a value that is cyclic or too large to read whole.
func (v Value) Interface() (any, error) {
	switch {
	case v.plan != nil:
		out := []any{}
		v.Elements(func(e Value) bool {
			x, _ := e.Interface()
			out = append(out, x)
			return true
		})
		return out, nil
	case v.x != nil:
		ev := evaluator{e: v.e}
		x, err := ev.materialize(v.x, 0)
		if err != nil {
			src := ""
			if v.e != nil {
				src = v.e.src
			}
			return nil, &Error{Expr: src, Err: err}
		}
		return x, nil
	}
	switch v.kind {
	case Boolean:
		return v.n != 0, nil
	case Number:
		return v.n, nil
	case String:
		return v.s, nil
	}
	return nil, nil
}
