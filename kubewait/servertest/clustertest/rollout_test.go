package clustertest_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/tools/cache"
	watchtools "k8s.io/client-go/tools/watch"
	"sigs.k8s.io/cli-utils/pkg/kstatus/status"
	"sigs.k8s.io/cli-utils/pkg/object"

	"github.com/waitable/waitable/kubewait/servertest/clustertest/internal/anchor"
	"github.com/waitable/waitable/kubewait/servertest/clustertest/internal/cluster"
	"github.com/waitable/waitable/kubewait/servertest/internal/waitcmd"
)

// startDelay is how long the pods of TestWorkloadsRollOut take to become
// Ready after the kubelet's ContainerCreating, so that the anchors see
// the rollout under way before they see it done.
const startDelay = 2 * time.Second

var (
	deploymentKind  = schema.GroupKind{Group: "apps", Kind: "Deployment"}
	statefulSetKind = schema.GroupKind{Group: "apps", Kind: "StatefulSet"}
	daemonSetKind   = schema.GroupKind{Group: "apps", Kind: "DaemonSet"}
	jobKind         = schema.GroupKind{Group: "batch", Kind: "Job"}
)

// TestWorkloadsRollOut checks that a Deployment of 3 replicas, a
// StatefulSet of 3, a DaemonSet on the 3 nodes and a Job of 2 completions
// roll out with the real controllers and the kubelet the test plays, and
// that kubectl rollout status (each kubectl; it has no Jobs) and kstatus's
// watcher report each complete once the kubelet has made its last pod
// Ready (Succeeded, a Job's), not before. The anchors' requests go through the proxy, which
// counts them.
func TestWorkloadsRollOut(t *testing.T) {
	t.Parallel()
	kubectls := anchor.Kubectls(t) // built before the clock starts
	c := cluster.Start(t, cluster.Options{Kubelet: cluster.HealthyAfter(startDelay)})
	for _, w := range []struct {
		name   string
		kind   schema.GroupKind
		pods   int
		last   string // the kubelet's last step for each pod
		create func(ctx context.Context, ns string) error
	}{
		{"deployment", deploymentKind, 3, "Ready", func(ctx context.Context, ns string) error {
			_, err := c.Client.AppsV1().Deployments(ns).Create(ctx, cluster.Deployment(ns, "web", 3, "nginx:1.27"),
				metav1.CreateOptions{})
			return err
		}},
		{"statefulset", statefulSetKind, 3, "Ready", func(ctx context.Context, ns string) error {
			_, err := c.Client.AppsV1().StatefulSets(ns).Create(ctx, cluster.StatefulSet(ns, "web", 3, "nginx:1.27"),
				metav1.CreateOptions{})
			return err
		}},
		{"daemonset", daemonSetKind, 3, "Ready", func(ctx context.Context, ns string) error {
			_, err := c.Client.AppsV1().DaemonSets(ns).Create(ctx, cluster.DaemonSet(ns, "web", "nginx:1.27"),
				metav1.CreateOptions{})
			return err
		}},
		{"job", jobKind, 2, "Succeeded", func(ctx context.Context, ns string) error {
			_, err := c.Client.BatchV1().Jobs(ns).Create(ctx, cluster.Job(ns, "web", 2, "busybox:1.37"),
				metav1.CreateOptions{})
			return err
		}},
	} {
		t.Run(w.name, func(t *testing.T) {
			t.Parallel()
			ns := c.Namespace(t)
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			start := time.Now()
			if err := w.create(ctx, ns); err != nil {
				t.Fatal(err)
			}
			var procs []*waitcmd.Proc
			if w.kind != jobKind {
				procs = anchor.RolloutStatuses(ctx, t, kubectls, c.Kubeconfig, ns, strings.ToLower(w.kind.Kind)+"/web", time.Minute)
			}
			res := anchor.Kstatus(ctx, c.Config, object.ObjMetadata{Namespace: ns, Name: "web", GroupKind: w.kind})

			ready := lastWrite(t, c, ns, w.last, w.pods)
			t.Logf("last pod %s at +%v", w.last, ready.Sub(start).Round(time.Millisecond))
			if w.kind == jobKind {
				complete := until(t, ctx, c.Client.BatchV1().RESTClient(), "jobs", ns, "web", &batchv1.Job{},
					func(obj runtime.Object) bool {
						for _, c := range obj.(*batchv1.Job).Status.Conditions {
							if c.Type == batchv1.JobComplete && c.Status == corev1.ConditionTrue {
								return true
							}
						}
						return false
					})
				t.Logf("Job Complete seen at +%v", complete.Sub(start).Round(time.Millisecond))
				if complete.Before(ready) {
					t.Errorf("Job Complete at +%v, before the last pod Succeeded (+%v)", complete.Sub(start), ready.Sub(start))
				}
			}
			switch {
			case res.Status != status.CurrentStatus || res.Err != nil:
				t.Errorf("kstatus = %s (%v), want Current", res.Status, res.Err)
			case w.kind == jobKind:
				// kstatus calls a Job Current once it has started, "Job in
				// progress" (Helm's --wait-for-jobs reads Jobs itself).
			case res.Time.Before(ready):
				t.Errorf("kstatus Current at +%v, before the last pod was %s (+%v)", res.Time.Sub(start), w.last, ready.Sub(start))
			}
			t.Logf("kstatus: %s at +%v: %s", res.Status, res.Time.Sub(start).Round(time.Millisecond),
				res.Objects[object.ObjMetadata{Namespace: ns, Name: "web", GroupKind: w.kind}].Message)
			for i, p := range procs {
				r := p.Wait()
				if r.Class() != waitcmd.Success || len(r.Stdout) == 0 {
					t.Errorf("%s (%s) = %s (%d)\n%s", r.Command(), kubectls[i].Which, r.Class(), r.Code, r.StderrText())
					continue
				}
				done := r.Stdout[len(r.Stdout)-1]
				if done.Time.Before(ready) {
					t.Errorf("%s (%s) said %q at +%v, before the last pod was Ready (+%v)",
						r.Command(), kubectls[i].Which, done.Text, done.Time.Sub(start), ready.Sub(start))
				}
				t.Logf("%s: %q at +%v", kubectls[i].Which, done.Text, done.Time.Sub(start).Round(time.Millisecond))
			}
			resource := strings.ToLower(w.kind.Kind) + "s"
			if n := c.Count("WATCH", resource, ns); n < 1+len(procs) {
				t.Errorf("the proxy counted %d watches of %s, want one of kstatus's and one of each kubectl's", n, resource)
			}
		})
	}
}

// lastWrite returns the time of the n-th write of step to a pod of
// namespace ns, waiting for it.
func lastWrite(t *testing.T, c *cluster.Cluster, ns, step string, n int) time.Time {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	seen := map[string]bool{}
	w, err := c.WaitWrite(ctx, func(w cluster.Write) bool {
		if w.Namespace == ns && w.Step == step {
			seen[w.Pod] = true
		}
		return len(seen) == n
	})
	if err != nil {
		t.Fatalf("waiting for %d pods of %s to be %s: %v", n, ns, step, err)
	}
	return w.Time
}

// TestProgressDeadlineExceeded checks that the Deployment controller
// reports a Deployment whose pods sit in ImagePullBackOff as
// ProgressDeadlineExceeded once its progressDeadlineSeconds (10 here)
// pass, and that kubectl rollout status (each kubectl) fails and kstatus's
// watcher reports Failed about then, not before.
func TestProgressDeadlineExceeded(t *testing.T) {
	t.Parallel()
	kubectls := anchor.Kubectls(t)
	const image = "registry.example.com/shop/web:v2"
	c := cluster.Start(t, cluster.Options{Kubelet: func(pod *corev1.Pod) []cluster.Step {
		return cluster.PullFailing("app", cluster.ImageNotFound, 500*time.Millisecond)
	}})
	ns := c.Namespace(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	d := cluster.Deployment(ns, "web", 3, image)
	d.Spec.ProgressDeadlineSeconds = new(int32(10))
	start := time.Now()
	if _, err := c.Client.AppsV1().Deployments(ns).Create(ctx, d, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	procs := anchor.RolloutStatuses(ctx, t, kubectls, c.Kubeconfig, ns, "deployment/web", time.Minute)
	var kstatus anchor.KstatusResult
	var wg sync.WaitGroup
	wg.Go(func() {
		kstatus = anchor.Kstatus(ctx, c.Config, object.ObjMetadata{Namespace: ns, Name: "web", GroupKind: deploymentKind})
	})

	backOff, err := c.WaitWrite(ctx, func(w cluster.Write) bool { return w.Namespace == ns && w.Step == "ImagePullBackOff" })
	if err != nil {
		t.Fatal(err)
	}
	exceeded := until(t, ctx, c.Client.AppsV1().RESTClient(), "deployments", ns, "web", &appsv1.Deployment{},
		func(obj runtime.Object) bool {
			for _, c := range obj.(*appsv1.Deployment).Status.Conditions {
				if c.Type == appsv1.DeploymentProgressing {
					return c.Status == corev1.ConditionFalse && c.Reason == "ProgressDeadlineExceeded"
				}
			}
			return false
		})
	t.Logf("first ImagePullBackOff at +%v, ProgressDeadlineExceeded seen at +%v", backOff.Time.Sub(start).Round(time.Millisecond),
		exceeded.Sub(start).Round(time.Millisecond))
	if exceeded.Sub(start) < 10*time.Second {
		t.Errorf("ProgressDeadlineExceeded at +%v, before the deadline of 10 s", exceeded.Sub(start))
	}

	// The anchors end when they see the condition: "about then" is within
	// 5 s of this test's own watch, on a loaded machine.
	const about = 5 * time.Second
	wg.Wait()
	if kstatus.Status != status.FailedStatus {
		t.Errorf("kstatus = %s (%v), want Failed", kstatus.Status, kstatus.Err)
	} else if d := kstatus.Time.Sub(exceeded); d < -about || d > about {
		t.Errorf("kstatus Failed at +%v, want about +%v", kstatus.Time.Sub(start), exceeded.Sub(start))
	}
	t.Logf("kstatus: %s at +%v: %s", kstatus.Status, kstatus.Time.Sub(start).Round(time.Millisecond),
		kstatus.Objects[object.ObjMetadata{Namespace: ns, Name: "web", GroupKind: deploymentKind}].Message)
	for i, p := range procs {
		r := p.Wait()
		if r.Class() != waitcmd.Failure || !strings.Contains(r.StderrText(), "exceeded its progress deadline") {
			t.Errorf("%s (%s) = %s (%d), want a failure: exceeded its progress deadline\n%s",
				r.Command(), kubectls[i].Which, r.Class(), r.Code, r.StderrText())
			continue
		}
		if d := r.End.Sub(exceeded); d < -about || d > about {
			t.Errorf("%s (%s) failed at +%v, want about +%v", r.Command(), kubectls[i].Which, r.End.Sub(start), exceeded.Sub(start))
		}
		t.Logf("%s: %q at +%v", kubectls[i].Which, r.StderrText(), r.End.Sub(start).Round(time.Millisecond))
	}
	t.Logf("requests through the proxy: %d LIST, %d WATCH, %d GET", c.Count("LIST", "deployments", ns)+
		c.Count("LIST", "replicasets", ns)+c.Count("LIST", "pods", ns), c.Count("WATCH", "deployments", ns),
		c.Count("GET", "deployments", ns))
}

// until watches the object name of resource in ns, directly, until done
// returns true for it, and returns when the test saw it.
func until(t *testing.T, ctx context.Context, client cache.Getter, resource, ns, name string, obj runtime.Object,
	done func(runtime.Object) bool) time.Time {
	t.Helper()
	lw := cache.NewListWatchFromClient(client, resource, ns, fields.OneTermEqualSelector("metadata.name", name))
	_, err := watchtools.UntilWithSync(ctx, lw, obj, nil, func(e watch.Event) (bool, error) {
		return e.Type != watch.Deleted && done(e.Object), nil
	})
	if err != nil {
		t.Fatalf("watching %s %s/%s: %v", resource, ns, name, err)
	}
	return time.Now()
}
