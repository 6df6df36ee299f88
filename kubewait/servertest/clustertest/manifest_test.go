package clustertest_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"sigs.k8s.io/cli-utils/pkg/kstatus/status"
	"sigs.k8s.io/cli-utils/pkg/object"
	"sigs.k8s.io/yaml"

	"github.com/waitable/waitable/kubewait/servertest/clustertest/internal/anchor"
	"github.com/waitable/waitable/kubewait/servertest/clustertest/internal/cluster"
	"github.com/waitable/waitable/kubewait/servertest/internal/waitcmd"
)

// release is a manifest as a release applies it, in a folder and its
// subfolders: two Deployments, a StatefulSet and its Service, a Job, and
// a custom resource (a Widget of the CRD widgets.shop.test, whose
// controller, the test, reports it Reconciling until it says otherwise).
var release = map[string]string{
	"apps.yaml": `apiVersion: apps/v1
kind: Deployment
metadata: {name: api}
spec:
  replicas: 2
  selector: {matchLabels: {app: api}}
  template:
    metadata: {labels: {app: api}}
    spec: {containers: [{name: app, image: "shop/api:v3"}]}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: app, image: "WEB_IMAGE"}]}
`,
	"db/db.yaml": `apiVersion: apps/v1
kind: StatefulSet
metadata: {name: db}
spec:
  replicas: 2
  serviceName: db
  selector: {matchLabels: {app: db}}
  template:
    metadata: {labels: {app: db}}
    spec: {containers: [{name: db, image: "shop/db:v1"}]}
---
apiVersion: v1
kind: Service
metadata: {name: db}
spec:
  selector: {app: db}
  ports: [{port: 5432}]
`,
	"jobs/migrate.yaml": `apiVersion: batch/v1
kind: Job
metadata: {name: migrate}
spec:
  template:
    spec:
      restartPolicy: Never
      containers: [{name: migrate, image: "shop/migrate:v3"}]
`,
	"front.yaml": `apiVersion: shop.test/v1
kind: Widget
metadata: {name: front}
status:
  conditions: [{type: Reconciling, status: "True", reason: Rendering, message: rendering the front page}]
`,
}

// releaseObjects are release's objects, for kstatus's watcher.
func releaseObjects(ns string) []object.ObjMetadata {
	id := func(group, kind, name string) object.ObjMetadata {
		return object.ObjMetadata{Namespace: ns, Name: name, GroupKind: schema.GroupKind{Group: group, Kind: kind}}
	}
	return []object.ObjMetadata{id("apps", "Deployment", "api"), id("apps", "Deployment", "web"), id("apps", "StatefulSet", "db"),
		id("", "Service", "db"), id("batch", "Job", "migrate"), id("shop.test", "Widget", "front")}
}

var widgetsCRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.shop.test}
spec:
  group: shop.test
  scope: Namespaced
  names: {kind: Widget, plural: widgets, singular: widget}
  versions:
  - name: v1
    served: true
    storage: true
    schema: {openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}}
`

var (
	crds       = schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}
	shopWidget = schema.GroupVersionResource{Group: "shop.test", Version: "v1", Resource: "widgets"}
)

// defineWidgets creates the CRD of widgets.shop.test and waits, on a
// watch, until it is established.
func defineWidgets(t *testing.T, dyn dynamic.Interface) {
	t.Helper()
	var crd unstructured.Unstructured
	if err := yaml.Unmarshal([]byte(widgetsCRD), &crd.Object); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if _, err := dyn.Resource(crds).Create(ctx, &crd, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	w, err := dyn.Resource(crds).Watch(ctx, metav1.ListOptions{FieldSelector: fields.OneTermEqualSelector("metadata.name", crd.GetName()).String()})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	for ev := range w.ResultChan() {
		u, ok := ev.Object.(*unstructured.Unstructured)
		if !ok {
			continue
		}
		conds, _, _ := unstructured.NestedSlice(u.Object, "status", "conditions")
		for _, c := range conds {
			if m, _ := c.(map[string]any); m["type"] == "Established" && m["status"] == "True" {
				return
			}
		}
	}
	t.Fatalf("the CRD %s was not established: %v", crd.GetName(), ctx.Err())
}

// writeRelease writes release into a new folder, web's image being
// webImage.
func writeRelease(t *testing.T, webImage string) string {
	t.Helper()
	dir := t.TempDir()
	for name, text := range release {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(strings.ReplaceAll(text, "WEB_IMAGE", webImage)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// Everything a release applies, under one budget: `waitable kube -f
// release/ -R --for=rollout` succeeds when the last object is rolled out,
// and, with web's image not there, fails within its window and 1 s of
// the kubelet's first ErrImagePull, with every object's state in its
// summary. kstatus's watcher waits beside it on the same objects;
// waitable makes a LIST and a WATCH of each resource and selector it
// reads, no more.
func TestReleaseUnderOneBudget(t *testing.T) {
	t.Parallel()
	kubectls := anchor.Kubectls(t)
	c := cluster.Start(t, cluster.Options{Kubelet: func(pod *corev1.Pod) []cluster.Step {
		if pod.Spec.Containers[0].Image == "shop/web:missing" {
			return cluster.PullFailing("app", cluster.ImageNotFound, 300*time.Millisecond)
		}
		return cluster.HealthyAfter(time.Second)(pod)
	}})
	direct, err := dynamic.NewForConfig(c.Direct)
	if err != nil {
		t.Fatal(err)
	}
	defineWidgets(t, direct)
	env := waitcmd.NewEnv(t, c.Kubeconfig)
	for _, tc := range []struct {
		name, image string
	}{{"rolled-out", "shop/web:v3"}, {"web-image-missing", "shop/web:missing"}} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ns := c.Namespace(t)
			dir := writeRelease(t, tc.image)
			apply := exec.Command(kubectls[0].Path, "apply", "-R", "-f", dir, "-n", ns)
			apply.Env = append(os.Environ(), "KUBECONFIG="+c.Kubeconfig, "KUBECACHEDIR="+t.TempDir())
			if out, err := apply.CombinedOutput(); err != nil {
				t.Fatalf("kubectl apply: %v\n%s", err, out)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			start := time.Now()
			p, err := env.Start(ctx, waitcmd.Waitable, "-f", dir, "-R", "-n", ns, "--for=rollout", "--timeout=90s")
			if err != nil {
				t.Fatal(err)
			}
			kctx, kcancel := context.WithTimeout(ctx, 90*time.Second)
			defer kcancel()
			kdone := make(chan anchor.KstatusResult, 1)
			go func() { kdone <- anchor.Kstatus(kctx, userAgent(c, "kstatus"), releaseObjects(ns)...) }()

			if tc.name == "rolled-out" {
				// The front page renders once the rest is up: its
				// controller (the test) says so last.
				for _, step := range []string{"Ready", "Succeeded"} {
					n := map[string]int{"Ready": 7, "Succeeded": 1}[step] // 6 pods and the Job's
					lastWrite(t, c, ns, step, n)
				}
				rendered := time.Now()
				front, err := direct.Resource(shopWidget).Namespace(ns).Get(ctx, "front", metav1.GetOptions{})
				if err != nil {
					t.Fatal(err)
				}
				_ = unstructured.SetNestedSlice(front.Object, []any{map[string]any{"type": "Reconciling", "status": "False",
					"reason": "Rendered", "message": "the front page is up"}}, "status", "conditions")
				if _, err := direct.Resource(shopWidget).Namespace(ns).Update(ctx, front, metav1.UpdateOptions{}); err != nil {
					t.Fatal(err)
				}
				r := p.Wait()
				t.Logf("%s: %s after %v (%v after the last object was up)\n%s\n%s", r.Command(), r.Class(), r.End.Sub(start),
					r.End.Sub(rendered), strings.Join(waitcmd.Texts(r.Stdout), "\n"), r.StderrText())
				if r.Class() != waitcmd.Success || len(r.Stdout) != 6 {
					t.Errorf("%s = %s with %d lines, want success and a line for each of the 6 objects", r.Command(), r.Class(), len(r.Stdout))
				}
				if r.End.Before(rendered) {
					t.Errorf("success before the last object was up")
				}
			} else {
				first, err := c.WaitWrite(ctx, func(w cluster.Write) bool { return w.Namespace == ns && w.Step == "ErrImagePull" })
				if err != nil {
					t.Fatal(err)
				}
				r := p.Wait()
				summary := r.StderrText()
				t.Logf("%s: %s %v after the first ErrImagePull\n%s", r.Command(), r.Class(), r.End.Sub(first.Time), summary)
				if r.Class() != waitcmd.Failure {
					t.Fatalf("%s = %s, want a failure", r.Command(), r.Class())
				}
				if lag := r.End.Sub(first.Time); lag > 31*time.Second {
					t.Errorf("failed %v after the first ErrImagePull, want within the window (30 s) and 1 s", lag)
				}
				_, tail, _ := strings.Cut(summary, "waitable: failure after")
				for _, line := range []string{"deployment.apps/api: met", "deployment.apps/web: failed on rollout (ImagePullBackOff: pod web-",
					"statefulset.apps/db: ", "service/db: ", "job.batch/migrate: ", "widget.shop.test/front: "} {
					if !strings.Contains(tail, "  "+line) {
						t.Errorf("the summary has no line %q", line)
					}
				}
			}
			if tc.name != "rolled-out" {
				kcancel() // kstatus would wait for the deadline
			}
			// A release that rolled out: kstatus's watcher sees it some
			// 100 ms after the rest (it reads the objects again at each
			// event), and is waited for, not cut off.
			ks := <-kdone
			t.Logf("kstatus: %s after %v", ks.Status, ks.Time.Sub(start))
			if tc.name == "rolled-out" && ks.Status != status.CurrentStatus {
				t.Errorf("kstatus: %s (%v), want Current", ks.Status, ks.Err)
			}
			t.Logf("requests: %v", requestsBy(c, ns, "waitable", "kstatus"))
			oneListAndWatchEach(t, c, ns, "waitable")
		})
	}
}
