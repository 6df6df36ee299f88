package classify

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/waitable/waitable/jmespath"
)

// ErrExpression is matched by errors.Is for every error about a JMESPath
// expression: one that does not parse, and one that fails while it is
// evaluated. The error's message names the expression and the problem, and
// errors.As reaches the problem (a [*jmespath.SyntaxError], say) through it.
var ErrExpression = errors.New("classify: bad JMESPath expression")

// exprError is a JMESPath expression that failed to compile or to evaluate.
// It matches [ErrExpression] and unwraps to the problem; callers need no
// more than that, so the type stays unexported.
type exprError struct {
	expr string // the expression
	err  error  // what went wrong
}

func (e *exprError) Error() string {
	return fmt.Sprintf("classify: JMESPath expression %q: %v", e.expr, e.err)
}

func (e *exprError) Is(target error) bool { return target == ErrExpression }

func (e *exprError) Unwrap() error { return e.err }

// Expr is a compiled JMESPath expression that reads Go values in place
// through the Smithy JMESPath data model, with the engine of package
// [jmespath]: one evaluator for every expression. An Expr is safe for
// concurrent use.
type Expr struct {
	src string
	jp  *jmespath.Expr
}

// CompileExpr compiles a JMESPath expression with package jmespath's
// options: [jmespath.WithMemberNames] keys struct fields by a model's
// member names (see the package documentation). It fails with an error
// matching [ErrExpression] for one that does not parse, nests deeper than
// package [jmespath] allows, or calls an unknown function.
func CompileExpr(src string, opts ...jmespath.Option) (*Expr, error) {
	jp, err := jmespath.Compile(src, opts...)
	if err != nil {
		return nil, &exprError{expr: src, err: err}
	}
	return &Expr{src: src, jp: jp}, nil
}

// String returns the expression's source.
func (e *Expr) String() string { return e.src }

// Search evaluates the expression on v (any Go value, read through the data
// model) and returns the result in encoding/json's terms: nil, bool,
// float64, string, []any or map[string]any.
func (e *Expr) Search(v any) (any, error) {
	res, err := e.jp.Search(v)
	if err != nil {
		return nil, &exprError{expr: e.src, err: err}
	}
	return res, nil
}

// messageOf renders a message expression's result: a string as is, an
// array of strings joined with ", ", null as no message, and anything
// else as JSON.
func messageOf(res any) string {
	switch r := res.(type) {
	case nil:
		return ""
	case string:
		return r
	case []any:
		parts := make([]string, 0, len(r))
		for _, v := range r {
			switch v := v.(type) {
			case nil:
			case string:
				parts = append(parts, v)
			default:
				return jsonText(res)
			}
		}
		return strings.Join(parts, ", ")
	}
	return jsonText(res)
}

// jsonText is a result the type check could not see (read through an
// interface) as JSON.
func jsonText(res any) string {
	b, err := json.Marshal(res)
	if err != nil {
		return fmt.Sprint(res)
	}
	return string(b)
}
