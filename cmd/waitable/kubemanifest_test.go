package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// writeFiles writes files (a path under the folder, and its text) into a
// new temporary folder, and returns the folder.
func writeFiles(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, text := range files {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// widgetYAML is the manifest of the widget name (in the context's
// namespace unless ns is given).
func widgetYAML(name, ns string) string {
	s := "apiVersion: waitable.test/v1\nkind: Widget\nmetadata:\n  name: " + name + "\n"
	if ns != "" {
		s += "  namespace: " + ns + "\n"
	}
	return s
}

// TestKubeFilename: -f reads objects of any kinds as kubectl wait's -f
// does (a file of YAML documents or JSON values, a List flattened, a
// directory's .json, .yaml and .yml files, its subfolders' too unless
// -R=false, - for standard input, a glob pattern), and waits for them all in one wait, printing
// them in the manifest's order.
func TestKubeFilename(t *testing.T) {
	ready := cond("Ready", "True")
	app := "# a widget, a gizmo (cluster-scoped), another widget\n" + widgetYAML("a", "") +
		"---\napiVersion: waitable.test/v1\nkind: Gizmo\nmetadata:\n  name: g\n---\n" + widgetYAML("b", "ns") + "---\n"
	list := `{"apiVersion": "v1", "kind": "List", "items": [
		{"apiVersion": "waitable.test/v1", "kind": "Widget", "metadata": {"name": "b"}},
		{"apiVersion": "waitable.test/v1", "kind": "Widget", "metadata": {"name": "a"}}]}`
	dir := writeFiles(t, map[string]string{
		"app.yaml":             app,
		"list.json":            list,
		"stream.json":          `{"apiVersion": "waitable.test/v1", "kind": "Widget", "metadata": {"name": "b"}} {"apiVersion": "waitable.test/v1", "kind": "Widget", "metadata": {"name": "a"}}`,
		"d/1.yaml":             widgetYAML("b", ""),
		"d/2.yml":              widgetYAML("a", ""),
		"d/notes.txt":          "not a manifest: a directory's other files are not read",
		"d/sub/3.json":         `{"apiVersion": "waitable.test/v1", "kind": "Widget", "metadata": {"name": "c"}}`,
		"named-anyhow.txt":     widgetYAML("c", ""),
		"k/kustomization.yaml": "resources:\n- w.yaml\n",
		"k/w.yaml":             widgetYAML("b", ""),
	})
	for _, tt := range []struct {
		name  string
		args  []string
		stdin string
		want  []string
	}{
		{"multi-document YAML", []string{"-f", "app.yaml"}, "", []string{"widget.waitable.test/a", "gizmo.waitable.test/g", "widget.waitable.test/b"}},
		{"a List", []string{"-f", "list.json"}, "", []string{"widget.waitable.test/b", "widget.waitable.test/a"}},
		{"JSON values one after another", []string{"--filename", "stream.json"}, "", []string{"widget.waitable.test/b", "widget.waitable.test/a"}},
		{"a directory, its subfolders too", []string{"-f", "d"}, "", []string{"widget.waitable.test/b", "widget.waitable.test/a", "widget.waitable.test/c"}},
		{"a directory, -R", []string{"-f", "d", "-R"}, "", []string{"widget.waitable.test/b", "widget.waitable.test/a", "widget.waitable.test/c"}},
		{"a directory, -R=false", []string{"-f", "d", "-R=false"}, "", []string{"widget.waitable.test/b", "widget.waitable.test/a"}},
		{"a directory, --recursive=false", []string{"--recursive=false", "-f", "d"}, "", []string{"widget.waitable.test/b", "widget.waitable.test/a"}},
		{"standard input", []string{"-f", "-"}, app, []string{"widget.waitable.test/a", "gizmo.waitable.test/g", "widget.waitable.test/b"}},
		{"a glob pattern", []string{"-f", "d/*.y*ml"}, "", []string{"widget.waitable.test/b", "widget.waitable.test/a"}},
		{"a file named, whatever its extension", []string{"-f", "named-anyhow.txt"}, "", []string{"widget.waitable.test/c"}},
		{"a kustomization", []string{"-k", "k"}, "", []string{"widget.waitable.test/b"}},
		{"several -f, each object once", []string{"-f", "list.json", "-f", "d/2.yml"}, "", []string{"widget.waitable.test/b", "widget.waitable.test/a"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			bubble(t, func(t *testing.T) {
				c := newFakeCluster(t, widget("a", ready), widget("b", ready), widget("c", ready), object("Gizmo", "", "g", ready))
				args := []string{"--for=condition=Ready"}
				for i, a := range tt.args {
					if i > 0 && (tt.args[i-1] == "-f" || tt.args[i-1] == "--filename" || tt.args[i-1] == "-k") && a != "-" {
						a = filepath.Join(dir, a)
					}
					args = append(args, a)
				}
				r := kubeStdin(t, t.Context(), c, tt.stdin, args...)
				want := strings.Join(tt.want, " condition met\n") + " condition met\n"
				if r.code != exitSuccess || r.stdout != want {
					t.Errorf("%v\nwant exit 0 and stdout\n%s", r, want)
				}
			})
		})
	}
}

// TestKubeFilenameOneBudget: a manifest's objects, of several kinds, are
// one wait under one budget: it ends at --timeout, each object's outcome
// reported.
func TestKubeFilenameOneBudget(t *testing.T) {
	bubble(t, func(t *testing.T) {
		dir := writeFiles(t, map[string]string{"app.yaml": widgetYAML("a", "") +
			"---\napiVersion: waitable.test/v1\nkind: Gizmo\nmetadata:\n  name: g\n"})
		c := newFakeCluster(t, widget("a", nil), object("Gizmo", "", "g", nil))
		after(4*time.Second, func() { c.write(widgets, widget("a", cond("Ready", "True")), false) })
		r := kube(t, t.Context(), c, "-f", filepath.Join(dir, "app.yaml"), "--for=condition=Ready", "--timeout=10s")
		if r.code != exitTimeout || r.took != 10*time.Second || r.stdout != "widget.waitable.test/a condition met\n" ||
			!strings.HasSuffix(r.stderr, "waitable: timeout after 10s, waiting for condition=Ready:\n"+
				"  widget.waitable.test/a: met (ReadyReason: Ready message)\n  gizmo.waitable.test/g: not met (no Ready condition)\n"+
				"waitable kube: timed out waiting for the condition on gizmos/g\n") {
			t.Errorf("%v\nwant a timeout after 10s, a met, g in the summary", r)
		}
	})
}

// TestKubeFilenameNamespace: a manifest's namespaced object without a
// namespace is in -n's (or the context's); one with another namespace
// than -n's is refused, as kubectl refuses it; a cluster-scoped object's
// namespace is ignored.
func TestKubeFilenameNamespace(t *testing.T) {
	bubble(t, func(t *testing.T) {
		ready := cond("Ready", "True")
		dir := writeFiles(t, map[string]string{
			"none.yaml":  widgetYAML("a", ""),
			"team.yaml":  widgetYAML("a", "team"),
			"gizmo.yaml": "apiVersion: waitable.test/v1\nkind: Gizmo\nmetadata:\n  name: g\n  namespace: anywhere\n",
		})
		c := newFakeCluster(t, object("Widget", "team", "a", ready), object("Gizmo", "", "g", ready))
		for _, args := range [][]string{
			{"-f", "none.yaml", "-n", "team"}, {"-f", "team.yaml"}, {"-f", "team.yaml", "-n", "team"}, {"-f", "gizmo.yaml", "-n", "team"},
		} {
			args[1] = filepath.Join(dir, args[1])
			if r := kube(t, t.Context(), c, append(args, "--for=condition=Ready")...); r.code != exitSuccess {
				t.Errorf("%q: %v\nwant exit 0", args, r)
			}
		}
		r := kube(t, t.Context(), c, "-f", filepath.Join(dir, "team.yaml"), "-n", "other", "--for=condition=Ready")
		want := `the namespace from the provided object "team" does not match the namespace "other". ` +
			`You must pass '--namespace=team' to perform this operation.`
		if r.code != exitUsage || !strings.Contains(r.stderr, want) {
			t.Errorf("-n other: %v\nwant exit 64 saying %s", r, want)
		}
	})
}

// TestKubeFilenameBadInput: a manifest that cannot be read, or names an
// object waitable cannot wait for, is bad input (64), before any wait,
// in kubectl's words (cli-runtime's resource builder reads it).
func TestKubeFilenameBadInput(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"ok.yaml":      widgetYAML("a", ""),
		"syntax.yaml":  widgetYAML("a", "") + "---\nkind: Widget\nmetadata: [name: b\n",
		"nokind.yaml":  widgetYAML("a", "") + "---\napiVersion: waitable.test/v1\nmetadata:\n  name: b\n",
		"noname.json":  `{"apiVersion": "waitable.test/v1", "kind": "Widget", "metadata": {"generateName": "w-"}}`,
		"item.yaml":    "apiVersion: v1\nkind: List\nitems:\n- apiVersion: waitable.test/v1\n  kind: Widget\n  metadata:\n    name: a\n- name: b\n",
		"scalar.yaml":  "just words\n",
		"empty.yaml":   "# nothing here\n---\n",
		"thing.yaml":   "apiVersion: waitable.test/v1\nkind: Thing\nmetadata:\n  name: t\n",
		"d/notes.txt":  "no manifest here",
		"version.yaml": "apiVersion: a/b/c\nkind: Widget\nmetadata:\n  name: a\n",
		"group.yaml":   "apiVersion: waitable.test/\nkind: Widget\nmetadata:\n  name: a\n",
	})
	in := func(name string) string { return filepath.Join(dir, name) }
	forReady := "--for=condition=Ready"
	for _, tt := range []struct {
		name  string
		args  []string
		stdin string
		want  []string
	}{
		{"a missing file", []string{"-f", in("none.yaml")}, "", []string{`the path "` + in("none.yaml") + `" does not exist`}},
		{"a YAML error", []string{"-f", in("syntax.yaml")}, "", []string{"error parsing " + in("syntax.yaml") + ": error converting YAML to JSON: yaml: line 2"}},
		{"no kind", []string{"-f", in("nokind.yaml")}, "", []string{`unable to decode "` + in("nokind.yaml") + `": Object 'Kind' is missing`}},
		{"no name", []string{"-f", in("noname.json")}, "", []string{in("noname.json") + ": Widget.waitable.test with no metadata.name"}},
		{"a List's item", []string{"-f", in("item.yaml")}, "", []string{"Object 'Kind' is missing"}},
		{"not an object", []string{"-f", in("scalar.yaml")}, "", []string{`unable to decode "` + in("scalar.yaml") + `"`}},
		{"no objects", []string{"-f", in("empty.yaml")}, "", []string{"no objects: " + in("empty.yaml")}},
		{"a directory with no manifest", []string{"-f", in("d")}, "", []string{"error reading [" + in("d") + "]: recognized file extensions are [.json .yaml .yml]"}},
		{"a bad apiVersion", []string{"-f", in("version.yaml")}, "", []string{`unable to decode "` + in("version.yaml") + `"`}},
		{"standard input's error", []string{"-f", "-"}, "kind: Widget\n", []string{`from "STDIN": no matches for kind "Widget"`}},
		{"a URL that cannot be read", []string{"-f", "http://127.0.0.1:1/app.yaml"}, "", []string{`Get "http://127.0.0.1:1/app.yaml"`}},
		{"a kind the server does not have", []string{"-f", in("thing.yaml")}, "",
			[]string{`resource mapping not found for name: "t" namespace: "" from "` + in("thing.yaml") + `": no matches for kind "Thing" in version "waitable.test/v1"`}},
		{"-f and TYPE arguments", []string{"-f", in("ok.yaml"), "widget/b"}, "", []string{"resource/name arguments cannot be provided when a path is specified"}},
		{"-f and -l, matching none", []string{"-f", in("ok.yaml"), "-l", "app=web"}, "", []string{"no objects: " + in("ok.yaml")}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			bubble(t, func(t *testing.T) {
				c := newFakeCluster(t, widget("a", cond("Ready", "True")))
				r := kubeStdin(t, t.Context(), c, tt.stdin, append(tt.args, forReady)...)
				if r.code != exitUsage || r.stdout != "" {
					t.Errorf("%v\nwant exit 64", r)
				}
				for _, want := range tt.want {
					if !strings.Contains(r.stderr, want) {
						t.Errorf("stderr lacks %q:\n%s", want, r.stderr)
					}
				}
			})
		})
	}
}
