package servertest_test

import (
	"fmt"

	"github.com/waitable/waitable/kubewait/servertest/internal/waitcmd"
)

// widgetDoc is the YAML manifest of the widget name in namespace ns (""
// for none).
func widgetDoc(name, ns string) string {
	s := "apiVersion: waitable.test/v1\nkind: Widget\nmetadata:\n  name: " + name + "\n"
	if ns != "" {
		s += "  namespace: " + ns + "\n"
	}
	return s
}

// widgetJSON is the JSON manifest of the widget name in namespace NS.
func widgetJSON(name string) string {
	return fmt.Sprintf(`{"apiVersion": "waitable.test/v1", "kind": "Widget", "metadata": {"name": %q, "namespace": "NS"}}`, name)
}

// twoWidgets is a manifest of the widgets a and b in namespace NS, as
// YAML documents.
var twoWidgets = "# the widgets of the scenario\n" + widgetDoc("a", "NS") + "---\n" + widgetDoc("b", "NS")

// readyRunning makes the widget name Ready, its phase Running.
func readyRunning(name string) step {
	return steps(cond(name, "Ready", "True"), field(name, "phase", "Running"))
}

// vocabulary are the parity scenarios of kubectl wait's arguments beyond
// TYPE/NAME: -f (a file, a directory, -R, standard input, a List, JSON),
// --field-selector, several --for, -o, and kubectl's spellings of rules.
var vocabulary = []scenario{
	{name: "file", args: []string{"-f", "DIR/app.yaml", "--for=condition=Ready", "--timeout=10s"},
		files: map[string]string{"app.yaml": twoWidgets}, setup: create("a", "b"),
		act: steps(cond("b", "Ready", "True"), cond("a", "Ready", "True")), want: succeeds("a", "b")},
	// The manifest names no namespace: -n's.
	{name: "file-namespace-flag", args: []string{"--filename=DIR/app.yaml", "-n", "NS", "--for=condition=Ready", "--timeout=10s"},
		files: map[string]string{"app.yaml": widgetDoc("a", "") + "---\n" + widgetDoc("b", "")}, setup: create("a", "b"),
		act: steps(cond("a", "Ready", "True"), cond("b", "Ready", "True")), want: succeeds("a", "b")},
	{name: "file-json", args: []string{"-f", "DIR/app.json", "--for=condition=Ready", "--timeout=10s"},
		files: map[string]string{"app.json": widgetJSON("b") + "\n" + widgetJSON("a")}, setup: create("a", "b"),
		act: steps(cond("a", "Ready", "True"), cond("b", "Ready", "True")), want: succeeds("b", "a")},
	// A List of the kind's (kubectl maps kind List of apiVersion v1 only
	// where the server has the core group, which this one has not).
	{name: "file-list", args: []string{"-f", "DIR/list.yaml", "--for=condition=Ready", "--timeout=10s"},
		files: map[string]string{"list.yaml": "apiVersion: waitable.test/v1\nkind: WidgetList\nitems:\n" +
			"- apiVersion: waitable.test/v1\n  kind: Widget\n  metadata:\n    name: b\n    namespace: NS\n" +
			"- apiVersion: waitable.test/v1\n  kind: Widget\n  metadata:\n    name: a\n    namespace: NS\n"},
		setup: create("a", "b"), act: steps(cond("a", "Ready", "True"), cond("b", "Ready", "True")), want: succeeds("b", "a")},
	// A directory's .json, .yaml and .yml files, in lexical order, not
	// its other files; its subfolders' too (kubectl wait's -R is on by
	// default), or not with -R=false.
	{name: "file-directory", args: []string{"-f", "DIR/d", "--for=condition=Ready", "--timeout=10s"},
		files: map[string]string{"d/1.yaml": widgetDoc("b", "NS"), "d/2.json": widgetJSON("a"), "d/notes.txt": "not a manifest",
			"d/sub/3.yml": widgetDoc("c", "NS")},
		setup: create("a", "b", "c"), act: steps(cond("c", "Ready", "True"), cond("a", "Ready", "True"), cond("b", "Ready", "True")),
		want: succeeds("b", "a", "c")},
	{name: "file-directory-not-recursive", args: []string{"-f", "DIR/d", "-R=false", "--for=condition=Ready", "--timeout=10s"},
		files: map[string]string{"d/1.yaml": widgetDoc("b", "NS"), "d/2.json": widgetJSON("a"), "d/sub/3.yml": widgetDoc("c", "NS")},
		setup: create("a", "b", "c"), act: steps(cond("a", "Ready", "True"), cond("b", "Ready", "True")), want: succeeds("b", "a")},
	{name: "file-recursive", args: []string{"-f", "DIR/d", "--recursive", "--for=condition=Ready", "--timeout=10s"},
		files: map[string]string{"d/b.yaml": widgetDoc("b", "NS"), "d/a/a.yaml": widgetDoc("a", "NS")},
		setup: create("a", "b"), act: steps(cond("a", "Ready", "True"), cond("b", "Ready", "True")), want: succeeds("a", "b")},
	{name: "file-stdin", args: []string{"-f", "-", "--for=condition=Ready", "--timeout=10s"},
		stdin: twoWidgets, setup: create("a", "b"), act: steps(cond("b", "Ready", "True"), cond("a", "Ready", "True")),
		want: succeeds("a", "b")},
	// Two kinds in one manifest: a widget, then a cluster-scoped gadget.
	{name: "file-two-kinds", args: []string{"-f", "DIR/app.yaml", "--for=condition=Ready", "--timeout=10s"},
		files: map[string]string{"app.yaml": widgetDoc("a", "NS") + "---\napiVersion: waitable.test/v1\nkind: Gadget\nmetadata:\n  name: NS-g\n"},
		setup: steps(create("a"), createGadget("p-file-two-kinds-g")),
		act:   steps(gadgetCond("p-file-two-kinds-g", "Ready", "True"), cond("a", "Ready", "True")),
		want:  outcome{class: waitcmd.Success, lines: append(met("a"), "gadget.waitable.test/p-file-two-kinds-g condition met")}},
	// The manifest of two widgets, one never Ready.
	{name: "file-one-never-ready", args: []string{"-f", "DIR/app.yaml", "--for=condition=Ready", "--timeout=3s"},
		files: map[string]string{"app.yaml": twoWidgets}, setup: create("a", "b"), act: cond("a", "Ready", "True"), want: timesOut("a")},
	{name: "field-selector", args: []string{"wd", "--field-selector=metadata.name=b", "-n", "NS", "--for=condition=Ready", "--timeout=10s"},
		setup: create("a", "b"), act: cond("b", "Ready", "True"), want: succeeds("b")},
	{name: "field-selector-and-label", args: []string{"wd", "--field-selector", "metadata.name!=b", "-l", "app=web", "-n", "NS",
		"--for=condition=Ready", "--timeout=10s"},
		setup: steps(label("a", "app=web"), label("b", "app=web"), label("c", "app=db")), act: cond("a", "Ready", "True"),
		want: succeeds("a")},
	// Several --for: each must hold (kubectl 1.36 and later); each met
	// prints a line, the object once per --for.
	{name: "several-for-phase-first", args: []string{"wd/a", "-n", "NS", "--for=jsonpath={.status.phase}=Done", "--for=condition=Ready", "--timeout=10s"},
		recentKubectl: true, setup: steps(create("a"), readyRunning("a")), act: field("a", "phase", "Done"), want: succeeds("a", "a")},
	{name: "several-for-ready-first", args: []string{"wd/a", "-n", "NS", "--for=condition=Ready", "--for=jsonpath={.status.phase}=Done", "--timeout=10s"},
		recentKubectl: true, setup: steps(create("a"), readyRunning("a")), act: field("a", "phase", "Done"), want: succeeds("a", "a")},
	{name: "several-for-never", args: []string{"wd/a", "-n", "NS", "--for=jsonpath={.status.phase}=Done", "--for=condition=Ready", "--timeout=3s"},
		recentKubectl: true, setup: steps(create("a"), readyRunning("a")), want: timeout},
	{name: "several-for-create", args: []string{"wd/a", "-n", "NS", "--for=condition=Ready", "--for=create", "--timeout=10s"},
		recentKubectl: true, kubectlSync: "GET", act: steps(create("a"), cond("a", "Ready", "True")), want: succeeds("a", "a")},
	{name: "jsonpath-quoted-value", args: []string{"wd/a", "-n", "NS", `--for=jsonpath={.status.phase}="Done"`, "--timeout=10s"},
		setup: create("a"), act: steps(field("a", "phase", "Running"), field("a", "phase", "Done")), want: succeeds("a")},
	{name: "jsonpath-single-quoted-value", args: []string{"wd/a", "-n", "NS", `--for=jsonpath={.status.replicas}='3'`, "--timeout=10s"},
		setup: create("a"), act: field("a", "replicas", 3), want: succeeds("a")},
	{name: "jsonpath-unbraced-filter", args: []string{"wd/a", "-n", "NS", `--for=jsonpath=.status.conditions[?(@.type=="Ready")].status=True`, "--timeout=10s"},
		setup: create("a"), act: steps(cond("a", "Synced", "True"), cond("a", "Ready", "True")), want: succeeds("a")},
	{name: "jsonpath-unbraced", args: []string{"wd/a", "-n", "NS", "--for=jsonpath=.status.phase=Done", "--timeout=10s"},
		setup: create("a"), act: field("a", "phase", "Done"), want: succeeds("a")},
	{name: "delete-capitalized", args: []string{"wd/a", "-n", "NS", "--for=Delete", "--timeout=10s"},
		setup: create("a"), act: remove("a"), want: succeeds("a")},
	{name: "create-upper-case", args: []string{"wd/a", "-n", "NS", "--for=CREATE", "--timeout=10s"},
		act: create("a"), kubectlSync: "GET", want: succeeds("a")},
	{name: "output-name", args: []string{"wd/a", "wd/b", "-n", "NS", "--for=condition=Ready", "--timeout=10s", "-o", "name"},
		setup: create("a", "b"), act: steps(cond("b", "Ready", "True"), cond("a", "Ready", "True")),
		want: outcome{class: waitcmd.Success, lines: []string{"widget.waitable.test/a", "widget.waitable.test/b"}}},
	// The same object, as both print it (lines compared exactly).
	{name: "output-json", args: []string{"wd/a", "wd/b", "-n", "NS", "--for=condition=Ready", "--timeout=10s", "-o", "json"},
		setup: create("a", "b"), act: steps(cond("a", "Ready", "True"), cond("b", "Ready", "True")), want: printed},
	{name: "output-yaml", args: []string{"-f", "DIR/app.yaml", "--for=condition=Ready", "--timeout=10s", "--output=yaml"},
		files: map[string]string{"app.yaml": twoWidgets}, setup: create("a", "b"),
		act: steps(cond("a", "Ready", "True"), cond("b", "Ready", "True")), want: printed},
	{name: "output-name-several-for", args: []string{"wd/a", "-n", "NS", "--for=condition=Ready", "--for=jsonpath={.status.phase}=Done",
		"--timeout=10s", "-o", "name"},
		recentKubectl: true, setup: steps(create("a"), readyRunning("a")), act: field("a", "phase", "Done"),
		want: outcome{class: waitcmd.Success, lines: []string{"widget.waitable.test/a", "widget.waitable.test/a"}}},
	// Ready held, then no longer held when the phase became Done: the
	// --for are waited for one after another (kubectl 1.36).
	{name: "several-for-not-at-once", args: []string{"wd/a", "-n", "NS", "--for=condition=Ready", "--for=jsonpath={.status.phase}=Done", "--timeout=3s"},
		recentKubectl: true, setup: steps(create("a"), readyRunning("a")), kubectlSyncN: 2,
		act:  steps(cond("a", "Ready", "False"), field("a", "phase", "Done")),
		want: succeeds("a", "a")},
	{name: "several-for-partly-met", args: []string{"wd/a", "-n", "NS", "--for=condition=Ready", "--for=jsonpath={.status.phase}=Done", "--timeout=3s"},
		recentKubectl: true, setup: steps(create("a"), readyRunning("a")),
		want: timesOut("a")},
}

// vocabularyDifferences are where waitable kube differs by design from
// kubectl wait in the vocabulary's scenarios.
var vocabularyDifferences = []scenario{
	// b, missing, first: kubectl watches a (the scenario's sync) only
	// once its GET of b has failed.
	{name: "file-missing-then-created", args: []string{"-f", "DIR/app.yaml", "--for=condition=Ready", "--timeout=10s"},
		files: map[string]string{"app.yaml": widgetDoc("b", "NS") + "---\n" + widgetDoc("a", "NS")}, setup: create("a"),
		act:  steps(create("b"), cond("b", "Ready", "True"), cond("a", "Ready", "True")),
		want: outcome{class: waitcmd.Failure, lines: met("a")}, waitable: &outcome{class: waitcmd.Success, lines: met("b", "a")},
		differs: "cmd/waitable/README.md: an object that does not exist yet is waited for, a manifest's too " +
			"(kubectl fails at once with NotFound)"},
	{name: "file-namespace-mismatch", args: []string{"-f", "DIR/app.yaml", "-n", "NS-other", "--for=condition=Ready", "--timeout=10s"},
		files: map[string]string{"app.yaml": widgetDoc("a", "NS")}, setup: create("a"),
		want: failure, waitable: &outcome{class: waitcmd.Usage, says: "does not match the namespace"},
		differs: "cmd/waitable/README.md: bad input is status 64 (kubectl: 1, the same message)"},
	{name: "file-no-objects", args: []string{"-f", "DIR/empty.yaml", "--for=condition=Ready", "--timeout=10s"},
		files: map[string]string{"empty.yaml": "# nothing yet\n"},
		want:  noMatch, waitable: &outcome{class: waitcmd.Usage, says: "no objects"},
		differs: "cmd/waitable/README.md: a manifest without objects is bad input, status 64 " +
			"(kubectl: no matching resources found, 1)"},
	{name: "file-bad-document", args: []string{"-f", "DIR/app.yaml", "--for=condition=Ready", "--timeout=10s"},
		files: map[string]string{"app.yaml": widgetDoc("a", "NS") + "---\nkind: Widget\nmetadata:\n  name: b\n"},
		setup: steps(create("a"), cond("a", "Ready", "True")),
		want:  outcome{class: waitcmd.Failure, lines: met("a")}, waitable: &outcome{class: waitcmd.Usage, says: "app.yaml"},
		differs: "cmd/waitable/README.md: bad input is status 64, before any wait (kubectl: 1)"},
}

// printed is the outcome of a scenario whose commands print objects (-o
// json, -o yaml): a success, and the same lines from both (checked by
// the scenario's run against kubectl's).
var printed = outcome{class: waitcmd.Success, sameLines: true}
