package classify

import (
	"encoding/json"
	"fmt"
)

// State is the state an acceptor moves a waiter to. The zero value is not a
// state: definitions that leave it unset fail validation.
type State uint8

// The acceptor states of the Smithy waiters specification.
const (
	_       State = iota
	Success       // the waiter finished: the resource is in the desired state
	Failure       // the waiter failed: the resource will never get there
	Retry         // poll again after a delay
)

var stateNames = [...]string{Success: "success", Failure: "failure", Retry: "retry"}

// String returns the state's name in the specification ("success",
// "failure", "retry"), or "State(n)" for an invalid value.
func (s State) String() string {
	if s >= Success && s <= Retry {
		return stateNames[s]
	}
	return fmt.Sprintf("State(%d)", uint8(s))
}

// Terminal reports whether the state ends a waiter: Success or Failure.
func (s State) Terminal() bool { return s == Success || s == Failure }

// MarshalText implements encoding.TextMarshaler.
func (s State) MarshalText() ([]byte, error) {
	if s < Success || s > Retry {
		return nil, fmt.Errorf("classify: cannot marshal invalid %v", s)
	}
	return []byte(s.String()), nil
}

// UnmarshalText implements encoding.TextUnmarshaler: it reads a state's
// name in the specification ("success", "failure", "retry").
func (s *State) UnmarshalText(b []byte) error {
	for st := Success; st <= Retry; st++ {
		if stateNames[st] == string(b) {
			*s = st
			return nil
		}
	}
	return fmt.Errorf("classify: unknown acceptor state %q (want success, failure or retry)", b)
}

// Comparator compares the result of a JMESPath expression with an expected
// value (the specification's PathComparator).
type Comparator string

// The comparators of the Smithy waiters specification.
const (
	// StringEquals matches a string equal to the expected string.
	StringEquals Comparator = "stringEquals"
	// BooleanEquals matches a boolean equal to the expected "true" or "false".
	BooleanEquals Comparator = "booleanEquals"
	// AllStringEquals matches a non-empty array whose every element is a
	// string equal to the expected string.
	AllStringEquals Comparator = "allStringEquals"
	// AnyStringEquals matches an array with at least one string equal to
	// the expected string.
	AnyStringEquals Comparator = "anyStringEquals"
)

// valid reports whether c is one of the four comparators.
func (c Comparator) valid() bool {
	switch c {
	case StringEquals, BooleanEquals, AllStringEquals, AnyStringEquals:
		return true
	}
	return false
}

// PathMatcher tests the result of a JMESPath expression (the
// specification's PathMatcher structure).
type PathMatcher struct {
	Path       string     `json:"path"`
	Expected   string     `json:"expected"`
	Comparator Comparator `json:"comparator"`
}

// Matcher decides whether an acceptor applies to one attempt's outcome. It
// is the specification's union: exactly one member must be set.
type Matcher struct {
	// Output matches the operation's output; checked only on success.
	Output *PathMatcher `json:"output,omitempty"`
	// InputOutput matches {"input": ..., "output": ...}; checked only on
	// success.
	InputOutput *PathMatcher `json:"inputOutput,omitempty"`
	// Success true matches any successful call, false any error.
	Success *bool `json:"success,omitempty"`
	// ErrorType matches an error by name; see [ErrorMatches].
	ErrorType string `json:"errorType,omitempty"`
	// HTTPStatus is not part of the Smithy union: it is botocore's
	// "status" matcher, which matches the HTTP status of the response:
	// the HTTPStatusCode() int of the first error on the call's error
	// chain that gives one that is not 0 (a [*CallError]'s StatusCode
	// among them), or of the output if it has one; otherwise 200
	// for a call that succeeded and 0 (unknown) for one that failed. It
	// has no JSON form in Smithy models.
	HTTPStatus int `json:"-"`
}

// members returns the names of the union members that are set.
func (m Matcher) members() []string {
	var set []string
	if m.Output != nil {
		set = append(set, "output")
	}
	if m.InputOutput != nil {
		set = append(set, "inputOutput")
	}
	if m.Success != nil {
		set = append(set, "success")
	}
	if m.ErrorType != "" {
		set = append(set, "errorType")
	}
	if m.HTTPStatus != 0 {
		set = append(set, "status")
	}
	return set
}

// String describes the matcher briefly, as in error messages and events:
// `output: Table.TableStatus stringEquals "ACTIVE"`, `errorType: NotFound`.
func (m Matcher) String() string {
	switch {
	case m.Output != nil:
		return fmt.Sprintf("output: %s %s %q", m.Output.Path, m.Output.Comparator, m.Output.Expected)
	case m.InputOutput != nil:
		return fmt.Sprintf("inputOutput: %s %s %q", m.InputOutput.Path, m.InputOutput.Comparator, m.InputOutput.Expected)
	case m.Success != nil:
		return fmt.Sprintf("success: %t", *m.Success)
	case m.ErrorType != "":
		return "errorType: " + m.ErrorType
	case m.HTTPStatus != 0:
		return fmt.Sprintf("status: %d", m.HTTPStatus)
	}
	return "no matcher"
}

// Acceptor is one rule of a waiter: when its Matcher matches an attempt's
// outcome, the waiter moves to State.
type Acceptor struct {
	State   State   `json:"state"`
	Matcher Matcher `json:"matcher"`
	// Message is an optional JMESPath expression that extracts a
	// human-readable message from the operation's output
	// (smithy-lang/smithy#3151). It is allowed on failure acceptors only,
	// is checked against the output's type (or a model's output shape),
	// and must resolve to a string or an array of strings, whose items the
	// message joins with ", ". When the call failed (an errorType failure
	// acceptor), there is no output and so no message.
	Message string `json:"message,omitempty"`
}

// OnOutput returns a Matcher on the operation's output.
func OnOutput(path string, c Comparator, expected string) Matcher {
	return Matcher{Output: &PathMatcher{Path: path, Comparator: c, Expected: expected}}
}

// OnInputOutput returns a Matcher on {"input": ..., "output": ...}.
func OnInputOutput(path string, c Comparator, expected string) Matcher {
	return Matcher{InputOutput: &PathMatcher{Path: path, Comparator: c, Expected: expected}}
}

// OnSuccess returns a Matcher that matches a successful call (ok true) or
// any error (ok false).
func OnSuccess(ok bool) Matcher { return Matcher{Success: &ok} }

// OnHTTPStatus returns a Matcher on the response's HTTP status (botocore's
// status matcher; see [Matcher.HTTPStatus]).
func OnHTTPStatus(code int) Matcher { return Matcher{HTTPStatus: code} }

// OnErrorType returns a Matcher on errors named name (see [ErrorMatches]).
func OnErrorType(name string) Matcher { return Matcher{ErrorType: name} }

// UnmarshalJSON decodes a matcher and rejects members this package does not
// know, so that a typo in a model is an error rather than a matcher that
// never matches.
func (m *Matcher) UnmarshalJSON(b []byte) error {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil {
		return fmt.Errorf("matcher: %w", err)
	}
	type plain Matcher
	var p plain
	for k := range raw {
		switch k {
		case "output", "inputOutput", "success", "errorType":
		default:
			return fmt.Errorf("matcher: unknown member %q (want output, inputOutput, success or errorType)", k)
		}
	}
	if err := json.Unmarshal(b, &p); err != nil {
		return fmt.Errorf("matcher: %w", err)
	}
	if v, ok := raw["errorType"]; ok && p.ErrorType == "" {
		return fmt.Errorf("matcher: errorType is empty (%s)", v)
	}
	*m = Matcher(p)
	return nil
}
