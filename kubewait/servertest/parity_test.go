package servertest_test

import (
	"cmp"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/waitable/waitable/kubewait/servertest/internal/apiserver"
	"github.com/waitable/waitable/kubewait/servertest/internal/kubectl"
	"github.com/waitable/waitable/kubewait/servertest/internal/waitcmd"
)

// outcome is how a command should end: its class, the lines on its
// standard output (kubectl's "widget.waitable.test/a condition met"), in
// order, and, if says is set, what a line of its standard error says.
type outcome struct {
	class waitcmd.Class
	lines []string
	says  string
	// sameLines, for a command that prints objects (-o json), wants the
	// lines kubectl printed, at least one, rather than lines.
	sameLines bool
}

// scenario is one run of kubectl wait and waitable kube, side by side, on
// the widgets of a namespace of its own.
type scenario struct {
	name string
	// args are both commands' arguments; NS stands for the scenario's
	// namespace.
	args []string
	// kubectlArgs, when set, are kubectl's instead (for a flag it does
	// not have).
	kubectlArgs []string
	// files are written into a folder of the scenario's own, which DIR
	// stands for in the arguments: each file's path under it and its
	// text, where NS stands for the scenario's namespace too. stdin is
	// both commands' standard input (NS standing for the namespace).
	files map[string]string
	stdin string
	// recentKubectl says that the scenario needs kubectl 1.36 or later
	// (several --for): kubectl built from k8s.io/kubectl, when the
	// machine's is older.
	recentKubectl bool
	// setup makes the objects before the commands start.
	setup func(w *world)
	// act writes, as a user or a controller would, once both commands
	// have read what they wait for (each has made its first request of
	// verb kubectlSync or WATCH in the namespace, or exited). kubectl
	// is waited for to its kubectlSyncN-th such request, when that is
	// over 1: with several --for it reads the object once for each,
	// in turn, and the request is recorded before the server answers
	// it, so an act after the first could change what kubectl reads
	// for the first.
	act          func(w *world)
	kubectlSync  string
	kubectlSyncN int
	// ns is the scenario's namespace, if not "p-" and its name.
	ns string
	// clusterScoped says that the commands' first requests are of a
	// cluster-scoped resource (in no namespace).
	clusterScoped bool
	// want is the outcome of both commands; for a difference by design,
	// kubectl's, and waitable's is in waitable.
	want     outcome
	waitable *outcome
	// differs, for a difference, says what it is and where it is
	// documented ("undocumented" when nowhere).
	differs string
}

// met returns kubectl's lines for widgets that met --for.
func met(names ...string) []string {
	var lines []string
	for _, n := range names {
		lines = append(lines, "widget.waitable.test/"+n+" condition met")
	}
	return lines
}

var (
	success = outcome{class: waitcmd.Success}
	timeout = outcome{class: waitcmd.Timeout}
	failure = outcome{class: waitcmd.Failure}
	noMatch = outcome{class: waitcmd.Failure, says: "no matching resources found"}
)

func succeeds(names ...string) outcome { return outcome{class: waitcmd.Success, lines: met(names...)} }
func timesOut(names ...string) outcome { return outcome{class: waitcmd.Timeout, lines: met(names...)} }

// parity are the scenarios where waitable kube does what kubectl wait does:
// the same class of exit status, the same lines on standard output.
var parity = []scenario{
	{name: "condition-ready", args: []string{"wd/a", "-n", "NS", "--for=condition=Ready", "--timeout=10s"},
		setup: create("a"), act: cond("a", "Ready", "True"), want: succeeds("a")},
	{name: "condition-ready-false", args: []string{"wd/a", "-n", "NS", "--for=condition=Ready=False", "--timeout=10s"},
		setup: create("a"), act: cond("a", "Ready", "False"), want: succeeds("a")},
	{name: "condition-ready-unknown", args: []string{"wd/a", "-n", "NS", "--for=condition=Ready=Unknown", "--timeout=10s"},
		setup: create("a"), act: cond("a", "Ready", "Unknown"), want: succeeds("a")},
	{name: "condition-status-lowercase", args: []string{"wd/a", "-n", "NS", "--for=condition=Ready=true", "--timeout=10s"},
		setup: create("a"), act: cond("a", "Ready", "True"), want: succeeds("a")},
	// kubectl compares the condition's type without regard to case
	// (--for=condition=ready, as Kubernetes' docs write it for pods).
	{name: "condition-type-lowercase", args: []string{"wd/a", "-n", "NS", "--for=condition=ready", "--timeout=3s"},
		setup: create("a"), act: cond("a", "Ready", "True"), want: succeeds("a")},
	{name: "condition-already-met", args: []string{"wd/a", "-n", "NS", "--for=condition=Ready", "--timeout=10s"},
		setup: steps(create("a"), cond("a", "Ready", "True")), want: succeeds("a")},
	{name: "condition-never", args: []string{"wd/a", "-n", "NS", "--for=condition=Ready", "--timeout=2s"},
		setup: create("a"), want: timeout},
	{name: "condition-other-status", args: []string{"wd/a", "-n", "NS", "--for=condition=Ready", "--timeout=2s"},
		setup: create("a"), act: cond("a", "Ready", "False"), want: timeout},
	// kubectl holds a condition for not met while the status's
	// observedGeneration is older than the object's generation: the
	// controller has not seen the latest spec.
	{name: "condition-stale-generation", args: []string{"wd/a", "-n", "NS", "--for=condition=Ready", "--timeout=2s"},
		setup: steps(create("a"), bumpGeneration("a")),
		act:   steps(field("a", "observedGeneration", 1), cond("a", "Ready", "True")), want: timeout},
	{name: "jsonpath-string", args: []string{"wd/a", "-n", "NS", "--for=jsonpath={.status.phase}=Running", "--timeout=10s"},
		setup: create("a"), act: steps(field("a", "phase", "Pending"), field("a", "phase", "Running")), want: succeeds("a")},
	{name: "jsonpath-number", args: []string{"wd/a", "-n", "NS", "--for=jsonpath={.status.replicas}=3", "--timeout=10s"},
		setup: create("a"), act: steps(field("a", "replicas", 1), field("a", "replicas", 3)), want: succeeds("a")},
	{name: "jsonpath-boolean", args: []string{"wd/a", "-n", "NS", "--for=jsonpath={.status.ok}=true", "--timeout=10s"},
		setup: create("a"), act: steps(field("a", "ok", false), field("a", "ok", true)), want: succeeds("a")},
	{name: "jsonpath-filter", args: []string{"wd/a", "-n", "NS", `--for=jsonpath={.status.conditions[?(@.type=="Ready")].status}=True`, "--timeout=10s"},
		setup: create("a"), act: steps(cond("a", "Synced", "True"), cond("a", "Ready", "True")), want: succeeds("a")},
	{name: "jsonpath-nested", args: []string{"wd/a", "-n", "NS", "--for=jsonpath={.status.replicas.ready}=2", "--timeout=10s"},
		setup: create("a"), act: steps(field("a", "replicas.ready", 1), field("a", "replicas.ready", 2)), want: succeeds("a")},
	{name: "jsonpath-value-never", args: []string{"wd/a", "-n", "NS", "--for=jsonpath={.status.phase}=Running", "--timeout=2s"},
		setup: create("a"), act: field("a", "phase", "Pending"), want: timeout},
	{name: "jsonpath-exists", args: []string{"wd/a", "-n", "NS", "--for=jsonpath={.status.phase}", "--timeout=10s"},
		setup: create("a"), act: field("a", "phase", "Pending"), want: succeeds("a")},
	{name: "jsonpath-exists-never", args: []string{"wd/a", "-n", "NS", "--for=jsonpath={.status.phase}", "--timeout=2s"},
		setup: create("a"), act: field("a", "other", "x"), want: timeout},
	// kubectl's reading of util/jsonpath's results: more than one value,
	// or an object, cannot meet the rule (kubectl fails at once).
	{name: "jsonpath-several-values", args: []string{"wd/a", "-n", "NS", "--for=jsonpath={.status.conditions[*].status}=True", "--timeout=10s"},
		setup: steps(create("a"), cond("a", "Synced", "True"), cond("a", "Ready", "False")), act: cond("a", "Ready", "True"),
		want: failure},
	{name: "jsonpath-object-value", args: []string{"wd/a", "-n", "NS", "--for=jsonpath={.status.conditions}=Ready", "--timeout=2s"},
		setup: steps(create("a"), cond("a", "Ready", "True")), want: failure},
	{name: "create-later", args: []string{"wd/a", "-n", "NS", "--for=create", "--timeout=10s"},
		act: create("a"), kubectlSync: "GET", want: succeeds("a")},
	{name: "create-existing", args: []string{"wd/a", "-n", "NS", "--for=create", "--timeout=10s"},
		setup: create("a"), want: succeeds("a")},
	{name: "create-never", args: []string{"wd/a", "-n", "NS", "--for=create", "--timeout=2s"},
		want: timeout},
	{name: "delete", args: []string{"wd/a", "-n", "NS", "--for=delete", "--timeout=10s"},
		setup: create("a"), act: remove("a"), want: succeeds("a")},
	// The object is deleted and created again under its name: both
	// commands tell it by its UID.
	{name: "delete-recreate", args: []string{"wd/a", "-n", "NS", "--for=delete", "--timeout=10s"},
		setup: create("a"), act: steps(remove("a"), create("a")), want: succeeds("a")},
	{name: "delete-never", args: []string{"wd/a", "-n", "NS", "--for=delete", "--timeout=2s"},
		setup: create("a"), want: timeout},
	{name: "names", args: []string{"wd", "a", "b", "c", "-n", "NS", "--for=condition=Ready", "--timeout=10s"},
		setup: create("a", "b", "c"), act: steps(cond("c", "Ready", "True"), cond("b", "Ready", "True"), cond("a", "Ready", "True")),
		want: succeeds("a", "b", "c")},
	{name: "type-names", args: []string{"wd/a", "wd/b", "-n", "NS", "--for=condition=Ready", "--timeout=10s"},
		setup: create("a", "b"), act: steps(cond("b", "Ready", "True"), cond("a", "Ready", "True")), want: succeeds("a", "b")},
	// Widgets are namespaced, gadgets cluster-scoped (-n does not apply).
	{name: "two-types", args: []string{"widgets/a", "gadgets/g1", "-n", "NS", "--for=condition=Ready", "--timeout=10s"},
		setup: steps(create("a"), createGadget("g1")), act: steps(gadgetCond("g1", "Ready", "True"), cond("a", "Ready", "True")),
		want: outcome{class: waitcmd.Success, lines: append(met("a"), "gadget.waitable.test/g1 condition met")}},
	{name: "gadget-short-name", args: []string{"gd/g2", "--for=jsonpath={.status.conditions[0].type}=Ready", "--timeout=10s"},
		clusterScoped: true, setup: createGadget("g2"), act: gadgetCond("g2", "Ready", "True"),
		want: outcome{class: waitcmd.Success, lines: []string{"gadget.waitable.test/g2 condition met"}}},
	{name: "selector", args: []string{"wd", "-l", "app=web", "-n", "NS", "--for=condition=Ready", "--timeout=10s"},
		setup: steps(label("a", "app=web"), label("b", "app=web"), label("c", "app=db")),
		act:   steps(cond("b", "Ready", "True"), cond("a", "Ready", "True")), want: succeeds("a", "b")},
	{name: "selector-set", args: []string{"wd", "-l", "app in (web,api),tier!=db", "-n", "NS", "--for=condition=Ready", "--timeout=10s"},
		setup: steps(label("a", "app=web"), label("b", "app=api"), label("c", "app=web,tier=db")),
		act:   steps(cond("b", "Ready", "True"), cond("a", "Ready", "True")), want: succeeds("a", "b")},
	{name: "selector-no-match", args: []string{"wd", "-l", "app=none", "-n", "NS", "--for=condition=Ready", "--timeout=10s"},
		setup: label("a", "app=web"), want: noMatch},
	// Nothing to wait for the deletion of: kubectl succeeds (its "no
	// matching resources found" is for every --for but delete).
	{name: "selector-no-match-delete", args: []string{"wd", "-l", "app=none", "-n", "NS", "--for=delete", "--timeout=10s"},
		setup: label("a", "app=web"), want: success},
	{name: "all", args: []string{"wd", "--all", "-n", "NS", "--for=condition=Ready", "--timeout=10s"},
		setup: create("a", "b"), act: steps(cond("b", "Ready", "True"), cond("a", "Ready", "True")), want: succeeds("a", "b")},
	{name: "all-none", args: []string{"wd", "--all", "-n", "NS", "--for=condition=Ready", "--timeout=10s"},
		want: noMatch},
	{name: "all-none-delete", args: []string{"wd", "--all", "-n", "NS", "--for=delete", "--timeout=10s"},
		want: success},
	{name: "all-delete", args: []string{"wd", "--all", "-n", "NS", "--for=delete", "--timeout=10s"},
		setup: create("a", "b"), act: steps(remove("b"), remove("a")), want: succeeds("a", "b")},
	{name: "resource-singular", args: []string{"widget/a", "-n", "NS", "--for=condition=Ready", "--timeout=10s"},
		setup: create("a"), act: cond("a", "Ready", "True"), want: succeeds("a")},
	{name: "resource-plural", args: []string{"widgets", "a", "-n", "NS", "--for=condition=Ready", "--timeout=10s"},
		setup: create("a"), act: cond("a", "Ready", "True"), want: succeeds("a")},
	{name: "resource-full-name", args: []string{"widgets.waitable.test/a", "-n", "NS", "--for=condition=Ready", "--timeout=10s"},
		setup: create("a"), act: cond("a", "Ready", "True"), want: succeeds("a")},
	{name: "resource-versioned", args: []string{"widgets.v1.waitable.test/a", "-n", "NS", "--for=condition=Ready", "--timeout=10s"},
		setup: create("a"), act: cond("a", "Ready", "True"), want: succeeds("a")},
	{name: "resource-kind", args: []string{"Widget/a", "-n", "NS", "--for=condition=Ready", "--timeout=10s"},
		setup: create("a"), act: cond("a", "Ready", "True"), want: succeeds("a")},
	{name: "namespace-long-flag", args: []string{"wd/a", "--namespace=NS", "--for=condition=Ready", "--timeout=10s"},
		setup: create("a"), act: cond("a", "Ready", "True"), want: succeeds("a")},
	// No -n: the kubeconfig's context's namespace, default. The only
	// scenario in namespace default.
	{name: "namespace-of-kubeconfig", args: []string{"wd/a", "--for=condition=Ready", "--timeout=10s"},
		ns: "default", setup: create("a"), act: cond("a", "Ready", "True"), want: succeeds("a")},
	// Both list a selector's objects in every namespace by namespace,
	// then name, and print each, the same name twice.
	{name: "all-namespaces", args: []string{"wd", "-A", "-l", "scenario=all-namespaces", "--for=condition=Ready", "--timeout=10s"},
		setup: steps(inNamespace("p-all-namespaces-1", label("a", "scenario=all-namespaces"), cond("a", "Ready", "True")),
			inNamespace("p-all-namespaces-2", label("a", "scenario=all-namespaces"), cond("a", "Ready", "True"))),
		want: succeeds("a", "a")},
	// Of several objects, the first becomes ready and the second never:
	// both print the first and time out.
	{name: "some-ready-then-timeout", args: []string{"wd", "c", "b", "-n", "NS", "--for=condition=Ready", "--timeout=2s"},
		setup: create("b", "c"), act: cond("c", "Ready", "True"), want: timesOut("c")},
	// kubectl's vocabulary through k8s.io/cli-runtime: an attached
	// shorthand, global flags (SERVER and TOKEN stand for the server's
	// URL and bearer token), a manifest served over HTTP (URL stands for
	// a server on loopback of the scenario's files), a category (widgets
	// are in all).
	{name: "namespace-attached", args: []string{"wd/a", "-nNS", "--for=condition=Ready", "--timeout=10s"},
		setup: create("a"), act: cond("a", "Ready", "True"), want: succeeds("a")},
	{name: "server-token", args: []string{"wd/a", "-n", "NS", "--server", "SERVER", "--token", "TOKEN", "--for=condition=Ready", "--timeout=10s"},
		setup: create("a"), act: cond("a", "Ready", "True"), want: succeeds("a")},
	{name: "file-url", args: []string{"-f", "URL/app.yaml", "--for=condition=Ready", "--timeout=10s"},
		files: map[string]string{"app.yaml": twoWidgets}, setup: create("a", "b"),
		act: steps(cond("a", "Ready", "True"), cond("b", "Ready", "True")), want: succeeds("a", "b")},
	{name: "category-all", args: []string{"all", "-l", "app=web", "-n", "NS", "--for=condition=Ready", "--timeout=10s"},
		setup: steps(label("a", "app=web"), label("b", "app=db")), act: cond("a", "Ready", "True"), want: succeeds("a")},
	// --timeout=0 checks once.
	{name: "timeout-zero-met", args: []string{"wd/a", "-n", "NS", "--for=condition=Ready", "--timeout=0s"},
		setup: steps(create("a"), cond("a", "Ready", "True")), want: succeeds("a")},
	// Each object's line, with every printer, goes out as the object
	// meets --for: b is ready only once both printed a's line.
	{name: "lines-as-met-selector", args: []string{"wd", "-l", "app=web", "-n", "NS", "--for=condition=Ready", "--timeout=20s",
		`-o=jsonpath={.metadata.name}{"\n"}`},
		setup: steps(label("a", "app=web"), label("b", "app=web")),
		act:   steps(cond("a", "Ready", "True"), shown("a"), cond("b", "Ready", "True")),
		want:  outcome{class: waitcmd.Success, lines: []string{"a", "b"}}},
	{name: "lines-as-met-named", args: []string{"wd/a", "wd/b", "-n", "NS", "--for=condition=Ready", "--timeout=20s",
		`-o=go-template={{.metadata.name}} {{(index .status.conditions 0).type}}{{"\n"}}`},
		setup: create("a", "b"),
		act:   steps(cond("a", "Ready", "True"), shown("a Ready"), cond("b", "Ready", "True")),
		want:  outcome{class: waitcmd.Success, lines: []string{"a Ready", "b Ready"}}},
	{name: "several-timeout", args: []string{"wd", "a", "b", "-n", "NS", "--for=condition=Ready", "--timeout=2s"},
		setup: create("a", "b"), want: timeout},
}

// differences are the scenarios where waitable kube differs from kubectl
// wait by design, each as its README or kubewait's doc says, or, marked
// undocumented, as the code decides today.
var differences = []scenario{
	{name: "missing-then-created", args: []string{"wd/a", "-n", "NS", "--for=condition=Ready", "--timeout=10s"},
		act: steps(create("a"), cond("a", "Ready", "True")), want: failure, waitable: &outcome{class: waitcmd.Success, lines: met("a")},
		differs: "an object that does not exist yet is waited for (kubectl fails at once with NotFound)"},
	{name: "delete-missing", args: []string{"wd/a", "-n", "NS", "--for=delete", "--timeout=10s"},
		want: success, waitable: &outcome{class: waitcmd.Success, lines: met("a")},
		differs: "kubectl prints no line for an object already gone when a delete wait begins; waitable does"},
	{name: "selector-create-later", args: []string{"wd", "-l", "app=web", "-n", "NS", "--for=create", "--timeout=10s"},
		act: label("a", "app=web"), want: noMatch, waitable: &outcome{class: waitcmd.Success, lines: met("a")},
		differs: "kubewait.Request.Count: with --for=create, a selector that matches nothing yet waits for one object " +
			"(kubectl: no matching resources found; waitable's README says so for -l in general)"},
	{name: "fail-on", args: []string{"wd/a", "-n", "NS", "--for=condition=Complete", "--fail-on=condition=Failed", "--timeout=3s"},
		kubectlArgs: []string{"wd/a", "-n", "NS", "--for=condition=Complete", "--timeout=3s"},
		setup:       create("a"), act: cond("a", "Failed", "True"), want: timeout, waitable: &failure,
		differs: "--fail-on ends the wait with status 1 as soon as an object meets it (kubectl has no --fail-on: it waits out its timeout)"},
	{name: "first-never-then-ready", args: []string{"wd/b", "wd/c", "-n", "NS", "--for=condition=Ready", "--timeout=2s"},
		setup: create("b", "c"), act: cond("c", "Ready", "True"), want: timeout, waitable: &outcome{class: waitcmd.Timeout, lines: met("c")},
		differs: "every object is waited for at once (kubectl waits for one after another: once one times out, " +
			"it reports the rest timed out, ready or not)"},
	{name: "all-some-never", args: []string{"wd", "--all", "-n", "NS", "--for=condition=Ready", "--timeout=2s"},
		setup: create("a", "b", "c"), act: steps(cond("a", "Ready", "True"), cond("c", "Ready", "True")),
		want: timesOut("a"), waitable: &outcome{class: waitcmd.Timeout, lines: met("a", "c")},
		differs: "every object is waited for at once (kubectl, after b timed out, reports c timed out too)"},
	{name: "deleted-during-wait", args: []string{"wd/a", "-n", "NS", "--for=condition=Ready", "--timeout=10s"},
		setup: create("a"), act: steps(remove("a"), exited(waitcmd.Kubectl), create("a"), cond("a", "Ready", "True")),
		want: failure, waitable: &outcome{class: waitcmd.Success, lines: met("a")},
		differs: "an object that does not exist is waited for, also one deleted during the wait " +
			"(kubectl fails with NotFound when it is deleted)"},
	{name: "one-object-twice", args: []string{"wd/a", "widget/a", "-n", "NS", "--for=condition=Ready", "--timeout=10s"},
		setup: create("a"), act: cond("a", "Ready", "True"), want: succeeds("a", "a"), waitable: &outcome{class: waitcmd.Success, lines: met("a")},
		differs: "undocumented (kubeRequests' comment): an object named twice is waited for, and printed, once " +
			"(kubectl waits for it twice and prints it twice)"},
	{name: "jsonpath-empty-value", args: []string{"wd/a", "-n", "NS", "--for=jsonpath={.status.phase}=", "--timeout=10s"},
		setup: create("a"), want: failure, waitable: &outcome{class: waitcmd.Usage},
		differs: "bad usage is status 64 (kubectl: 1)"},
	{name: "timeout-zero-not-met", args: []string{"wd/a", "-n", "NS", "--for=condition=Ready", "--timeout=0s"},
		setup: create("a"), want: outcome{class: waitcmd.Failure, says: "condition not met for widgets/a"},
		waitable: &outcome{class: waitcmd.Timeout, says: "condition not met for widgets/a"},
		differs:  "README: --timeout=0 that finds a --for not met is status 2, the time given ran out (kubectl: 1)"},
	{name: "kustomize", args: []string{"-k", "DIR", "--for=condition=Ready", "--timeout=10s"},
		files: map[string]string{"kustomization.yaml": "resources:\n- app.yaml\n", "app.yaml": twoWidgets}, setup: create("a", "b"),
		act:  steps(cond("a", "Ready", "True"), cond("b", "Ready", "True")),
		want: outcome{class: waitcmd.Failure, says: "unknown shorthand flag: 'k'"}, waitable: &outcome{class: waitcmd.Success, lines: met("a", "b")},
		differs: "README: waitable kube reads a kustomization (-k), as kubectl apply and get do (kubectl wait has no -k)"},
	{name: "unknown-type", args: []string{"things/a", "-n", "NS", "--for=condition=Ready", "--timeout=10s"},
		want: failure, waitable: &outcome{class: waitcmd.Usage},
		differs: "a type the server does not have is status 64 (kubectl: 1, which here means a failure condition held)"},
}

// TestKubectlParity runs kubectl wait (the machine's, the reference) and
// waitable kube with the same arguments, at the same time, against one
// API server, with a namespace per scenario, and checks each command's
// exit status (its class: success, timeout, failure) and its standard
// output. The parity scenarios want the same from both; the differences
// want what waitable's README or kubewait's doc promises instead. A
// scenario writes (a status, a create, a delete) once both commands have
// read what they wait for: each has made its first WATCH (kubectl's
// --for=create, its first GET) in the scenario's namespace, as the
// server's proxy sees them, or exited. The table of outcomes and times
// is in the test's log (go test -v).
func TestKubectlParity(t *testing.T) {
	srv := apiserver.Start(t, apiserver.Options{})
	recent, which := kubectl.AtLeast(t, 36)
	t.Logf("several --for: %s", which)
	envs := parityEnvs{machine: waitcmd.NewEnv(t, srv.Kubeconfig)}
	envs.recent = envs.machine.WithKubectl(recent)
	reqs := waitcmd.Track(srv)
	if err := envs.machine.Warm(t.Context()); err != nil {
		t.Fatal(err)
	}
	rows := make(map[string]string)
	var mu sync.Mutex
	t.Run("scenarios", func(t *testing.T) {
		for _, sc := range slices.Concat(parity, vocabulary, differences, vocabularyDifferences) {
			t.Run(sc.name, func(t *testing.T) {
				t.Parallel()
				row := sc.run(t, srv, envs, reqs)
				mu.Lock()
				defer mu.Unlock()
				rows[sc.name] = row
			})
		}
	})
	var b strings.Builder
	fmt.Fprintf(&b, "%-30s %-18s %-18s\n", "scenario", "kubectl wait", "waitable kube")
	for i, sc := range slices.Concat(parity, vocabulary, differences, vocabularyDifferences) {
		if i == len(parity)+len(vocabulary) {
			fmt.Fprintln(&b, "differences by design:")
		}
		if row, ok := rows[sc.name]; ok {
			fmt.Fprintf(&b, "%-30s %s\n", sc.name, row)
		}
	}
	t.Logf("outcomes and times:\n%s", b.String())
}

// parityEnvs are where the scenarios run: with the machine's kubectl, or
// a recent one.
type parityEnvs struct{ machine, recent *waitcmd.Env }

// run runs sc and returns its row of the table.
func (sc scenario) run(t *testing.T, srv *apiserver.Server, envs parityEnvs, reqs *waitcmd.Requests) string {
	ns := cmp.Or(sc.ns, "p-"+sc.name)
	w := &world{t: t, srv: srv, ns: ns}
	syncNS := ns
	if sc.clusterScoped {
		syncNS = ""
	}
	if sc.setup != nil {
		sc.setup(w)
	}
	dir := t.TempDir()
	for name, text := range sc.files {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(strings.ReplaceAll(text, "NS", ns)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	files := ""
	if slices.ContainsFunc(sc.args, func(a string) bool { return strings.Contains(a, "URL") }) {
		hs := httptest.NewServer(http.FileServer(http.Dir(dir)))
		defer hs.Close()
		files = hs.URL
	}
	expand := func(args []string) []string {
		out := slices.Clone(args)
		for i, a := range out {
			a = strings.ReplaceAll(strings.ReplaceAll(a, "NS", ns), "DIR", dir)
			a = strings.ReplaceAll(strings.ReplaceAll(a, "SERVER", srv.Config.Host), "TOKEN", srv.Config.BearerToken)
			out[i] = strings.ReplaceAll(a, "URL", files)
		}
		return out
	}
	args, kubectlArgs := expand(sc.args), expand(sc.args)
	if sc.kubectlArgs != nil {
		kubectlArgs = expand(sc.kubectlArgs)
	}
	env := envs.machine
	if sc.recentKubectl {
		env = envs.recent
	}
	in := waitcmd.Input{Stdin: strings.ReplaceAll(sc.stdin, "NS", ns)}

	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	kp, err := env.StartWith(ctx, in, waitcmd.Kubectl, kubectlArgs...)
	if err != nil {
		t.Fatal(err)
	}
	wp, err := env.StartWith(ctx, in, waitcmd.Waitable, args...)
	if err != nil {
		cancel()
		kp.Wait()
		t.Fatal(err)
	}
	defer func() { // on a t.Fatal: no process outlives the test
		cancel()
		kp.Wait()
		wp.Wait()
	}()

	w.procs = map[waitcmd.Tool]*waitcmd.Proc{waitcmd.Kubectl: kp, waitcmd.Waitable: wp}
	if sc.act != nil {
		kubectlSync := cmp.Or(sc.kubectlSync, "WATCH")
		for _, p := range []struct {
			tool waitcmd.Tool
			proc *waitcmd.Proc
			verb string
			n    int
		}{{waitcmd.Kubectl, kp, kubectlSync, sc.kubectlSyncN}, {waitcmd.Waitable, wp, "WATCH", 1}} {
			select {
			case <-reqs.MadeN(p.tool, p.verb, "", syncNS, p.n):
			case <-p.proc.Exited():
			case <-ctx.Done():
				t.Fatalf("%s made no %s in namespace %q", p.tool, p.verb, syncNS)
			}
		}
		sc.act(w)
	}
	k, wa := kp.Wait(), wp.Wait()

	check := func(r waitcmd.Result, want outcome) {
		got := waitcmd.Texts(r.Stdout)
		if want.sameLines {
			want.lines = waitcmd.Texts(k.Stdout)
		}
		if r.Class() != want.class || !slices.Equal(got, want.lines) || !strings.Contains(r.StderrText(), want.says) ||
			(want.sameLines && len(got) == 0) {
			wantSays := ""
			if want.says != "" {
				wantSays = fmt.Sprintf(", stderr saying %q", want.says)
			}
			t.Errorf("%s = %s (status %d), stdout %q; want %s, stdout %q%s\nstderr:\n%s",
				r.Command(), r.Class(), r.Code, got, want.class, want.lines, wantSays, r.StderrText())
		}
	}
	check(k, sc.want)
	if sc.waitable != nil {
		check(wa, *sc.waitable)
	} else {
		check(wa, sc.want)
	}
	cell := func(r waitcmd.Result) string {
		return fmt.Sprintf("%-9s %6.2fs  ", r.Class(), r.Elapsed().Seconds())
	}
	return cell(k) + " " + cell(wa)
}
