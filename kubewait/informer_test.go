package kubewait

import (
	"fmt"
	"slices"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"k8s.io/apimachinery/pkg/runtime"
	k8stesting "k8s.io/client-go/testing"
)

// A wait for one named object asks the server for that object alone: a
// list and a watch with a metadata.name field selector, as kubectl wait
// asks (and as an RBAC grant of resourceNames allows).
func TestWaitAsksForANamedObjectByName(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		// The target turns ready only after the wait has begun, so that the
		// wait's watch is asked for (a target ready at once could end the
		// wait on the list, before the watch).
		k := newCluster(t, widget("target", conditions("Ready", "False")), widget("other", nil))
		c := NewClient(k.dyn, ClientOptions{})
		after(3*time.Second, func() { k.update(widget("target", conditions("Ready", "True"))) })
		if _, err := c.Wait(t.Context(), req(Condition("Ready", ""), "target")); err != nil {
			t.Fatal(err)
		}
		want := []string{"fields=metadata.name=target"}
		if l, w := k.selectors("list"), k.selectors("watch"); !slices.Equal(l, want) || !slices.Equal(w, want) {
			t.Errorf("lists %q and watches %q, want one each of %q", l, w, want)
		}
	})
}

// Beyond namedLimit objects of one resource and namespace, a request's
// objects share the namespace's list and watch.
func TestManyNamedObjectsShareTheNamespacesInformer(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var objs []Object
		var names []string
		for i := range namedLimit + 1 {
			n := fmt.Sprintf("w%02d", i)
			objs = append(objs, widget(n, conditions("Ready", "True")))
			names = append(names, n)
		}
		k := newCluster(t, objs...)
		c := NewClient(k.dyn, ClientOptions{})
		if _, err := c.Wait(t.Context(), req(Condition("Ready", ""), names...)); err != nil {
			t.Fatal(err)
		}
		if l, w := k.selectors("list"), k.selectors("watch"); !slices.Equal(l, []string{""}) || !slices.Equal(w, []string{""}) {
			t.Errorf("lists %q and watches %q, want one of the namespace each", l, w)
		}
		names = names[:namedLimit]
		k.dyn.ClearActions()
		if _, err := c.Wait(t.Context(), req(Condition("Ready", ""), names...)); err != nil {
			t.Fatal(err)
		}
		if l := k.selectors("list"); len(l) != namedLimit {
			t.Errorf("%d lists for %d names, want one each", len(l), namedLimit)
		}
	})
}

// The waits of one Client watch at most namedLimit objects of a resource
// and namespace by name; the waits beyond, and every named wait once the
// Client watches the namespace, share the namespace's informer.
func TestWaitsOfAClientShareTheNamespaceBeyondTheLimit(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const n = 3 * namedLimit
		var objs []Object
		for i := range n {
			objs = append(objs, widget(fmt.Sprintf("w%02d", i), nil))
		}
		k := newCluster(t, objs...)
		c := NewClient(k.dyn, ClientOptions{})
		var wg sync.WaitGroup
		for i := range n {
			wg.Go(func() {
				if _, err := c.Wait(t.Context(), req(Condition("Ready", ""), fmt.Sprintf("w%02d", i))); err != nil {
					t.Error(err)
				}
			})
		}
		synctest.Wait()
		lists := k.selectors("list")
		byName := len(lists) - len(slices.DeleteFunc(slices.Clone(lists), func(s string) bool { return s != "" }))
		if byName != namedLimit || len(lists) != namedLimit+1 {
			t.Errorf("lists %q: want %d by name and one of the namespace", lists, namedLimit)
		}
		for i := range n {
			k.update(widget(fmt.Sprintf("w%02d", i), conditions("Ready", "True")))
		}
		wg.Wait()
		synctest.Wait()
		if len(c.informers) != 0 {
			t.Errorf("%d informers left after the last wait", len(c.informers))
		}
	})
}

// A LIST asks for pages of 500 (client-go's pager's) and follows each
// page's continue token.
func TestListPages(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		k := newCluster(t)
		var asked []string
		k.dyn.PrependReactor("list", "widgets", func(a k8stesting.Action) (bool, runtime.Object, error) {
			opts := a.(k8stesting.ListActionImpl).ListOptions
			asked = append(asked, fmt.Sprintf("limit=%d continue=%s", opts.Limit, opts.Continue))
			if opts.Continue == "" {
				return true, listPage("p2", ready("a")), nil
			}
			return true, listPage("", ready("b"), ready("c")), nil
		})
		c := NewClient(k.dyn, ClientOptions{})
		res, err := c.Wait(t.Context(), Request{Resource: widgets, Namespace: "ns", All: true,
			For: rules(Condition("Ready", "")), Timeout: time.Minute})
		if err != nil || len(res.Objects) != 3 {
			t.Fatalf("%v, %d objects; want 3 ready", err, len(res.Objects))
		}
		if want := []string{"limit=500 continue=", "limit=500 continue=p2"}; !slices.Equal(asked, want) {
			t.Errorf("lists asked %q, want %q", asked, want)
		}
	})
}

// The informer keeps no managedFields (often most of an object's bytes),
// and a result's object is the caller's own copy: changing it changes
// nothing another wait reads.
func TestCacheKeepsNoManagedFieldsAndResultsAreCopies(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		managed := func(o Object) Object {
			o["metadata"].(map[string]any)["managedFields"] = []any{map[string]any{"manager": "kubectl", "operation": "Apply"}}
			return o
		}
		k := newCluster(t, managed(widget("a", conditions("Ready", "False"))))
		c := NewClient(k.dyn, ClientOptions{})
		second := make(chan Result, 1)
		go func() {
			res, _ := c.Wait(t.Context(), req(Condition("Ready", ""), "a"))
			second <- res
		}()
		r := req(Condition("Ready", "False"), "a")
		res, err := c.Wait(t.Context(), r)
		if err != nil {
			t.Fatal(err)
		}
		synctest.Wait()
		for key, inf := range c.informers {
			inf.mu.Lock()
			for name, o := range inf.objs {
				if _, ok := o["metadata"].(map[string]any)["managedFields"]; ok {
					t.Errorf("informer %v keeps %s with its managedFields", key, name)
				}
			}
			inf.mu.Unlock()
		}
		obj := res.Objects[0].Object
		if _, ok := obj["metadata"].(map[string]any)["managedFields"]; ok {
			t.Error("the result's object has managedFields")
		}
		// The caller marks its copy Ready: the other wait, on the same
		// informer, must not see it.
		obj["status"] = conditions("Ready", "True")
		time.Sleep(10 * time.Second)
		k.update(managed(widget("a", conditions("Ready", "False", "Synced", "True"))))
		time.Sleep(10 * time.Second)
		k.update(widget("a", conditions("Ready", "True")))
		if res := <-second; res.Elapsed != 20*time.Second {
			t.Errorf("the other wait ended after %v, want 20s: at the write, not at the caller's change", res.Elapsed)
		}
	})
}

// A named wait of a Client that watches the namespace already joins that
// watch: no request of its own.
func TestNamedWaitJoinsTheNamespacesInformer(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		k := newCluster(t, widget("a", nil), widget("b", conditions("Ready", "True")))
		c := NewClient(k.dyn, ClientOptions{})
		all := make(chan error, 1)
		go func() {
			_, err := c.Wait(t.Context(), Request{Resource: widgets, Namespace: "ns", All: true,
				For: rules(Condition("Ready", "")), Timeout: time.Minute})
			all <- err
		}()
		synctest.Wait()
		k.dyn.ClearActions()
		if _, err := c.Wait(t.Context(), req(Condition("Ready", ""), "b")); err != nil {
			t.Fatal(err)
		}
		if n := len(k.dyn.Actions()); n != 0 {
			t.Errorf("the named wait made %d requests, want none: the namespace is watched", n)
		}
		k.update(widget("a", conditions("Ready", "True")))
		if err := <-all; err != nil {
			t.Fatal(err)
		}
	})
}
