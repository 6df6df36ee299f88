package kubewait

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	utiljson "k8s.io/apimachinery/pkg/util/json"
	"k8s.io/client-go/util/jsonpath"
)

// FuzzParseRule: ParseRule reads any text without a panic, and a rule it
// reads writes itself back as it was read (String), which ParseRule reads
// again as the same rule.
func FuzzParseRule(f *testing.F) {
	for _, s := range []string{"condition=Ready", "condition=Ready=false", "create", "DELETE", "rollout",
		"kstatus=Current", "kstatus=Failed", "jsonpath={.status.phase}=Running", "jsonpath=.a.b",
		`jsonpath={.status.conditions[?(@.type=="Ready")].status}=True`, `jsonpath={.a}="x"`, "jsonpath={.a}=",
		"jsonpath={..name}", "jsonpath={range .items[*]}{.a}{end}", "jsonpath={.a[}", "condition==", "ready", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		r, err := ParseRule(s)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "kubewait: ") {
				t.Errorf("ParseRule(%q) = %v: the error does not say kubewait", s, err)
			}
			return
		}
		again, err := ParseRule(r.String())
		if err != nil || again.String() != r.String() {
			t.Errorf("ParseRule(%q) = %q, whose ParseRule = %q, %v", s, r, again, err)
		}
		for _, obj := range fuzzObjects {
			r.Matches(obj)
			r.describe(obj)
		}
	})
}

// fuzzObjects are objects every fuzzed rule is judged on.
var fuzzObjects = []Object{nil, widget("w", nil), widget("w", conditions("Ready", "True", "Synced", "False")),
	widget("w", map[string]any{"phase": "Running", "replicas": int64(3), "ok": true, "ratio": 0.5,
		"items": []any{map[string]any{"name": "a"}, map[string]any{"name": "b"}}, "empty": map[string]any{}})}

// FuzzJSONPath judges kubectl's --for=jsonpath rules, read by ParseRule,
// on objects, against kubectl wait's check (json.go's checkCondition)
// written out over util/jsonpath: the rule holds when that check is met,
// and the object cannot meet it (its wait fails) when the check errs. It
// checks the rule's wiring to util/jsonpath; servertest's
// FuzzJSONPathAgainstKubectl holds the whole rule, from its text, against
// kubectl's own code.
func FuzzJSONPath(f *testing.F) {
	for _, c := range []struct{ expr, value, obj string }{
		{"{.status.phase}", "Running", `{"status":{"phase":"Running"}}`},
		{"{.status.phase}", "", `{"status":{"phase":"Running"}}`},
		{".status.replicas", "3", `{"status":{"replicas":3}}`},
		{"status.ok", "true", `{"status":{"ok":true}}`},
		{`{.status.conditions[?(@.type=="Ready")].status}`, "True",
			`{"status":{"conditions":[{"type":"Ready","status":"True"},{"type":"Synced","status":"False"}]}}`},
		{"{.status.conditions[*].status}", "True", `{"status":{"conditions":[{"status":"True"},{"status":"True"}]}}`},
		{"{.status.conditions}", "Ready", `{"status":{"conditions":[{"type":"Ready"}]}}`},
		{"{..name}", "a", `{"items":[{"name":"a"}]}`},
		{"{.items[-1].name}", " b ", `{"items":[{"name":"a"},{"name":"b"}]}`},
		{"{.a[1:3]}", "2", `{"a":[1,2,3]}`},
		{"{.a['b.c']}", "x", `{"a":{"b.c":"x"}}`},
		{"{.a.b}", "1.5", `{"a":{"b":1.5}}`},
		{"{.missing}", "null", `{}`},
		{"{range .a[*]}{.b}{end}", "1", `{"a":[{"b":1}]}`},
		{"{.a}{.b}", "1", `{"a":1,"b":2}`},
	} {
		f.Add(c.expr, c.value, c.obj)
	}
	f.Fuzz(func(t *testing.T, expr, value, doc string) {
		var obj Object
		if utiljson.Unmarshal([]byte(doc), &obj) != nil || obj == nil {
			return
		}
		for _, hasValue := range []bool{true, false} {
			text := "jsonpath=" + expr
			if hasValue {
				text += "=" + value
			}
			r, err := ParseRule(text)
			if err != nil {
				continue // kubectl refuses it too, or it is not one rule (an = in expr)
			}
			jp := r.is.(jsonPathRule)
			met, kerr := kubectlJSONPath(jp.path, jp.value, jp.hasValue, obj)
			holds, fault := r.holds(Ref{}, obj, nil), r.fault(obj)
			if holds != met || (fault != nil) != (kerr != nil) {
				t.Errorf("%s on %s: holds %v (fault %v), kubectl: met %v (error %v)", text, doc, holds, fault, met, kerr)
			}
		}
	})
}

// kubectlJSONPath is kubectl wait's test of a --for=jsonpath rule
// (JSONPathWait.checkCondition), its expression already relaxed.
func kubectlJSONPath(path, value string, hasValue bool, obj Object) (met bool, err error) {
	defer func() {
		if p := recover(); p != nil {
			met, err = false, fmt.Errorf("panic: %v", p)
		}
	}()
	j := jsonpath.New("wait").AllowMissingKeys(true)
	if err := j.Parse(path); err != nil {
		return false, err
	}
	results, err := j.FindResults(obj)
	if err != nil {
		return false, err
	}
	if len(results) == 0 || len(results[0]) == 0 {
		return false, nil
	}
	if len(results) > 1 || len(results[0]) > 1 {
		return false, errors.New("more than one")
	}
	if !hasValue {
		return true, nil
	}
	v := results[0][0]
	switch v.Interface().(type) {
	case map[string]any, []any:
		return false, errors.New("nested")
	}
	return strings.TrimSpace(fmt.Sprintf("%v", v.Interface())) == strings.TrimSpace(value), nil
}
