package clustertest_test

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/cli-utils/pkg/kstatus/status"
	"sigs.k8s.io/cli-utils/pkg/object"

	"github.com/waitable/waitable/kubewait"
	"github.com/waitable/waitable/kubewait/servertest/clustertest/internal/anchor"
	"github.com/waitable/waitable/kubewait/servertest/clustertest/internal/cluster"
	"github.com/waitable/waitable/kubewait/servertest/internal/waitcmd"
	"github.com/waitable/waitable/waiter"
)

// waited is how kubewait's wait for a rollout ended, and when.
type waited struct {
	res kubewait.Result
	err error
	end time.Time
}

// userAgent returns the cluster's proxy Config as a client that names
// itself agent, so that the proxy tells its requests apart.
func userAgent(c *cluster.Cluster, agent string) *rest.Config {
	cfg := rest.CopyConfig(c.Config)
	cfg.UserAgent = agent
	return cfg
}

// waitRollout starts kubewait's wait (--for=rollout, with opts) for objs
// in ns, through the proxy as the client "kubewait", and returns where
// its outcome will come.
func waitRollout(t *testing.T, c *cluster.Cluster, ns string, opts kubewait.RolloutOptions, timeout time.Duration,
	objs ...kubewait.Ref) <-chan waited {
	t.Helper()
	kc, err := kubewait.NewForConfig(userAgent(c, "kubewait"), kubewait.ClientOptions{})
	if err != nil {
		t.Fatal(err)
	}
	out := make(chan waited, 1)
	go func() {
		res, err := kc.Wait(context.Background(), kubewait.Request{Objects: objs, Namespace: ns,
			For: []kubewait.Rule{kubewait.Rollout(opts)}, Timeout: timeout})
		out <- waited{res: res, err: err, end: time.Now()}
	}()
	return out
}

func ref(group, kind, name string) kubewait.Ref {
	return kubewait.Ref{Kind: schema.GroupVersionKind{Group: group, Kind: kind}, Name: name}
}

func deploymentRef(name string) kubewait.Ref { return ref("apps", "Deployment", name) }

// create creates a Deployment, failing t if it cannot.
func create(t *testing.T, c *cluster.Cluster, d *appsv1.Deployment) {
	t.Helper()
	if _, err := c.Client.AppsV1().Deployments(d.Namespace).Create(context.Background(), d, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// A healthy rollout: kubewait, kubectl rollout status (each kubectl) and
// kstatus's watcher see it done together, kubewait within 100 ms of the
// first of the others (kstatus lists a Deployment's ReplicaSets and pods
// again at each of its events, and comes some 90 ms after the rest).
func TestHealthyRolloutSeenTogether(t *testing.T) {
	t.Parallel()
	kubectls := anchor.Kubectls(t)
	c := cluster.Start(t, cluster.Options{Kubelet: cluster.HealthyAfter(2 * time.Second)})
	ns := c.Namespace(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	create(t, c, cluster.Deployment(ns, "web", 3, "shop/web:v1"))
	ours := waitRollout(t, c, ns, kubewait.RolloutOptions{}, time.Minute, deploymentRef("web"))
	procs := anchor.RolloutStatuses(ctx, t, kubectls, c.Kubeconfig, ns, "deployment/web", time.Minute)
	ks := anchor.Kstatus(ctx, userAgent(c, "kstatus"), object.ObjMetadata{Namespace: ns, Name: "web",
		GroupKind: schema.GroupKind{Group: "apps", Kind: "Deployment"}})
	w := <-ours
	if w.err != nil {
		t.Fatalf("kubewait: %v", w.err)
	}
	if ks.Status != status.CurrentStatus {
		t.Fatalf("kstatus: %s (%v)", ks.Status, ks.Err)
	}
	ends := map[string]time.Time{"kubewait": w.end, "kstatus": ks.Time}
	for i, p := range procs {
		r := p.Wait()
		if r.Class() != waitcmd.Success || len(r.Stdout) == 0 {
			t.Fatalf("%s (%s) = %s\n%s", r.Command(), kubectls[i].Which, r.Class(), r.StderrText())
		}
		ends[kubectls[i].Which] = r.Stdout[len(r.Stdout)-1].Time
	}
	first, last := w.end, w.end
	for who, end := range ends {
		t.Logf("%s: done at %s", who, end.Format("15:04:05.000"))
		if end.Before(first) {
			first = end
		}
		if end.After(last) {
			last = end
		}
	}
	t.Logf("all done within %v of one another", last.Sub(first))
	if lag := w.end.Sub(first); lag > 100*time.Millisecond {
		t.Errorf("kubewait saw the rollout done %v after the first of the others, want within 100 ms", lag)
	}
}

// A Deployment whose image is not there (progressDeadlineSeconds 60):
// kubewait fails within its window (30 s) and 1 s of the kubelet's first
// ErrImagePull, naming the pod, the container and the reason; kubectl
// rollout status and kstatus's watcher fail at the progress deadline.
func TestBrokenRolloutFailsInSeconds(t *testing.T) {
	t.Parallel()
	kubectls := anchor.Kubectls(t)
	c := cluster.Start(t, cluster.Options{Kubelet: func(*corev1.Pod) []cluster.Step {
		return cluster.PullFailing("app", cluster.ImageNotFound, 500*time.Millisecond)
	}})
	ns := c.Namespace(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	d := cluster.Deployment(ns, "web", 3, "registry.example.com/shop/web:v2")
	d.Spec.ProgressDeadlineSeconds = new(int32(60))
	created := time.Now()
	create(t, c, d)
	ours := waitRollout(t, c, ns, kubewait.RolloutOptions{}, 2*time.Minute, deploymentRef("web"))
	procs := anchor.RolloutStatuses(ctx, t, kubectls, c.Kubeconfig, ns, "deployment/web", 2*time.Minute)
	var ks anchor.KstatusResult
	var wg sync.WaitGroup
	wg.Go(func() {
		ks = anchor.Kstatus(ctx, userAgent(c, "kstatus"), object.ObjMetadata{Namespace: ns, Name: "web",
			GroupKind: schema.GroupKind{Group: "apps", Kind: "Deployment"}})
	})
	first, err := c.WaitWrite(ctx, func(w cluster.Write) bool { return w.Namespace == ns && w.Step == "ErrImagePull" })
	if err != nil {
		t.Fatal(err)
	}
	w := <-ours
	t.Logf("kubewait: %v after the first ErrImagePull (%v after the create): %v", w.end.Sub(first.Time), w.end.Sub(created), w.err)
	if !errors.Is(w.err, waiter.ErrFailure) {
		t.Fatalf("kubewait: %v, want the rollout's failure", w.err)
	}
	for _, s := range []string{"deployments.apps", "failed on rollout: ImagePullBackOff: pod web-", ", container app: ", "not found"} {
		if !strings.Contains(w.err.Error(), s) {
			t.Errorf("kubewait's error %q does not say %q", w.err, s)
		}
	}
	if lag := w.end.Sub(first.Time); lag < 30*time.Second || lag > 31*time.Second {
		t.Errorf("kubewait failed %v after the first ErrImagePull, want within its window (30 s) and 1 s", lag)
	}
	wg.Wait()
	t.Logf("kstatus: %s after %v", ks.Status, ks.Time.Sub(created))
	if ks.Status != status.FailedStatus || ks.Time.Sub(created) < time.Minute {
		t.Errorf("kstatus: %s after %v, want Failed at the progress deadline, 60 s", ks.Status, ks.Time.Sub(created))
	}
	for i, p := range procs {
		r := p.Wait()
		t.Logf("%s: %s after %v: %s", kubectls[i].Which, r.Class(), r.End.Sub(created), r.StderrText())
		if r.Class() != waitcmd.Failure || r.End.Sub(created) < time.Minute {
			t.Errorf("%s: %s after %v, want a failure at the progress deadline, 60 s", kubectls[i].Which, r.Class(), r.End.Sub(created))
		}
	}
}

// What does not fail a rollout: a pull error a registry may recover from,
// an image that pulls inside the window, a crash that does not repeat, a
// crashing pod of the old ReplicaSet, a pod unschedulable for less than
// its window. Each Deployment rolls out, and the wait succeeds.
func TestNoFalseAlarms(t *testing.T) {
	t.Parallel()
	pull := func(err cluster.PullError, ready time.Duration) []cluster.Step {
		return []cluster.Step{cluster.Bind(), cluster.ContainerCreating(), cluster.ErrImagePull("app", err).After(300 * time.Millisecond),
			cluster.ImagePullBackOff("app", err), cluster.ErrImagePull("app", err).After(ready / 2),
			cluster.ImagePullBackOff("app", err), cluster.Ready().After(ready / 2)}
	}
	kubelets := map[string]func(*corev1.Pod) []cluster.Step{
		"transient": func(*corev1.Pod) []cluster.Step { return pull(cluster.RegistryTLSTimeout, 4*time.Second) },
		"pulled":    func(*corev1.Pod) []cluster.Step { return pull(cluster.ImageNotFound, 2*time.Second) },
		"crash-once": func(*corev1.Pod) []cluster.Step {
			return []cluster.Step{cluster.Bind(), cluster.ContainerCreating(), cluster.Running().After(100 * time.Millisecond),
				cluster.CrashLoopBackOff("app", cluster.ExitCode(1)).After(200 * time.Millisecond), cluster.Ready().After(3 * time.Second)}
		},
		"unschedulable": func(*corev1.Pod) []cluster.Step {
			return []cluster.Step{cluster.Unschedulable(), cluster.Bind().After(3 * time.Second), cluster.ContainerCreating(),
				cluster.Ready().After(500 * time.Millisecond)}
		},
		// The new ReplicaSet's pods take 4 s to start, while an old one's
		// crashes (crashOldPod).
		"old-replicaset": func(pod *corev1.Pod) []cluster.Step {
			if pod.Spec.Containers[0].Image == "shop/web:v2" {
				return []cluster.Step{cluster.Bind(), cluster.ContainerCreating(), cluster.Ready().After(4 * time.Second)}
			}
			return cluster.Healthy(pod)
		},
	}
	c := cluster.Start(t, cluster.Options{Kubelet: func(pod *corev1.Pod) []cluster.Step {
		if k := kubelets[pod.Labels["case"]]; k != nil {
			return k(pod)
		}
		return cluster.Healthy(pod)
	}})
	for _, name := range []string{"transient", "pulled", "crash-once", "unschedulable", "old-replicaset"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			// Windows shorter than what lasts, so that a false alarm would show.
			opts := kubewait.RolloutOptions{Window: time.Second, CrashLoop: time.Second, Unschedulable: 6 * time.Second}
			ns := c.Namespace(t)
			d := cluster.Deployment(ns, "web", 2, "shop/web:v1")
			d.Spec.Template.Labels["case"] = name
			if name == "pulled" {
				opts.Window = 4 * time.Second // the image pulls inside it
			}
			if name == "old-replicaset" {
				create(t, c, d)
				if w := <-waitRollout(t, c, ns, opts, time.Minute, deploymentRef("web")); w.err != nil {
					t.Fatalf("v1: %v", w.err)
				}
				d = rollTo(t, c, d, "shop/web:v2")
				ours := waitRollout(t, c, ns, opts, time.Minute, deploymentRef("web"))
				crashOldPod(t, c, ns, d)
				if w := <-ours; w.err != nil {
					t.Fatalf("v2 with an old pod crashing: %v", w.err)
				}
				return
			}
			create(t, c, d)
			start := time.Now()
			w := <-waitRollout(t, c, ns, opts, time.Minute, deploymentRef("web"))
			if w.err != nil {
				t.Fatalf("%v after %v", w.err, w.end.Sub(start))
			}
			// Each case's pods take seconds to start: the wait went on
			// through what looked like trouble.
			t.Logf("rolled out after %v", w.end.Sub(start))
			if w.end.Sub(start) < time.Second {
				t.Errorf("rolled out after %v: the case's kubelet did not run", w.end.Sub(start))
			}
		})
	}
}

// rollTo updates d's image.
func rollTo(t *testing.T, c *cluster.Cluster, d *appsv1.Deployment, image string) *appsv1.Deployment {
	t.Helper()
	ctx := context.Background()
	d, err := c.Client.AppsV1().Deployments(d.Namespace).Get(ctx, d.Name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	d.Spec.Template.Spec.Containers[0].Image = image
	d, err = c.Client.AppsV1().Deployments(d.Namespace).Update(ctx, d, metav1.UpdateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// crashOldPod makes a pod of d's old image crash, over and over.
func crashOldPod(t *testing.T, c *cluster.Cluster, ns string, d *appsv1.Deployment) {
	t.Helper()
	pods, err := c.Client.CoreV1().Pods(ns).List(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range pods.Items {
		if p.Spec.Containers[0].Image != d.Spec.Template.Spec.Containers[0].Image {
			err := c.Apply(context.Background(), ns, p.Name, cluster.CrashLoopBackOff("app", cluster.OOMKilled),
				cluster.Running(), cluster.CrashLoopBackOff("app", cluster.OOMKilled), cluster.Running(),
				cluster.CrashLoopBackOff("app", cluster.OOMKilled))
			if err != nil && !errors.Is(err, cluster.ErrPodGone) {
				t.Fatal(err)
			}
			return
		}
	}
	t.Fatal("no pod of the old image")
}

// What fails a rollout, each within its window of the kubelet's first
// write of the reason, the error naming the pod, the container (an init
// container's too), the reason and its message.
func TestRolloutsThatCannotStart(t *testing.T) {
	t.Parallel()
	const window = 2 * time.Second
	cases := []struct {
		name    string
		kubelet func(*corev1.Pod) []cluster.Step
		first   string // the kubelet's first write of the reason
		says    []string
		before  func(t *testing.T, c *cluster.Cluster, ns string, d *appsv1.Deployment)
	}{
		{name: "oomkilled", kubelet: func(*corev1.Pod) []cluster.Step {
			return cluster.CrashLooping("app", cluster.OOMKilled, 100*time.Millisecond)
		}, first: "CrashLoopBackOff", says: []string{"CrashLoopBackOff: pod web-", ", container app: ", "(exit code 137, OOMKilled, 2 restarts)"}},
		{name: "config", kubelet: func(*corev1.Pod) []cluster.Step {
			return []cluster.Step{cluster.Bind(), cluster.ContainerCreating(),
				cluster.CreateContainerConfigError("app", cluster.MissingConfigMap("web-config")).After(200 * time.Millisecond)}
		}, first: "CreateContainerConfigError", says: []string{`CreateContainerConfigError: pod web-`, `configmap "web-config" not found`}},
		{name: "init", kubelet: func(*corev1.Pod) []cluster.Step {
			return []cluster.Step{cluster.Bind(), cluster.ContainerCreating(),
				cluster.InitCrashLoopBackOff("migrate", cluster.ExitCode(3)).After(100 * time.Millisecond),
				cluster.InitCrashLoopBackOff("migrate", cluster.ExitCode(3)).After(time.Second),
				cluster.InitCrashLoopBackOff("migrate", cluster.ExitCode(3)).After(time.Second)}
		}, first: "Init:CrashLoopBackOff", says: []string{"init container migrate", "exit code 3"},
			before: func(_ *testing.T, _ *cluster.Cluster, _ string, d *appsv1.Deployment) {
				d.Spec.Template.Spec.InitContainers = []corev1.Container{{Name: "migrate", Image: "shop/migrate:v1"}}
			}},
		{name: "unschedulable", kubelet: func(*corev1.Pod) []cluster.Step {
			return []cluster.Step{cluster.Unschedulable()}
		}, first: "Unschedulable", says: []string{"Unschedulable: pod web-", "0/3 nodes are available"}},
		{name: "quota", first: "", says: []string{"ReplicaFailure: FailedCreate: ", "exceeded quota"},
			before: func(t *testing.T, c *cluster.Cluster, ns string, _ *appsv1.Deployment) {
				c.Quota(t, ns, "pods", corev1.ResourceList{corev1.ResourcePods: resource.MustParse("1")})
			}},
	}
	kubelets := map[string]func(*corev1.Pod) []cluster.Step{}
	for _, tc := range cases {
		kubelets[tc.name] = tc.kubelet
	}
	c := cluster.Start(t, cluster.Options{Kubelet: func(pod *corev1.Pod) []cluster.Step {
		if k := kubelets[pod.Labels["case"]]; k != nil {
			return k(pod)
		}
		return cluster.Healthy(pod)
	}})
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ns := c.Namespace(t)
			d := cluster.Deployment(ns, "web", 2, "shop/web:v1")
			d.Spec.Template.Labels["case"] = tc.name
			if tc.before != nil {
				tc.before(t, c, ns, d)
			}
			opts := kubewait.RolloutOptions{Window: window, Config: window, CrashLoop: window, Unschedulable: window, Quota: window}
			start := time.Now()
			create(t, c, d)
			w := <-waitRollout(t, c, ns, opts, time.Minute, deploymentRef("web"))
			if !errors.Is(w.err, waiter.ErrFailure) {
				t.Fatalf("err = %v after %v, want the rollout's failure", w.err, w.end.Sub(start))
			}
			for _, s := range tc.says {
				if !strings.Contains(w.err.Error(), s) {
					t.Errorf("error %q does not say %q", w.err, s)
				}
			}
			from := start
			if tc.first != "" {
				first, err := c.WaitWrite(context.Background(), func(w cluster.Write) bool { return w.Namespace == ns && w.Step == tc.first })
				if err != nil {
					t.Fatal(err)
				}
				from = first.Time
			}
			t.Logf("failed %v after the first %s: %v", w.end.Sub(from), cmpOr(tc.first, "create"), w.err)
			if lag := w.end.Sub(from); lag > window+time.Second+crashSlack(tc.name) {
				t.Errorf("failed %v after the first %s, want within the window (%v) and 1 s", lag, cmpOr(tc.first, "create"), window)
			}
		})
	}
}

// crashSlack is how much later than its window a crash loop may fail: it
// counts once the container has restarted twice, 10 s after its first
// crash at the kubelet's back-off.
func crashSlack(name string) time.Duration {
	if name == "oomkilled" {
		return 10 * time.Second
	}
	return 0
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// Requests at the proxy: one Deployment of 10 replicas rolling out,
// kubewait and kstatus's watcher side by side; kubewait makes a LIST and
// a WATCH of each resource and selector it reads, no more.
func TestRolloutRequests(t *testing.T) {
	t.Parallel()
	c := cluster.Start(t, cluster.Options{Kubelet: cluster.HealthyAfter(time.Second)})
	ns := c.Namespace(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	create(t, c, cluster.Deployment(ns, "web", 10, "shop/web:v1"))
	ours := waitRollout(t, c, ns, kubewait.RolloutOptions{}, time.Minute, deploymentRef("web"))
	ks := anchor.Kstatus(ctx, userAgent(c, "kstatus"), object.ObjMetadata{Namespace: ns, Name: "web",
		GroupKind: schema.GroupKind{Group: "apps", Kind: "Deployment"}})
	if w := <-ours; w.err != nil || ks.Status != status.CurrentStatus {
		t.Fatalf("kubewait: %v; kstatus: %s %v", w.err, ks.Status, ks.Err)
	}
	t.Logf("requests: %v", requestsBy(c, ns, "kubewait", "kstatus"))
	oneListAndWatchEach(t, c, ns, "kubewait")
}

// tally is one client's requests at the proxy.
type tally struct {
	all   int
	verbs map[string]int
	bytes int64
}

func (t tally) String() string {
	var vs []string
	for v, n := range t.verbs {
		vs = append(vs, fmt.Sprintf("%s %d", v, n))
	}
	slices.Sort(vs)
	return fmt.Sprintf("%d (%s; %d bytes)", t.all, strings.Join(vs, ", "), t.bytes)
}

// requestsBy counts the proxy's requests in namespace ns by the clients
// whose User-Agent starts with each of agents (discovery, which both do
// and names no namespace, aside).
// oneListAndWatchEach checks the requests agent made in ns: a LIST and a
// WATCH of each resource and selector it reads (a named object is read by
// a field selector on its name, as kubectl's wait reads it), at most: no
// GET of an object, no LIST again. The count of kstatus's watcher beside
// it is logged, not compared: it reads the objects again at each event,
// so it makes fewer requests the faster the objects get ready.
func oneListAndWatchEach(t *testing.T, c *cluster.Cluster, ns, agent string) {
	t.Helper()
	by := map[string]map[string]int{}
	for _, r := range c.Requests() {
		if r.Namespace != ns || !strings.HasPrefix(r.UserAgent, agent) {
			continue
		}
		key := r.Resource
		if u, err := url.Parse(r.Path); err == nil {
			q := u.Query()
			key += "?fieldSelector=" + q.Get("fieldSelector") + "&labelSelector=" + q.Get("labelSelector")
		}
		if by[key] == nil {
			by[key] = map[string]int{}
		}
		by[key][r.Verb]++
	}
	if len(by) == 0 {
		t.Errorf("%s made no request in %s", agent, ns)
	}
	for res, verbs := range by {
		for verb, n := range verbs {
			if (verb != "LIST" && verb != "WATCH") || n > 1 {
				t.Errorf("%s: %d %s of %s, want a LIST and a WATCH of each resource and selector at most (all: %v)", agent, n, verb, res, by)
			}
		}
	}
}

func requestsBy(c *cluster.Cluster, ns string, agents ...string) map[string]tally {
	out := map[string]tally{}
	for _, r := range c.Requests() {
		if r.Namespace != ns {
			continue
		}
		for _, a := range agents {
			if strings.HasPrefix(r.UserAgent, a) {
				t := out[a]
				if t.verbs == nil {
					t.verbs = map[string]int{}
				}
				t.all++
				t.verbs[r.Verb]++
				t.bytes += r.Bytes
				out[a] = t
			}
		}
	}
	return out
}

// The other kinds a rollout follows: a StatefulSet whose pods crash, a
// DaemonSet whose image is not there, and a Job whose pods fail until its
// backoffLimit (its Failed condition ends the wait at once).
func TestRolloutsOfOtherKindsThatCannotStart(t *testing.T) {
	t.Parallel()
	c := cluster.Start(t, cluster.Options{Kubelet: func(pod *corev1.Pod) []cluster.Step {
		switch pod.Spec.Containers[0].Image {
		case "shop/db:crashing":
			return cluster.CrashLooping("app", cluster.ExitCode(2), 100*time.Millisecond)
		case "shop/agent:missing":
			return cluster.PullFailing("app", cluster.ManifestUnknown, 200*time.Millisecond)
		case "shop/migrate:failing":
			return []cluster.Step{cluster.Bind(), cluster.ContainerCreating(), cluster.Failed(cluster.ExitCode(1)).After(200 * time.Millisecond)}
		}
		return cluster.Healthy(pod)
	}})
	opts := kubewait.RolloutOptions{Window: 2 * time.Second, CrashLoop: 2 * time.Second}
	for _, tc := range []struct {
		name   string
		create func(ctx context.Context, ns string) error
		obj    kubewait.Ref
		says   []string
	}{
		{"statefulset", func(ctx context.Context, ns string) error {
			_, err := c.Client.AppsV1().StatefulSets(ns).Create(ctx, cluster.StatefulSet(ns, "db", 2, "shop/db:crashing"), metav1.CreateOptions{})
			return err
		}, ref("apps", "StatefulSet", "db"), []string{"statefulsets.apps", "CrashLoopBackOff: pod db-0, container app", "(exit code 2, 2 restarts)"}},
		{"daemonset", func(ctx context.Context, ns string) error {
			_, err := c.Client.AppsV1().DaemonSets(ns).Create(ctx, cluster.DaemonSet(ns, "agent", "shop/agent:missing"), metav1.CreateOptions{})
			return err
		}, ref("apps", "DaemonSet", "agent"), []string{"daemonsets.apps", "ImagePullBackOff: pod agent-", "manifest unknown"}},
		{"job", func(ctx context.Context, ns string) error {
			j := cluster.Job(ns, "migrate", 1, "shop/migrate:failing")
			j.Spec.BackoffLimit = new(int32(1))
			_, err := c.Client.BatchV1().Jobs(ns).Create(ctx, j, metav1.CreateOptions{})
			return err
		}, ref("batch", "Job", "migrate"), []string{"jobs.batch", "failed on rollout: BackoffLimitExceeded: Job has reached the specified backoff limit"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ns := c.Namespace(t)
			start := time.Now()
			if err := tc.create(context.Background(), ns); err != nil {
				t.Fatal(err)
			}
			w := <-waitRollout(t, c, ns, opts, time.Minute, tc.obj)
			t.Logf("after %v: %v", w.end.Sub(start), w.err)
			if !errors.Is(w.err, waiter.ErrFailure) {
				t.Fatalf("err = %v, want the rollout's failure", w.err)
			}
			for _, s := range tc.says {
				if !strings.Contains(w.err.Error(), s) {
					t.Errorf("error %q does not say %q", w.err, s)
				}
			}
		})
	}
}
