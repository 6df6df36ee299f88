package jmespath

import (
	"reflect"
	"slices"
)

// A plan evaluates a path expression (fields, indexes, projections and
// flattens over static Go types) on values of one Go type: the fields are
// found by name once, when the plan is made, and each evaluation steps
// through the value with reflect's Field, Elem and Index, which allocate
// nothing. Expressions or types it does not cover (interfaces, maps,
// functions, filters) go to the evaluator; both read the same data model.
type plan struct {
	prefix []pstep      // up to the first projection
	each   []pstep      // from the first projection on (nil: no projection)
	names  *memberNames // the expression's member names, for a composite leaf
}

type pstepKind uint8

const (
	sField pstepKind = iota // v = v.Field(idx)
	sDeref                  // v = v.Elem(); nil ends
	sIndex                  // v = v.Index(idx), from the end if negative
	sEach                   // each element of the slice v
)

type pstep struct {
	kind pstepKind
	idx  int // sField: the field's index; sIndex: the element's
}

type planEntry struct {
	t reflect.Type
	p *plan
}

// plan returns the plan of the expression for rv's type, or nil.
func (e *Expr) plan(rv reflect.Value) *plan {
	if !rv.IsValid() {
		return nil
	}
	t := rv.Type()
	if h := e.hot.Load(); h != nil && h.t == t {
		return h.p
	}
	return e.planFor(t)
}

// planFor returns the plan of the expression for values of type t, or
// nil, making it if it is the first, and makes it the hot one.
func (e *Expr) planFor(t reflect.Type) *plan {
	var p *plan
	if got, ok := e.plans.Load(t); ok {
		p = got.(*plan)
	} else {
		p = compilePlan(e.root, t, e.names)
		e.plans.Store(t, p)
	}
	e.hot.Store(&planEntry{t, p})
	return p
}

// compilePlan returns the plan of n on values of type t, or nil; names
// are the expression's member names (nil: none).
func compilePlan(n *node, t reflect.Type, names *memberNames) *plan {
	c := planCompiler{names: names}
	steps, leaf, ok := c.stream(n, t)
	if !ok {
		return nil
	}
	steps, leaf = derefs(steps, leaf)
	if !planLeaf(leaf) {
		return nil
	}
	p := &plan{prefix: steps, names: names}
	if i := slices.IndexFunc(steps, func(s pstep) bool { return s.kind == sEach }); i >= 0 {
		p.prefix, p.each = steps[:i], steps[i:]
	}
	return p
}

// planLeaf reports whether a plan may end on a value of type t.
func planLeaf(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Interface, reflect.Map, reflect.Chan, reflect.Func, reflect.UnsafePointer, reflect.Complex64, reflect.Complex128:
		return false
	}
	return true
}

type planCompiler struct {
	names *memberNames
}

// derefs appends a dereference for each pointer level of t.
func derefs(steps []pstep, t reflect.Type) ([]pstep, reflect.Type) {
	for t.Kind() == reflect.Pointer {
		if t.Elem() == bigIntType || t.Elem() == bigFloatType || t.Implements(docType) {
			return steps, t // read whole by fromGo
		}
		steps = append(steps, pstep{kind: sDeref})
		t = t.Elem()
	}
	return steps, t
}

func isList(t reflect.Type) bool {
	return t.Kind() == reflect.Slice && t.Elem().Kind() != reflect.Uint8
}

// stream compiles n on values of type t: the steps to its results and
// their type; ok is false when n is outside what plans cover.
func (c planCompiler) stream(n *node, t reflect.Type) (steps []pstep, out reflect.Type, ok bool) {
	steps, t = derefs(nil, t)
	switch n.op {
	case opIdentity:
		return steps, t, true
	case opField:
		if t.Kind() != reflect.Struct || t == timeType || t == bigIntType || t == bigFloatType || t.Implements(docType) {
			return nil, nil, false
		}
		if _, union := unionMember(t); union {
			return nil, nil, false
		}
		idx := c.names.lookup(t, n.name)
		if idx == nil {
			return nil, nil, false // null for every value: let the evaluator say so
		}
		ft := t
		for i, j := range idx {
			if i > 0 && ft.Kind() != reflect.Struct {
				return nil, nil, false // through an embedded pointer, which may be nil
			}
			ft = ft.Field(j).Type
		}
		for _, i := range idx { // through embedded structs, never pointers
			steps = append(steps, pstep{kind: sField, idx: i})
		}
		return steps, ft, true
	case opSub:
		l, lt, ok := c.stream(n.l, t)
		if !ok || hasEach(l) {
			return nil, nil, false
		}
		r, rt, ok := c.stream(n.r, lt)
		if !ok || hasEach(r) {
			return nil, nil, false
		}
		return append(append(steps, l...), r...), rt, true
	case opIndex:
		l, lt, ok := c.stream(n.l, t)
		if !ok || hasEach(l) {
			return nil, nil, false
		}
		l, lt = derefs(l, lt)
		if !isList(lt) {
			return nil, nil, false
		}
		return append(append(steps, l...), pstep{kind: sIndex, idx: n.num}), lt.Elem(), true
	case opProject:
		base := n.l
		flatten := base.op == opFlatten
		if flatten {
			base = base.l
		}
		l, lt, ok := c.stream(base, t)
		if !ok || (hasEach(l) && !flatten) {
			return nil, nil, false
		}
		l, lt = derefs(l, lt)
		if !isList(lt) {
			if !hasEach(l) {
				return nil, nil, false
			}
			// Flattening a projection of non-lists: the elements as they are.
		} else {
			l = append(l, pstep{kind: sEach})
			lt = lt.Elem()
			if flatten && !hasEach(l[:len(l)-1]) {
				// x[] spreads x's elements that are lists themselves.
				l2, et := derefs(slices.Clone(l), lt)
				if isList(et) {
					l = append(l2, pstep{kind: sEach})
					lt = et.Elem()
				} else if et.Kind() == reflect.Interface {
					return nil, nil, false
				}
			}
		}
		r, rt, ok := c.stream(n.r, lt)
		if !ok || hasEach(r) {
			return nil, nil, false
		}
		return append(append(steps, l...), r...), rt, true
	}
	return nil, nil, false
}

func hasEach(steps []pstep) bool {
	for _, s := range steps {
		if s.kind == sEach {
			return true
		}
	}
	return false
}

// walk runs steps from v and calls yield with each result; a nil pointer
// or an index out of range ends that branch. It returns false if yield
// stopped it.
func walk(steps []pstep, v reflect.Value, yield func(reflect.Value) bool) bool {
	for i := range steps {
		s := &steps[i]
		switch s.kind {
		case sField:
			v = v.Field(s.idx)
		case sDeref:
			if v = v.Elem(); !v.IsValid() { // a nil pointer
				return true
			}
		case sIndex:
			if v = index(v, s.idx); !v.IsValid() {
				return true
			}
		case sEach:
			rest := steps[i+1:]
			for j := range v.Len() {
				if !walk(rest, v.Index(j), yield) {
					return false
				}
			}
			return true
		}
	}
	return yield(v)
}

// follow runs steps that do not project from v and returns the result,
// or the zero reflect.Value for null.
func follow(steps []pstep, v reflect.Value) reflect.Value {
	for i := range steps {
		switch s := &steps[i]; s.kind {
		case sField:
			v = v.Field(s.idx)
		case sDeref:
			v = v.Elem() // invalid for a nil pointer
		case sIndex:
			v = index(v, s.idx)
		}
		if !v.IsValid() {
			return v
		}
	}
	return v
}

// index returns element i of the list v, counted from the end if
// negative, or the zero reflect.Value if out of range.
func index(v reflect.Value, i int) reflect.Value {
	if i < 0 {
		i += v.Len()
	}
	if i < 0 || i >= v.Len() {
		return reflect.Value{}
	}
	return v.Index(i)
}

// leafValue reads the value of a result: a scalar directly (see scalar),
// anything else through the data model.
func (p *plan) leafValue(v reflect.Value) Value {
	if k, s, n, ok := scalar(v); ok {
		return Value{kind: k, s: s, n: n}
	}
	return p.composite(v)
}

// scalar reads a result that is a string, a boolean (n: 1 for true), a
// number or a time.Time (a number: epoch seconds); ok is false for
// anything else.
func scalar(v reflect.Value) (k Kind, s string, n float64, ok bool) {
	switch v.Kind() {
	case reflect.String:
		return String, v.String(), 0, true
	case reflect.Bool:
		if v.Bool() {
			return Boolean, "", 1, true
		}
		return Boolean, "", 0, true
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return Number, "", float64(v.Int()), true
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return Number, "", float64(v.Uint()), true
	case reflect.Float32:
		return Number, "", float32to64(float32(v.Float())), true
	case reflect.Float64:
		return Number, "", v.Float(), true
	case reflect.Struct:
		if v.Type() == timeType {
			return Number, "", epochSeconds(v), true
		}
	}
	return Null, "", 0, false
}

// composite reads a result that is not a scalar through the data model.
func (p *plan) composite(v reflect.Value) Value { return valueOf(fromGo(v, p.names), nil) }
