package kubewait

import (
	"context"
	"errors"
	"net"
	"slices"
	"strings"
	"syscall"
	"testing"
	"testing/synctest"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic/fake"

	"github.com/waitable/waitable/classify"
	"github.com/waitable/waitable/waiter"
)

var gadgets = schema.GroupVersionResource{Group: "waitable.test", Version: "v1", Resource: "gadgets"}

// twoKinds is a fake API with widgets (namespaced) and gadgets
// (cluster-scoped), and a RESTMapper that knows them.
func twoKinds(t *testing.T, objs ...Object) (*cluster, meta.RESTMapper) {
	var ros []runtime.Object
	for _, o := range objs {
		ros = append(ros, &unstructured.Unstructured{Object: o})
	}
	dyn := fake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(),
		map[schema.GroupVersionResource]string{widgets: "WidgetList", gadgets: "GadgetList"}, ros...)
	mapper := meta.NewDefaultRESTMapper([]schema.GroupVersion{widgets.GroupVersion()})
	mapper.Add(widgets.GroupVersion().WithKind("Widget"), meta.RESTScopeNamespace)
	mapper.Add(gadgets.GroupVersion().WithKind("Gadget"), meta.RESTScopeRoot)
	return &cluster{t: t, dyn: dyn}, mapper
}

func gadget(name string, status map[string]any) Object {
	o := Object{"apiVersion": "waitable.test/v1", "kind": "Gadget",
		"metadata": map[string]any{"name": name, "uid": "uid-g-" + name, "generation": int64(1)}}
	if status != nil {
		o["status"] = status
	}
	return o
}

func objectRef(kind, ns, name string) Ref {
	return Ref{Kind: schema.GroupVersionKind{Group: "waitable.test", Kind: kind}, Namespace: ns, Name: name}
}

func rules(rs ...Rule) []Rule { return rs }

func mustRule(t *testing.T, s string) Rule {
	t.Helper()
	r, err := ParseRule(s)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// Every For rule must hold at once: a widget Ready but Running waits on,
// and says which rule does not hold.
func TestWaitForEveryRuleAtOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		running := widget("a", conditions("Ready", "True"))
		running["status"].(map[string]any)["phase"] = "Running"
		k := newCluster(t, running)
		c := NewClient(k.dyn, ClientOptions{})
		r := req(Condition("Ready", ""), "a")
		r.For = rules(Condition("Ready", ""), mustRule(t, "jsonpath={.status.phase}=Done"))
		r.Timeout = 3 * time.Second
		res, err := c.Wait(t.Context(), r)
		if !errors.Is(err, waiter.ErrTimeout) {
			t.Fatalf("err = %v, want a timeout: the phase is not Done", err)
		}
		if o := res.Objects[0]; len(o.Unmet) != 1 || o.Unmet[0] != "jsonpath={.status.phase}=Done" || o.Reason != "Running" {
			t.Errorf("result %+v, want jsonpath unmet, and its value Running as the reason", o)
		}
		if !strings.Contains(err.Error(), "ns/a: timed out for jsonpath={.status.phase}=Done: Running") {
			t.Errorf("error %q does not say which rule did not hold", err)
		}

		done := widget("a", conditions("Ready", "True"))
		done["status"].(map[string]any)["phase"] = "Done"
		after(2*time.Second, func() { k.update(done) })
		r.Timeout = time.Minute
		start := time.Now()
		res, err = c.Wait(t.Context(), r)
		if err != nil || time.Since(start) != 2*time.Second {
			t.Fatalf("err = %v after %v, want success at the write, 2s", err, time.Since(start))
		}
		if o := res.Objects[0]; o.Rule != "condition=Ready, jsonpath={.status.phase}=Done" || len(o.Unmet) != 0 {
			t.Errorf("result %+v, want both rules as what ended it", o)
		}
	})
}

// Objects of several kinds, namespaced and cluster-scoped, wait in one
// call under one budget, their results in the order the request names
// them.
func TestWaitForObjectsOfSeveralKinds(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		k, mapper := twoKinds(t, widget("a", nil), gadget("g", nil))
		c := NewClient(k.dyn, ClientOptions{Mapper: mapper})
		after(time.Second, func() {
			if _, err := k.dyn.Resource(gadgets).Update(context.Background(),
				&unstructured.Unstructured{Object: gadget("g", conditions("Ready", "True"))}, metav1.UpdateOptions{}); err != nil {
				t.Error(err)
			}
		})
		after(2*time.Second, func() { k.update(widget("a", conditions("Ready", "True"))) })
		var objects []string
		start := time.Now()
		k.create(widget("b", conditions("Ready", "True")))
		res, err := c.Wait(t.Context(), Request{
			Objects:   []Ref{objectRef("Widget", "", "a"), objectRef("Gadget", "", "g"), objectRef("Widget", "", "b")},
			Namespace: "ns", For: rules(Condition("Ready", "")), Timeout: time.Minute,
			OnEvent: func(e Event) {
				if e.End != "" {
					objects = append(objects, resourceName(e.Ref.Resource)+" "+e.Ref.String())
				}
			},
		})
		if err != nil || time.Since(start) != 2*time.Second {
			t.Fatalf("err = %v after %v, want success at 2s", err, time.Since(start))
		}
		var got []string
		for _, o := range res.Objects {
			got = append(got, o.Resource.Resource+" "+o.Ref.String()+" "+o.Decision.String())
		}
		if want := []string{"widgets ns/a success", "gadgets g success", "widgets ns/b success"}; !slices.Equal(got, want) {
			t.Errorf("results %q, want %q", got, want)
		}
		if want := []string{"widgets.waitable.test ns/b", "gadgets.waitable.test g", "widgets.waitable.test ns/a"}; !slices.Equal(objects, want) {
			t.Errorf("events of the ends %q, want %q", objects, want)
		}
	})
}

func TestWaitForObjectsTimesOutNamingEachKind(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		k, mapper := twoKinds(t, widget("a", nil), gadget("g", conditions("Ready", "True")))
		c := NewClient(k.dyn, ClientOptions{Mapper: mapper})
		_, err := c.Wait(t.Context(), Request{
			Objects: []Ref{objectRef("Widget", "ns", "a"), objectRef("Gadget", "", "g")},
			For:     rules(Condition("Ready", "")), Timeout: 5 * time.Second,
		})
		var e *Error
		if !errors.As(err, &e) || !errors.Is(err, waiter.ErrTimeout) || len(e.Objects) != 1 {
			t.Fatalf("err = %v, want a timeout of one object", err)
		}
		if got := err.Error(); got != "kubewait: objects: timed out; widgets.waitable.test ns/a: timed out for condition=Ready: no Ready condition" {
			t.Errorf("error = %q", got)
		}
	})
}

func TestWaitForObjectsRejectsWhatItCannotResolve(t *testing.T) {
	k, mapper := twoKinds(t)
	for _, tc := range []struct {
		name   string
		mapper meta.RESTMapper
		objs   []Ref
		ns     string
		want   []string
	}{
		{name: "no mapper", objs: []Ref{objectRef("Widget", "ns", "a")},
			want: []string{"invalid request", "ClientOptions.Mapper"}},
		{name: "unknown kind", mapper: mapper, objs: []Ref{objectRef("Thing", "ns", "a"), objectRef("Widget", "ns", "b")},
			want: []string{"Objects[0] Thing.waitable.test ns/a", "the server has no kind Thing.waitable.test"}},
		{name: "no namespace", mapper: mapper, objs: []Ref{objectRef("Widget", "", "a")},
			want: []string{"Objects[0] Widget.waitable.test a: a Widget is namespaced, and neither it nor the Request names a namespace"}},
		{name: "named twice", mapper: mapper, objs: []Ref{objectRef("Widget", "ns", "a"), objectRef("Widget", "ns", "a")},
			want: []string{"invalid request", "Objects[1] Widget.waitable.test ns/a is named twice"}},
		{name: "no kind", mapper: mapper, objs: []Ref{{Name: "a"}}, want: []string{"Objects[0] \"a\": no kind"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := NewClient(k.dyn, ClientOptions{Mapper: tc.mapper})
			_, err := c.Wait(t.Context(), Request{Objects: tc.objs, Namespace: tc.ns, For: rules(Created()), Timeout: time.Minute})
			for _, w := range tc.want {
				if err == nil || !strings.Contains(err.Error(), w) {
					t.Errorf("err = %v, want one that says %q", err, w)
				}
			}
		})
	}
}

func TestWaitRejectsDeleteWithOtherRules(t *testing.T) {
	c := NewClient(newCluster(t).dyn, ClientOptions{})
	r := req(Deleted(), "a")
	r.For = rules(Deleted(), Condition("Ready", ""))
	if _, err := c.Wait(t.Context(), r); !errors.Is(err, ErrInvalidRequest) || !strings.Contains(err.Error(), "delete takes no other rule") {
		t.Errorf("err = %v, want ErrInvalidRequest saying delete takes no other rule", err)
	}
}

// A wait by field selector lists and watches with it, as kubectl's
// --field-selector.
func TestWaitByFieldSelector(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		k := newCluster(t, widget("a", conditions("Ready", "True")))
		c := NewClient(k.dyn, ClientOptions{})
		res, err := c.Wait(t.Context(), Request{Resource: widgets, Namespace: "ns", FieldSelector: "metadata.name=a",
			For: rules(Condition("Ready", "")), Timeout: time.Minute})
		if err != nil || len(res.Objects) != 1 || res.Objects[0].Decision != classify.Success {
			t.Fatalf("%v, %+v", err, res.Objects)
		}
		if got := k.selectors("list"); !slices.Equal(got, []string{"fields=metadata.name=a"}) {
			t.Errorf("lists with %q, want the field selector", got)
		}
	})
}

// unreachableMapper is a RESTMapper whose discovery cannot reach the API
// server (a refused connection) until its first down calls are over.
type unreachableMapper struct {
	meta.RESTMapper
	down  int
	calls int
}

func (m *unreachableMapper) RESTMapping(gk schema.GroupKind, versions ...string) (*meta.RESTMapping, error) {
	if m.calls++; m.calls <= m.down {
		return nil, &net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED}
	}
	return m.RESTMapper.RESTMapping(gk, versions...)
}

// The kinds of a request's Objects are mapped again, on the Smithy
// schedule, while the API server cannot be reached (its discovery, as it
// restarts): the wait goes on once it can; one that never can times out
// at its deadline, its error saying why. A kind the server does not have
// fails at once.
func TestObjectsWaitForAnAPIServerThatCannotBeReached(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		k, mapper := twoKinds(t, widget("a", conditions("Ready", "True")))
		for _, tc := range []struct {
			down int
			want func(error) bool
		}{
			{2, func(err error) bool { return err == nil }},
			{1 << 30, func(err error) bool {
				return errors.Is(err, waiter.ErrTimeout) && errors.Is(err, syscall.ECONNREFUSED)
			}},
		} {
			m := &unreachableMapper{RESTMapper: mapper, down: tc.down}
			c := NewClient(k.dyn, ClientOptions{Mapper: m})
			start := time.Now()
			_, err := c.Wait(t.Context(), Request{Objects: []Ref{objectRef("Widget", "ns", "a")},
				For: rules(Condition("Ready", "")), Timeout: time.Minute})
			if !tc.want(err) || (tc.down < 1<<30 && m.calls != tc.down+1) || time.Since(start) > time.Minute {
				t.Errorf("down for %d mappings: %v after %d mappings and %v", tc.down, err, m.calls, time.Since(start))
			}
		}
		c := NewClient(k.dyn, ClientOptions{Mapper: mapper})
		start := time.Now()
		if _, err := c.Wait(t.Context(), Request{Objects: []Ref{objectRef("Thing", "ns", "a")},
			For: rules(Condition("Ready", "")), Timeout: time.Minute}); err == nil || time.Since(start) != 0 {
			t.Errorf("a kind the server does not have: %v after %v, want an error at once", err, time.Since(start))
		}
	})
}
