package kubewait

import (
	"encoding/json"

	"github.com/waitable/waitable/classify"
	"github.com/waitable/waitable/jmespath"
)

// JSONPath is the rule that kubectl's JSONPath expr gives value, compared
// as text (a number 3 is "3", a boolean "true"): kubectl wait's
// --for=jsonpath='{.status.phase}'=Running. An expression that gives a
// list (a [*] or a filter such as {.status.conditions[?(@.type=="Ready")].status})
// matches when it has values and every one of them is value. The
// expression is translated to JMESPath (see [Rule.Acceptors]); recursive
// descent, slices and unions are refused.
func JSONPath(expr, value string) Rule {
	r := newJSONPath(expr, value, true)
	r.text = "jsonpath=" + expr + "=" + value
	return r.compiled()
}

// JSONPathExists is the rule that kubectl's JSONPath expr gives a value
// (not null; for a list, at least one): kubectl wait's
// --for=jsonpath='{.status.readyReplicas}' with no value.
func JSONPathExists(expr string) Rule {
	r := newJSONPath(expr, "", false)
	r.text = "jsonpath=" + expr
	return r.compiled()
}

// jsonPathRule is JSONPath's and JSONPathExists's rule.
type jsonPathRule struct {
	acceptorRule
	text       string // kubectl's expression
	path       string // its JMESPath translation
	expr       *jmespath.Expr
	projection bool
	value      string
	hasValue   bool
}

func newJSONPath(expr, value string, hasValue bool) Rule {
	jp := jsonPathRule{text: expr, value: value, hasValue: hasValue}
	var err error
	jp.path, jp.projection, err = jmesOf(expr)
	if err == nil {
		jp.expr, err = jmespath.Compile(jp.path)
	}
	return Rule{is: jp, err: err}
}

func (r jsonPathRule) acceptors(state classify.State) []classify.Acceptor {
	out := func(path, expected string, cmp classify.Comparator) []classify.Acceptor {
		return []classify.Acceptor{{State: state, Matcher: classify.Matcher{
			Output: &classify.PathMatcher{Path: path, Expected: expected, Comparator: cmp}}}}
	}
	switch {
	case r.hasValue && r.projection:
		return out("map(&to_string(@), ("+r.path+") || `[]`)", r.value, classify.AllStringEquals)
	case r.hasValue:
		return out("("+r.path+") != null && to_string("+r.path+")", r.value, classify.StringEquals)
	case r.projection:
		return out("length(("+r.path+") || `[]`) > `0`", "true", classify.BooleanEquals)
	}
	return out("("+r.path+") != null", "true", classify.BooleanEquals)
}

// describe returns the expression's value, as text.
func (r jsonPathRule) describe(obj Object) (reason, message string) {
	if r.expr == nil {
		return "", ""
	}
	v, err := r.expr.Search(obj)
	switch v := v.(type) {
	case nil:
		if err != nil {
			return "", err.Error()
		}
		return "", "no value at " + r.text
	case string:
		return v, ""
	default:
		b, _ := json.Marshal(v)
		return string(b), ""
	}
}

func (jsonPathRule) name() string { return "KubeJSONPath" }
