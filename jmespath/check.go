package jmespath

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Type is the static type of the values an expression reads: what a check
// knows of them before any evaluation. [Expr.Check] infers the type of an
// expression's result from the type of its input, and reports what can
// never work on it. A Type comes from a Go type ([Expr.GoType]) or from a
// model's shapes (an implementation of the caller's: a Smithy structure,
// a botocore shape).
type Type interface {
	// Kind returns the JMESPath type of the values. ok is false when it is
	// known only at run time (a Go interface, a Smithy document): nothing
	// read from such values is checked.
	Kind() (k Kind, ok bool)
	// Elem returns the type of an array's elements, or of the values of an
	// object whose keys are known only at run time (a map); nil for any
	// other type. An array's nil Elem is an element of unknown type.
	Elem() Type
	// Member returns the type of the member an expression's name reads
	// from an object with a fixed set of members (a structure), or false
	// when no member answers to the name.
	Member(name string) (Type, bool)
	// Members lists the names of the members of an object with a fixed set
	// of them, for the suggestion when a name is not found.
	Members() []string
	// String describes the type in messages: a Go type
	// ("types.ClusterStatus"), a shape ID.
	String() string
}

// TypeError is a part of an expression that cannot work on values of the
// type it was checked against ([Expr.Check]): a field that no value of the
// type has, an index into a string, a function's argument of the wrong
// type, a comparison that can never hold.
type TypeError struct {
	Expr   string // the expression
	Offset int    // the byte offset in Expr of the part at fault
	Msg    string // what is wrong, naming the part at fault as written
}

// Error returns "type error at offset N: <problem>".
func (e *TypeError) Error() string {
	return fmt.Sprintf("type error at offset %d: %s", e.Offset, e.Msg)
}

// Check infers the type of the expression's result on values of type root
// (the specification's static analysis) and reports every part of the
// expression that can never work on such values: a field name the object
// does not have (with the nearest name it has), a field read from a string
// or an array, an index, slice, projection, flatten or filter on what is
// not an array, a value projection on what is not an object, a function
// argument of a type the function refuses (the signatures of the JMESPath
// specification), an ordering comparison of what is not a number, and an
// equality between two kinds of value that are never equal.
//
// It reports only what is certain. Where a type is unknown (a nil root, a
// Type whose Kind is not known) nothing read from it is checked, and the
// result is of unknown type. Any member may be null at run time; Check
// infers the type a value has when it is not null.
//
// The result's Type is never nil. The error is nil, a *TypeError, or for
// several problems an error whose Unwrap() []error returns a *TypeError
// for each, in the order of the expression.
func (e *Expr) Check(root Type) (Type, error) {
	if root == nil {
		root = unknown
	}
	c := &checker{src: e.src}
	t := c.walk(e.root, root, start(e.root))
	switch len(c.errs) {
	case 0:
		return t, nil
	case 1:
		return t, c.errs[0]
	}
	return t, errors.Join(c.errs...)
}

// The types the checker makes: unknown, scalars, arrays, objects of known
// members (multi-select hashes, JSON literals) and of unknown members
// (merge()).
type (
	unknownType struct{}
	scalarType  struct{ k Kind }
	arrayType   struct{ elem Type }
	objectType  struct {
		keys []string
		vals []Type
	}
	openObjectType struct{}
)

var unknown Type = unknownType{}

func (unknownType) Kind() (Kind, bool)         { return Null, false }
func (unknownType) Elem() Type                 { return nil }
func (unknownType) Member(string) (Type, bool) { return nil, false }
func (unknownType) Members() []string          { return nil }
func (unknownType) String() string             { return "unknown" }

func (s scalarType) Kind() (Kind, bool)           { return s.k, true }
func (scalarType) Elem() Type                     { return nil }
func (scalarType) Member(string) (Type, bool)     { return nil, false }
func (scalarType) Members() []string              { return nil }
func (s scalarType) String() string               { return s.k.String() }
func (arrayType) Kind() (Kind, bool)              { return Array, true }
func (a arrayType) Elem() Type                    { return a.elem }
func (arrayType) Member(string) (Type, bool)      { return nil, false }
func (arrayType) Members() []string               { return nil }
func (openObjectType) Kind() (Kind, bool)         { return Object, true }
func (openObjectType) Elem() Type                 { return unknown }
func (openObjectType) Member(string) (Type, bool) { return nil, false }
func (openObjectType) Members() []string          { return nil }
func (openObjectType) String() string             { return "object" }
func (objectType) Kind() (Kind, bool)             { return Object, true }
func (objectType) Elem() Type                     { return nil }
func (o objectType) Members() []string            { return o.keys }
func (objectType) String() string                 { return "object" }

func (a arrayType) String() string {
	if k, ok := elemOf(a).Kind(); ok {
		return "array of " + plural(k)
	}
	return "array"
}

func (o objectType) Member(name string) (Type, bool) {
	if i := slices.Index(o.keys, name); i >= 0 {
		return o.vals[i], true
	}
	return nil, false
}

// elemOf returns an array's or a map's element type, unknown if nil.
func elemOf(t Type) Type {
	if el := t.Elem(); el != nil {
		return el
	}
	return unknown
}

// join is the type of a value of type a or of type b.
func join(a, b Type) Type {
	if a == nil {
		return b
	}
	ka, oka := a.Kind()
	kb, okb := b.Kind()
	switch {
	case !oka || !okb || ka != kb || ka == Object:
		return unknown
	case ka == Array:
		return arrayType{join(elemOf(a), elemOf(b))}
	}
	return a
}

// literalType is the type of a JSON literal's value.
func literalType(v any) Type {
	switch v := v.(type) {
	case nil:
		return scalarType{Null}
	case bool:
		return scalarType{Boolean}
	case float64:
		return scalarType{Number}
	case string:
		return scalarType{String}
	case []any:
		var el Type
		for _, x := range v {
			el = join(el, literalType(x))
		}
		if el == nil {
			el = unknown
		}
		return arrayType{el}
	case map[string]any:
		o := objectType{keys: sortedKeys(v)}
		for _, k := range o.keys {
			o.vals = append(o.vals, literalType(v[k]))
		}
		return o
	}
	return unknown
}

// Describe names a type in a message: "a string", "an array of numbers",
// "an object (types.Cluster)", "a value of unknown type" (nil too).
func Describe(t Type) string {
	if t == nil {
		t = unknown
	}
	k, ok := t.Kind()
	if !ok {
		return "a value of unknown type"
	}
	d := article(k) + k.String()
	switch t := t.(type) {
	case scalarType, objectType, openObjectType:
		return d
	case goType:
		if t.t == timeType { // a number in the data model, but not to its reader
			return "a timestamp (time.Time, read as a number of epoch seconds)"
		}
	case arrayType:
		if ek, ok := elemOf(t).Kind(); ok {
			return d + " of " + plural(ek)
		}
		return d
	}
	if s := t.String(); s != "" && s != k.String() {
		d += " (" + s + ")"
	}
	return d
}

func article(k Kind) string {
	switch k {
	case Null:
		return ""
	case Array, Object:
		return "an "
	}
	return "a "
}

func plural(k Kind) string {
	if k == Null {
		return "nulls"
	}
	return k.String() + "s"
}

// checker walks an expression's tree with the types of the values each
// node reads.
type checker struct {
	src  string
	errs []error
}

func (c *checker) fail(at int, format string, args ...any) {
	c.errs = append(c.errs, &TypeError{Expr: c.src, Offset: at, Msg: fmt.Sprintf(format, args...)})
}

// text returns the source between two offsets, trimmed; "@" if empty.
func (c *checker) text(from, to int) string {
	from, to = max(0, min(from, len(c.src))), max(0, min(to, len(c.src)))
	if from >= to {
		return "@"
	}
	if s := strings.TrimSpace(c.src[from:to]); s != "" {
		return s
	}
	return "@"
}

// nodeText returns the source of a node that its parser ended (a
// function's argument, a comparison's right operand).
func (c *checker) nodeText(n *node) string {
	if n == identity || n.op == opIdentity {
		return "@"
	}
	return c.text(start(n), n.end)
}

// start returns the offset where n's source begins.
func start(n *node) int {
	for {
		switch n.op {
		case opSub, opIndex, opSlice, opProject, opValues, opFilter, opFlatten, opCmp, opAnd, opOr, opPipe:
			if n.l == nil || n.l.op == opIdentity {
				return n.position
			}
			n = n.l
		default:
			return n.position
		}
	}
}

// fieldEnd returns the offset just past the name at pos: an identifier or
// a quoted identifier.
func (c *checker) fieldEnd(pos int) int {
	if pos >= len(c.src) {
		return len(c.src)
	}
	if c.src[pos] == '"' {
		if j, err := closing(c.src, pos, '"'); err == nil {
			return j
		}
		return len(c.src)
	}
	j := pos
	for j < len(c.src) && isIdentChar(c.src[j]) {
		j++
	}
	return j
}

// walk returns the type of n's result on values of type t. from is the
// offset where the path that n continues begins, for naming it.
func (c *checker) walk(n *node, t Type, from int) Type {
	switch n.op {
	case opIdentity:
		return t
	case opField:
		return c.field(n, t, from)
	case opSub:
		return c.walk(n.r, c.walk(n.l, t, from), from)
	case opPipe:
		l := c.walk(n.l, t, from)
		return c.walk(n.r, l, start(n.r))
	case opIndex:
		l := c.walk(n.l, t, from)
		el, _ := c.array(l, n, from, fmt.Sprintf("index [%d]", n.num))
		return el
	case opSlice:
		l := c.walk(n.l, t, from)
		if _, ok := c.array(l, n, from, "a slice"); ok {
			return l
		}
		return unknown
	case opFlatten:
		l := c.walk(n.l, t, from)
		el, ok := c.array(l, n, from, "a flatten []")
		if !ok {
			return unknown
		}
		if k, known := el.Kind(); !known {
			return arrayType{unknown}
		} else if k == Array {
			return arrayType{elemOf(el)}
		}
		return arrayType{el}
	case opProject, opFilter:
		l := c.walk(n.l, t, from)
		var el Type = unknown
		switch {
		case n.l.op == opFlatten || n.l.op == opSlice:
			el = elemOf(l) // checked by the flatten or slice
		case n.op == opFilter:
			el, _ = c.array(l, n, from, "a filter [?]")
		default:
			el, _ = c.array(l, n, from, "a projection [*]")
		}
		if n.op == opFilter {
			c.walk(n.cond, el, start(n.cond))
		}
		return arrayType{c.walk(n.r, el, from)}
	case opValues:
		l := c.walk(n.l, t, from)
		var el Type = unknown
		if k, ok := l.Kind(); ok && k == Object {
			el = elemOf(l)
		} else if ok && k != Null {
			c.fail(n.position, "a value projection * is applied to %s, %s, which is not an object", c.leftText(n, from), Describe(l))
		}
		return arrayType{c.walk(n.r, el, from)}
	case opLiteral:
		return literalType(n.lit)
	case opList:
		var el Type
		for _, a := range n.args {
			el = join(el, c.walk(a, t, start(a)))
		}
		return arrayType{el}
	case opHash:
		o := objectType{keys: n.keys}
		for _, a := range n.args {
			o.vals = append(o.vals, c.walk(a, t, start(a)))
		}
		return o
	case opOr, opAnd:
		l := c.walk(n.l, t, start(n.l))
		return join(l, c.walk(n.r, t, start(n.r)))
	case opNot:
		c.walk(n.l, t, start(n.l))
		return scalarType{Boolean}
	case opCmp:
		l := c.walk(n.l, t, start(n.l))
		r := c.walk(n.r, t, start(n.r))
		c.compare(n, l, r)
		return scalarType{Boolean}
	case opExpref:
		c.walk(n.l, unknown, start(n.l))
		return unknown
	case opCall:
		return c.call(n, t)
	}
	return unknown
}

// field returns the type of field n read from a value of type t.
func (c *checker) field(n *node, t Type, from int) Type {
	k, ok := t.Kind()
	if !ok || k == Null {
		return unknown
	}
	end := c.fieldEnd(n.position)
	path := ""
	if p := c.text(from, end); from < n.position && p != strings.TrimSpace(c.src) {
		path = p + ": " // the part of a longer expression
	}
	if k != Object {
		hint := ""
		if base := strings.TrimSuffix(c.text(from, n.position), "."); k == Array && from < n.position {
			hint = fmt.Sprintf(" (to read it from each element: %s[].%s)", base, c.src[n.position:end])
		}
		c.fail(n.position, "%sfield %q is read from %s, which is not an object%s", path, n.name, Describe(t), hint)
		return unknown
	}
	if el := t.Elem(); el != nil {
		return el
	}
	if m, ok := t.Member(n.name); ok {
		if m == nil {
			return unknown
		}
		return m
	}
	hint := suggest(t, n.name)
	if hint == "" && (n.name == "null" || n.name == "true" || n.name == "false") && c.src[n.position] != '"' {
		hint = fmt.Sprintf(" (a JSON literal is written `%s`)", n.name)
	}
	c.fail(n.position, "%sfield %q does not exist on %s%s", path, n.name, t, hint)
	return unknown
}

// array returns the element type of l, a value that a bracket at n
// applies to (what), and whether l is known to be an array; it reports a
// value known not to be one.
func (c *checker) array(l Type, n *node, from int, what string) (Type, bool) {
	k, ok := l.Kind()
	switch {
	case ok && k == Array:
		return elemOf(l), true
	case ok && k != Null:
		c.fail(n.position, "%s is applied to %s, %s, which is not an array", what, c.leftText(n, from), Describe(l))
	}
	return unknown, false
}

// leftText returns the source of the left operand of n, from the offset
// where it begins: up to n's token, or to the end of a parenthesized
// operand.
func (c *checker) leftText(n *node, from int) string {
	end := n.position
	if n.l != nil && n.l.end > from && n.l.end < end {
		end = n.l.end
	}
	return c.text(from, end)
}

// compare checks the operands of a comparison.
func (c *checker) compare(n *node, l, r Type) {
	kl, okl := l.Kind()
	kr, okr := r.Kind()
	lt, rt := c.leftText(n, start(n.l)), c.nodeText(n.r)
	if n.l.op == opIdentity {
		lt = "@"
	}
	op := strings.Trim(n.cmp.String(), `"`)
	switch n.cmp {
	case tEQ, tNE:
		if okl && okr && kl != kr && kl != Null && kr != Null {
			c.fail(n.position, "%s compares %s, %s, with %s, %s: values of different types are never equal", op, lt, Describe(l), rt, Describe(r))
		}
		return
	}
	if okl && kl != Number {
		c.fail(start(n.l), "%s compares numbers, but %s is %s (the comparison gives null)", op, lt, Describe(l))
	}
	if okr && kr != Number {
		c.fail(start(n.r), "%s compares numbers, but %s is %s (the comparison gives null)", op, rt, Describe(r))
	}
}

// call checks a function call's arguments and returns its result's type.
func (c *checker) call(n *node, t Type) Type {
	f := functions[n.name]
	if f == nil {
		return unknown
	}
	args := make([]Type, len(n.args))
	for i, a := range n.args {
		want := f.args[min(i, len(f.args)-1)]
		if a.op == opExpref {
			if want&aExpref == 0 {
				c.fail(a.position, "argument %d of %s() is an expression reference (&), where %s is expected", i+1, n.name, wantText(want))
			}
			continue
		}
		args[i] = c.walk(a, t, start(a))
		if want == aExpref {
			c.fail(start(a), "argument %d of %s() must be an expression reference: &%s, not %s", i+1, n.name, c.nodeText(a), c.nodeText(a))
			continue
		}
		c.arg(n, i, a, want, args[i])
	}
	arg := func(i int) Type {
		if i < len(args) && args[i] != nil {
			return args[i]
		}
		return unknown
	}
	// The expression an expression reference stands for reads each
	// element of the array argument.
	ref := func(i, array int) Type {
		if i >= len(n.args) || n.args[i].op != opExpref {
			return unknown
		}
		body := n.args[i].l
		var el Type = unknown
		if k, ok := arg(array).Kind(); ok && k == Array {
			el = elemOf(arg(array))
		}
		return c.walk(body, el, start(body))
	}
	switch n.name {
	case "abs", "ceil", "floor", "avg", "sum", "length", "to_number":
		return scalarType{Number}
	case "contains", "ends_with", "starts_with":
		return scalarType{Boolean}
	case "join", "to_string", "type":
		return scalarType{String}
	case "keys":
		return arrayType{scalarType{String}}
	case "values":
		if k, ok := arg(0).Kind(); ok && k == Object {
			return arrayType{elemOf(arg(0))}
		}
		return arrayType{unknown}
	case "map":
		return arrayType{ref(0, 1)}
	case "max", "min":
		if k, ok := elemOf(arg(0)).Kind(); ok && (k == Number || k == String) {
			return elemOf(arg(0))
		}
		return unknown
	case "max_by", "min_by", "sort_by":
		key := ref(1, 0)
		if k, ok := key.Kind(); ok && k != Number && k != String {
			body := n.args[1].l
			c.fail(start(body), "the key of %s() must be a number or a string, but %s is %s", n.name, c.nodeText(body), Describe(key))
		}
		if n.name == "sort_by" {
			return arg(0)
		}
		return elemOf(arg(0))
	case "sort", "reverse":
		return arg(0)
	case "merge":
		return openObjectType{}
	case "not_null":
		var r Type
		for i := range args {
			r = join(r, arg(i))
		}
		return r
	case "to_array":
		if k, ok := arg(0).Kind(); !ok || k == Array {
			return arrayType{elemOf(arg(0))}
		}
		return arrayType{arg(0)}
	}
	return unknown
}

// arg checks argument i of call, of type got, against the function's
// signature.
func (c *checker) arg(call *node, i int, a *node, want argType, got Type) {
	k, ok := got.Kind()
	if !ok {
		return
	}
	if want&(1<<k) == 0 {
		c.fail(start(a), "argument %d of %s() must be %s, but %s is %s", i+1, call.name, wantText(want), c.nodeText(a), Describe(got))
		return
	}
	if k != Array || want&^aAny&^aExpref == 0 {
		return
	}
	ek, ok := elemOf(got).Kind()
	if !ok {
		return
	}
	if (want == aArrayNum && ek != Number) || (want == aArrayStr && ek != String) || (want == aArrayNumOr && ek != Number && ek != String) {
		c.fail(start(a), "argument %d of %s() must be %s, but %s is %s", i+1, call.name, wantText(want), c.nodeText(a), Describe(got))
	}
}

// wantText describes what an argument may be: "a number", "a string or
// an array".
func wantText(want argType) string {
	switch want {
	case aArrayNum:
		return "an array of numbers"
	case aArrayStr:
		return "an array of strings"
	case aArrayNumOr:
		return "an array of numbers or of strings"
	case aExpref:
		return "an expression reference (&)"
	}
	var parts []string
	for k := Null; k <= Object; k++ {
		if want&(1<<k) != 0 {
			parts = append(parts, article(k)+k.String())
		}
	}
	if len(parts) == 1 {
		return parts[0]
	}
	return strings.Join(parts[:len(parts)-1], ", ") + " or " + parts[len(parts)-1]
}

// suggest names the member of t nearest name, as " (did you mean X?)",
// spelled as name is when t answers to that spelling too (status for
// Status where an expression's name may start in lower case).
func suggest(t Type, name string) string {
	best := nearest(name, t.Members(), 2)
	if best == "" {
		return ""
	}
	r, _ := utf8.DecodeRuneInString(name)
	if b, n := utf8.DecodeRuneInString(best); unicode.IsLower(r) && unicode.IsUpper(b) {
		lower := string(unicode.ToLower(b)) + best[n:]
		if _, ok := t.Member(lower); ok {
			best = lower
		}
	}
	return fmt.Sprintf(" (did you mean %s?)", best)
}

// nearest returns the candidate equal to name but for case, or else the
// one fewest edits from it (ignoring case) when that is at most max edits;
// "" when none is that close. It is internal/suggest's Nearest, repeated
// so that this package imports no other package of its module.
func nearest(name string, candidates []string, max int) string {
	low := strings.ToLower(name)
	best, bestDist := "", max+1
	for _, c := range candidates {
		lc := strings.ToLower(c)
		if lc == low {
			return c
		}
		if d := distance(low, lc); d < bestDist {
			best, bestDist = c, d
		}
	}
	return best
}

// distance is the Levenshtein distance between a and b, in bytes.
func distance(a, b string) int {
	prev, cur := make([]int, len(b)+1), make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
