package waiter

import (
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"strings"
	"time"

	"github.com/waitable/waitable/backoff"
	"github.com/waitable/waitable/classify"
	"github.com/waitable/waitable/jmespath"
)

// Definition is one waiter as a model defines it: the rules (acceptors)
// and the delays between polls, plus where it comes from. Load definitions
// from model files with package [github.com/waitable/waitable/waiter/model],
// or write them as Go literals; [Definition.Validate] checks them either
// way.
type Definition struct {
	// Name is the waiter's name, UpperCamelCase (e.g. "InstanceRunning").
	Name string
	// Documentation describes the waiter (CommonMark in Smithy models).
	Documentation string
	// Acceptors are tried in order on each attempt; the first that
	// matches decides.
	Acceptors []classify.Acceptor
	// MinDelay and MaxDelay bound the delay between polls. Zero means the
	// specification's defaults, 2s and 120s.
	MinDelay, MaxDelay time.Duration
	// MaxPolls limits the number of polls (calls of the operation) of a
	// wait; 0 means no limit other than the caller's wait time. Smithy
	// waiters have none; botocore's do (its maxAttempts). WithMaxPolls
	// overrides it.
	MaxPolls int
	// Deprecated marks a waiter that should no longer be used.
	Deprecated bool
	// Tags categorise the waiter.
	Tags []string
	// Operation is the operation the waiter polls.
	Operation Operation
}

// Operation describes the operation a waiter polls, as the model names it.
type Operation struct {
	// ID is the operation's shape ID ("com.amazonaws.acm#DescribeCertificate")
	// or, from botocore, its name ("DescribeCertificate").
	ID string
	// Service is the shape ID or name of the service the operation is in.
	Service string
	// Input and Output are shape IDs; empty when the operation has none.
	Input, Output string
	// Errors are the shape IDs of the operation's modelled errors. Nil
	// means unknown (a Go literal, botocore without its service model); an
	// empty non-nil slice means the model lists none.
	Errors []string
	// Model gives the member names of the operation's input and output
	// (see [Model]): package model's LoadSmithy and LoadBotocoreService
	// set it from the model, package awswait for aws-sdk-go-v2's types.
	// Nil (a Go literal, model.ParseWaitable, model.LoadBotocore) means
	// none: expressions key struct fields by package jmespath's Go rule
	// (jmespath or json tags, else Go names).
	Model Model
}

// Model is what a model says of the members of an operation's input and
// output: the names their Go types' fields stand for. A [Definition]
// carries its model in Operation.Model; [New] compiles every expression
// with the names it gives for the Waiter's I and O. Package model's
// LoadSmithy and LoadBotocoreService give definitions a *model.Shapes;
// package awswait gives its own for aws-sdk-go-v2's types.
type Model interface {
	// MemberNames returns the member names of the Go types input and
	// output and of the types they reach, for package jmespath (nil:
	// none), or an error naming what in the types does not fit the
	// model.
	MemberNames(input, output reflect.Type) (jmespath.MemberNames, error)
}

// Schedule returns the waiter's delay schedule with its defaults applied.
func (d Definition) Schedule() backoff.WaiterSchedule {
	s := backoff.WaiterSchedule{MinDelay: d.MinDelay, MaxDelay: d.MaxDelay}
	if s.MinDelay == 0 {
		s.MinDelay = backoff.DefaultMinDelay
	}
	if s.MaxDelay == 0 {
		s.MaxDelay = backoff.DefaultMaxDelay
	}
	return s
}

// ErrInvalidDefinition is matched by errors.Is for every
// [*DefinitionError].
var ErrInvalidDefinition = errors.New("waiter: invalid definition")

// DefinitionError is one problem with one waiter definition: which waiter,
// which acceptor (-1 when the problem is not an acceptor's), which rule.
type DefinitionError struct {
	Waiter   string // the waiter's name
	Acceptor int    // the acceptor's index, or -1
	Rule     string // "name", "acceptors", "minDelay", "maxDelay", "state", "matcher", ...
	Err      error  // what is wrong
}

// Error returns "waiter <name>: acceptor <i>: <rule>: <problem>".
func (e *DefinitionError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "waiter %s", e.Waiter)
	if e.Waiter == "" {
		b.Reset()
		b.WriteString("waiter (no name)")
	}
	if e.Acceptor >= 0 {
		fmt.Fprintf(&b, ": acceptor %d", e.Acceptor)
	}
	fmt.Fprintf(&b, ": %s: %v", e.Rule, e.Err)
	return b.String()
}

// Is matches [ErrInvalidDefinition].
func (e *DefinitionError) Is(target error) bool { return target == ErrInvalidDefinition }

// Unwrap returns the underlying error.
func (e *DefinitionError) Unwrap() error { return e.Err }

// waiterName is the specification's ABNF: upper-alpha *(ALPHA / DIGIT).
var waiterName = regexp.MustCompile(`^[A-Z][A-Za-z0-9]*$`)

// Validate checks the definition against every rule of the Smithy waiters
// specification and returns all problems at once (joined), each a
// [*DefinitionError] naming the waiter, the acceptor and the rule: the
// name's ABNF, at least one success acceptor, a known state and exactly one
// matcher per acceptor, known comparators, "true"/"false" for booleanEquals,
// JMESPath that compiles, messages on failure acceptors only, and
// 1s <= MinDelay <= MaxDelay (defaults applied), with no negative
// MaxPolls. The one-second minimum is the specification's rule for
// waiters defined in models; for faster polling from Go, keep the
// definition's delays and pass WithDelays to [New], or build the waiter
// with [NewFunc].
func (d Definition) Validate() error {
	return errors.Join(d.problems(false)...)
}

// problems lists what breaks the specification's rules; successElsewhere
// reports a success acceptor given in Go (WithMatch), which
// New counts as the required one.
func (d Definition) problems(successElsewhere bool) []error {
	var errs []error
	bad := func(rule, format string, args ...any) {
		errs = append(
			errs,
			&DefinitionError{
				Waiter:   d.Name,
				Acceptor: -1,
				Rule:     rule,
				Err:      fmt.Errorf(format, args...),
			},
		)
	}
	if !waiterName.MatchString(d.Name) {
		bad("name", "%q is not UpperCamelCase letters and digits (^[A-Z][A-Za-z0-9]*$)", d.Name)
	}
	switch {
	case successElsewhere:
	case len(d.Acceptors) == 0:
		bad(
			"acceptors",
			"there are none: at least one success acceptor is required (in the definition, or given to New with WithMatch)",
		)
	case !hasSuccess(d.Acceptors):
		bad(
			"acceptors",
			"none has state success: at least one is required (in the definition, or given to New with WithMatch)",
		)
	}
	s := d.Schedule()
	switch {
	case d.MinDelay < 0:
		bad("minDelay", "%v is negative", d.MinDelay)
	case s.MinDelay < time.Second:
		bad(
			"minDelay",
			"%v is less than 1s, the Smithy specification's minimum for waiters in models (for faster polling from Go, pass waiter.WithDelays to New, or use NewFunc)",
			s.MinDelay,
		)
	}
	switch {
	case d.MaxDelay < 0:
		bad("maxDelay", "%v is negative", d.MaxDelay)
	case s.MaxDelay < time.Second:
		bad(
			"maxDelay",
			"%v is less than 1s, the Smithy specification's minimum for waiters in models (for faster polling from Go, pass waiter.WithDelays to New, or use NewFunc)",
			s.MaxDelay,
		)
	case s.MinDelay > s.MaxDelay:
		bad("maxDelay", "%v is less than minDelay %v", s.MaxDelay, s.MinDelay)
	}
	if d.MaxPolls < 0 {
		bad("maxPolls", "%d is negative", d.MaxPolls)
	}
	for _, err := range classify.Validate(d.Acceptors) {
		var ae *classify.AcceptorError
		if errors.As(err, &ae) {
			errs = append(
				errs,
				&DefinitionError{Waiter: d.Name, Acceptor: ae.Index, Rule: ae.Rule, Err: ae.Err},
			)
		} else {
			errs = append(errs, &DefinitionError{Waiter: d.Name, Acceptor: -1, Rule: "acceptors", Err: err})
		}
	}
	return errs
}

func hasSuccess(acceptors []classify.Acceptor) bool {
	for _, a := range acceptors {
		if a.State == classify.Success {
			return true
		}
	}
	return false
}

// shapeName returns the name part of a shape ID (after '#').
func shapeName(id string) string {
	if i := strings.LastIndexByte(id, '#'); i >= 0 {
		return id[i+1:]
	}
	return id
}
