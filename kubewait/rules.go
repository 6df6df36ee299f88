package kubewait

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/cli-utils/pkg/kstatus/status"

	"github.com/waitable/waitable/classify"
	"github.com/waitable/waitable/jmespath"
	"github.com/waitable/waitable/waiter"
)

// A Rule is one test of an object, in the vocabulary of `kubectl wait
// --for`: a condition, a JSONPath value, the object's creation or its
// deletion, or kstatus's verdict. A wait succeeds on its For rule and
// fails on any of its FailOn rules. Every rule but kstatus's is a Smithy
// acceptor in JMESPath over the object (see [Rule.Acceptors]); events and
// errors name a rule as kubectl writes it ([Rule.String]).
//
// The zero Rule is no rule: a wait rejects it. Build rules with
// [Condition], [JSONPath], [JSONPathExists], [Created], [Deleted],
// [Current], [Failed] or [ParseRule].
type Rule struct {
	text       string // as kubectl writes it
	kind       ruleKind
	condType   string // condition
	condStatus string
	path       string // jsonpath: the JMESPath translation
	expr       *jmespath.Expr
	projection bool
	value      string
	hasValue   bool
	kstatus    status.Status
	rollout    RolloutOptions
	err        error
	// acceptors judges the rule's acceptors on one object (nil for
	// Condition's and kstatus's rules, which are Go): built once, with
	// the rule.
	acceptors *waiter.Waiter[Ref, Object]
}

type ruleKind uint8

const (
	ruleNone ruleKind = iota
	ruleCondition
	ruleJSONPath
	ruleCreated
	ruleDeleted
	ruleKstatus
	ruleRollout
)

// String returns the rule as `kubectl wait --for` writes it
// ("condition=Ready", "jsonpath={.status.phase}=Running", "create",
// "delete"), or kstatus=Current and kstatus=Failed.
func (r Rule) String() string { return r.text }

// Condition is the rule that the object's status has a condition of type
// condType with status status ("True" if empty): kubectl wait's
// --for=condition=Type[=Status], by kubectl's own rule. The type and the
// status are compared in any case (condition=ready is Ready); the first
// condition of the type decides; and a condition whose observedGeneration
// (its own, or else status.observedGeneration) is behind
// metadata.generation does not count: the controller has not yet seen the
// object's latest spec. The condition's reason and message are what an
// object's outcome and events report.
//
// JMESPath has no case folding and no way back to metadata.generation
// from inside a filter, so this rule is a Go matcher, as kstatus's are
// (see [Rule.Acceptors]); JSONPath("{.status.conditions[?(@.type==\"Ready\")].status}", "True")
// is the same test, exact case and no generation, as an acceptor.
func Condition(condType, status string) Rule {
	r := Rule{kind: ruleCondition, condType: condType, condStatus: cmp.Or(status, "True")}
	r.text = "condition=" + condType
	if status != "" {
		r.text += "=" + status
	}
	switch {
	case condType == "":
		r.err = errors.New("condition: the condition type is empty")
	case strings.ContainsAny(status, "="):
		r.err = fmt.Errorf("condition %q: status %q has a =", condType, status)
	}
	return r
}

// jobComplete is when a Job's rollout is done.
var jobComplete = Condition("Complete", "True")

// conditionMet is kubectl wait's test of a condition (k8s.io/kubectl's
// pkg/cmd/wait): the first condition of the type, its status in any case,
// and not behind the object's generation.
func (r Rule) conditionMet(obj map[string]any) bool {
	conds, _, _ := unstructured.NestedSlice(obj, "status", "conditions")
	for _, c := range conds {
		m, ok := c.(map[string]any)
		if !ok {
			continue
		}
		typ, ok := m["type"].(string)
		if !ok || !strings.EqualFold(typ, r.condType) {
			continue
		}
		st, ok := m["status"].(string)
		if !ok {
			continue
		}
		if gen, found, _ := unstructured.NestedInt64(obj, "metadata", "generation"); found {
			observed, found, _ := unstructured.NestedInt64(m, "observedGeneration")
			if !found {
				observed, found, _ = unstructured.NestedInt64(obj, "status", "observedGeneration")
			}
			if found && observed < gen {
				return false
			}
		}
		return strings.EqualFold(st, r.condStatus)
	}
	return false
}

// JSONPath is the rule that kubectl's JSONPath expr gives value, compared
// as text (a number 3 is "3", a boolean "true"): kubectl wait's
// --for=jsonpath='{.status.phase}'=Running. An expression that gives a
// list (a [*] or a filter such as {.status.conditions[?(@.type=="Ready")].status})
// matches when it has values and every one of them is value. The
// expression is translated to JMESPath (see [Rule.Acceptors]); recursive
// descent, slices and unions are refused.
func JSONPath(expr, value string) Rule {
	r := jsonPathRule(expr)
	r.value, r.hasValue = value, true
	r.text = "jsonpath=" + expr + "=" + value
	return r.compiled()
}

// JSONPathExists is the rule that kubectl's JSONPath expr gives a value
// (not null; for a list, at least one): kubectl wait's
// --for=jsonpath='{.status.readyReplicas}' with no value.
func JSONPathExists(expr string) Rule {
	r := jsonPathRule(expr)
	r.text = "jsonpath=" + expr
	return r.compiled()
}

func jsonPathRule(expr string) Rule {
	path, projection, err := jmesOf(expr)
	r := Rule{kind: ruleJSONPath, path: path, projection: projection, err: err}
	if err == nil {
		r.expr, r.err = jmespath.Compile(path)
	}
	return r
}

// Created is the rule that the object exists: kubectl wait's --for=create.
// Unlike kubectl, which polls for it every 500 ms, the wait learns of the
// object from its watch.
func Created() Rule { return Rule{kind: ruleCreated, text: "create"}.compiled() }

// Deleted is the rule that the object is gone: kubectl wait's --for=delete.
// An object deleted and created again under the same name counts as
// deleted: its UID, as first seen, changed. An object that does not exist
// when the wait begins is deleted at once.
func Deleted() Rule { return Rule{kind: ruleDeleted, text: "delete"}.compiled() }

// Current is the rule that kstatus (sigs.k8s.io/cli-utils, what Helm 4
// and kpt wait with) computes the object's status as Current: reconciled,
// with its generation observed. kstatus knows the built-in kinds and the
// Reconciling, Stalled and Ready conditions of custom ones. Its message is
// what events report.
func Current() Rule {
	return Rule{kind: ruleKstatus, kstatus: status.CurrentStatus, text: "kstatus=Current"}
}

// Failed is the rule that kstatus computes the object's status as Failed
// (a Stalled condition, a failed Job or Pod, ...): a FailOn rule.
func Failed() Rule {
	return Rule{kind: ruleKstatus, kstatus: status.FailedStatus, text: "kstatus=Failed"}
}

// ParseRule reads a rule as `kubectl wait --for` writes it:
// condition=Type, condition=Type=Status, jsonpath=EXPR, jsonpath=EXPR=VALUE,
// create or delete; and kstatus=Current, kstatus=Failed or rollout
// ([Rollout] with its defaults). It reads them
// as kubectl does: create and delete in any case; a JSONPath rule split at
// its single '=' signs, never at '==' (so jsonpath=.a[?(@.b=="c")].d=e
// needs no braces), and its value stripped of the quotes around it
// (jsonpath={.status.phase}="Done" waits for Done).
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
	case key == "kstatus" && (arg == "Current" || arg == "Failed"):
		if arg == "Current" {
			return Current(), nil
		}
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

// Acceptors returns the rule as Smithy acceptors over the object, ending
// the wait in state (classify.Success for a For rule, classify.Failure for
// a FailOn rule), for a waiter whose output is the object (its JSON form,
// as map[string]any) and whose input is its [Ref]. An object that does
// not exist is the error NotFound. [Condition] and kstatus's rules have
// none: they are Go matchers (see [Rule.Matches]), which a wait tries
// before the acceptors.
func (r Rule) Acceptors(state classify.State) []classify.Acceptor {
	out := func(path, expected string, cmp classify.Comparator) classify.Acceptor {
		return classify.Acceptor{State: state, Matcher: classify.Matcher{
			Output: &classify.PathMatcher{Path: path, Expected: expected, Comparator: cmp}}}
	}
	switch r.kind {
	case ruleJSONPath:
		switch {
		case r.hasValue && r.projection:
			return []classify.Acceptor{out("map(&to_string(@), ("+r.path+") || `[]`)", r.value, classify.AllStringEquals)}
		case r.hasValue:
			return []classify.Acceptor{out("("+r.path+") != null && to_string("+r.path+")", r.value, classify.StringEquals)}
		case r.projection:
			return []classify.Acceptor{out("length(("+r.path+") || `[]`) > `0`", "true", classify.BooleanEquals)}
		default:
			return []classify.Acceptor{out("("+r.path+") != null", "true", classify.BooleanEquals)}
		}
	case ruleCreated:
		yes := true
		return []classify.Acceptor{{State: state, Matcher: classify.Matcher{Success: &yes}}}
	case ruleDeleted:
		return []classify.Acceptor{
			{State: state, Matcher: classify.Matcher{ErrorType: "NotFound"}},
			{State: state, Matcher: classify.Matcher{InputOutput: &classify.PathMatcher{
				Path: "input.uid != '' && output.metadata.uid != input.uid", Expected: "true",
				Comparator: classify.BooleanEquals}}},
		}
	}
	return nil
}

// compiled returns r with the waiter that judges its acceptors.
func (r Rule) compiled() Rule {
	if r.err == nil {
		r.acceptors, r.err = newObjectWaiter([]Rule{r}, nil, nil, nil, nil)
	}
	return r
}

// Matches reports whether the rule holds for obj (nil: the object does not
// exist), as its acceptors judge it; for Condition's and kstatus's rules,
// as kubectl and kstatus do.
func (r Rule) Matches(obj map[string]any) bool { return r.holds(Ref{}, obj, nil) }

// holds reports whether the rule holds for one answer: the object ref as
// obj, or the error err (obj and err nil: the object does not exist).
func (r Rule) holds(ref Ref, obj Object, err error) bool {
	switch {
	case r.kind == ruleCondition || r.kind == ruleKstatus || r.kind == ruleRollout:
		if obj == nil || err != nil {
			return false
		}
		switch {
		case r.kind == ruleCondition:
			return r.conditionMet(obj)
		case r.kind == ruleRollout && obj["kind"] == "Job":
			return jobComplete.conditionMet(obj) // kstatus: Current once it runs
		case r.kind == ruleRollout && updatesOnDelete(obj):
			return false // kstatus: Current at once
		}
		res, err := status.Compute(&unstructured.Unstructured{Object: obj})
		return err == nil && res.Status == r.kstatus
	case r.acceptors == nil:
		return false // the zero Rule, or one that did not build
	case obj == nil && err == nil:
		err = notFoundError(ref)
	}
	return r.acceptors.Judge(ref, obj, err).State == classify.Success
}

// describe returns what the rule reads of obj, for an object's outcome and
// events: a condition's reason and message, a JSONPath's value, kstatus's
// status and message.
func (r Rule) describe(obj map[string]any) (reason, message string) {
	if obj == nil {
		return "NotFound", ""
	}
	switch r.kind {
	case ruleCondition:
		conds, _, _ := unstructured.NestedSlice(obj, "status", "conditions")
		for _, c := range conds {
			m, ok := c.(map[string]any)
			if typ, _ := m["type"].(string); !ok || !strings.EqualFold(typ, r.condType) {
				continue
			}
			reason, _ = m["reason"].(string)
			message, _ = m["message"].(string)
			st, _ := m["status"].(string)
			if reason == "" {
				reason = r.condType + "=" + st
			}
			return reason, message
		}
		return "", "no " + r.condType + " condition"
	case ruleJSONPath:
		v, err := r.expr.Search(obj)
		switch v := v.(type) {
		case nil:
			if err != nil {
				return "", err.Error()
			}
			return "", "no value at " + strings.TrimPrefix(r.text, "jsonpath=")
		case string:
			return v, ""
		default:
			b, _ := json.Marshal(v)
			return string(b), ""
		}
	case ruleKstatus, ruleRollout:
		res, err := status.Compute(&unstructured.Unstructured{Object: obj})
		if err != nil {
			return "Unknown", err.Error()
		}
		return string(res.Status), res.Message
	}
	return "", ""
}

// goMatch returns the rule as a waiter.WithMatch option (Condition's and
// kstatus's rules).
func (r Rule) goMatch(state classify.State) waiter.Option {
	return waiter.WithMatch(state, r.text, r.holds)
}
