package classify

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"sync"

	"github.com/jmespath/go-jmespath"
)

// ErrExpression is matched by errors.Is for every error about a JMESPath
// expression: one that does not parse, one that makes go-jmespath panic,
// and one that fails while it is evaluated.
var ErrExpression = errors.New("classify: bad JMESPath expression")

// ExprError describes a JMESPath expression that failed to compile or to
// evaluate.
type ExprError struct {
	Expr string // the expression
	Err  error  // what went wrong
}

// Error names the expression and the problem.
func (e *ExprError) Error() string {
	return fmt.Sprintf("classify: JMESPath expression %q: %v", e.Expr, e.Err)
}

// Is matches [ErrExpression].
func (e *ExprError) Is(target error) bool { return target == ErrExpression }

// Unwrap returns the underlying error.
func (e *ExprError) Unwrap() error { return e.Err }

// Expr is a compiled JMESPath expression that reads Go values through the
// Smithy JMESPath data model (see the package documentation).
//
// Simple paths (fields, indexes, flatten and one level of projection, such
// as Reservations[].Instances[].State.Name) are evaluated directly on the Go
// value, without converting it; any other expression converts the value to
// the data model and runs go-jmespath. An Expr is safe for concurrent use.
type Expr struct {
	src    string
	jp     *jmespath.JMESPath
	simple *node               // nil unless a simple path
	idents map[string]struct{} // every field name the expression uses
	plans  sync.Map            // reflect.Type → *structPlan
}

// CompileExpr compiles a JMESPath expression. Beyond parsing, it evaluates
// the expression once on null and on an empty object, so that an
// expression that makes go-jmespath panic (such as @(foo), which parses)
// is an error here rather than a panic later.
func CompileExpr(src string) (*Expr, error) {
	jp, err := safeCompile(src)
	if err != nil {
		return nil, &ExprError{Expr: src, Err: err}
	}
	toks, err := lex(src)
	if err != nil {
		return nil, &ExprError{Expr: src, Err: err}
	}
	e := &Expr{src: src, jp: jp, simple: parseSimple(toks), idents: map[string]struct{}{}}
	for _, t := range toks {
		if t.kind == tokIdent {
			e.idents[t.text] = struct{}{}
		}
	}
	for _, probe := range []any{nil, map[string]any{}} {
		if _, err := e.search(probe); err != nil && isPanic(err) {
			return nil, &ExprError{Expr: src, Err: err}
		}
	}
	return e, nil
}

// String returns the expression's source.
func (e *Expr) String() string { return e.src }

// Simple reports whether the expression is evaluated directly on Go values
// (see [Expr]).
func (e *Expr) Simple() bool { return e.simple != nil }

type panicError struct{ v any }

func (p panicError) Error() string { return fmt.Sprintf("go-jmespath panicked: %v", p.v) }

func isPanic(err error) bool {
	var p panicError
	return errors.As(err, &p)
}

func safeCompile(src string) (jp *jmespath.JMESPath, err error) {
	defer func() {
		if r := recover(); r != nil {
			jp, err = nil, panicError{r}
		}
	}()
	return jmespath.Compile(src)
}

// search runs go-jmespath on a value of the data model, turning a panic
// into an error.
func (e *Expr) search(model any) (res any, err error) {
	defer func() {
		if r := recover(); r != nil {
			res, err = nil, panicError{r}
		}
	}()
	return e.jp.Search(model)
}

// Search evaluates the expression on v (any Go value, read through the data
// model) and returns the result in go-jmespath's terms: nil, bool, float64,
// string, []any or map[string]any.
func (e *Expr) Search(v any) (any, error) {
	res, err := e.search(e.toModel(reflect.ValueOf(v), 0))
	if err != nil {
		return nil, &ExprError{Expr: e.src, Err: err}
	}
	return res, nil
}

// compare applies comparator c with the expected value to the expression's
// result on v.
func (e *Expr) compare(v reflect.Value, c Comparator, expected string) (bool, error) {
	if n := e.simple; n != nil {
		return compareSimple(n, v, c, expected), nil
	}
	res, err := e.search(e.toModel(v, 0))
	if err != nil {
		return false, &ExprError{Expr: e.src, Err: err}
	}
	return compareModel(res, c, expected), nil
}

// compareModel applies a comparator to a go-jmespath result.
func compareModel(res any, c Comparator, expected string) bool {
	switch c {
	case StringEquals:
		s, ok := res.(string)
		return ok && s == expected
	case BooleanEquals:
		b, ok := res.(bool)
		return ok && strconv.FormatBool(b) == expected
	case AllStringEquals, AnyStringEquals:
		list, ok := res.([]any)
		if !ok {
			return false
		}
		for _, x := range list {
			s, ok := x.(string)
			eq := ok && s == expected
			if c == AnyStringEquals && eq {
				return true
			}
			if c == AllStringEquals && !eq {
				return false
			}
		}
		return c == AllStringEquals && len(list) > 0
	}
	return false
}

// compareSimple applies a comparator to a simple path's result on v,
// without building the result.
func compareSimple(n *node, v reflect.Value, c Comparator, expected string) bool {
	switch c {
	case StringEquals, BooleanEquals:
		if n.projects() {
			return false // a projection is an array: never a string or a boolean
		}
		x := deref(n.eval(v))
		if c == StringEquals {
			s, ok := asString(x)
			return ok && s == expected
		}
		return x.IsValid() && x.Kind() == reflect.Bool && strconv.FormatBool(x.Bool()) == expected
	case AllStringEquals:
		count, all := 0, true
		n.elements(v, func(e reflect.Value) bool {
			count++
			s, ok := asString(e)
			all = ok && s == expected
			return all
		})
		return all && count > 0
	case AnyStringEquals:
		found := false
		n.elements(v, func(e reflect.Value) bool {
			s, ok := asString(e)
			found = ok && s == expected
			return !found
		})
		return found
	}
	return false
}

// elements calls yield with each element of n's result on v if that result
// is an array (a projection, or a Go slice reached without one).
func (n *node) elements(v reflect.Value, yield func(reflect.Value) bool) {
	if n.projects() {
		n.each(v, yield)
		return
	}
	x := deref(n.eval(v))
	if !x.IsValid() || !isListType(x.Type()) {
		return
	}
	for i := range x.Len() {
		if !yield(x.Index(i)) {
			return
		}
	}
}

// eval evaluates a node that does not project.
func (n *node) eval(v reflect.Value) reflect.Value {
	switch n.op {
	case opIdentity:
		return v
	case opField:
		return n.fieldOf(v)
	case opSub:
		return n.r.eval(n.l.eval(v))
	case opIndex:
		x := deref(n.l.eval(v))
		if !x.IsValid() || !isListType(x.Type()) {
			return reflect.Value{}
		}
		i := n.index
		if i < 0 {
			i += x.Len()
		}
		if i < 0 || i >= x.Len() {
			return reflect.Value{}
		}
		return x.Index(i)
	}
	return reflect.Value{} // a projection cannot be evaluated as one value
}

// each calls yield with every element of a projecting node's result, in
// order, until yield returns false. It reports whether it was stopped.
func (n *node) each(v reflect.Value, yield func(reflect.Value) bool) bool {
	keep := func(e reflect.Value) bool {
		if r := n.r.eval(e); !deref(r).IsValid() {
			return true // projections drop nulls
		} else {
			return yield(r)
		}
	}
	switch n.op {
	case opProject:
		if n.l.op == opFlatten {
			return n.l.each(v, keep)
		}
		x := deref(n.l.eval(v))
		if !x.IsValid() || !isListType(x.Type()) {
			return true
		}
		for i := range x.Len() {
			if !keep(x.Index(i)) {
				return false
			}
		}
	case opValues:
		x := deref(n.l.eval(v))
		if !x.IsValid() || !isObjectType(x.Type()) {
			return true
		}
		if x.Kind() == reflect.Map {
			for it := x.MapRange(); it.Next(); {
				if !keep(it.Value()) {
					return false
				}
			}
			return true
		}
		for _, idx := range exportedFields(x.Type()) {
			if fv, err := x.FieldByIndexErr(idx); err == nil && !keep(fv) {
				return false
			}
		}
	case opFlatten:
		spread := func(e reflect.Value) bool {
			if d := deref(e); d.IsValid() && isListType(d.Type()) {
				for i := range d.Len() {
					if !yield(d.Index(i)) {
						return false
					}
				}
				return true
			}
			return yield(e)
		}
		if n.l.projects() {
			return n.l.each(v, spread)
		}
		x := deref(n.l.eval(v))
		if !x.IsValid() || !isListType(x.Type()) {
			return true
		}
		for i := range x.Len() {
			if !spread(x.Index(i)) {
				return false
			}
		}
	}
	return true
}

// messageOf renders a message expression's result: a string as is, any
// other non-null value as JSON.
func messageOf(res any) string {
	switch r := res.(type) {
	case nil:
		return ""
	case string:
		return r
	}
	b, err := json.Marshal(res)
	if err != nil {
		return fmt.Sprint(res)
	}
	return string(b)
}
