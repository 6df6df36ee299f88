package kubewait

import (
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"sync"

	"k8s.io/client-go/util/jsonpath"
)

// JSONPath is the rule that kubectl's JSONPath expr gives value: kubectl
// wait's --for=jsonpath='{.status.phase}'=Running, evaluated as kubectl
// evaluates it, with k8s.io/client-go/util/jsonpath (missing keys give
// no value) and kubectl wait's reading of the result: the one value is
// compared as text (a number 3 is "3", a boolean "true"), spaces around
// either trimmed. As kubectl, an expression that gives more than one
// value (a [*] over several), or an object or a list, cannot meet the
// rule: the object's wait fails, saying why. The expression may leave
// out its braces and its leading dot (status.phase), as kubectl's may.
func JSONPath(expr, value string) Rule {
	written := value
	if strings.HasPrefix(value, "=") {
		written = `"` + value + `"` // unquoted, kubectl's split would pair it with the = before it
	}
	return newJSONPath("jsonpath="+expr+"="+written, expr, value, true)
}

// JSONPathExists is the rule that kubectl's JSONPath expr gives a value:
// kubectl wait's --for=jsonpath='{.status.readyReplicas}' with no value.
// As with [JSONPath], more than one value fails the object's wait.
func JSONPathExists(expr string) Rule { return newJSONPath("jsonpath="+expr, expr, "", false) }

// jsonPathRule is JSONPath's and JSONPathExists's rule.
type jsonPathRule struct {
	path     string // util/jsonpath's template, as kubectl relaxes it: {.status.phase}
	value    string
	hasValue bool
	// parsed is path parsed once, as kubectl wait parses it (nil if it
	// does not parse); util/jsonpath's JSONPath keeps state as it
	// evaluates, and a Rule may serve concurrent waits: each evaluation
	// holds mu.
	parsed *jsonpath.JSONPath
	mu     *sync.Mutex
}

// newJSONPath returns the rule written text.
func newJSONPath(text, expr, value string, hasValue bool) Rule {
	jp := jsonPathRule{value: value, hasValue: hasValue}
	var err error
	jp.path, err = relaxedJSONPath(expr)
	if err == nil {
		j := jsonpath.New("kubewait").AllowMissingKeys(true)
		if err = j.Parse(jp.path); err == nil {
			jp.parsed, jp.mu = j, new(sync.Mutex)
		}
	}
	if err != nil {
		err = fmt.Errorf("jsonpath %q: %w", expr, err)
	}
	return Rule{is: jp, text: text, err: err}
}

// kubectlPath is kubectl's reading of a --for=jsonpath expression (its
// RelaxedJSONPathExpression): with or without the braces and the
// leading dot.
var kubectlPath = regexp.MustCompile(`^\{\.?([^{}]+)\}$|^\.?([^{}]+)$`)

// relaxedJSONPath returns expr as util/jsonpath's template, {.a.b}, as
// kubectl reads it.
func relaxedJSONPath(expr string) (string, error) {
	m := kubectlPath.FindStringSubmatch(expr)
	if m == nil {
		return "", errors.New("want a 'name1.name2', '.name1.name2', '{name1.name2}' or '{.name1.name2}'")
	}
	return "{." + m[1] + m[2] + "}", nil
}

// matches is kubectl wait's test: no value does not match; more than
// one value, or a value that is an object or a list, is an error.
func (r jsonPathRule) matches(obj Object) (bool, error) {
	v, ok, err := r.find(obj)
	switch {
	case err != nil || !ok:
		return false, err
	case !r.hasValue:
		return true, nil
	}
	switch v.(type) {
	case map[string]any, []any:
		return false, errors.New("jsonpath leads to a nested object or list which is not supported")
	}
	return strings.TrimSpace(fmt.Sprint(v)) == strings.TrimSpace(r.value), nil
}

// find returns the expression's one value on obj, whether it has one,
// and kubectl's error for more than one.
// A panic of util/jsonpath on an expression it parsed (none is known) is
// an error rather than a crash.
func (r jsonPathRule) find(obj Object) (v any, ok bool, err error) {
	defer func() {
		if p := recover(); p != nil {
			v, ok, err = nil, false, fmt.Errorf("util/jsonpath: %v", p)
		}
	}()
	if r.parsed == nil { // a rule that does not parse: Wait refuses it (Rule.err)
		return nil, false, fmt.Errorf("jsonpath %s does not parse", r.path)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	results, err := r.parsed.FindResults(obj)
	switch {
	case err != nil:
		return nil, false, err
	case len(results) == 0 || len(results[0]) == 0:
		return nil, false, nil
	case len(results) > 1:
		return nil, false, errors.New("given jsonpath expression matches more than one list")
	case len(results[0]) > 1:
		return nil, false, errors.New("given jsonpath expression matches more than one value")
	}
	return results[0][0].Interface(), true, nil
}

// describe returns the expression's value, as text, or why there is none.
func (r jsonPathRule) describe(obj Object) (reason, message string) {
	v, ok, err := r.find(obj)
	switch {
	case err != nil:
		return "", err.Error()
	case !ok:
		return "", "no value at " + r.path
	}
	if s, ok := v.(string); ok {
		return s, ""
	}
	b, _ := json.Marshal(v)
	return string(b), ""
}

func (jsonPathRule) name() string { return "KubeJSONPath" }
