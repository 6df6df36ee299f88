package main

import (
	"encoding/json"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

// TestKubeOutput: -o name, json, yaml, jsonpath and go-template print
// each object that met --for as kubectl wait -o does (cli-runtime's
// printers, once per --for): its kind and name; the
// object as JSON indented by four spaces; the object as YAML, documents
// separated by ---; without its managedFields.
func TestKubeOutput(t *testing.T) {
	ready := cond("Ready", "True")
	managed := func(name string) map[string]any {
		o := widget(name, ready)
		o["metadata"].(map[string]any)["managedFields"] = []any{map[string]any{"manager": "kubectl", "operation": "Apply"}}
		return o
	}
	run := func(t *testing.T, args ...string) kubeRun {
		c := newFakeCluster(t, managed("a"), managed("b"))
		r := kube(t, t.Context(), c, append([]string{"--for=condition=Ready", "widget/a", "widget/b"}, args...)...)
		if r.code != exitSuccess || strings.Contains(r.stdout, "managedFields") {
			t.Errorf("%v\nwant exit 0, no managedFields", r)
		}
		return r
	}
	t.Run("name", func(t *testing.T) {
		bubble(t, func(t *testing.T) {
			for _, args := range [][]string{{"-o", "name"}, {"--output=name"}, {"-o=NAME"}} {
				if r := run(t, args...); r.stdout != "widget.waitable.test/a\nwidget.waitable.test/b\n" {
					t.Errorf("%q: stdout %q", args, r.stdout)
				}
			}
			// create first, then Ready: each object's line for each --for.
			if r := run(t, "-o", "name", "--for=create"); r.stdout != "widget.waitable.test/a\nwidget.waitable.test/b\nwidget.waitable.test/a\nwidget.waitable.test/b\n" {
				t.Errorf("two --for: stdout %q, want each name twice, once per --for", r.stdout)
			}
		})
	})
	t.Run("jsonpath and go-template", func(t *testing.T) {
		bubble(t, func(t *testing.T) {
			for _, args := range [][]string{
				{"-o", `jsonpath={.metadata.name}{"\n"}`}, {"-o", `go-template={{.metadata.name}}{{"\n"}}`},
				{"-o", "jsonpath", "--template", `{.metadata.name}{"\n"}`},
			} {
				if r := run(t, args...); r.stdout != "a\nb\n" {
					t.Errorf("%q: stdout %q, want a\\nb\\n", args, r.stdout)
				}
			}
		})
	})
	t.Run("json", func(t *testing.T) {
		bubble(t, func(t *testing.T) {
			r := run(t, "-o", "json")
			d := json.NewDecoder(strings.NewReader(r.stdout))
			for _, name := range []string{"a", "b"} {
				var o map[string]any
				if err := d.Decode(&o); err != nil || o["kind"] != "Widget" || o["metadata"].(map[string]any)["name"] != name {
					t.Errorf("object %s: %v, %v", name, err, o)
				}
			}
			if !strings.HasPrefix(r.stdout, "{\n    \"apiVersion\": \"waitable.test/v1\",\n    \"kind\": \"Widget\",\n") || d.More() {
				t.Errorf("stdout\n%s\nwant two objects, indented by four spaces", r.stdout)
			}
		})
	})
	t.Run("yaml", func(t *testing.T) {
		bubble(t, func(t *testing.T) {
			r := run(t, "-o", "yaml")
			docs := strings.Split(r.stdout, "---\n")
			if len(docs) != 2 || !strings.HasPrefix(r.stdout, "apiVersion: waitable.test/v1\nkind: Widget\nmetadata:\n") {
				t.Fatalf("stdout\n%s\nwant two YAML documents", r.stdout)
			}
			for i, name := range []string{"a", "b"} {
				var o map[string]any
				if err := yaml.Unmarshal([]byte(docs[i]), &o); err != nil || o["metadata"].(map[string]any)["name"] != name {
					t.Errorf("document %d: %v, %v", i+1, err, o)
				}
			}
		})
	})
	t.Run("an object already gone", func(t *testing.T) {
		bubble(t, func(t *testing.T) {
			c := newFakeCluster(t)
			r := kube(t, t.Context(), c, "--for=delete", "-o", "json", "widget/gone")
			want := "{\n    \"apiVersion\": \"waitable.test/v1\",\n    \"kind\": \"Widget\",\n    \"metadata\": {\n" +
				"        \"name\": \"gone\",\n        \"namespace\": \"ns\"\n    }\n}\n"
			if r.code != exitSuccess || r.stdout != want {
				t.Errorf("%v\nwant its kind and name as JSON:\n%s", r, want)
			}
		})
	})
	t.Run("usage", func(t *testing.T) {
		bubble(t, func(t *testing.T) {
			c := newFakeCluster(t, widget("a", ready))
			for _, tt := range []struct {
				args []string
				want string
			}{
				{[]string{"-o", "wide"}, `unable to match a printer suitable for the output format "wide", allowed formats are: `},
				{[]string{"-o", "jsonpath={.metadata"}, "unclosed action"},
				{[]string{"-o", "json", "--json"}, "-o and --json: give one of them"},
			} {
				r := kube(t, t.Context(), c, append([]string{"--for=condition=Ready", "widget/a"}, tt.args...)...)
				if r.code != exitUsage || !strings.Contains(r.stderr, tt.want) {
					t.Errorf("%q: %v\nwant exit 64 saying %q", tt.args, r, tt.want)
				}
			}
		})
	})
}
