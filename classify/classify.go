package classify

import (
	"errors"
	"fmt"
	"reflect"
	"strings"

	"github.com/waitable/waitable/jmespath"
)

// ErrInvalidAcceptor is matched by errors.Is for every [AcceptorError].
var ErrInvalidAcceptor = errors.New("classify: invalid acceptor")

// AcceptorError is one problem with one acceptor: which acceptor (its index
// in the list), which rule it breaks, and how.
type AcceptorError struct {
	Index int    // the acceptor's index, from 0
	Rule  string // the rule: "state", "matcher", "comparator", "expected", "path", "message"
	Err   error  // what is wrong
}

// Error returns "acceptor <i>: <rule>: <problem>".
func (e *AcceptorError) Error() string {
	return fmt.Sprintf("acceptor %d: %s: %v", e.Index, e.Rule, e.Err)
}

// Is matches [ErrInvalidAcceptor].
func (e *AcceptorError) Is(target error) bool { return target == ErrInvalidAcceptor }

// Unwrap returns the underlying error.
func (e *AcceptorError) Unwrap() error { return e.Err }

// Validate checks acceptors against the specification's rules and returns
// every problem it finds, each an [*AcceptorError]: a known state, exactly
// one matcher member, a known comparator, "true" or "false" as the expected
// value of booleanEquals, JMESPath that compiles (without panicking), and a
// message on failure acceptors only. It does not require a success
// acceptor: that is a rule of a whole waiter, checked by the waiter package.
func Validate(acceptors []Acceptor) []error {
	_, errs := compileAll(acceptors, nil)
	return errs
}

// Set is a compiled, ordered list of acceptors for an operation whose input
// is I and output is O: what one attempt's outcome means. Every JMESPath
// expression is compiled once, by [Compile]. A path that several
// acceptors read (EC2's InstanceRunning has four on
// Reservations[].Instances[].State.Name) is evaluated once per
// [Set.Match], and its elements compared for all of them in one pass. A
// Set is safe for concurrent use.
type Set[I, O any] struct {
	acceptors []compiled
}

type compiled struct {
	Acceptor
	path    *PathMatcher
	expr    *Expr      // output or inputOutput path
	group   *pathGroup // this path acceptor and its later peers
	message *Expr
}

// ioDoc is the document an inputOutput matcher reads.
type ioDoc[I, O any] struct {
	Input  I `jmespath:"input"`
	Output O `jmespath:"output"`
}

// Option configures [Compile].
type Option func(*options)

type options struct {
	names jmespath.MemberNames
}

// WithMemberNames compiles every expression with a model's member names
// for the Go types I and O (and those they reach): the keys struct fields
// are listed and found under (see package jmespath's key rule). Nil means
// none: the Go rule (tags, else Go names). The waiter package passes a
// definition's model's names (waiter.Model).
func WithMemberNames(names jmespath.MemberNames) Option {
	return func(o *options) { o.names = names }
}

// Compile validates acceptors, compiles their expressions (with opts'
// member names, if any), and checks their paths and messages against the
// Go types I and O (see [Expr.Check]): an output path and a message on O,
// an inputOutput path on an object of the members input (I) and output
// (O), by the names the expressions run with; a message must resolve to
// a string or an array of strings. It returns every problem at once,
// joined. What is read through an interface type (such as any) is not
// checked.
func Compile[I, O any](acceptors []Acceptor, opts ...Option) (*Set[I, O], error) {
	var o options
	for i, opt := range opts {
		if opt == nil {
			return nil, fmt.Errorf("classify: Compile: option %d of %d is nil", i+1, len(opts))
		}
		opt(&o)
	}
	io := reflect.TypeFor[ioDoc[I, O]]()
	if names := o.names; names != nil {
		// The {input, output} document is this package's: its keys are its
		// tags, whatever a model says.
		o.names = func(t reflect.Type, f reflect.StructField) string {
			if t == io {
				return ""
			}
			return names(t, f)
		}
	}
	cs, errs := compileAll(acceptors, o.names)
	groupPaths(cs)
	in, out := reflect.TypeFor[I](), reflect.TypeFor[O]()
	errs = append(errs, checkAll(cs,
		// Checked as {input, output} of the user's types, so that an error
		// names those types, not this package's document.
		func(e *Expr) jmespath.Type { return ioType{input: e.jp.GoType(in), output: e.jp.GoType(out)} },
		func(e *Expr) jmespath.Type { return e.jp.GoType(out) })...)
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return &Set[I, O]{acceptors: cs}, nil
}

// compileAll validates and compiles acceptors, their expressions with
// names (nil: none).
func compileAll(acceptors []Acceptor, names jmespath.MemberNames) ([]compiled, []error) {
	var jopts []jmespath.Option
	if names != nil {
		jopts = append(jopts, jmespath.WithMemberNames(names))
	}
	var errs []error
	bad := func(i int, rule string, format string, args ...any) {
		errs = append(errs, &AcceptorError{Index: i, Rule: rule, Err: fmt.Errorf(format, args...)})
	}
	out := make([]compiled, len(acceptors))
	for i, a := range acceptors {
		c := compiled{Acceptor: a}
		if a.State < Success || a.State > Retry {
			bad(i, "state", "%v is not success, failure or retry", a.State)
		}
		switch m := a.Matcher.members(); len(m) {
		case 1:
		case 0:
			bad(i, "matcher", "no member set: exactly one of output, inputOutput, success, errorType is required")
		default:
			bad(i, "matcher", "%s are all set: exactly one member is allowed", strings.Join(m, ", "))
		}
		if st := a.Matcher.HTTPStatus; st != 0 && (st < 100 || st > 599) {
			bad(i, "matcher", "HTTP status %d is not between 100 and 599", st)
		}
		c.path = a.Matcher.Output
		if c.path == nil {
			c.path = a.Matcher.InputOutput
		}
		if p := c.path; p != nil {
			switch {
			case !p.Comparator.valid():
				bad(i, "comparator", "%q is not stringEquals, booleanEquals, allStringEquals or anyStringEquals", p.Comparator)
			case p.Comparator == BooleanEquals && p.Expected != "true" && p.Expected != "false":
				bad(i, "expected", "booleanEquals expects \"true\" or \"false\", not %q", p.Expected)
			}
			if p.Path == "" {
				bad(i, "path", "the path is empty")
			} else if e, err := CompileExpr(p.Path, jopts...); err != nil {
				errs = append(errs, &AcceptorError{Index: i, Rule: "path", Err: err})
			} else {
				c.expr = e
			}
		}
		if a.Message != "" {
			if a.State != Failure {
				bad(i, "message", "a message is allowed on failure acceptors only, not on %v", a.State)
			} else if e, err := CompileExpr(a.Message, jopts...); err != nil {
				errs = append(errs, &AcceptorError{Index: i, Rule: "message", Err: err})
			} else {
				c.message = e
			}
		}
		out[i] = c
	}
	return out, errs
}

// Acceptors returns the acceptors as they were given to [Compile], in
// order. It returns a copy, down to the matchers' pointers, which the
// caller may change without changing the Set.
func (s *Set[I, O]) Acceptors() []Acceptor {
	out := make([]Acceptor, len(s.acceptors))
	for i, c := range s.acceptors {
		a := c.Acceptor
		a.Matcher.Output = clone(a.Matcher.Output)
		a.Matcher.InputOutput = clone(a.Matcher.InputOutput)
		a.Matcher.Success = clone(a.Matcher.Success)
		out[i] = a
	}
	return out
}

// clone returns a pointer to a copy of *p, or nil.
func clone[T any](p *T) *T {
	if p == nil {
		return nil
	}
	v := *p
	return &v
}

// Match is what the acceptors made of one attempt.
type Match struct {
	// Index is the index of the first acceptor that matched, or -1.
	Index int
	// State is the matched acceptor's state. With no match it is the
	// specification's implicit one: Failure when the call returned an
	// error (step 4 of the waiter workflow), Retry otherwise (step 5).
	State State
	// Message is the matched failure acceptor's message, if it has one.
	Message string
	// Err joins the errors of expressions that failed to evaluate (each
	// matching [ErrExpression]); such an acceptor does not match. Nil normally.
	Err error
}

// Match tries the acceptors in order on one attempt (the operation's input,
// and its output or error) and returns the first that matches. Output and
// inputOutput matchers are tried only when err is nil; success matchers
// always; errorType matchers only when err is not nil.
func (s *Set[I, O]) Match(in I, out O, err error) Match {
	r := Match{Index: -1, State: Retry}
	if err != nil {
		r.State = Failure
	}
	var evalErrs []error
	var doc, io any // out, and {input, output}, boxed once each
	var j judged    // what passes over shared paths found
	for i := range s.acceptors {
		c := &s.acceptors[i]
		var ok, known bool
		var e error
		switch m := &c.Matcher; {
		case m.Success != nil:
			ok = *m.Success == (err == nil)
		case m.ErrorType != "":
			ok = ErrorMatches(err, m.ErrorType)
		case m.HTTPStatus != 0:
			ok = statusOf(out, err) == m.HTTPStatus
		case err != nil:
			continue
		default: // a path: Output or InputOutput
			if ok, known = j.lookup(i); known {
				break
			}
			d := doc
			if m.Output != nil && doc == nil {
				doc = out
				d = doc
			} else if m.Output == nil {
				if io == nil {
					io = &ioDoc[I, O]{Input: in, Output: out}
				}
				d = io
			}
			res, evalErr := c.expr.jp.Eval(d)
			if evalErr != nil {
				e = &exprError{expr: c.expr.src, err: evalErr}
				break
			}
			known, hit := c.group.compare(&res)
			ok = j.record(c.group, known, hit)
		}
		if e != nil {
			evalErrs = append(evalErrs, e)
		}
		if ok {
			r.Index, r.State = i, c.State
			if c.message != nil && err == nil { // a failed call has no output: no message
				msg, e := message(c, out)
				r.Message = msg
				if e != nil {
					evalErrs = append(evalErrs, e)
				}
			}
			break
		}
	}
	if len(evalErrs) > 0 {
		r.Err = errors.Join(evalErrs...)
	}
	return r
}

// message evaluates a failure acceptor's message on the output.
func message[O any](c *compiled, out O) (string, error) {
	res, e := c.message.Search(out)
	return messageOf(res), e
}

// statusOf returns the HTTP status of an attempt's response, as
// [Matcher.HTTPStatus] says.
func statusOf(out any, err error) int {
	if err != nil {
		code := 0
		walkErrors(err, func(e error) bool {
			if s, ok := e.(statusError); ok {
				code = s.HTTPStatusCode()
			}
			return code != 0 // an error that says 0 knows no status: look further
		})
		return code
	}
	if s, ok := out.(statusError); ok {
		return s.HTTPStatusCode()
	}
	return 200
}
