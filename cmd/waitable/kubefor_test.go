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

// TestKubeSeveralFor: several --for must all hold of an object at once
// (kubectl 1.36 and later wait for every --for); the object then prints
// kubectl's line once per --for, as kubectl does, in either order; on a
// timeout the summary names the rules that did not hold.
func TestKubeSeveralFor(t *testing.T) {
	ready := cond("Ready", "True")
	for _, order := range [][]string{
		{"--for=jsonpath={.status.phase}=Done", "--for=condition=Ready"},
		{"--for=condition=Ready", "--for=jsonpath={.status.phase}=Done"},
	} {
		t.Run(strings.Join(order, " "), func(t *testing.T) {
			bubble(t, func(t *testing.T) {
				c := newFakeCluster(t, widget("a", merged(ready, phase("Running"))))
				after(3*time.Second, func() { c.write(widgets, widget("a", merged(ready, phase("Done"))), false) })
				r := kube(t, t.Context(), c, append(order, "widget/a")...)
				if r.code != exitSuccess || r.took != 3*time.Second ||
					r.stdout != "widget.waitable.test/a condition met\nwidget.waitable.test/a condition met\n" {
					t.Errorf("%v\nwant exit 0 after 3s, the line twice", r)
				}
				rules := strings.Join([]string{strings.TrimPrefix(order[0], "--for="), strings.TrimPrefix(order[1], "--for=")}, ", ")
				if !strings.Contains(r.stderr, "waitable: success after 3s: 1 object met "+rules+"\n") {
					t.Errorf("stderr lacks the success naming %s:\n%s", rules, r.stderr)
				}
			})
		})
	}
	t.Run("at once", func(t *testing.T) {
		bubble(t, func(t *testing.T) {
			c := newFakeCluster(t, widget("a", merged(ready, phase("Running"))))
			// Done, but no longer Ready; then Ready again.
			after(2*time.Second, func() { c.write(widgets, widget("a", merged(cond("Ready", "False"), phase("Done"))), false) })
			after(4*time.Second, func() { c.write(widgets, widget("a", merged(ready, phase("Done"))), false) })
			r := kube(t, t.Context(), c, "--for=condition=Ready", "--for=jsonpath={.status.phase}=Done", "widget/a")
			if r.code != exitSuccess || r.took != 4*time.Second {
				t.Errorf("%v\nwant exit 0 after 4s, when both hold", r)
			}
		})
	})
	t.Run("not met", func(t *testing.T) {
		bubble(t, func(t *testing.T) {
			c := newFakeCluster(t, widget("a", merged(ready, phase("Running"))), widget("b", phase("Done")))
			r := kube(t, t.Context(), c, "--for=condition=Ready", "--for=jsonpath={.status.phase}=Done", "--timeout=5s", "widget/a", "widget/b")
			want := "waitable: timeout after 5s, waiting for condition=Ready, jsonpath={.status.phase}=Done:\n" +
				"  widget.waitable.test/a: not met: jsonpath={.status.phase}=Done (Running)\n" +
				"  widget.waitable.test/b: not met: condition=Ready (no Ready condition)\n"
			if r.code != exitTimeout || r.stdout != "" || !strings.HasSuffix(r.stderr, want) {
				t.Errorf("%v\nwant exit 2, nothing on stdout, stderr ending\n%s", r, want)
			}
		})
	})
	t.Run("delete takes no other", func(t *testing.T) {
		bubble(t, func(t *testing.T) {
			c := newFakeCluster(t, widget("a", nil))
			r := kube(t, t.Context(), c, "--for=create", "--for=Delete", "widget/a")
			if r.code != exitUsage || !strings.Contains(r.stderr, "--for=delete takes no other --for") {
				t.Errorf("%v\nwant exit 64", r)
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
