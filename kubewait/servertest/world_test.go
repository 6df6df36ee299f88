package servertest_test

import (
	"context"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/util/retry"

	"github.com/waitable/waitable/kubewait/servertest/internal/apiserver"
	"github.com/waitable/waitable/kubewait/servertest/internal/waitcmd"
)

// world is what a scenario writes to: the server, straight (unseen by
// the proxy and so by the commands' request counts), and its namespace.
type world struct {
	t     testing.TB
	srv   *apiserver.Server
	ns    string
	procs map[waitcmd.Tool]*waitcmd.Proc // the commands, once started
}

// step is one write of a scenario.
type step func(w *world)

// steps runs each step in turn.
func steps(s ...step) step {
	return func(w *world) {
		for _, f := range s {
			f(w)
		}
	}
}

// inNamespace runs the steps in namespace ns instead of the scenario's.
func inNamespace(ns string, s ...step) step {
	return func(w *world) {
		other := *w
		other.ns = ns
		steps(s...)(&other)
	}
}

// exited waits until tool's command has exited.
func exited(tool waitcmd.Tool) step {
	return func(w *world) { <-w.procs[tool].Exited() }
}

// shown waits until each command has printed a line of standard
// output that contains s, or exited: a step after it happens only once
// both printed the line of what met the rules before it.
func shown(s string) step {
	return func(w *world) {
		for _, p := range w.procs {
			p.WaitStdout(context.Background(), s)
		}
	}
}

// create creates widgets with no labels.
func create(names ...string) step {
	return func(w *world) {
		for _, n := range names {
			w.srv.CreateWidget(w.t, w.ns, n, nil)
		}
	}
}

// label creates the widget name with labels "k=v,k=v".
func label(name, labels string) step {
	return func(w *world) {
		m := map[string]string{}
		for kv := range strings.SplitSeq(labels, ",") {
			k, v, _ := strings.Cut(kv, "=")
			m[k] = v
		}
		w.srv.CreateWidget(w.t, w.ns, name, m)
	}
}

// cond sets a widget's condition, as its controller would.
func cond(name, condType, status string) step {
	return func(w *world) { w.srv.SetCondition(w.t, w.ns, name, condType, status, "Test", "set by the test") }
}

// field sets a widget's status field, as its controller would.
func field(name, path string, value any) step {
	return func(w *world) { w.srv.SetStatusField(w.t, w.ns, name, path, value) }
}

// remove deletes a widget.
func remove(name string) step {
	return func(w *world) { w.srv.DeleteWidget(w.t, w.ns, name) }
}

// dynamicClient is a client straight to the API server, for what the
// server's own methods do not write.
func (w *world) dynamicClient() dynamic.Interface {
	w.t.Helper()
	c, err := dynamic.NewForConfig(w.srv.Direct)
	if err != nil {
		w.t.Fatal(err)
	}
	return c
}

// bumpGeneration changes a widget's spec, as a user would: its
// metadata.generation goes up.
func bumpGeneration(name string) step {
	return func(w *world) {
		widgets := w.dynamicClient().Resource(apiserver.WidgetResource).Namespace(w.ns)
		err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
			o, err := widgets.Get(context.Background(), name, metav1.GetOptions{})
			if err != nil {
				return err
			}
			if err := unstructured.SetNestedField(o.Object, time.Now().String(), "spec", "changed"); err != nil {
				return err
			}
			_, err = widgets.Update(context.Background(), o, metav1.UpdateOptions{})
			return err
		})
		if err != nil {
			w.t.Fatalf("bump the generation of %s/%s: %v", w.ns, name, err)
		}
	}
}

// createGadget creates the cluster-scoped gadget name.
func createGadget(name string) step {
	return func(w *world) {
		g := &unstructured.Unstructured{Object: map[string]any{"spec": map[string]any{}}}
		g.SetAPIVersion(apiserver.GadgetResource.GroupVersion().String())
		g.SetKind("Gadget")
		g.SetName(name)
		if _, err := w.dynamicClient().Resource(apiserver.GadgetResource).Create(context.Background(), g, metav1.CreateOptions{}); err != nil {
			w.t.Fatalf("create gadget %s: %v", name, err)
		}
	}
}

// gadgetCond sets the only condition of the gadget name.
func gadgetCond(name, condType, status string) step {
	return func(w *world) {
		gadgets := w.dynamicClient().Resource(apiserver.GadgetResource)
		err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
			g, err := gadgets.Get(context.Background(), name, metav1.GetOptions{})
			if err != nil {
				return err
			}
			g.Object["status"] = map[string]any{"conditions": []any{map[string]any{
				"type": condType, "status": status, "reason": "Test", "message": "set by the test",
				"lastTransitionTime": time.Now().UTC().Format(time.RFC3339),
			}}}
			_, err = gadgets.UpdateStatus(context.Background(), g, metav1.UpdateOptions{})
			return err
		})
		if err != nil {
			w.t.Fatalf("gadget %s: update status: %v", name, err)
		}
	}
}
