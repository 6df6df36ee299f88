package jmespath

import (
	"encoding/binary"
	"reflect"
	"slices"
	"unsafe"
)

// A plan evaluates a path expression (fields, indexes, projections and
// flattens over static Go types) on a value of one Go type by pointer
// arithmetic: field offsets and slice headers, no reflect.Value and no
// allocation. Expressions or types it does not cover (interfaces, maps,
// functions, filters) go to the evaluator; both read the same data model.
type plan struct {
	t      reflect.Type // the root: a pointer type
	prefix []pstep      // up to the first projection
	each   []pstep      // from the first projection on (nil: no projection)
	leaf   reflect.Type // the result's type (not a pointer)
	kind   reflect.Kind // leaf.Kind()
	inner  bool         // each has one projection only
	names  *memberNames // the expression's member names, for a composite leaf
}

type pstepKind uint8

const (
	sField pstepKind = iota // p += off
	sDeref                  // p = *p; nil ends
	sIndex                  // p = &slice[idx]
	sEach                   // each element of the slice at p (size: element size)
)

type pstep struct {
	kind pstepKind
	off  uintptr
	idx  int
	size uintptr
	// For sEach whose rest is fields and dereferences only: the rest as
	// offsets, each after the first following a dereference.
	path   []uintptr
	nested bool // the rest projects again
	// For a nested sEach: the steps to the next projection as offsets
	// (nil if not fields only), and that projection, if it is the last.
	pre   []uintptr
	inner *pstep
}

// fieldPath compiles steps of fields and dereferences only into offsets:
// add path[0], then for each further offset dereference and add it.
func fieldPath(steps []pstep) ([]uintptr, bool) {
	path := []uintptr{0}
	for _, s := range steps {
		switch s.kind {
		case sField:
			path[len(path)-1] += s.off
		case sDeref:
			path = append(path, 0)
		default:
			return nil, false
		}
	}
	return path, true
}

// follow runs a fieldPath from p; nil for null.
func follow(path []uintptr, p unsafe.Pointer) unsafe.Pointer {
	switch len(path) {
	case 1:
		return unsafe.Add(p, path[0])
	case 2: // the common a.b where a is a pointer
		if p = *(*unsafe.Pointer)(unsafe.Add(p, path[0])); p == nil {
			return nil
		}
		return unsafe.Add(p, path[1])
	}
	p = unsafe.Add(p, path[0])
	for _, off := range path[1:] {
		if p = *(*unsafe.Pointer)(p); p == nil {
			return nil
		}
		p = unsafe.Add(p, off)
	}
	return p
}

type planEntry struct {
	t reflect.Type
	p *plan
}

// plan returns the plan of the expression for rv's type, or nil.
func (e *Expr) plan(rv reflect.Value) *plan {
	if !rv.IsValid() || rv.Kind() != reflect.Pointer {
		return nil
	}
	t := rv.Type()
	if h := e.hot.Load(); h != nil && h.t == t {
		return h.p
	}
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

// compilePlan returns the plan of n on root type t, or nil; names are the
// expression's member names (nil: none).
func compilePlan(n *node, t reflect.Type, names *memberNames) *plan {
	c := planCompiler{names: names}
	steps, leaf, ok := c.stream(n, t.Elem()) // the root pointer is the address of a t.Elem()
	if !ok {
		return nil
	}
	steps, leaf = derefs(steps, leaf)
	if !planLeaf(leaf) {
		return nil
	}
	p := &plan{t: t, leaf: leaf, kind: leaf.Kind(), names: names}
	for i := range steps {
		if steps[i].kind == sEach {
			steps[i].path, _ = fieldPath(steps[i+1:])
			steps[i].nested = hasEach(steps[i+1:])
		}
	}
	for i := range steps {
		if steps[i].kind != sEach || !steps[i].nested {
			continue
		}
		for k := i + 1; k < len(steps); k++ {
			if steps[k].kind == sEach {
				if pre, ok := fieldPath(steps[i+1 : k]); ok && !steps[k].nested && steps[k].path != nil {
					steps[i].pre, steps[i].inner = pre, &steps[k]
				}
				break
			}
		}
	}
	for i, s := range steps {
		if s.kind == sEach {
			p.prefix, p.each = steps[:i], steps[i:]
			p.inner = !hasEach(p.each[1:])
			return p
		}
	}
	p.prefix = steps
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
		var off uintptr
		for i, j := range idx {
			if i > 0 && ft.Kind() != reflect.Struct {
				return nil, nil, false // through an embedded pointer
			}
			f := ft.Field(j)
			off += f.Offset
			ft = f.Type
		}
		return append(steps, pstep{kind: sField, off: off}), ft, true
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
		return append(append(steps, l...), pstep{kind: sIndex, idx: n.num, size: lt.Elem().Size()}), lt.Elem(), true
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
			l = append(l, pstep{kind: sEach, size: lt.Elem().Size()})
			lt = lt.Elem()
			if flatten && !hasEach(l[:len(l)-1]) {
				// x[] spreads x's elements that are lists themselves.
				l2, et := derefs(slices.Clone(l), lt)
				if isList(et) {
					l = append(l2, pstep{kind: sEach, size: et.Elem().Size()})
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

// stringHeader is the layout of a Go string.
type stringHeader struct {
	data unsafe.Pointer
	len  int
}

// sliceHeader is the layout of a Go slice.
type sliceHeader struct {
	data unsafe.Pointer
	len  int
	cap  int
}

// walk runs steps from p and calls yield with each result's address; a
// nil pointer or an index out of range ends that branch. It returns false
// if yield stopped it.
func walk(steps []pstep, p unsafe.Pointer, yield func(unsafe.Pointer) bool) bool {
	for i := range steps {
		s := &steps[i]
		switch s.kind {
		case sField:
			p = unsafe.Add(p, s.off)
		case sDeref:
			p = *(*unsafe.Pointer)(p)
			if p == nil {
				return true
			}
		case sIndex:
			if p = s.index(p); p == nil {
				return true
			}
		case sEach:
			h := (*sliceHeader)(p)
			rest := steps[i+1:]
			if !s.nested { // the innermost projection: no recursion per element
				for j := range h.len {
					if q := one(rest, unsafe.Add(h.data, uintptr(j)*s.size)); q != nil && !yield(q) {
						return false
					}
				}
				return true
			}
			for j := range h.len {
				if !walk(rest, unsafe.Add(h.data, uintptr(j)*s.size), yield) {
					return false
				}
			}
			return true
		}
	}
	return yield(p)
}

// one runs steps that do not project and returns the result's address,
// or nil for null.
func one(steps []pstep, p unsafe.Pointer) unsafe.Pointer {
	for i := range steps {
		s := &steps[i]
		switch s.kind {
		case sField:
			p = unsafe.Add(p, s.off)
		case sDeref:
			if p = *(*unsafe.Pointer)(p); p == nil {
				return nil
			}
		case sIndex:
			if p = s.index(p); p == nil {
				return nil
			}
		}
	}
	return p
}

// index returns the address of element s.idx of the slice at p (from the
// end if negative), or nil if it is out of range.
func (s *pstep) index(p unsafe.Pointer) unsafe.Pointer {
	h := (*sliceHeader)(p)
	j := s.idx
	if j < 0 {
		j += h.len
	}
	if j < 0 || j >= h.len {
		return nil
	}
	return unsafe.Add(h.data, uintptr(j)*s.size)
}

// eval runs the plan on rv, a non-nil pointer of type p.t.
func (p *plan) eval(rv reflect.Value) Value {
	root := rv.UnsafePointer()
	if root == nil {
		return Value{}
	}
	at := one(p.prefix, root)
	if at == nil {
		return Value{}
	}
	if p.each != nil {
		return Value{kind: Array, plan: p, p: at}
	}
	return p.leafValue(at)
}

// leafValue reads the value of the plan's leaf type at address at.
func (p *plan) leafValue(at unsafe.Pointer) Value {
	switch p.kind {
	case reflect.String:
		return Value{kind: String, s: *(*string)(at)}
	case reflect.Bool:
		return Value{kind: Boolean, b: *(*bool)(at)}
	case reflect.Int:
		return Value{kind: Number, n: float64(*(*int)(at))}
	case reflect.Int32:
		return Value{kind: Number, n: float64(*(*int32)(at))}
	case reflect.Int64:
		return Value{kind: Number, n: float64(*(*int64)(at))}
	case reflect.Float64:
		return Value{kind: Number, n: *(*float64)(at)}
	}
	x := fromGo(reflect.NewAt(p.leaf, at).Elem(), p.names)
	return valueOf(x, nil)
}

// countString counts the results of a projection from at that are strings
// equal to want, and all its results, in one loop without a call per
// element.
func (p *plan) countString(steps []pstep, at unsafe.Pointer, want string) (eq, n int) {
	isString := p.kind == reflect.String
	for i := range steps {
		s := &steps[i]
		switch s.kind {
		case sField:
			at = unsafe.Add(at, s.off)
		case sDeref:
			if at = *(*unsafe.Pointer)(at); at == nil {
				return 0, 0
			}
		case sIndex:
			if at = s.index(at); at == nil {
				return 0, 0
			}
		case sEach:
			h := (*sliceHeader)(at)
			rest := steps[i+1:]
			if in := s.inner; in != nil { // a[].b[].c: two loops, no call
				return countString2(h, s, in, isString, want)
			}
			if s.nested {
				for j := range h.len {
					e, m := p.countString(rest, unsafe.Add(h.data, uintptr(j)*s.size), want)
					eq, n = eq+e, n+m
				}
				return eq, n
			}
			for j := range h.len {
				var q unsafe.Pointer
				if s.path != nil {
					q = follow(s.path, unsafe.Add(h.data, uintptr(j)*s.size))
				} else {
					q = one(rest, unsafe.Add(h.data, uintptr(j)*s.size))
				}
				if q == nil {
					continue
				}
				n++
				if isString && *(*string)(q) == want {
					eq++
				}
			}
			return eq, n
		}
	}
	return 0, 0
}

// countString2 is countString's a[].b[].c: for each element of the slice
// h (of outer's elements), outer.pre leads to a slice, and for each of its
// elements inner.path leads to a result. It is a function of its own so
// that its loops keep their offsets and counters in registers; the common
// shape, a slice field of a struct element and a field behind a pointer
// (Reservations[].Instances[].State.Name), has loops of its own.
func countString2(h *sliceHeader, outer, inner *pstep, isString bool, want string) (eq, n int) {
	osize, isize := outer.size, inner.size
	if pre, path := outer.pre, inner.path; len(pre) == 1 && len(path) == 2 && isString {
		return countStringFields(h, osize, pre[0], isize, path[0], path[1], want)
	}
	for j := range h.len {
		q := follow(outer.pre, unsafe.Add(h.data, uintptr(j)*osize))
		if q == nil {
			continue
		}
		h2 := (*sliceHeader)(q)
		for k := range h2.len {
			r := follow(inner.path, unsafe.Add(h2.data, uintptr(k)*isize))
			if r == nil {
				continue
			}
			n++
			if isString && *(*string)(r) == want {
				eq++
			}
		}
	}
	return eq, n
}

// countStringFields is countString2 on the shape of the SDKs' outputs,
// Reservations[].Instances[].State.Name: in each element of h (osize
// bytes) a slice at offset po, in each of its elements (isize bytes) a
// pointer at offset a, and behind it a string at offset b.
func countStringFields(h *sliceHeader, osize, po, isize, a, b uintptr, want string) (eq, n int) {
	// Its first and last words, as the compiler compares with a constant
	// string: they overlap unless the length is 4, 8 or 16.
	w := unsafe.Pointer(unsafe.StringData(want))
	switch size := len(want); {
	case size >= 8 && size <= 16:
		return countFields(h, osize, po, isize, a, b, size, load[uint64](w), load[uint64](unsafe.Add(w, size-8)))
	case size >= 4 && size < 8:
		return countFields(h, osize, po, isize, a, b, size, load[uint32](w), load[uint32](unsafe.Add(w, size-4)))
	}
	if h.len == 0 {
		return 0, 0
	}
	hp := unsafe.Add(h.data, po)
	for oo := uintptr(h.len) * osize; oo != 0; {
		oo -= osize
		h2 := (*sliceHeader)(unsafe.Add(hp, oo))
		if h2.len == 0 {
			continue
		}
		p := unsafe.Add(h2.data, a)
		for io := uintptr(h2.len) * isize; io != 0; {
			io -= isize
			if q := *(*unsafe.Pointer)(unsafe.Add(p, io)); q != nil {
				n++
				if *(*string)(unsafe.Add(q, b)) == want {
					eq++
				}
			}
		}
	}
	return eq, n
}

// countFields is countStringFields for a string of size bytes (4 to 16)
// whose first and last words of type W are lo and hi: it compares a
// string's length and its two words, without the call of == (a call in
// the loop made the compiler keep the loop's values on the stack). Its
// loops are all it does, they step back from the end by byte offsets from
// the first element's fields, and the words are arguments, so that the
// values they need fit in registers: with more, the compiler kept the
// inner loop's counter on the stack, and each iteration waited for its
// store; with the words read from memory, each element cost four more
// loads. The order does not change the counts.
//
//go:noinline
func countFields[W uint32 | uint64](h *sliceHeader, osize, po, isize, a, b uintptr, size int, lo, hi W) (eq, n int) {
	if h.len == 0 {
		return 0, 0
	}
	last := uintptr(size) - unsafe.Sizeof(W(0)) // the offset of the last word
	hp := unsafe.Add(h.data, po)                // the slice field of the first element
	for oo := uintptr(h.len) * osize; oo != 0; {
		oo -= osize
		h2 := (*sliceHeader)(unsafe.Add(hp, oo))
		if h2.len == 0 {
			continue
		}
		p := unsafe.Add(h2.data, a) // the pointer field of the first element
		for io := uintptr(h2.len) * isize; io != 0; {
			io -= isize
			q := *(*unsafe.Pointer)(unsafe.Add(p, io))
			if q == nil {
				continue
			}
			n++
			s := (*stringHeader)(unsafe.Add(q, b))
			if s.len == size && load[W](s.data) == lo && load[W](unsafe.Add(s.data, last)) == hi {
				eq++
			}
		}
	}
	return eq, n
}

// load reads a W at p, little-endian, in one load where the machine
// allows loads that are not aligned.
func load[W uint32 | uint64](p unsafe.Pointer) W {
	if unsafe.Sizeof(W(0)) == 8 {
		return W(binary.LittleEndian.Uint64((*[8]byte)(p)[:]))
	}
	return W(binary.LittleEndian.Uint32((*[4]byte)(p)[:]))
}
