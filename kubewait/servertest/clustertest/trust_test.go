package clustertest_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/waitable/waitable/kubewait"
	"github.com/waitable/waitable/kubewait/servertest/clustertest/internal/anchor"
	"github.com/waitable/waitable/kubewait/servertest/clustertest/internal/cluster"
	"github.com/waitable/waitable/kubewait/servertest/internal/waitcmd"
	"github.com/waitable/waitable/waiter"
)

// What healthy clusters do every day, with the default windows: a pod
// whose node shut down, or that the kubelet rejected at admission, is
// replaced (and the replacement takes 35 s to start); a Secret that a
// controller creates 50 s in; a crash loop that ends when its database
// comes up, some 74 s in, at the kubelet's back-off; a pod unschedulable
// until the autoscaler's node comes, 130 s in. Each Deployment rolls out,
// and the wait succeeds.
func TestNoFalseAlarmsWithTheDefaults(t *testing.T) {
	t.Parallel()
	slow := func(*corev1.Pod) []cluster.Step {
		return []cluster.Step{cluster.Bind(), cluster.ContainerCreating(), cluster.Ready().After(35 * time.Second)}
	}
	var mu sync.Mutex
	seen := map[string]int{} // pods seen, by namespace
	// first returns the kubelet that gives steps to the first pod of a
	// namespace and replacement to the others.
	first := func(steps []cluster.Step, replacement func(*corev1.Pod) []cluster.Step) func(*corev1.Pod) []cluster.Step {
		return func(pod *corev1.Pod) []cluster.Step {
			mu.Lock()
			defer mu.Unlock()
			if seen[pod.Namespace]++; seen[pod.Namespace] == 1 {
				return steps
			}
			return replacement(pod)
		}
	}
	config := []cluster.Step{cluster.Bind(), cluster.ContainerCreating()}
	for range 6 {
		config = append(config, cluster.CreateContainerConfigError("app", cluster.MissingSecret("db-tls")).After(10*time.Second))
	}
	kubelets := map[string]func(*corev1.Pod) []cluster.Step{
		"node-shutdown": first([]cluster.Step{cluster.Bind(), cluster.ContainerCreating(), cluster.NodeShutdown().After(time.Second)}, slow),
		"rejected":      first([]cluster.Step{cluster.Bind(), cluster.Rejected("OutOfcpu").After(200 * time.Millisecond)}, slow),
		"secret-later":  func(*corev1.Pod) []cluster.Step { return append(config, cluster.Ready().After(5*time.Second)) },
		"crash-until-db": func(*corev1.Pod) []cluster.Step {
			return []cluster.Step{cluster.Bind(), cluster.ContainerCreating(), cluster.Running().After(100 * time.Millisecond),
				cluster.CrashLoopBackOff("app", cluster.ExitCode(1)).After(time.Second), cluster.Running().After(10 * time.Second),
				cluster.CrashLoopBackOff("app", cluster.ExitCode(1)).After(time.Second), cluster.Running().After(20 * time.Second),
				cluster.CrashLoopBackOff("app", cluster.ExitCode(1)).After(time.Second), cluster.Ready().After(40 * time.Second)}
		},
		"scale-up": func(*corev1.Pod) []cluster.Step {
			return []cluster.Step{cluster.Unschedulable(), cluster.Bind().After(130 * time.Second), cluster.ContainerCreating(),
				cluster.Ready().After(time.Second)}
		},
	}
	c := cluster.Start(t, cluster.Options{Kubelet: func(pod *corev1.Pod) []cluster.Step {
		if k := kubelets[pod.Labels["case"]]; k != nil {
			return k(pod)
		}
		return cluster.Healthy(pod)
	}})
	// The cases run together, each in a namespace of its own, so that the
	// test lasts as long as its longest case.
	type started struct {
		name  string
		at    time.Duration // when the case's kubelet makes the pod ready
		start time.Time
		ours  <-chan waited
	}
	var cases []started
	for _, tc := range []struct {
		name string
		at   time.Duration
	}{{"node-shutdown", 36 * time.Second}, {"rejected", 35 * time.Second}, {"secret-later", 65 * time.Second},
		{"crash-until-db", 74 * time.Second}, {"scale-up", 131 * time.Second}} {
		ns := c.Namespace(t)
		d := cluster.Deployment(ns, "web", 1, "shop/web:v1")
		d.Spec.Template.Labels["case"] = tc.name
		start := time.Now()
		create(t, c, d)
		cases = append(cases, started{tc.name, tc.at, start,
			waitRollout(t, c, ns, kubewait.RolloutOptions{}, 4*time.Minute, deploymentRef("web"))})
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			w := <-tc.ours
			took := w.end.Sub(tc.start)
			if w.err != nil {
				t.Fatalf("%v after %v", w.err, took)
			}
			t.Logf("rolled out after %v", took)
			if took < tc.at-2*time.Second {
				t.Errorf("rolled out after %v, before the case's kubelet made it (%v)", took, tc.at)
			}
		})
	}
}

// A pod whose Secret volume does not exist stays ContainerCreating, and
// only the kubelet's FailedMount Events say why: the rollout fails within
// its window (set by the workload's annotation, 10 s) and 1 s of the
// first, naming the Event, while kubectl rollout status waits.
func TestFailedMountFailsTheRollout(t *testing.T) {
	t.Parallel()
	kubectls := anchor.Kubectls(t)
	mount := cluster.Warning("FailedMount", cluster.MissingSecretVolume("tls", "web-tls"))
	c := cluster.Start(t, cluster.Options{Kubelet: func(*corev1.Pod) []cluster.Step {
		// the volume manager's retries: 0.5 s, doubling
		steps := []cluster.Step{cluster.Bind(), cluster.ContainerCreating(), mount.After(500 * time.Millisecond)}
		for d := time.Second; d <= 32*time.Second; d *= 2 {
			steps = append(steps, mount.After(d))
		}
		return steps
	}})
	ns := c.Namespace(t)
	const window = 10 * time.Second
	d := cluster.Deployment(ns, "web", 2, "shop/web:v1")
	d.Annotations = map[string]string{"rollout.waitable.dev/config": window.String()}
	d.Spec.Template.Spec.Volumes = []corev1.Volume{{Name: "tls", VolumeSource: corev1.VolumeSource{
		Secret: &corev1.SecretVolumeSource{SecretName: "web-tls"}}}}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	create(t, c, d)
	ours := waitRollout(t, c, ns, kubewait.RolloutOptions{}, time.Minute, deploymentRef("web"))
	procs := anchor.RolloutStatuses(ctx, t, kubectls, c.Kubeconfig, ns, "deployment/web", window+20*time.Second)
	firstMount, err := c.WaitWrite(ctx, func(w cluster.Write) bool { return w.Namespace == ns && w.Step == "FailedMount" })
	if err != nil {
		t.Fatal(err)
	}
	w := <-ours
	t.Logf("kubewait: %v after the first FailedMount: %v", w.end.Sub(firstMount.Time), w.err)
	if !errors.Is(w.err, waiter.ErrFailure) {
		t.Fatalf("kubewait: %v, want the rollout's failure", w.err)
	}
	for _, s := range []string{"failed on rollout: FailedMount: pod web-", `MountVolume.SetUp failed for volume "tls" : secret "web-tls" not found`} {
		if !strings.Contains(w.err.Error(), s) {
			t.Errorf("kubewait's error %q does not say %q", w.err, s)
		}
	}
	if lag := w.end.Sub(firstMount.Time); lag < window || lag > window+time.Second {
		t.Errorf("kubewait failed %v after the first FailedMount, want within its window (%v) and 1 s", lag, window)
	}
	for i, p := range procs {
		r := p.Wait()
		t.Logf("%s: %s after %v", kubectls[i].Which, r.Class(), r.End.Sub(firstMount.Time))
		if r.Class() == waitcmd.Success || !r.End.After(w.end) {
			t.Errorf("%s: %s at %v, want it still waiting when kubewait failed", kubectls[i].Which, r.Class(), r.End.Sub(firstMount.Time))
		}
	}
}

// A quota that refuses the new revision's pods while the old ones stop
// (each takes 20 s to, draining its connections) is freed by the
// rollout's own progress: the ReplicaSet's ReplicaFailure clears at the
// ReplicaSet controller's next try after each old pod goes (its backoff
// grows with its refused tries: some 80 s in all), and the wait succeeds
// with the default windows.
func TestQuotaFreedByTheRolloutsOwnProgress(t *testing.T) {
	t.Parallel()
	c := cluster.Start(t, cluster.Options{Termination: 20 * time.Second})
	ns := c.Namespace(t)
	c.Quota(t, ns, "pods", corev1.ResourceList{corev1.ResourcePods: resource.MustParse("2")})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go c.Replenish(ctx, t, ns, "pods")
	d := cluster.Deployment(ns, "web", 2, "shop/web:v1")
	one := intstr.FromInt32(1)
	d.Spec.Strategy = appsv1.DeploymentStrategy{Type: appsv1.RollingUpdateDeploymentStrategyType,
		RollingUpdate: &appsv1.RollingUpdateDeployment{MaxSurge: &one, MaxUnavailable: &one}}
	create(t, c, d)
	if w := <-waitRollout(t, c, ns, kubewait.RolloutOptions{}, time.Minute, deploymentRef("web")); w.err != nil {
		t.Fatalf("v1: %v", w.err)
	}
	start := time.Now()
	refused := make(chan time.Duration, 1) // the longest a ReplicaFailure lasted
	rsWatch, err := c.Client.AppsV1().ReplicaSets(ns).Watch(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		since := map[string]time.Time{} // by ReplicaSet, while it fails
		var longest time.Duration
		defer func() { refused <- longest }()
		for ev := range rsWatch.ResultChan() {
			rs, ok := ev.Object.(*appsv1.ReplicaSet)
			if !ok {
				continue
			}
			failing := false
			for _, cond := range rs.Status.Conditions {
				failing = failing || (cond.Type == appsv1.ReplicaSetReplicaFailure && cond.Status == corev1.ConditionTrue)
			}
			switch from, was := since[rs.Name]; {
			case failing && !was:
				since[rs.Name] = time.Now()
			case !failing && was:
				longest = max(longest, time.Since(from))
				delete(since, rs.Name)
			}
		}
	}()
	rollTo(t, c, d, "shop/web:v2")
	w := <-waitRollout(t, c, ns, kubewait.RolloutOptions{}, 4*time.Minute, deploymentRef("web"))
	took := w.end.Sub(start)
	rsWatch.Stop()
	longest := <-refused
	t.Logf("v2 rolled out after %v; the quota refused its pods for %v at the longest", took, longest)
	if w.err != nil {
		t.Fatalf("v2: %v after %v", w.err, took)
	}
	if longest <= 30*time.Second {
		t.Errorf("the quota refused the new pods for %v at the longest: want more than 30 s, which a 30 s window would have failed", longest)
	}
}
