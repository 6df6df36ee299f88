package main

import (
	"strings"
	"testing"
	"time"

	k8stesting "k8s.io/client-go/testing"
)

// merged merges statuses (cond's, {"phase": …}) into one.
func merged(parts ...map[string]any) map[string]any {
	s := map[string]any{}
	for _, p := range parts {
		for k, v := range p {
			s[k] = v
		}
	}
	return s
}

func phase(p string) map[string]any { return map[string]any{"phase": p} }

// TestKubeSeveralFor: several --for are waited for one after another, in
// order, as kubectl 1.36 does (create first): --for=condition=Ready=false
// --for=condition=Ready holds of an object that goes not ready, then
// ready. Each object prints kubectl's line as it meets each --for; on a
// timeout the summary names the rule waited for then.
func TestKubeSeveralFor(t *testing.T) {
	t.Run("in order", func(t *testing.T) {
		bubble(t, func(t *testing.T) {
			c := newFakeCluster(t, widget("a", cond("Ready", "True")))
			after(2*time.Second, func() { c.write(widgets, widget("a", cond("Ready", "False")), false) })
			after(4*time.Second, func() { c.write(widgets, widget("a", cond("Ready", "True")), false) })
			r := kube(t, t.Context(), c, "--for=condition=Ready=false", "--for=condition=Ready", "widget/a")
			if r.code != exitSuccess || r.took != 4*time.Second ||
				r.stdout != "widget.waitable.test/a condition met\nwidget.waitable.test/a condition met\n" {
				t.Errorf("%v\nwant exit 0 after 4s, a line per --for", r)
			}
		})
	})
	t.Run("create first", func(t *testing.T) {
		bubble(t, func(t *testing.T) {
			c := newFakeCluster(t)
			after(2*time.Second, func() { c.write(widgets, widget("a", merged(cond("Ready", "True"), phase("Done"))), true) })
			r := kube(t, t.Context(), c, "--for=jsonpath={.status.phase}=Done", "--for=create", "widget/a")
			if r.code != exitSuccess || r.took != 2*time.Second || strings.Count(r.stdout, "condition met") != 2 {
				t.Errorf("%v\nwant exit 0 after 2s, a line per --for", r)
			}
		})
	})
	t.Run("not met", func(t *testing.T) {
		bubble(t, func(t *testing.T) {
			c := newFakeCluster(t, widget("a", merged(cond("Ready", "True"), phase("Running"))), widget("b", merged(cond("Ready", "True"), phase("Done"))))
			r := kube(t, t.Context(), c, "--for=condition=Ready", "--for=jsonpath={.status.phase}=Done", "--timeout=5s", "widget/a", "widget/b")
			want := "waitable: timeout after 5s, waiting for jsonpath={.status.phase}=Done:\n" +
				"  widget.waitable.test/a: not met (Running)\n" +
				"  widget.waitable.test/b: met (Done)\n" +
				"waitable kube: timed out waiting for the condition on widgets/a\n"
			if r.code != exitTimeout || strings.Count(r.stdout, "condition met") != 3 || !strings.HasSuffix(r.stderr, want) {
				t.Errorf("%v\nwant exit 2, three lines on stdout, stderr ending\n%s", r, want)
			}
		})
	})
}

// TestKubeFieldSelector: --field-selector, as kubectl's, selects the
// objects by their fields: the wait's list and watch ask the server for
// it (with -l, for both).
func TestKubeFieldSelector(t *testing.T) {
	bubble(t, func(t *testing.T) {
		c := newFakeCluster(t, widget("a", cond("Ready", "True"), "app", "web"))
		r := kube(t, t.Context(), c, "--for=condition=Ready", "--field-selector", "metadata.name=a", "-l", "app=web", "widget")
		if r.code != exitSuccess || r.stdout != "widget.waitable.test/a condition met\n" {
			t.Fatalf("%v\nwant exit 0", r)
		}
		asked := 0
		for _, a := range c.dyn.Actions() {
			if l, ok := a.(k8stesting.ListAction); ok {
				got := l.GetListRestrictions()
				if got.Fields.String() != "metadata.name=a" || got.Labels.String() != "app=web" {
					t.Errorf("%s asked for fields %q, labels %q", a.GetVerb(), got.Fields, got.Labels)
				}
				asked++
			}
		}
		if asked == 0 {
			t.Error("no list or watch")
		}
		for _, args := range [][]string{{"--field-selector", "metadata.name=a", "widget/a"}, {"--field-selector", "a==b==c", "widget"}} {
			if r := kube(t, t.Context(), c, append([]string{"--for=condition=Ready"}, args...)...); r.code != exitUsage {
				t.Errorf("%q: %v\nwant exit 64", args, r)
			}
		}
		if r := kube(t, t.Context(), c, "--for=condition=Ready", "--field-selector", "metadata.name=a", "--count", "1", "widget"); r.code != exitSuccess {
			t.Errorf("--count with --field-selector: %v", r)
		}
	})
}
