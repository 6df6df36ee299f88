package kubewait

import (
	"fmt"
	"slices"
	"strings"

	"github.com/waitable/waitable/classify"
)

// A Rule is one test of an object, in the vocabulary of `kubectl wait
// --for`: a condition, a JSONPath value, the object's creation or its
// deletion, kstatus's verdict, or a rollout. A wait succeeds on its For
// rules and fails on any of its FailOn rules. Created and Deleted are
// Smithy acceptors over the object; the others are Go matchers, as
// kubectl's and kstatus's own code judges them. Events and errors name a
// rule as kubectl writes it ([Rule.String]).
//
// The zero Rule is no rule: a wait rejects it. Build rules with
// [Condition], [JSONPath], [JSONPathExists], [Created], [Deleted],
// [Current], [Failed], [Rollout] or [ParseRule].
type Rule struct {
	text string // as kubectl writes it
	is   rule   // nil: the zero Rule
	err  error
	// accs are the rule's Smithy acceptors of success, and set those
	// compiled once with the rule (nil for a Go matcher).
	accs []classify.Acceptor
	set  *classify.Set[Ref, Object]
}

// rule is what one kind of Rule tests, each in a file named after it:
// kubectl wait's condition, jsonpath, create and delete, kstatus's
// verdict, and the rollout. Create and delete are acceptors (Rule.accs);
// the others are Go matchers.
type rule interface {
	// name names a waiter of this rule alone, in the Smithy
	// specification's UpperCamelCase.
	name() string
}

// A matcher is a rule that is a Go matcher.
type matcher interface {
	rule
	// matches reports whether the rule holds of obj, which exists; an
	// error says that obj cannot meet the rule (kubectl's "given
	// jsonpath expression matches more than one value").
	matches(obj Object) (bool, error)
	// describe returns what the rule reads of obj, which exists, for an
	// object's outcome and events.
	describe(obj Object) (reason, message string)
}

// String returns the rule as `kubectl wait --for` writes it
// ("condition=Ready", "jsonpath={.status.phase}=Running", "create",
// "delete"), or kstatus=Current, kstatus=Failed and rollout.
func (r Rule) String() string { return r.text }

// ParseRule reads a rule as `kubectl wait --for` writes it:
// condition=Type, condition=Type=Status, jsonpath=EXPR, jsonpath=EXPR=VALUE,
// create or delete; and kstatus=Current, kstatus=Failed or rollout
// ([Rollout] with its defaults). It reads them as kubectl does: create
// and delete in any case; a JSONPath rule split at its single '=' signs,
// never at '==' (so jsonpath=.a[?(@.b=="c")].d=e needs no braces), and
// its value stripped of the quotes around it (jsonpath={.status.phase}="Done"
// waits for Done).
func ParseRule(s string) (Rule, error) {
	switch strings.ToLower(s) {
	case "create":
		return Created(), nil
	case "delete":
		return Deleted(), nil
	case "rollout":
		return Rollout(RolloutOptions{}), nil
	}
	key, arg, hasArg := strings.Cut(s, "=")
	var r Rule
	switch {
	case key == "condition" && hasArg:
		t, st, _ := strings.Cut(arg, "=")
		r = Condition(t, st)
		r.text = s
	case key == "jsonpath" && hasArg:
		parts := splitJSONPath(arg)
		switch {
		case len(parts) > 2:
			return Rule{}, fmt.Errorf("kubewait: rule %q: want jsonpath=EXPR or jsonpath=EXPR=VALUE "+
				"(a single = ends the expression, == stays in it)", s)
		case len(parts) == 1:
			r = JSONPathExists(parts[0])
		default:
			value := strings.Trim(parts[1], `'"`)
			r = JSONPath(parts[0], value)
			if value == "" {
				r.err = fmt.Errorf("%q: the value after = is empty (leave out =VALUE to wait for the path to exist)", s)
			}
		}
	case s == "kstatus=Current":
		return Current(), nil
	case s == "kstatus=Failed":
		return Failed(), nil
	default:
		return Rule{}, fmt.Errorf("kubewait: rule %q: want condition=TYPE[=STATUS], jsonpath=EXPR[=VALUE], "+
			"create, delete, kstatus=Current, kstatus=Failed or rollout", s)
	}
	if r.err != nil {
		return Rule{}, fmt.Errorf("kubewait: %w", r.err)
	}
	return r, nil
}

// splitJSONPath splits kubectl's EXPR[=VALUE] as kubectl does: at every
// single '='; a '==' stays in the part it is in.
func splitJSONPath(arg string) []string {
	var parts []string
	var b strings.Builder
	for i := 0; i < len(arg); i++ {
		switch {
		case arg[i] == '=' && i+1 < len(arg) && arg[i+1] == '=':
			b.WriteString("==")
			i++
		case arg[i] == '=':
			parts = append(parts, b.String())
			b.Reset()
		default:
			b.WriteByte(arg[i])
		}
	}
	return append(parts, b.String())
}

// compiled returns r with its acceptors compiled.
func (r Rule) compiled() Rule {
	r.set, r.err = classify.Compile[Ref, Object](r.accs)
	return r
}

// acceptors returns the rule as Smithy acceptors over the object, ending
// a wait in state, for a waiter whose output is the object and whose
// input is its [Ref]; nil for a Go matcher.
func (r Rule) acceptors(state classify.State) []classify.Acceptor {
	accs := slices.Clone(r.accs)
	for i := range accs {
		accs[i].State = state
	}
	return accs
}

// Matches reports whether the rule holds for obj (nil: the object does
// not exist), as the wait judges it: by its acceptors, or as kubectl and
// kstatus judge it. An object that cannot meet the rule (a JSONPath that
// gives several values) does not match.
func (r Rule) Matches(obj map[string]any) bool { return r.holds(Ref{}, obj, nil) }

// holds reports whether the rule holds for one answer: the object ref as
// obj, or the error err (obj and err nil: the object does not exist).
func (r Rule) holds(ref Ref, obj Object, err error) bool {
	switch {
	case r.is == nil || r.err != nil:
		return false
	case r.set != nil:
		if obj == nil && err == nil {
			err = notFoundError(ref)
		}
		return r.set.Match(ref, obj, err).State == classify.Success
	case obj == nil || err != nil:
		return false
	}
	ok, merr := r.is.(matcher).matches(obj)
	return ok && merr == nil
}

// fault returns why obj, which exists, cannot meet the rule (nil if it
// can, or for an object that does not exist).
func (r Rule) fault(obj Object) error {
	if r.is == nil || r.set != nil || obj == nil {
		return nil
	}
	_, err := r.is.(matcher).matches(obj)
	return err
}

// describe returns what the rule reads of obj, for an object's outcome and
// events: a condition's reason and message, a JSONPath's value, kstatus's
// status and message; NotFound for an object that does not exist.
func (r Rule) describe(obj Object) (reason, message string) {
	m, ok := r.is.(matcher)
	switch {
	case obj == nil:
		return "NotFound", ""
	case !ok:
		return "", "" // the zero Rule, or acceptors: they read nothing
	}
	return m.describe(obj)
}

// rollout returns the options of a Rollout rule, and whether r is one.
func (r Rule) rollout() (RolloutOptions, bool) {
	ro, ok := r.is.(rolloutRule)
	return ro.opts, ok
}

// isDeleted reports whether r is kubectl's --for=delete.
func (r Rule) isDeleted() bool { return r.is == deletedRule{} }
