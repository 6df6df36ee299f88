package servertest_test

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"

	"github.com/waitable/waitable/classify"
	"github.com/waitable/waitable/kubewait"
	"github.com/waitable/waitable/kubewait/servertest/internal/apiserver"
	"github.com/waitable/waitable/waiter"
)

// gadget creates the cluster-scoped gadget name, straight to the server.
func gadget(t *testing.T, srv *apiserver.Server, name string) {
	t.Helper()
	g := &unstructured.Unstructured{Object: map[string]any{"spec": map[string]any{}}}
	g.SetAPIVersion(apiserver.GadgetResource.GroupVersion().String())
	g.SetKind("Gadget")
	g.SetName(name)
	if _, err := direct(t, srv).Resource(apiserver.GadgetResource).Create(context.Background(), g, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// gadgetReady sets the gadget's Ready condition, straight to the server.
func gadgetReady(t *testing.T, srv *apiserver.Server, name string) {
	t.Helper()
	gadgets := direct(t, srv).Resource(apiserver.GadgetResource)
	g, err := gadgets.Get(context.Background(), name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	g.Object["status"] = map[string]any{"conditions": []any{map[string]any{
		"type": "Ready", "status": "True", "reason": "Up", "message": "",
		"lastTransitionTime": time.Now().UTC().Format(time.RFC3339)}}}
	if _, err := gadgets.UpdateStatus(context.Background(), g, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
}

func direct(t *testing.T, srv *apiserver.Server) dynamic.Interface {
	t.Helper()
	c, err := dynamic.NewForConfig(srv.Direct)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func kind(k, ns, name string) kubewait.Ref {
	return kubewait.Ref{Kind: schema.GroupVersionKind{Group: "waitable.test", Kind: k}, Namespace: ns, Name: name}
}

// A manifest's objects of two kinds, one namespaced and one
// cluster-scoped, wait in one call under one budget: the Client resolves
// their kinds through the server's discovery, watches each by name, and
// ends when the last is ready, or at the one deadline, naming the object
// that was not.
func TestObjectsOfSeveralKindsInOneCall(t *testing.T) {
	t.Parallel()
	srv := apiserver.Start(t, apiserver.Options{})
	c := client(t, srv, kubewait.ClientOptions{})
	srv.CreateWidget(t, "manifest", "a", nil)
	gadget(t, srv, "g")
	objects := []kubewait.Ref{kind("Widget", "", "a"), kind("Gadget", "", "g")}
	onEvent, ready := started()
	done := make(chan error, 1)
	var res kubewait.Result
	go func() {
		var err error
		res, err = c.Wait(t.Context(), kubewait.Request{Objects: objects, Namespace: "manifest",
			For: []kubewait.Rule{kubewait.Condition("Ready", "")}, Timeout: time.Minute, OnEvent: onEvent})
		done <- err
	}()
	<-ready
	gadgetReady(t, srv, "g")
	srv.SetCondition(t, "manifest", "a", "Ready", "True", "Up", "")
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, o := range res.Objects {
		got = append(got, fmt.Sprintf("%s %s %v", o.Resource.Resource, o.Ref, o.Decision))
	}
	if fmt.Sprint(got) != "[widgets manifest/a success gadgets g success]" {
		t.Errorf("objects %q, want the widget and the gadget, in the request's order, succeeded", got)
	}

	srv.CreateWidget(t, "manifest", "never", nil)
	start := time.Now()
	_, err := c.Wait(t.Context(), kubewait.Request{Objects: append(objects, kind("Widget", "manifest", "never")), Namespace: "manifest",
		For: []kubewait.Rule{kubewait.Condition("Ready", "")}, Timeout: 3 * time.Second})
	elapsed := time.Since(start)
	var e *kubewait.Error
	if !errors.As(err, &e) || !errors.Is(err, waiter.ErrTimeout) || len(e.Objects) != 1 || e.Objects[0].Name != "never" {
		t.Fatalf("err = %v, want a timeout of manifest/never alone", err)
	}
	// One deadline: never before it, and not one after another for each
	// of the three objects (which would take 9 s).
	if elapsed < 3*time.Second || elapsed >= 6*time.Second {
		t.Errorf("ended after %v, want at the one deadline, 3s", elapsed)
	}
}

// A caller that changes a result's object races with no other wait: the
// result is a copy, without managedFields, while the server's object has
// them. Run under -race.
func TestResultObjectIsTheCallersOwn(t *testing.T) {
	t.Parallel()
	srv := apiserver.Start(t, apiserver.Options{})
	c := client(t, srv, kubewait.ClientOptions{})
	srv.CreateWidget(t, "copies", "a", nil)
	srv.SetCondition(t, "copies", "a", "Ready", "False", "Down", "")
	other := make(chan kubewait.Result, 1)
	onEvent, ready := started()
	go func() {
		res, err := c.Wait(t.Context(), kubewait.Request{Resource: widgets, Namespace: "copies", Names: []string{"a"},
			For: []kubewait.Rule{kubewait.Condition("Ready", "")}, Timeout: time.Minute, OnEvent: onEvent,
			Options: []waiter.Option{waiter.WithDelays(10*time.Millisecond, 10*time.Millisecond)}})
		if err != nil {
			t.Error(err)
		}
		other <- res
	}()
	<-ready
	res, err := c.Wait(t.Context(), kubewait.Request{Resource: widgets, Namespace: "copies", Names: []string{"a"},
		For: []kubewait.Rule{kubewait.Condition("Ready", "False")}, Timeout: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	obj := res.Objects[0].Object
	if _, found, _ := unstructured.NestedSlice(obj, "metadata", "managedFields"); found {
		t.Error("the result's object has managedFields")
	}
	server, err := direct(t, srv).Resource(widgets).Namespace("copies").Get(context.Background(), "a", metav1.GetOptions{})
	if err != nil || len(server.GetManagedFields()) == 0 {
		t.Fatalf("the server's object has no managedFields to drop (%v)", err)
	}
	// The caller writes to its object while the other wait judges the
	// informer's every 10 ms: a result that were the informer's own map
	// would race (-race reports it) and would end the other wait on the
	// caller's Ready.
	for i := range 100_000 {
		_ = unstructured.SetNestedSlice(obj, []any{map[string]any{"type": "Ready", "status": "True"}}, "status", "conditions")
		obj["round"] = int64(i)
		runtime.Gosched()
	}
	select {
	case res := <-other:
		t.Fatalf("the other wait ended (%v) on the caller's change", res.Objects[0].Decision)
	default:
	}
	srv.SetCondition(t, "copies", "a", "Ready", "True", "Up", "")
	if res := <-other; res.Objects[0].Decision != classify.Success {
		t.Errorf("the other wait: %v", res.Objects[0].Decision)
	}
}
