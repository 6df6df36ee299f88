package kubewait

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/runtime"
)

func TestParseRule(t *testing.T) {
	for _, tc := range []struct{ in, want, err string }{
		{in: "condition=Ready", want: "condition=Ready"},
		{in: "condition=Ready=false", want: "condition=Ready=false"},
		{in: "jsonpath={.status.phase}=Running", want: "jsonpath={.status.phase}=Running"},
		{in: "jsonpath={.status.readyReplicas}", want: "jsonpath={.status.readyReplicas}"},
		{in: `jsonpath={.status.conditions[?(@.type=="Ready")].status}=True`, want: `jsonpath={.status.conditions[?(@.type=="Ready")].status}=True`},
		{in: "jsonpath=.status.phase=Running", want: "jsonpath=.status.phase=Running"},
		{in: "create", want: "create"},
		{in: "delete", want: "delete"},
		{in: "kstatus=Current", want: "kstatus=Current"},
		{in: "kstatus=Failed", want: "kstatus=Failed"},
		{in: "condition=", err: "condition type is empty"},
		{in: "jsonpath={.status.phase}=", err: "value after = is empty"},
		{in: "jsonpath={..name}", want: "jsonpath={..name}"}, // util/jsonpath's recursive descent
		{in: "jsonpath={.a[}", err: "unterminated array"},
		{in: "jsonpath={.a}x", err: "want a 'name1.name2'"},
		{in: "ready", err: "want condition=TYPE"},
		{in: "kstatus=Ready", err: "want condition=TYPE"},
		{in: "", err: "want condition=TYPE"},
	} {
		r, err := ParseRule(tc.in)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("ParseRule(%q) = %v, %v; want an error with %q", tc.in, r, err, tc.err)
			}
			continue
		}
		if err != nil || r.String() != tc.want {
			t.Errorf("ParseRule(%q) = %q, %v; want %q", tc.in, r, err, tc.want)
		}
	}
}

// widget is a custom object with status.
func widget(name string, status map[string]any) Object {
	o := Object{"apiVersion": "waitable.test/v1", "kind": "Widget",
		"metadata": map[string]any{"name": name, "namespace": "ns", "uid": "uid-" + name, "generation": int64(1)}}
	if status != nil {
		o["status"] = status
	}
	return o
}

func conditions(kv ...string) map[string]any {
	var cs []any
	for i := 0; i+1 < len(kv); i += 2 {
		cs = append(cs, map[string]any{"type": kv[i], "status": kv[i+1], "reason": kv[i] + "Reason", "message": kv[i] + " message"})
	}
	return map[string]any{"conditions": cs}
}

func TestRulesJudgeObjects(t *testing.T) {
	ready := widget("w", conditions("Ready", "True"))
	notReady := widget("w", conditions("Ready", "False"))
	running := widget("w", map[string]any{"phase": "Running", "readyReplicas": int64(3), "ok": true})
	bare := widget("w", nil)
	mustParse := func(s string) Rule {
		r, err := ParseRule(s)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	for _, tc := range []struct {
		rule Rule
		obj  Object
		want bool
	}{
		{Condition("Ready", ""), ready, true},
		{Condition("Ready", "True"), notReady, false},
		{Condition("Ready", "false"), notReady, true}, // status in any case
		{Condition("Ready", "False"), ready, false},
		{Condition("Ready", ""), bare, false},
		{Condition("Ready", ""), nil, false},
		{Condition("ready", ""), ready, true},                                                           // the type in any case, as kubectl
		{Condition("Ready", ""), behind(ready, 2, 1, -1), false},                                        // the status is behind the generation
		{Condition("Ready", ""), behind(ready, 2, 2, -1), true},                                         // caught up
		{Condition("Ready", ""), behind(ready, 2, 3, 1), false},                                         // the condition's own generation decides
		{Condition("Ready", ""), behind(ready, 2, 1, 2), true},                                          // ... either way
		{Condition("Ready", "False"), widget("w", conditions("Ready", "False", "Ready", "True")), true}, // the first of the type
		{mustParse("jsonpath={.status.phase}=Running"), running, true},
		{mustParse("jsonpath={.status.phase}=Pending"), running, false},
		{mustParse("jsonpath={.status.readyReplicas}=3"), running, true}, // numbers as text
		{mustParse("jsonpath={.status.ok}=true"), running, true},
		{mustParse("jsonpath={.status.readyReplicas}"), running, true},
		{mustParse("jsonpath={.status.readyReplicas}"), bare, false},
		{mustParse("jsonpath={.status.missing}=null"), running, false}, // absent is not "null"
		{mustParse(`jsonpath={.status.conditions[?(@.type=="Ready")].status}=True`), ready, true},
		{mustParse(`jsonpath={.status.conditions[?(@.type=="Ready")].status}=True`), notReady, false},
		{mustParse(`jsonpath={.status.conditions[?(@.type=="Ready")].status}=True`), bare, false},
		{mustParse(`jsonpath={.status.conditions[?(@.type=="Ready")]}`), ready, true},
		{mustParse(`jsonpath={.status.conditions[?(@.type=="Gone")]}`), ready, false},
		{Created(), bare, true},
		{Created(), nil, false},
		{Deleted(), nil, true},
		{Deleted(), bare, false},
		{Current(), ready, true},
		{Current(), notReady, false},
		{Failed(), widget("w", conditions("Stalled", "True")), true},
		{Failed(), ready, false},
		{Current(), nil, false},
	} {
		if got := tc.rule.Matches(tc.obj); got != tc.want {
			t.Errorf("%v.Matches(%v) = %v, want %v", tc.rule, tc.obj["status"], got, tc.want)
		}
	}
}

func TestDeletedCountsARecreatedObject(t *testing.T) {
	again := widget("w", nil)
	again["metadata"].(map[string]any)["uid"] = "uid-2"
	if !Deleted().holds(Ref{Namespace: "ns", Name: "w", UID: "uid-w"}, again, nil) {
		t.Error("an object with a new UID: not deleted, want deleted (deleted, then created again)")
	}
	if Deleted().holds(Ref{Namespace: "ns", Name: "w", UID: "uid-w"}, widget("w", nil), nil) {
		t.Error("the same object: deleted, want not")
	}
}

func TestDescribe(t *testing.T) {
	reason, msg := Condition("Ready", "").describe(widget("w", conditions("Ready", "False")))
	if reason != "ReadyReason" || msg != "Ready message" {
		t.Errorf("describe = %q, %q; want the condition's reason and message", reason, msg)
	}
	if reason, _ := Condition("Ready", "").describe(nil); reason != "NotFound" {
		t.Errorf("describe(nil) = %q, want NotFound", reason)
	}
	r, _ := ParseRule("jsonpath={.status.phase}=Running")
	if reason, _ := r.describe(widget("w", map[string]any{"phase": "Pending"})); reason != "Pending" {
		t.Errorf("jsonpath describe = %q, want the value Pending", reason)
	}
	if reason, _ := Current().describe(widget("w", conditions("Ready", "False"))); reason != "InProgress" {
		t.Errorf("kstatus describe = %q, want InProgress", reason)
	}
}

// behind returns a copy of o at generation gen, its status observed at
// status (-1: not said) and its conditions at cond (-1: not said).
func behind(o Object, gen, status, cond int64) Object {
	c := runtime.DeepCopyJSON(o)
	c["metadata"].(map[string]any)["generation"] = gen
	st := c["status"].(map[string]any)
	if status >= 0 {
		st["observedGeneration"] = status
	}
	if cond >= 0 {
		for _, x := range st["conditions"].([]any) {
			x.(map[string]any)["observedGeneration"] = cond
		}
	}
	return c
}
