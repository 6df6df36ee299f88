package servertest

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"k8s.io/cli-runtime/pkg/resource"
	"k8s.io/client-go/dynamic/fake"
	kubectlwait "k8s.io/kubectl/pkg/cmd/wait"

	"github.com/waitable/waitable/kubewait"
	"github.com/waitable/waitable/waiter"
)

// fuzzWidgets is the resource of FuzzJSONPathAgainstKubectl's objects.
var fuzzWidgets = schema.GroupVersionResource{Group: "example.com", Version: "v1", Resource: "widgets"}

// FuzzJSONPathAgainstKubectl: a --for=jsonpath rule, as text, judged on
// an object by waitable's Wait and by kubectl wait's own code
// (k8s.io/kubectl's pkg/cmd/wait: its parsing of --for, its relaxing of
// the expression, its check, with --timeout=0, one read) over the same
// fake API: both refuse the rule or neither; when both take it, the wait
// succeeds where kubectl's condition is met, and fails at once (it cannot
// be met) where kubectl's check errs.
func FuzzJSONPathAgainstKubectl(f *testing.F) {
	for _, c := range []struct{ rule, obj string }{
		{"jsonpath={.status.phase}=Running", `{"status":{"phase":"Running"}}`},
		{"jsonpath={.status.phase}", `{"status":{"phase":"Running"}}`},
		{"jsonpath=.status.replicas=3", `{"status":{"replicas":3}}`},
		{"jsonpath=status.ok=true", `{"status":{"ok":true}}`},
		{`jsonpath={.status.conditions[?(@.type=="Ready")].status}=True`,
			`{"status":{"conditions":[{"type":"Ready","status":"True"},{"type":"Synced","status":"False"}]}}`},
		{"jsonpath={.status.conditions[*].status}=True", `{"status":{"conditions":[{"status":"True"},{"status":"True"}]}}`},
		{"jsonpath={.status.conditions}=Ready", `{"status":{"conditions":[{"type":"Ready"}]}}`},
		{"jsonpath={..name}=a", `{"spec":{"list":[{"name":"a"}]}}`},
		{"jsonpath={.list[-1].name}= b ", `{"list":[{"name":"a"},{"name":"b"}]}`},
		{"jsonpath={.a[1:3]}=2", `{"a":[1,2,3]}`},
		{"jsonpath={.a['b.c']}=x", `{"a":{"b.c":"x"}}`},
		{"jsonpath={.a.b}=1.5", `{"a":{"b":1.5}}`},
		{"jsonpath={.missing}=null", `{}`},
		{"jsonpath={.a}{.b}=1", `{"a":1,"b":2}`},
		{"jsonpath='{.a}'=1", `{"a":1}`},
		{"jsonpath={.a}==x", `{"a":"=x"}`},
	} {
		f.Add(c.rule, c.obj)
	}
	f.Fuzz(func(t *testing.T, text, doc string) {
		var obj map[string]any
		if !strings.HasPrefix(text, "jsonpath=") || utiljson.Unmarshal([]byte(doc), &obj) != nil || obj == nil {
			return
		}
		if _, ok := obj["items"]; ok {
			return // the fake API takes it for a list
		}
		obj["apiVersion"], obj["kind"] = "example.com/v1", "Widget"
		obj["metadata"] = map[string]any{"name": "w", "namespace": "ns"}
		met, kerr, krefused := kubectlJudges(t, text, obj)
		rule, err := kubewait.ParseRule(text)
		if (err != nil) != krefused {
			t.Fatalf("%s: ParseRule error %v; kubectl refuses it: %v", text, err, krefused)
		}
		if err != nil {
			return
		}
		synctest.Test(t, func(t *testing.T) {
			c := kubewait.NewClient(fakeWidgets(obj), kubewait.ClientOptions{})
			_, err := c.Wait(t.Context(), kubewait.Request{Resource: fuzzWidgets, Namespace: "ns", Names: []string{"w"},
				For: []kubewait.Rule{rule}, Timeout: time.Second})
			succeeded, failed := err == nil, errors.Is(err, waiter.ErrFailure)
			if succeeded != met || failed != (kerr != nil) {
				t.Errorf("%s on %s: waitable's wait: %v; kubectl: met %v, error %v", text, doc, err, met, kerr)
			}
		})
	})
}

// kubectlJudges returns kubectl wait's verdict on obj for the --for rule
// text: met, or the error of a check that cannot be met, or that kubectl
// refuses the rule.
func kubectlJudges(t *testing.T, text string, obj map[string]any) (met bool, checkErr error, refused bool) {
	flags := kubectlwait.NewWaitFlags(genericclioptions.NewConfigFlags(false).WithDiscoveryBurst(1),
		genericiooptions.IOStreams{In: strings.NewReader(""), Out: io.Discard, ErrOut: io.Discard})
	server := "https://127.0.0.1:1" // never asked: the API is the fake's
	flags.RESTClientGetter.(*genericclioptions.ConfigFlags).APIServer = &server
	flags.ForCondition, flags.Timeout = []string{text}, 0
	o, err := flags.ToOptions([]string{"widgets/w"})
	if err != nil {
		return false, nil, true
	}
	o.DynamicClient = fakeWidgets(obj)
	info := &resource.Info{Mapping: &meta.RESTMapping{Resource: fuzzWidgets}, Namespace: "ns", Name: "w"}
	_, done, err := o.ConditionFn[0](context.Background(), info, o)
	switch {
	case done:
		return true, nil, false
	case err != nil && strings.HasPrefix(err.Error(), "condition not met"):
		return false, nil, false
	}
	if err == nil {
		t.Fatalf("%s: kubectl's check neither met nor erred", text)
	}
	return false, err, false
}

// fakeWidgets returns a fake dynamic client that serves obj as a widget.
func fakeWidgets(obj map[string]any) *fake.FakeDynamicClient {
	return fake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(),
		map[schema.GroupVersionResource]string{fuzzWidgets: "WidgetList"}, &unstructured.Unstructured{Object: obj})
}
