package apiserver_test

import (
	"context"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/waitable/waitable/kubewait/servertest/internal/apiserver"
)

// TestWidgetMethods checks what CreateWidget, SetCondition, SetStatusField
// and DeleteWidget write, read back through the proxy.
func TestWidgetMethods(t *testing.T) {
	t.Parallel()
	s := apiserver.Start(t, apiserver.Options{})
	widgets := dynamicClient(t, s.Config).Resource(apiserver.WidgetResource).Namespace("ns1")
	get := func() *unstructured.Unstructured {
		t.Helper()
		w, err := widgets.Get(context.Background(), "w1", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return w
	}
	conditions := func() map[string]map[string]any {
		t.Helper()
		list, _, _ := unstructured.NestedSlice(get().Object, "status", "conditions")
		out := map[string]map[string]any{}
		for _, c := range list {
			c := c.(map[string]any)
			out[c["type"].(string)] = c
		}
		return out
	}

	uid := s.CreateWidget(t, "ns1", "w1", map[string]string{"app": "a"})
	if w := get(); string(w.GetUID()) != uid || w.GetLabels()["app"] != "a" {
		t.Errorf("CreateWidget(ns1, w1) made UID %s labels %v, want %s, app=a", w.GetUID(), w.GetLabels(), uid)
	}

	s.SetCondition(t, "ns1", "w1", "Ready", "False", "Starting", "not yet")
	s.SetCondition(t, "ns1", "w1", "Synced", "True", "Done", "")
	first := conditions()["Ready"]["lastTransitionTime"]
	s.SetCondition(t, "ns1", "w1", "Ready", "False", "StillStarting", "soon")
	c := conditions()
	if len(c) != 2 || c["Ready"]["reason"] != "StillStarting" || c["Ready"]["message"] != "soon" ||
		c["Ready"]["lastTransitionTime"] != first || c["Synced"]["status"] != "True" {
		t.Errorf("conditions = %v, want Ready False StillStarting (since %v) and Synced True", c, first)
	}
	s.SetCondition(t, "ns1", "w1", "Ready", "True", "Started", "")
	if got := conditions()["Ready"]["status"]; got != "True" {
		t.Errorf("Ready = %v, want True", got)
	}

	s.SetStatusField(t, "ns1", "w1", "phase", "Running")
	s.SetStatusField(t, "ns1", "w1", "replicas.ready", 3)
	w := get()
	if phase, _, _ := unstructured.NestedString(w.Object, "status", "phase"); phase != "Running" {
		t.Errorf("status.phase = %q, want Running", phase)
	}
	if ready, _, _ := unstructured.NestedInt64(w.Object, "status", "replicas", "ready"); ready != 3 {
		t.Errorf("status.replicas.ready = %d, want 3", ready)
	}
	if len(conditions()) != 2 {
		t.Errorf("SetStatusField dropped conditions: %v", conditions())
	}
	s.SetStatusField(t, "ns1", "w1", "phase", nil)
	if _, found, _ := unstructured.NestedFieldNoCopy(get().Object, "status", "phase"); found {
		t.Errorf("status.phase after SetStatusField(nil) is still there")
	}

	s.DeleteWidget(t, "ns1", "w1")
	if _, err := widgets.Get(context.Background(), "w1", metav1.GetOptions{}); err == nil {
		t.Errorf("Get(w1) after DeleteWidget = nil error, want NotFound")
	}
}
