package jmespath

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"sort"
	"sync"
	"sync/atomic"
)

// maxNodes bounds the values one evaluation may expand where it reads a
// value whole, and maxValueDepth how deeply such a value may nest: the
// limits the package documentation states. Beyond them an evaluation fails
// with ErrTooLarge, in time linear in maxNodes, instead of running without
// end.
const (
	maxNodes      = 1 << 20
	maxValueDepth = 512
)

// ErrTooLarge is matched by errors.Is when an evaluation would read a value
// whole that is larger, or nests deeper, than the package documentation's
// limits allow: a cycle of pointers, or pointers shared so widely that the
// value expands exponentially.
var ErrTooLarge = errors.New("jmespath: value too large or cyclic")

// Error is an expression that failed on a value: a function given an
// argument of the wrong type, or a value too large to read.
type Error struct {
	Expr string
	Err  error
}

// Error returns "jmespath: <expression>: <problem>".
func (e *Error) Error() string { return fmt.Sprintf("jmespath: %q: %v", e.Expr, e.Err) }

// Unwrap returns the problem.
func (e *Error) Unwrap() error { return e.Err }

// Expr is a compiled JMESPath expression. It reads Go values in place
// through the Smithy JMESPath data model (see the package documentation):
// nothing is converted that the expression does not reach. An Expr is safe
// for concurrent use.
type Expr struct {
	src   string
	root  *node
	names *memberNames
	plans sync.Map                  // reflect.Type → *plan (nil: no plan for the type)
	hot   atomic.Pointer[planEntry] // the last type seen
}

// Option configures Compile.
type Option func(*Expr)

// WithMemberNames keys struct fields by the member names of a model
// (names nil: none), as the package documentation's rule says: objects
// list them under those names, and expressions find them by those names.
func WithMemberNames(names MemberNames) Option {
	return func(e *Expr) {
		if names != nil {
			e.names = &memberNames{fn: names}
		}
	}
}

// Compile parses a JMESPath expression. It returns a *SyntaxError for one
// that does not parse, nests deeper than the package documentation's
// limit, calls an unknown function or calls one with the wrong number of
// arguments.
func Compile(src string, opts ...Option) (*Expr, error) {
	n, err := parse(src)
	if err != nil {
		return nil, err
	}
	e := &Expr{src: src, root: n}
	for i, o := range opts {
		if o == nil {
			return nil, fmt.Errorf("jmespath: Compile: option %d of %d is nil", i+1, len(opts))
		}
		o(e)
	}
	return e, nil
}

// String returns the expression's source.
func (e *Expr) String() string { return e.src }

// Search evaluates the expression on v and returns the result in the
// types of encoding/json: nil, bool, float64, string, []any and
// map[string]any.
func (e *Expr) Search(v any) (any, error) {
	r, err := e.Eval(v)
	if err != nil {
		return nil, err
	}
	return r.Interface()
}

// Eval evaluates the expression on v and returns its result as a Value
// that reads v in place.
func (e *Expr) Eval(v any) (Value, error) {
	rv := reflect.ValueOf(v)
	if p := e.plan(rv); p != nil {
		at := follow(p.prefix, rv)
		switch {
		case !at.IsValid():
			return Value{}, nil
		case p.each != nil:
			return Value{kind: Array, x: v, plan: p}, nil // Elements reads at again
		}
		if k, s, n, ok := scalar(at); ok {
			return Value{kind: k, s: s, n: n}, nil
		}
		return p.composite(at), nil
	}
	return e.evaluate(rv)
}

// evaluate is Eval of an expression or a type that no plan covers.
func (e *Expr) evaluate(rv reflect.Value) (Value, error) {
	ev := evaluator{e: e}
	x, err := ev.eval(e.root, fromGo(rv, e.names))
	if err != nil {
		return Value{}, &Error{Expr: e.src, Err: err}
	}
	return valueOf(x, e), nil
}

type evaluator struct {
	e     *Expr
	nodes int
}

func (ev *evaluator) spend(n int) error {
	ev.nodes += n
	if ev.nodes > maxNodes {
		return fmt.Errorf("%w: more than %d values", ErrTooLarge, maxNodes)
	}
	return nil
}

func (ev *evaluator) eval(n *node, x any) (any, error) {
	switch n.op {
	case opIdentity:
		return x, nil
	case opField:
		return field(x, n.name), nil
	case opSub, opPipe:
		l, err := ev.eval(n.l, x)
		if err != nil || (n.op == opSub && l == nil) {
			return nil, err
		}
		return ev.eval(n.r, l)
	case opIndex:
		l, err := ev.eval(n.l, x)
		if err != nil || kindOf(l) != Array {
			return nil, err
		}
		i := n.num
		if i < 0 {
			i += arrayLen(l)
		}
		if i < 0 || i >= arrayLen(l) {
			return nil, nil
		}
		return arrayAt(l, i), nil
	case opSlice:
		l, err := ev.eval(n.l, x)
		if err != nil || kindOf(l) != Array {
			return nil, err
		}
		return slice(l, n.slice), nil
	case opFlatten:
		l, err := ev.eval(n.l, x)
		if err != nil || kindOf(l) != Array {
			return nil, err
		}
		var out []any
		for i := range arrayLen(l) {
			e := arrayAt(l, i)
			if kindOf(e) == Array {
				for j := range arrayLen(e) {
					out = append(out, arrayAt(e, j))
				}
			} else {
				out = append(out, e)
			}
		}
		return nonNil(out), ev.spend(len(out))
	case opProject, opFilter:
		l, err := ev.eval(n.l, x)
		if err != nil || kindOf(l) != Array {
			return nil, err
		}
		var out []any
		for i := range arrayLen(l) {
			e := arrayAt(l, i)
			if n.op == opFilter {
				c, err := ev.eval(n.cond, e)
				if err != nil {
					return nil, err
				}
				if !truthy(c) {
					continue
				}
			}
			r, err := ev.eval(n.r, e)
			if err != nil {
				return nil, err
			}
			if r != nil {
				out = append(out, r)
			}
		}
		return nonNil(out), ev.spend(len(out))
	case opValues:
		l, err := ev.eval(n.l, x)
		if err != nil || kindOf(l) != Object {
			return nil, err
		}
		var out []any
		eachMember(l, func(_ string, v any) bool {
			var r any
			if r, err = ev.eval(n.r, v); err == nil && r != nil {
				out = append(out, r)
			}
			return err == nil
		})
		if err != nil {
			return nil, err
		}
		return nonNil(out), ev.spend(len(out))
	case opLiteral:
		return n.lit, nil
	case opList, opHash:
		if x == nil {
			return nil, nil
		}
		vals := make([]any, len(n.args))
		for i, a := range n.args {
			v, err := ev.eval(a, x)
			if err != nil {
				return nil, err
			}
			vals[i] = v
		}
		if n.op == opList {
			return vals, nil
		}
		m := make(map[string]any, len(vals))
		for i, k := range n.keys {
			m[k] = vals[i]
		}
		return m, nil
	case opOr, opAnd:
		l, err := ev.eval(n.l, x)
		if err != nil || truthy(l) == (n.op == opOr) {
			return l, err
		}
		return ev.eval(n.r, x)
	case opNot:
		l, err := ev.eval(n.l, x)
		return !truthy(l), err
	case opCmp:
		l, err := ev.eval(n.l, x)
		if err != nil {
			return nil, err
		}
		r, err := ev.eval(n.r, x)
		if err != nil {
			return nil, err
		}
		return ev.compare(n.cmp, l, r)
	case opExpref:
		return expref{n.l}, nil
	case opCall:
		args := make([]any, len(n.args))
		for i, a := range n.args {
			v, err := ev.eval(a, x)
			if err != nil {
				return nil, err
			}
			args[i] = v
		}
		return n.fn.call(ev, n, args)
	}
	return nil, fmt.Errorf("unknown node %d", n.op)
}

func nonNil(out []any) []any {
	if out == nil {
		return []any{}
	}
	return out
}

func (ev *evaluator) compare(op tokKind, l, r any) (any, error) {
	switch op {
	case tEQ, tNE:
		eq, err := ev.equal(l, r, 0)
		return eq == (op == tEQ), err
	}
	a, ok1 := l.(float64)
	b, ok2 := r.(float64)
	if !ok1 || !ok2 {
		return nil, nil
	}
	switch op {
	case tLT:
		return a < b, nil
	case tLE:
		return a <= b, nil
	case tGT:
		return a > b, nil
	}
	return a >= b, nil
}

// equal is deep equality in the data model.
func (ev *evaluator) equal(a, b any, depth int) (bool, error) {
	if err := ev.spend(1); err != nil {
		return false, err
	}
	if depth > maxValueDepth {
		return false, fmt.Errorf("%w: nested deeper than %d levels", ErrTooLarge, maxValueDepth)
	}
	ka, kb := kindOf(a), kindOf(b)
	if ka != kb {
		return false, nil
	}
	switch ka {
	case Null:
		return true, nil
	case Boolean:
		return a.(bool) == b.(bool), nil
	case Number:
		return a.(float64) == b.(float64), nil
	case String:
		return a.(string) == b.(string), nil
	case Array:
		if arrayLen(a) != arrayLen(b) {
			return false, nil
		}
		for i := range arrayLen(a) {
			if eq, err := ev.equal(arrayAt(a, i), arrayAt(b, i), depth+1); !eq || err != nil {
				return false, err
			}
		}
		return true, nil
	}
	am, err := ev.members(a)
	if err != nil {
		return false, err
	}
	bm, err := ev.members(b)
	if err != nil || len(am) != len(bm) {
		return false, err
	}
	for k, v := range am {
		w, ok := bm[k]
		if !ok {
			return false, nil
		}
		if eq, err := ev.equal(v, w, depth+1); !eq || err != nil {
			return false, err
		}
	}
	return true, nil
}

// members returns an object's members, one level deep.
func (ev *evaluator) members(x any) (map[string]any, error) {
	if m, ok := x.(map[string]any); ok {
		return m, nil
	}
	m := map[string]any{}
	eachMember(x, func(k string, v any) bool { m[k] = v; return true })
	return m, ev.spend(len(m))
}

// elements returns an array's elements.
func (ev *evaluator) elements(x any) ([]any, error) {
	if a, ok := x.([]any); ok {
		return a, nil
	}
	out := make([]any, arrayLen(x))
	for i := range out {
		out[i] = arrayAt(x, i)
	}
	return out, ev.spend(len(out))
}

// materialize converts a value to the types of encoding/json.
func (ev *evaluator) materialize(x any, depth int) (any, error) {
	if err := ev.spend(1); err != nil {
		return nil, err
	}
	if depth > maxValueDepth {
		return nil, fmt.Errorf("%w: nested deeper than %d levels", ErrTooLarge, maxValueDepth)
	}
	switch kindOf(x) {
	case Array:
		out := make([]any, arrayLen(x))
		for i := range out {
			v, err := ev.materialize(arrayAt(x, i), depth+1)
			if err != nil {
				return nil, err
			}
			out[i] = v
		}
		return out, nil
	case Object:
		out := map[string]any{}
		var err error
		eachMember(x, func(k string, v any) bool {
			out[k], err = ev.materialize(v, depth+1)
			return err == nil
		})
		return out, err
	}
	if _, ok := x.(expref); ok {
		return nil, nil
	}
	return x, nil
}

// truthy is JMESPath's truth: false, null, "", [] and {} are false.
func truthy(x any) bool {
	switch x := x.(type) {
	case nil:
		return false
	case bool:
		return x
	case string:
		return x != ""
	case float64:
		return true
	}
	switch kindOf(x) {
	case Array:
		return arrayLen(x) > 0
	case Object:
		return objectLen(x) > 0
	}
	return false
}

// objectLen returns the number of members of an object value.
func objectLen(x any) int {
	switch x := x.(type) {
	case map[string]any:
		return len(x)
	case unionVal:
		return 1
	case goVal:
		if x.v.Kind() == reflect.Map {
			return x.v.Len()
		}
		return countMembers(x.v, x.names)
	}
	return 0
}

func slice(x any, parts [3]*int) any {
	n := arrayLen(x)
	step := 1
	if parts[2] != nil {
		step = *parts[2]
	}
	bound := func(p *int, def int) int {
		if p == nil {
			return def
		}
		i := *p
		if i < 0 {
			i += n
			if i < 0 {
				if step < 0 {
					return -1
				}
				return 0
			}
		} else if i >= n {
			if step < 0 {
				return n - 1
			}
			return n
		}
		return i
	}
	var start, stop int
	if step > 0 {
		start, stop = bound(parts[0], 0), bound(parts[1], n)
	} else {
		start, stop = bound(parts[0], n-1), bound(parts[1], -1)
		if parts[1] == nil {
			stop = -1
		}
	}
	out := []any{}
	for i := start; (step > 0 && i < stop) || (step < 0 && i > stop); i += step {
		out = append(out, arrayAt(x, i))
	}
	return out
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

func sortIndex(strs []string) []int {
	idx := make([]int, len(strs))
	for i := range idx {
		idx[i] = i
	}
	sort.Slice(idx, func(a, b int) bool { return strs[idx[a]] < strs[idx[b]] })
	return idx
}
