package kubewait

import (
	"cmp"
	"errors"
	"fmt"
	"strings"
	"unicode"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

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
// It is a Go matcher, as kubectl's own code tests a condition:
// JSONPath("{.status.conditions[?(@.type==\"Ready\")].status}", "True")
// is nearly the same test, with the exact case and no generation.
func Condition(condType, status string) Rule {
	r := Rule{is: conditionRule{condType: condType, status: cmp.Or(status, "True")}}
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

// conditionRule is Condition's rule.
type conditionRule struct{ condType, status string }

// jobComplete is when a Job's rollout is done.
var jobComplete = conditionRule{condType: "Complete", status: "True"}

// matches is kubectl wait's test of a condition (k8s.io/kubectl's
// pkg/cmd/wait): the first condition of the type, its status in any case,
// and not behind the object's generation. It never errs.
func (r conditionRule) matches(obj Object) (bool, error) {
	conds, _, _ := unstructured.NestedSlice(obj, "status", "conditions")
	for _, c := range conds {
		m, _ := c.(map[string]any) // nil, and so no type, if it is not an object
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
				return false, nil
			}
		}
		return strings.EqualFold(st, r.status), nil
	}
	return false, nil
}

// describe returns the condition's reason and message.
func (r conditionRule) describe(obj Object) (reason, message string) {
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
}

// name is KubeCondition and the type in UpperCamelCase: KubeConditionReady.
// Its words are the type's runs of ASCII letters and digits.
func (r conditionRule) name() string {
	name := "KubeCondition"
	for _, w := range strings.FieldsFunc(r.condType, func(c rune) bool {
		return c >= unicode.MaxASCII || !unicode.IsLetter(c) && !unicode.IsDigit(c)
	}) {
		name += strings.ToUpper(w[:1]) + w[1:]
	}
	return name
}
