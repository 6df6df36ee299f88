package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"
)

// clockedWriter is standard output that remembers when each write came,
// on the bubble's clock.
type clockedWriter struct {
	mu    sync.Mutex
	start time.Time
	at    []time.Duration
	data  [][]byte
}

func (w *clockedWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.at = append(w.at, time.Since(w.start))
	w.data = append(w.data, bytes.Clone(p))
	return len(p), nil
}

// by is what was written by d from the start.
func (w *clockedWriter) by(d time.Duration) string {
	w.mu.Lock()
	defer w.mu.Unlock()
	var b strings.Builder
	for i, at := range w.at {
		if at <= d {
			b.Write(w.data[i])
		}
	}
	return b.String()
}

// kubeClocked runs waitable kube on c as kube does, its standard output
// a clockedWriter.
func kubeClocked(t *testing.T, c *fakeCluster, args ...string) (kubeRun, *clockedWriter) {
	t.Helper()
	out := &clockedWriter{start: time.Now()}
	var stderr bytes.Buffer
	code, err := kubeCommand(t.Context(), args, strings.NewReader(""), out, &stderr, c.connect)
	code = exitStatus("kube", code, err, &stderr)
	return kubeRun{code, out.by(time.Since(out.start)), stderr.String(), time.Since(out.start)}, out
}

// TestKubeLinesAsObjectsMeet: each object's line goes out on standard
// output as the object meets --for, as kubectl's does, not when the
// wait ends, in kubectl's order (it waits for one after another): the
// named ones in the order named, a selector's by name, and with every -o printer the object as it
// was when it met the rule, not as it was later.
func TestKubeLinesAsObjectsMeet(t *testing.T) {
	ready := cond("Ready", "True")
	for _, tt := range []struct {
		name string
		args []string
		want string // stdout at 3 s
	}{
		{"a selector", []string{"-l", "app=web", "widget"}, "widget.waitable.test/a condition met\n"},
		{"a selector, -o name", []string{"--all", "widget", "-o", "name"}, "widget.waitable.test/a\n"},
		{"named, -o jsonpath", []string{"widget/a", "widget/b", "-o", `jsonpath={.metadata.name} {.metadata.annotations}{"\n"}`}, "a \n"},
		{"a selector, -o go-template", []string{"-l", "app=web", "widget", "-o", `go-template={{.metadata.name}} {{.metadata.annotations}}{{"\n"}}`}, "a <no value>\n"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			bubble(t, func(t *testing.T) {
				c := newFakeCluster(t, widget("a", nil, "app", "web"), widget("b", nil, "app", "web"))
				after(3*time.Second, func() { c.write(widgets, widget("a", ready, "app", "web"), false) })
				after(4*time.Second, func() {
					a := widget("a", ready, "app", "web")
					a["metadata"].(map[string]any)["annotations"] = map[string]any{"later": "yes"}
					c.write(widgets, a, false)
				})
				r, out := kubeClocked(t, c, append([]string{"--for=condition=Ready", "--timeout=10s"}, tt.args...)...)
				if r.code != exitTimeout || r.took != 10*time.Second {
					t.Fatalf("%v\nwant a timeout after 10s (b never ready)", r)
				}
				if got := out.by(3 * time.Second); got != tt.want {
					t.Errorf("stdout at 3s %q, want %q: the line of an object as it met --for", got, tt.want)
				}
				if r.stdout != tt.want {
					t.Errorf("stdout at the end %q, want %q only: the object as it met the rule, once", r.stdout, tt.want)
				}
			})
		})
	}
	for _, objects := range [][]string{{"widget/a", "widget/b"}, {"widget", "-l", "app=web"}} {
		t.Run("-o json "+strings.Join(objects, " "), func(t *testing.T) { behindA(t, objects) })
	}
}

// behindA: b, met before a, waits for a, before it in kubectl's order
// (named first, or by name among a selector's objects).
func behindA(t *testing.T, objects []string) {
	ready := cond("Ready", "True")
	bubble(t, func(t *testing.T) {
		c := newFakeCluster(t, widget("a", nil, "app", "web"), widget("b", nil, "app", "web"))
		after(2*time.Second, func() { c.write(widgets, widget("b", ready, "app", "web"), false) })
		after(5*time.Second, func() { c.write(widgets, widget("a", ready, "app", "web"), false) })
		r, out := kubeClocked(t, c, append([]string{"--for=condition=Ready", "-o", "json"}, objects...)...)
		if r.code != exitSuccess || r.took != 5*time.Second {
			t.Fatalf("%v\nwant exit 0 after 5s", r)
		}
		if got := out.by(4 * time.Second); got != "" {
			t.Errorf("stdout at 4s %q, want none: b waits for a, before it in kubectl's order", got)
		}
		names := []string{}
		for d := json.NewDecoder(strings.NewReader(out.by(5 * time.Second))); d.More(); {
			var o struct {
				Metadata struct{ Name string }
				Status   struct{ Conditions []any }
			}
			if err := d.Decode(&o); err != nil || len(o.Status.Conditions) != 1 {
				t.Fatalf("%v, %+v: want each object as it met the rule", err, o)
			}
			names = append(names, o.Metadata.Name)
		}
		if strings.Join(names, " ") != "a b" {
			t.Errorf("objects %q at 5s, want a b", names)
		}
	})
}
