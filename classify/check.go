package classify

import (
	"errors"
	"fmt"
	"reflect"

	"github.com/waitable/waitable/internal/errjoin"
	"github.com/waitable/waitable/jmespath"
)

// Check reports, for an expression compared by c on values of Go type
// root, what can be known before any call (the specification's "JMESPath
// static analysis"): every part of the expression that can never work on
// such values, each a [*jmespath.TypeError] that names the part and its
// offset (a field name the type does not have, with the nearest name it
// has; a function's argument of a type the function refuses; see
// [jmespath.Expr.Check]), and a comparator that can never match the
// expression's result, by the rules of Smithy's waiters: stringEquals
// needs a string, booleanEquals a boolean, allStringEquals and
// anyStringEquals an array of strings.
//
// It reports only what is certain: what is read through a type known only
// at run time (an interface such as any, a Smithy document) is not
// checked, and neither is anything on a nil root. An empty c checks the
// expression alone. The error joins every problem; each is a
// [*jmespath.TypeError] or an error about the comparator.
func (e *Expr) Check(root reflect.Type, c Comparator) error {
	return e.checkType(e.jp.GoType(root), c)
}

// checkType is [Expr.Check] on values of an abstract type: a Go type's
// or a model shape's, such as the operation output of a Smithy model. A
// nil root is not checked.
func (e *Expr) checkType(root jmespath.Type, c Comparator) error {
	rt, err := e.jp.Check(root)
	errs := errjoin.Split(err)
	if err := checkComparator(rt, c); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// CheckTypes checks the paths and messages of acceptors against the
// abstract types of an operation's input and output (a model's shapes;
// see [Expr.Check]), as [Compile] checks them against Go types: output
// paths and messages on output, inputOutput paths on an object of the
// members input and output. A nil type is not checked. It returns every
// problem, each an [*AcceptorError] (rule "path" or "message"); an
// acceptor that does not compile is left to [Validate].
func CheckTypes(acceptors []Acceptor, input, output jmespath.Type) []error {
	cs, _ := compileAll(acceptors, nil)
	io := ioType{input: input, output: output}
	return checkAll(cs, func(*Expr) jmespath.Type { return io }, func(*Expr) jmespath.Type { return output })
}

// checkAll checks compiled acceptors: output paths and messages on the
// type out gives, inputOutput paths on the one io gives (each for the
// expression, which reads struct fields by its own member names).
func checkAll(cs []compiled, io, out func(e *Expr) jmespath.Type) []error {
	var errs []error
	for i, c := range cs {
		if c.expr != nil {
			root := out(c.expr)
			if c.Matcher.InputOutput != nil {
				root = io(c.expr)
			}
			for _, err := range errjoin.Split(c.expr.checkType(root, c.path.Comparator)) {
				errs = append(errs, &AcceptorError{Index: i, Rule: "path", Err: fmt.Errorf("%s: %w", c.path.Path, err)})
			}
		}
		if c.message != nil {
			rt, err := c.message.jp.Check(out(c.message))
			problems := errjoin.Split(err)
			if err == nil && !messageType(rt) {
				problems = append(problems, fmt.Errorf("a message must resolve to a string or an array of "+
					"strings, but the expression gives %s", jmespath.Describe(rt)))
			}
			for _, err := range problems {
				errs = append(errs, &AcceptorError{Index: i, Rule: "message", Err: fmt.Errorf("%s: %w", c.Message, err)})
			}
		}
	}
	return errs
}

// messageType reports whether a message's result type t can be a
// message: a string, an array of strings, null, or unknown.
func messageType(t jmespath.Type) bool {
	k, ok := t.Kind()
	switch {
	case !ok, k == jmespath.String, k == jmespath.Null:
		return true
	case k != jmespath.Array:
		return false
	}
	ek, ok := t.Elem().Kind()
	return !ok || ek == jmespath.String || ek == jmespath.Null
}

// ioType is the object an inputOutput matcher reads: input and output.
type ioType struct{ input, output jmespath.Type }

func (ioType) Kind() (jmespath.Kind, bool) { return jmespath.Object, true }
func (ioType) Elem() jmespath.Type         { return nil }
func (ioType) Members() []string           { return []string{"input", "output"} }
func (ioType) String() string              { return "{input, output}" }

func (t ioType) Member(name string) (jmespath.Type, bool) {
	switch name {
	case "input":
		return t.input, true
	case "output":
		return t.output, true
	}
	return nil, false
}

// checkComparator reports a comparator that can never match a result of
// type t.
func checkComparator(t jmespath.Type, c Comparator) error {
	k, ok := t.Kind()
	if !ok {
		return nil
	}
	switch c {
	case StringEquals:
		if k != jmespath.String {
			return fmt.Errorf("%s needs a string, but the path gives %s", c, jmespath.Describe(t))
		}
	case BooleanEquals:
		if k != jmespath.Boolean {
			return fmt.Errorf("%s needs a boolean, but the path gives %s", c, jmespath.Describe(t))
		}
	case AllStringEquals, AnyStringEquals:
		if k != jmespath.Array {
			return fmt.Errorf("%s needs an array of strings, but the path gives %s", c, jmespath.Describe(t))
		}
		if el := t.Elem(); el != nil {
			if ek, ok := el.Kind(); ok && ek != jmespath.String {
				return fmt.Errorf("%s needs an array of strings, but the path gives %s", c, jmespath.Describe(t))
			}
		}
	}
	return nil
}
