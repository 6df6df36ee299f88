package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	goruntime "runtime"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/discovery/cached/memory"
	discoveryfake "k8s.io/client-go/discovery/fake"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/restmapper"
	k8stesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"github.com/waitable/waitable/kubewait"
)

var (
	widgets = schema.GroupVersionResource{Group: "waitable.test", Version: "v1", Resource: "widgets"}
	// gizmos are cluster-scoped.
	gizmos = schema.GroupVersionResource{Group: "waitable.test", Version: "v1", Resource: "gizmos"}
)

// fakeCluster is a cluster of client-go's fakes: the dynamic fake (whose
// watch serves its tracker's changes) and a fake discovery that lists
// widgets (namespaced, short name wd), gizmos (cluster-scoped) and pods.
type fakeCluster struct {
	t         *testing.T
	dyn       *dynamicfake.FakeDynamicClient
	disc      *discoveryfake.FakeDiscovery
	namespace string // the kubeconfig context's namespace
}

func newFakeCluster(t *testing.T, objs ...map[string]any) *fakeCluster {
	var ros []runtime.Object
	for _, o := range objs {
		ros = append(ros, &unstructured.Unstructured{Object: o})
	}
	dyn := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(),
		map[schema.GroupVersionResource]string{widgets: "WidgetList", gizmos: "GizmoList",
			{Version: "v1", Resource: "pods"}: "PodList", {Version: "v1", Resource: "events"}: "EventList"}, ros...)
	verbs := metav1.Verbs{"get", "list", "watch"}
	disc := &discoveryfake.FakeDiscovery{Fake: &k8stesting.Fake{}}
	disc.Resources = []*metav1.APIResourceList{
		{GroupVersion: "v1", APIResources: []metav1.APIResource{
			{Name: "pods", SingularName: "pod", Namespaced: true, Kind: "Pod", ShortNames: []string{"po"}, Verbs: verbs}}},
		{GroupVersion: "waitable.test/v1", APIResources: []metav1.APIResource{
			{Name: "widgets", SingularName: "widget", Namespaced: true, Kind: "Widget", ShortNames: []string{"wd"}, Verbs: verbs},
			{Name: "gizmos", SingularName: "gizmo", Namespaced: false, Kind: "Gizmo", Verbs: verbs}}},
	}
	return &fakeCluster{t: t, dyn: dyn, disc: disc, namespace: "ns"}
}

// connect is the cluster's kubeConnect: cli-runtime's getter over the
// fake discovery (a REST mapper with short names and categories, as
// ConfigFlags makes), and a kubewait Client of the fake dynamic client.
// The namespace is -n's, else the context's (c.namespace).
func (c *fakeCluster) connect(flags *genericclioptions.ConfigFlags, warnings io.Writer) (kubeCluster, error) {
	ns, enforced := c.namespace, false
	if *flags.Namespace != "" {
		ns, enforced = *flags.Namespace, true
	}
	cached := memory.NewMemCacheClient(c.disc)
	mapper := restmapper.NewShortcutExpander(restmapper.NewDeferredDiscoveryRESTMapper(cached), cached, func(w string) {
		fmt.Fprintf(warnings, "Warning: %s\n", w)
	})
	getter := fakeGetter{disc: cached, mapper: mapper}
	client := kubewait.NewClient(c.dyn, kubewait.ClientOptions{Mapper: mapper})
	return kubeCluster{getter: getter, client: client, dyn: c.dyn, namespace: ns, enforced: enforced, server: "https://fake.invalid"}, nil
}

// fakeGetter is cli-runtime's RESTClientGetter over a fake discovery: the
// resource builder maps types with it and makes no request.
type fakeGetter struct {
	disc   discovery.CachedDiscoveryInterface
	mapper meta.RESTMapper
}

func (g fakeGetter) ToRESTConfig() (*rest.Config, error) {
	return &rest.Config{Host: "https://fake.invalid"}, nil
}
func (g fakeGetter) ToDiscoveryClient() (discovery.CachedDiscoveryInterface, error) {
	return g.disc, nil
}
func (g fakeGetter) ToRESTMapper() (meta.RESTMapper, error) { return g.mapper, nil }
func (g fakeGetter) ToRawKubeConfigLoader() clientcmd.ClientConfig {
	return clientcmd.NewDefaultClientConfig(clientcmdapi.Config{}, &clientcmd.ConfigOverrides{})
}

func (c *fakeCluster) write(gvr schema.GroupVersionResource, o map[string]any, create bool) {
	c.t.Helper()
	u := &unstructured.Unstructured{Object: o}
	r := c.dyn.Resource(gvr).Namespace(u.GetNamespace())
	var err error
	if create {
		_, err = r.Create(context.Background(), u, metav1.CreateOptions{})
	} else {
		_, err = r.Update(context.Background(), u, metav1.UpdateOptions{})
	}
	if err != nil {
		c.t.Error(err)
	}
}

func (c *fakeCluster) delete(gvr schema.GroupVersionResource, ns, name string) {
	c.t.Helper()
	if err := c.dyn.Resource(gvr).Namespace(ns).Delete(context.Background(), name, metav1.DeleteOptions{}); err != nil {
		c.t.Error(err)
	}
}

// object returns a Widget (or, with kind Gizmo, a cluster-scoped Gizmo)
// named ns/name with status; labels as key, value pairs.
func object(kind, ns, name string, status map[string]any, labels ...string) map[string]any {
	meta := map[string]any{"name": name, "uid": "uid-" + ns + "-" + name}
	if ns != "" {
		meta["namespace"] = ns
	}
	if len(labels) > 0 {
		l := map[string]any{}
		for i := 0; i+1 < len(labels); i += 2 {
			l[labels[i]] = labels[i+1]
		}
		meta["labels"] = l
	}
	o := map[string]any{"apiVersion": "waitable.test/v1", "kind": kind, "metadata": meta}
	if status != nil {
		o["status"] = status
	}
	return o
}

func widget(name string, status map[string]any, labels ...string) map[string]any {
	return object("Widget", "ns", name, status, labels...)
}

// cond is a status with one condition, its reason and message named
// after its type.
func cond(typ, status string) map[string]any {
	return map[string]any{"conditions": []any{map[string]any{"type": typ, "status": status,
		"reason": typ + "Reason", "message": typ + " message"}}}
}

// bubble runs f in a synctest bubble, with one P. Under the race
// detector, Go 1.26's runtime runs a bubble's expired timers on one race
// context for the whole bubble: two goroutines of a bubble receiving from
// expired timers at once, on two threads (two waits, each with its timer,
// due at one instant), corrupt it and crash the test binary
// (ThreadSanitizer: CHECK failed). One P runs them one after the other;
// on the fake clock, the tests' times are the same.
func bubble(t *testing.T, f func(*testing.T)) {
	defer goruntime.GOMAXPROCS(goruntime.GOMAXPROCS(1))
	synctest.Test(t, f)
}

// after runs f at d from now, in the bubble.
func after(d time.Duration, f func()) {
	go func() {
		time.Sleep(d)
		f()
	}()
}

type kubeRun struct {
	code           int
	stdout, stderr string
	took           time.Duration
}

// kube runs waitable kube on c, as run does (its error printed, its exit
// status), and says how long it took on the bubble's clock.
func kube(t *testing.T, ctx context.Context, c *fakeCluster, args ...string) kubeRun {
	t.Helper()
	return kubeStdin(t, ctx, c, "", args...)
}

// kubeStdin runs waitable kube on c as kube does, with stdin as its
// standard input.
func kubeStdin(t *testing.T, ctx context.Context, c *fakeCluster, stdin string, args ...string) kubeRun {
	t.Helper()
	var stdout, stderr bytes.Buffer
	start := time.Now()
	code, err := kubeCommand(ctx, args, strings.NewReader(stdin), &stdout, &stderr, c.connect)
	code = exitStatus("kube", code, err, &stderr)
	return kubeRun{code, stdout.String(), stderr.String(), time.Since(start)}
}

func (r kubeRun) String() string {
	return fmt.Sprintf("exit %d after %v\nstdout:\n%sstderr:\n%s", r.code, r.took, r.stdout, r.stderr)
}

// TestKubeConditionMet: each object that meets --for prints kubectl's
// line on standard output as kubectl would, in the order of the
// arguments, each as soon as it and those before it met it; standard error has a line per object transition, as it
// happens, and the success.
func TestKubeConditionMet(t *testing.T) {
	bubble(t, func(t *testing.T) {
		c := newFakeCluster(t, widget("b", nil), widget("a", cond("Ready", "False")))
		after(3*time.Second, func() { c.write(widgets, widget("a", cond("Ready", "True")), false) })
		after(5*time.Second, func() { c.write(widgets, widget("b", cond("Ready", "True")), false) })
		r := kube(t, t.Context(), c, "--for", "condition=Ready", "widget/b", "widget/a")
		if r.code != exitSuccess || r.took != 5*time.Second {
			t.Fatalf("%v\nwant exit 0 after 5s", r)
		}
		for _, a := range c.dyn.Actions() {
			if a.GetVerb() == "get" {
				t.Errorf("the wait made a GET: a watched wait only lists and watches")
			}
		}
		if want := "widget.waitable.test/b condition met\nwidget.waitable.test/a condition met\n"; r.stdout != want {
			t.Errorf("stdout %q, want %q", r.stdout, want)
		}
		for _, want := range []string{
			"+0s  widget.waitable.test/a  retry (ReadyReason: Ready message)\n",
			"+0s  widget.waitable.test/b  retry (no Ready condition)\n",
			"+3s  widget.waitable.test/a  success (ReadyReason: Ready message)\n",
			"+5s  widget.waitable.test/b  success (ReadyReason: Ready message)\n",
			"waitable: success after 5s: 2 objects met condition=Ready\n",
		} {
			if !strings.Contains(r.stderr, want) {
				t.Errorf("stderr lacks %q:\n%s", want, r.stderr)
			}
		}
	})
}

// TestKubeTimeout: --timeout is 30s unless given, as kubectl's; the wait
// ends at it with status 2 and a summary naming each object that did not
// succeed, its state, and its condition's reason and message.
func TestKubeTimeout(t *testing.T) {
	bubble(t, func(t *testing.T) {
		c := newFakeCluster(t, widget("a", cond("Ready", "True")), widget("b", cond("Ready", "False")))
		r := kube(t, t.Context(), c, "--for", "condition=Ready", "widget/a", "widget/b", "widget/gone")
		if r.code != exitTimeout || r.took != 30*time.Second {
			t.Fatalf("%v\nwant exit 2 after 30s", r)
		}
		if want := "widget.waitable.test/a condition met\n"; r.stdout != want {
			t.Errorf("stdout %q, want %q", r.stdout, want)
		}
		want := "waitable: timeout after 30s, waiting for condition=Ready:\n" +
			"  widget.waitable.test/a: met (ReadyReason: Ready message)\n" +
			"  widget.waitable.test/b: not met (ReadyReason: Ready message)\n" +
			"  widget.waitable.test/gone: not found\n" +
			"waitable kube: timed out waiting for the condition on widgets/b\n"
		if !strings.HasSuffix(r.stderr, want) {
			t.Errorf("stderr ends\n%s\nwant\n%s", r.stderr, want)
		}
		r = kube(t, t.Context(), c, "--for", "condition=Ready", "--timeout", "90s", "widget/b")
		if r.code != exitTimeout || r.took != 90*time.Second {
			t.Fatalf("--timeout 90s: %v\nwant exit 2 after 90s", r)
		}
	})
}

// TestKubeTimeoutCountsDiscovery: --timeout is the command's total time:
// the time discovery takes counts in it.
func TestKubeTimeoutCountsDiscovery(t *testing.T) {
	bubble(t, func(t *testing.T) {
		c := newFakeCluster(t, widget("a", nil))
		c.disc.AddReactor("get", "group", func(k8stesting.Action) (bool, runtime.Object, error) {
			time.Sleep(5 * time.Second) // a slow discovery
			return false, nil, nil
		})
		r := kube(t, t.Context(), c, "--for", "condition=Ready", "--timeout", "20s", "widget/a")
		if r.code != exitTimeout || r.took != 20*time.Second {
			t.Fatalf("%v\nwant exit 2 after 20s", r)
		}
	})
}

// TestKubeFailOn: an object that meets a --fail-on rule ends the wait at
// once with status 1, and the summary says why.
func TestKubeFailOn(t *testing.T) {
	bubble(t, func(t *testing.T) {
		c := newFakeCluster(t, widget("job", nil))
		after(2*time.Second, func() { c.write(widgets, widget("job", cond("Failed", "True")), false) })
		r := kube(t, t.Context(), c, "--for", "condition=Complete", "--fail-on", "condition=Failed",
			"--fail-on", "jsonpath={.status.phase}=Lost", "widget/job")
		if r.code != exitFailure || r.took != 2*time.Second || r.stdout != "" {
			t.Fatalf("%v\nwant exit 1 after 2s, nothing on stdout", r)
		}
		for _, want := range []string{
			"+2s  widget.waitable.test/job  failure (FailedReason: Failed message)\n",
			"waitable: failure after 2s, waiting for condition=Complete:\n  widget.waitable.test/job: failed on condition=Failed (FailedReason: Failed message)\n",
		} {
			if !strings.Contains(r.stderr, want) {
				t.Errorf("stderr lacks %q:\n%s", want, r.stderr)
			}
		}
	})
}

// TestKubeSeveralResources: objects of several resources are waited for
// at once, under one budget: the wait ends at --timeout, not at the sum
// of their times; a failure ends every wait at once; the exit status is
// the worst outcome.
func TestKubeSeveralResources(t *testing.T) {
	t.Run("one budget", func(t *testing.T) {
		bubble(t, func(t *testing.T) {
			c := newFakeCluster(t, widget("a", nil), object("Gizmo", "", "g", nil))
			after(4*time.Second, func() { c.write(widgets, widget("a", cond("Ready", "True")), false) })
			r := kube(t, t.Context(), c, "--for", "condition=Ready", "--timeout", "10s", "gizmo/g", "widget/a")
			if r.code != exitTimeout || r.took != 10*time.Second {
				t.Fatalf("%v\nwant exit 2 after 10s", r)
			}
			if r.stdout != "widget.waitable.test/a condition met\n" ||
				!strings.Contains(r.stderr, "  gizmo.waitable.test/g: not met (no Ready condition)\n") {
				t.Errorf("%v\nwant a met, g named in the summary", r)
			}
		})
	})
	t.Run("a failure ends every wait", func(t *testing.T) {
		bubble(t, func(t *testing.T) {
			c := newFakeCluster(t, widget("a", nil), object("Gizmo", "", "g", nil))
			after(2*time.Second, func() { c.write(gizmos, object("Gizmo", "", "g", cond("Failed", "True")), false) })
			r := kube(t, t.Context(), c, "--for", "condition=Ready", "--fail-on", "condition=Failed", "widget/a", "gizmo/g")
			if r.code != exitFailure || r.took != 2*time.Second {
				t.Fatalf("%v\nwant exit 1 after 2s", r)
			}
			for _, want := range []string{"  widget.waitable.test/a: not met (no Ready condition)\n",
				"  gizmo.waitable.test/g: failed on condition=Failed (FailedReason: Failed message)\n"} {
				if !strings.Contains(r.stderr, want) {
					t.Errorf("stderr lacks %q:\n%s", want, r.stderr)
				}
			}
		})
	})
	t.Run("worst outcome", func(t *testing.T) {
		for _, tt := range []struct{ a, b, want int }{
			{exitSuccess, exitTimeout, exitTimeout}, {exitTimeout, exitFailure, exitFailure},
			{exitFailure, exitUsage, exitUsage}, {exitUsage, exitInterrupted, exitInterrupted}, {-1, exitSuccess, exitSuccess},
		} {
			if !worse(tt.b, tt.a) || worse(tt.a, tt.b) {
				t.Errorf("worse(%d, %d) = %v, want %d the worse", tt.b, tt.a, worse(tt.b, tt.a), tt.want)
			}
		}
	})
}

// TestKubeRules: --for takes kubectl wait's rules (and kstatus's), as
// kubectl spells them, and each prints kubectl's line: condition met, for
// delete and create too.
func TestKubeRules(t *testing.T) {
	for _, tt := range []struct {
		name  string
		rule  string
		start map[string]any // nil: none at first
		then  func(c *fakeCluster)
	}{
		{"condition with a status", "condition=Ready=false", widget("a", cond("Ready", "True")),
			func(c *fakeCluster) { c.write(widgets, widget("a", cond("Ready", "False")), false) }},
		{"jsonpath with a value", "jsonpath={.status.phase}=Running", widget("a", nil),
			func(c *fakeCluster) { c.write(widgets, widget("a", map[string]any{"phase": "Running"}), false) }},
		{"jsonpath without a value", "jsonpath={.status.replicas}", widget("a", nil),
			func(c *fakeCluster) { c.write(widgets, widget("a", map[string]any{"replicas": int64(3)}), false) }},
		{"create", "create", nil, func(c *fakeCluster) { c.write(widgets, widget("a", nil), true) }},
		{"delete", "delete", widget("a", nil), func(c *fakeCluster) { c.delete(widgets, "ns", "a") }},
		{"delete, gone before the wait", "delete", nil, nil},
		// kubectl's spellings: the value's quotes trimmed, an unbraced
		// expression split at its single =, create and delete in any case.
		{"jsonpath with a quoted value", `jsonpath={.status.phase}="Running"`, widget("a", nil),
			func(c *fakeCluster) { c.write(widgets, widget("a", map[string]any{"phase": "Running"}), false) }},
		{"jsonpath unbraced, with a filter", `jsonpath=.status.conditions[?(@.type=="Ready")].status=True`, widget("a", nil),
			func(c *fakeCluster) { c.write(widgets, widget("a", cond("Ready", "True")), false) }},
		{"Create", "Create", nil, func(c *fakeCluster) { c.write(widgets, widget("a", nil), true) }},
		{"DELETE", "DELETE", widget("a", nil), func(c *fakeCluster) { c.delete(widgets, "ns", "a") }},
		{"kstatus", "kstatus=Current", widget("a", cond("Ready", "False")),
			func(c *fakeCluster) { c.write(widgets, widget("a", cond("Ready", "True")), false) }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			bubble(t, func(t *testing.T) {
				var objs []map[string]any
				if tt.start != nil {
					objs = append(objs, tt.start)
				}
				c := newFakeCluster(t, objs...)
				took := 2 * time.Second
				if tt.then == nil {
					took = 0
				} else {
					after(took, func() { tt.then(c) })
				}
				r := kube(t, t.Context(), c, "--for", tt.rule, "widget/a")
				if r.code != exitSuccess || r.took != took || r.stdout != "widget.waitable.test/a condition met\n" {
					t.Errorf("%v\nwant exit 0 after %v and widget.waitable.test/a condition met", r, took)
				}
			})
		})
	}
}

// TestKubeTypes: TYPE is any of kubectl's names for a resource: plural,
// singular, short name, kind, with its group, with its version and group;
// TYPE NAME... and TYPE/NAME... name the same objects.
func TestKubeTypes(t *testing.T) {
	for _, args := range [][]string{
		{"widget/a"}, {"widgets/a"}, {"wd/a"}, {"Widget/a"}, {"widget.waitable.test/a"},
		{"widgets.v1.waitable.test/a"}, {"widgets", "a"}, {"wd", "a", "a"}, {"widget,wd", "a"}, {"widget/a", "wd/a"},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			bubble(t, func(t *testing.T) {
				c := newFakeCluster(t, widget("a", cond("Ready", "True")))
				r := kube(t, t.Context(), c, append([]string{"--for", "condition=Ready"}, args...)...)
				if r.code != exitSuccess || r.stdout != "widget.waitable.test/a condition met\n" {
					t.Errorf("%v\nwant exit 0 and one line", r)
				}
			})
		})
	}
}

// TestKubeSelector: -l and --all wait for the objects that match when
// the wait begins; none is kubectl's "no matching resources found",
// status 1; --count N waits until N objects match, those created during
// the wait included, each meeting --for.
func TestKubeSelector(t *testing.T) {
	ready := cond("Ready", "True")
	t.Run("-l", func(t *testing.T) {
		bubble(t, func(t *testing.T) {
			c := newFakeCluster(t, widget("b", nil, "app", "web"), widget("a", ready, "app", "web"), widget("c", nil, "app", "db"))
			after(3*time.Second, func() { c.write(widgets, widget("b", ready, "app", "web"), false) })
			r := kube(t, t.Context(), c, "--for", "condition=Ready", "widget", "-l", "app=web")
			if r.code != exitSuccess || r.took != 3*time.Second ||
				r.stdout != "widget.waitable.test/a condition met\nwidget.waitable.test/b condition met\n" {
				t.Errorf("%v\nwant a and b after 3s", r)
			}
		})
	})
	t.Run("--all", func(t *testing.T) {
		bubble(t, func(t *testing.T) {
			c := newFakeCluster(t, widget("a", ready), widget("b", ready), object("Widget", "other", "c", nil))
			r := kube(t, t.Context(), c, "--for", "condition=Ready", "--all", "widgets")
			if r.code != exitSuccess || r.stdout != "widget.waitable.test/a condition met\nwidget.waitable.test/b condition met\n" {
				t.Errorf("%v\nwant a and b, not other/c", r)
			}
		})
	})
	t.Run("no matching resources found", func(t *testing.T) {
		bubble(t, func(t *testing.T) {
			c := newFakeCluster(t, widget("a", ready, "app", "db"))
			r := kube(t, t.Context(), c, "--for", "condition=Ready", "-l", "app=web", "widget")
			if r.code != exitFailure || r.took != 0 ||
				!strings.Contains(r.stderr, "  widget.waitable.test -n ns -l app=web: no matching resources found\n") {
				t.Errorf("%v\nwant exit 1 at once, no matching resources found", r)
			}
		})
	})
	t.Run("--count", func(t *testing.T) {
		bubble(t, func(t *testing.T) {
			c := newFakeCluster(t, widget("a", ready, "app", "web"))
			after(4*time.Second, func() { c.write(widgets, widget("b", nil, "app", "web"), true) })
			after(6*time.Second, func() { c.write(widgets, widget("b", ready, "app", "web"), false) })
			r := kube(t, t.Context(), c, "--for", "condition=Ready", "-l", "app=web", "--count", "2", "widget")
			if r.code != exitSuccess || r.took != 6*time.Second ||
				r.stdout != "widget.waitable.test/a condition met\nwidget.waitable.test/b condition met\n" {
				t.Errorf("%v\nwant a and b after 6s", r)
			}
		})
	})
	t.Run("--count not reached", func(t *testing.T) {
		bubble(t, func(t *testing.T) {
			c := newFakeCluster(t, widget("a", ready, "app", "web"))
			r := kube(t, t.Context(), c, "--for", "condition=Ready", "--all", "--count", "3", "--timeout", "5s", "widget")
			if r.code != exitTimeout || !strings.Contains(r.stderr, "  widget.waitable.test -n ns --all: 1 of 3 objects, want --count 3\n") {
				t.Errorf("%v\nwant a timeout saying 1 of 3", r)
			}
		})
	})
}

// TestKubeNamespaces: the default namespace is the kubeconfig context's;
// -n replaces it; -A, with -l or --all, waits in every namespace, and
// names each object's namespace in its progress lines.
func TestKubeNamespaces(t *testing.T) {
	ready := cond("Ready", "True")
	bubble(t, func(t *testing.T) {
		c := newFakeCluster(t, object("Widget", "team", "a", ready), object("Widget", "other", "b", ready, "app", "web"),
			object("Widget", "team", "c", ready, "app", "web"))
		c.namespace = "team"
		if r := kube(t, t.Context(), c, "--for", "condition=Ready", "widget/a"); r.code != exitSuccess {
			t.Errorf("the context's namespace: %v", r)
		}
		for _, flag := range []string{"-n", "--namespace"} {
			if r := kube(t, t.Context(), c, "--for", "condition=Ready", flag, "other", "--timeout", "1s", "widget/a"); r.code != exitTimeout {
				t.Errorf("%s other: %v\nwant a timeout: a is in team", flag, r)
			}
		}
		for _, flag := range []string{"-A", "--all-namespaces"} {
			r := kube(t, t.Context(), c, "--for", "condition=Ready", flag, "-l", "app=web", "widget")
			if r.code != exitSuccess || r.stdout != "widget.waitable.test/b condition met\nwidget.waitable.test/c condition met\n" ||
				!strings.Contains(r.stderr, "widget.waitable.test/b -n other  success") {
				t.Errorf("%s: %v\nwant b and c, their namespaces in the progress", flag, r)
			}
		}
	})
}

// TestKubeJSON: --json prints one JSON object per event on standard
// output, then the result; --quiet prints no progress.
func TestKubeJSON(t *testing.T) {
	bubble(t, func(t *testing.T) {
		c := newFakeCluster(t, widget("a", cond("Ready", "False")))
		after(time.Second, func() { c.write(widgets, widget("a", cond("Ready", "True")), false) })
		r := kube(t, t.Context(), c, "--for", "condition=Ready", "--json", "widget/a")
		lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
		if r.code != exitSuccess || len(lines) != 3 || r.stderr != "" {
			t.Fatalf("%v\nwant two events and the result", r)
		}
		var e kubeEventJSON
		if err := json.Unmarshal([]byte(lines[1]), &e); err != nil || e.Object != "widget.waitable.test/a" ||
			e.Resource != "widgets.waitable.test" || e.Namespace != "ns" || e.State != "success" || e.Outcome != "success" ||
			e.Reason != "ReadyReason" || e.ElapsedMS != 1000 {
			t.Errorf("event %s: %v %+v", lines[1], err, e)
		}
		var res kubeResultJSON
		if err := json.Unmarshal([]byte(lines[2]), &res); err != nil || res.Result != "success" || len(res.Objects) != 1 ||
			res.Objects[0].State != "success" || res.Objects[0].Name != "a" {
			t.Errorf("result %s: %v %+v", lines[2], err, res)
		}
		r = kube(t, t.Context(), c, "--for", "condition=Ready", "--json", "--all", "--count", "2", "--timeout", "1s", "widget")
		var count kubeEventJSON
		for line := range strings.SplitSeq(strings.TrimSpace(r.stdout), "\n") {
			var e kubeEventJSON
			if json.Unmarshal([]byte(line), &e) == nil && e.Object == "widget.waitable.test -n ns --all" {
				count = e
			}
		}
		if r.code != exitTimeout || count.Resource != "widgets.waitable.test" || count.Namespace != "ns" || count.Name != "" {
			t.Errorf("--count: %v\nwant a timeout, and the count's event naming its resource and namespace: %+v", r, count)
		}
		r = kube(t, t.Context(), c, "--for", "condition=Ready", "--quiet", "widget/a")
		if r.code != exitSuccess || r.stderr != "" || r.stdout != "widget.waitable.test/a condition met\n" {
			t.Errorf("--quiet: %v\nwant only the line on stdout", r)
		}
		r = kube(t, t.Context(), c, "--for", "condition=Ready", "--quiet", "--timeout", "1s", "widget/b")
		if r.code != exitTimeout || !strings.Contains(r.stderr, "widget.waitable.test/b: not found") {
			t.Errorf("--quiet, a timeout: %v\nwant the summary", r)
		}
	})
}

// TestKubeInterrupted: a cancelled wait (a signal, in main) ends at once
// with the summary and the interrupted status.
func TestKubeInterrupted(t *testing.T) {
	bubble(t, func(t *testing.T) {
		c := newFakeCluster(t, widget("a", nil))
		ctx, cancel := context.WithCancel(t.Context())
		after(2*time.Second, cancel)
		r := kube(t, ctx, c, "--for", "condition=Ready", "widget/a")
		if r.code != exitInterrupted || r.took != 2*time.Second ||
			!strings.Contains(r.stderr, "waitable: interrupted after 2s, waiting for condition=Ready:\n  widget.waitable.test/a: not met") {
			t.Errorf("%v\nwant exit 130 after 2s, the summary", r)
		}
	})
}

// TestKubeWatchEvents: what happens to a watch is a progress line, naming
// what it watches (here the one object a): the watch is forbidden, and the
// wait polls.
func TestKubeWatchEvents(t *testing.T) {
	bubble(t, func(t *testing.T) {
		c := newFakeCluster(t, widget("a", nil))
		c.dyn.PrependWatchReactor("widgets", func(k8stesting.Action) (bool, watch.Interface, error) {
			return true, nil, apierrors.NewForbidden(widgets.GroupResource(), "", errors.New("no watch for you"))
		})
		after(3*time.Second, func() { c.write(widgets, widget("a", cond("Ready", "True")), false) })
		r := kube(t, t.Context(), c, "--for", "condition=Ready", "widget/a")
		if r.code != exitSuccess || r.stdout != "widget.waitable.test/a condition met\n" ||
			!strings.Contains(r.stderr, "+0s  widget.waitable.test/a -n ns: watch polling: widgets.waitable.test is forbidden: no watch for you\n") {
			t.Errorf("%v\nwant a success, and the polling line", r)
		}
	})
}

// TestKubeUsage: bad usage or input exits with 64 and says what is wrong,
// before any wait.
func TestKubeUsage(t *testing.T) {
	forReady := []string{"--for", "condition=Ready"}
	for _, tt := range []struct {
		args []string
		want string
	}{
		{nil, "--for is required"},
		{[]string{"widget/a"}, "--for is required"},
		{[]string{"--for", "ready", "widget/a"}, `--for=ready: rule "ready": want condition=TYPE[=STATUS]`},
		{[]string{"--for", "jsonpath={.a}=", "widget/a"}, "the value after = is empty"},
		{append(forReady, "--fail-on", "nope", "widget/a"), `--fail-on=nope: rule "nope"`},
		{append(forReady, "--count", "2", "widget/a"), "--count needs -l, --field-selector or --all"},
		{append(forReady, "--count", "-1", "--all", "widget"), "--count=-1: negative"},
		{append(forReady, "--count", "2", "--all", "widget,gizmo"), "--count takes one TYPE, not 2"},
		{append(forReady, "-l", "app=web", "--all", "widget"), "-l and --all: give one of them"},
		{append(forReady, "-l", "app=web", "widget", "a"), "name cannot be provided when a selector is specified"},
		{append(forReady, "-l", "app in (", "widget"), `-l "app in (":`},
		{append(forReady, "widget"), "resource(s) were provided, but no name was specified"},
		{append(forReady, "widget/a", "b"), "there is no need to specify a resource type as a separate argument"},
		{append(forReady, "widget", "a/b"), "there is no need to specify a resource type as a separate argument"},
		{append(forReady, "-A", "widget/a"), "a resource cannot be retrieved by name across all namespaces"},
		{append(forReady, "--bogus", "widget/a"), "unknown flag: --bogus\nSee 'waitable kube --help' for usage."},
		{append(forReady, "thing/a"), `the server doesn't have a resource type "thing"`},
		{[]string{"--for", "delete", "--count", "2", "--all", "widget"}, "a wait for deletion has no count"},
	} {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			bubble(t, func(t *testing.T) {
				c := newFakeCluster(t, widget("a", nil))
				r := kube(t, t.Context(), c, tt.args...)
				if r.code != exitUsage || r.took != 0 || !strings.Contains(r.stderr, tt.want) || strings.Count(r.stderr, "waitable kube:") != 1 {
					t.Errorf("%v\nwant exit 64 at once, saying %q once", r, tt.want)
				}
			})
		})
	}
}

// TestKubeHelp: --help prints the help on standard output and exits 0.
func TestKubeHelp(t *testing.T) {
	c := newFakeCluster(t)
	r := kube(t, t.Context(), c, "--help")
	if r.code != exitSuccess || !strings.HasPrefix(r.stdout, "Waits, as kubectl wait does") || !strings.Contains(r.stdout, "--for stringArray") ||
		!strings.Contains(r.stdout, "--server string") || r.stderr != "" {
		t.Errorf("%v\nwant exit 0 and the help on stdout", r)
	}
}

// TestKubeTimeoutZeroAndNegative: --timeout=0 checks once, as kubectl's:
// a GET per object, each judged by each --for, its line printed if met,
// else status 2 with kubectl's words; a negative --timeout waits a week.
func TestKubeTimeoutZeroAndNegative(t *testing.T) {
	bubble(t, func(t *testing.T) {
		c := newFakeCluster(t, widget("a", cond("Ready", "True")), widget("b", cond("Ready", "False")))
		r := kube(t, t.Context(), c, "--for=condition=Ready", "--timeout=0", "widget/a")
		if r.code != exitSuccess || r.took != 0 || r.stdout != "widget.waitable.test/a condition met\n" {
			t.Errorf("met: %v\nwant exit 0 at once, the line", r)
		}
		r = kube(t, t.Context(), c, "--for=condition=Ready", "--timeout=0", "widget/a", "widget/b")
		if r.code != exitTimeout || r.took != 0 || r.stdout != "widget.waitable.test/a condition met\n" ||
			!strings.HasSuffix(r.stderr, "waitable kube: condition not met for widgets/b\n") {
			t.Errorf("not met: %v\nwant exit 2 at once, a's line, kubectl's words for b", r)
		}
		gets := 0
		for _, a := range c.dyn.Actions() {
			if a.GetVerb() == "get" {
				gets++
			}
		}
		if gets != 3 {
			t.Errorf("%d GETs, want one per object and run, 3", gets)
		}
		after(100*time.Hour, func() { c.write(widgets, widget("b", cond("Ready", "True")), false) })
		r = kube(t, t.Context(), c, "--for=condition=Ready", "--timeout=-1s", "--quiet", "widget/b")
		if r.code != exitSuccess || r.took != 100*time.Hour {
			t.Errorf("negative: %v\nwant exit 0 after 100h", r)
		}
	})
}

// configErrorPod is a pod whose container cannot start: its ConfigMap
// does not exist.
func configErrorPod(name string) map[string]any {
	return map[string]any{"apiVersion": "v1", "kind": "Pod",
		"metadata": map[string]any{"name": name, "namespace": "ns", "uid": "uid-" + name},
		"status": map[string]any{"phase": "Pending", "containerStatuses": []any{map[string]any{
			"name": "app", "ready": false, "restartCount": int64(0),
			"state": map[string]any{"waiting": map[string]any{"reason": "CreateContainerConfigError",
				"message": `configmap "web" not found`}}}}}}
}

// TestKubeRolloutWindows: the --rollout-* flags set the rollout's
// windows (a missing ConfigMap fails it at --rollout-config, where the
// default, 90 s, outlasts the timeout); one that is negative, or given
// without --for=rollout, is a usage error.
func TestKubeRolloutWindows(t *testing.T) {
	bubble(t, func(t *testing.T) {
		c := newFakeCluster(t, configErrorPod("web"))
		r := kube(t, t.Context(), c, "--for=rollout", "--rollout-config=10s", "--timeout=1m", "pod/web")
		if r.code != exitFailure || r.took != 10*time.Second || !strings.Contains(r.stderr, `configmap "web" not found`) {
			t.Fatalf("%v\nwant exit 1 after 10s, naming the ConfigMap", r)
		}
	})
	bubble(t, func(t *testing.T) {
		c := newFakeCluster(t, configErrorPod("web"))
		if r := kube(t, t.Context(), c, "--for=rollout", "--timeout=1m", "pod/web"); r.code != exitTimeout || r.took != time.Minute {
			t.Fatalf("%v\nwant exit 2 after 1m", r)
		}
	})
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--for=rollout", "--rollout-config=-1s", "pod/web"}, "--rollout-config=-1s: negative"},
		{[]string{"--for=rollout", "--rollout-restarts=-2", "pod/web"}, "--rollout-restarts=-2: negative"},
		{[]string{"--for=condition=Ready", "--rollout-events=1m", "pod/web"}, "--rollout-events needs --for=rollout"},
	} {
		bubble(t, func(t *testing.T) {
			r := kube(t, t.Context(), newFakeCluster(t), tc.args...)
			if r.code != exitUsage || !strings.Contains(r.stderr, tc.want) {
				t.Errorf("waitable kube %q: %v\nwant exit 64 saying %q", tc.args, r, tc.want)
			}
		})
	}
}

// TestKubeHistoryETA: waitable kube keeps each object's waits in the
// history (--history FILE): from the fifth wait of an object on, its
// progress lines say how long it has left, and --json says it too.
func TestKubeHistoryETA(t *testing.T) {
	file := filepath.Join(t.TempDir(), "history.db")
	bubble(t, func(t *testing.T) {
		c := newFakeCluster(t, widget("a", cond("Ready", "False")))
		for run := 1; run <= 5; run++ {
			c.write(widgets, widget("a", cond("Ready", "False")), false)
			after(10*time.Second, func() { c.write(widgets, widget("a", cond("Ready", "True")), false) })
			r := kube(t, t.Context(), c, "--for", "condition=Ready", "--history", file, "widget/a")
			if r.code != exitSuccess {
				t.Fatalf("run %d: %v", run, r)
			}
			first := strings.SplitN(r.stderr, "\n", 2)[0]
			if has := strings.Contains(first, "; ETA ") && strings.Contains(first, "(p90 10s)"); has != (run == 5) {
				t.Errorf("run %d: its first line %q says an ETA, p90 10s: %t", run, first, has)
			}
		}
		c.write(widgets, widget("a", cond("Ready", "False")), false)
		after(10*time.Second, func() { c.write(widgets, widget("a", cond("Ready", "True")), false) })
		r := kube(t, t.Context(), c, "--for", "condition=Ready", "--history", file, "--json", "widget/a")
		if !strings.Contains(r.stdout, `"eta":{"p10_ms":`) {
			t.Errorf("--json says no eta:\n%s", r.stdout)
		}
	})
}
