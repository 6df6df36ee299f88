package cluster_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/waitable/waitable/kubewait/servertest/clustertest/internal/cluster"
)

// manual is the label of the pods these tests drive themselves: the
// cluster's kubelet leaves them alone.
const manual = "manual"

// byLabel is the kubelet of these tests: Healthy, but for the pods
// labelled manual.
func byLabel(pod *corev1.Pod) []cluster.Step {
	if pod.Labels[manual] == "true" {
		return nil
	}
	return cluster.Healthy(pod)
}

// newPod creates a pod called name in ns with a container "app" of image,
// labelled manual, and the init containers inits (of busybox:1.37).
func newPod(t *testing.T, c *cluster.Cluster, ns, name, image string, restart corev1.RestartPolicy, inits ...string) *corev1.Pod {
	t.Helper()
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: map[string]string{manual: "true"}},
		Spec: corev1.PodSpec{
			RestartPolicy: restart,
			Containers:    []corev1.Container{{Name: "app", Image: image}},
		},
	}
	for _, init := range inits {
		pod.Spec.InitContainers = append(pod.Spec.InitContainers, corev1.Container{Name: init, Image: "busybox:1.37"})
	}
	pod, err := c.Client.CoreV1().Pods(ns).Create(context.Background(), pod, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return pod
}

// condition returns pod's condition of type typ as "Status/Reason:
// Message", or "" if it has none.
func condition(pod *corev1.Pod, typ corev1.PodConditionType) string {
	for _, c := range pod.Status.Conditions {
		if c.Type == typ {
			return strings.TrimSuffix(fmt.Sprintf("%s/%s: %s", c.Status, c.Reason, c.Message), ": ")
		}
	}
	return ""
}

// state says a container's state as "waiting Reason: Message",
// "running" or "terminated Reason (exit N)".
func state(s corev1.ContainerState) string {
	switch {
	case s.Waiting != nil:
		return strings.TrimSuffix("waiting "+s.Waiting.Reason+": "+s.Waiting.Message, ": ")
	case s.Running != nil:
		return "running"
	case s.Terminated != nil:
		return fmt.Sprintf("terminated %s (exit %d)", s.Terminated.Reason, s.Terminated.ExitCode)
	}
	return ""
}

// TestSteps checks that each step writes the status that the kubelet
// (or the scheduler) writes, that the API server accepts it, and that
// steps in a row keep what the ones before wrote.
func TestSteps(t *testing.T) {
	t.Parallel()
	c := cluster.Start(t, cluster.Options{Kubelet: byLabel})
	ns := c.Namespace(t)
	const image = "registry.example.com/shop/web:v2"

	for _, tc := range []struct {
		name    string
		restart corev1.RestartPolicy
		inits   []string
		steps   []cluster.Step
		check   func(t *testing.T, pod *corev1.Pod)
	}{
		{"ready", corev1.RestartPolicyAlways, []string{"init"},
			[]cluster.Step{cluster.BindTo("node-0"), cluster.ContainerCreating(), cluster.Ready()},
			func(t *testing.T, pod *corev1.Pod) {
				want(t, "phase", string(pod.Status.Phase), "Running")
				want(t, "node", pod.Spec.NodeName, "node-0")
				for _, typ := range []corev1.PodConditionType{corev1.PodReadyToStartContainers, corev1.PodInitialized,
					corev1.ContainersReady, corev1.PodReady, corev1.PodScheduled} {
					want(t, string(typ), condition(pod, typ), "True/")
				}
				cs := pod.Status.ContainerStatuses[0]
				want(t, "app", fmt.Sprint(state(cs.State), " ready=", cs.Ready, " started=", *cs.Started), "running ready=true started=true")
				want(t, "init", state(pod.Status.InitContainerStatuses[0].State), "terminated Completed (exit 0)")
				if pod.Status.PodIP == "" || pod.Status.HostIP != "10.0.1.1" || !strings.HasPrefix(cs.ContainerID, "containerd://") {
					t.Errorf("podIP %q, hostIP %q, containerID %q, want all set", pod.Status.PodIP, pod.Status.HostIP, cs.ContainerID)
				}
			}},
		{"image not found", corev1.RestartPolicyAlways, nil,
			[]cluster.Step{cluster.BindTo("node-2"), cluster.ContainerCreating(), cluster.ErrImagePull("app", cluster.ImageNotFound)},
			func(t *testing.T, pod *corev1.Pod) {
				want(t, "phase", string(pod.Status.Phase), "Pending")
				want(t, "node", pod.Spec.NodeName, "node-2")
				want(t, "app", state(pod.Status.ContainerStatuses[0].State),
					`waiting ErrImagePull: rpc error: code = NotFound desc = failed to pull and unpack image "registry.example.com/shop/web:v2": `+
						`failed to resolve reference "registry.example.com/shop/web:v2": registry.example.com/shop/web:v2: not found`)
				want(t, "Ready", condition(pod, corev1.PodReady), "False/ContainersNotReady: containers with unready status: [app]")
			}},
		{"image pull back-off", corev1.RestartPolicyAlways, nil,
			[]cluster.Step{cluster.Bind(), cluster.ErrImagePull("app", cluster.RegistryTLSTimeout),
				cluster.ImagePullBackOff("app", cluster.RegistryTLSTimeout)},
			func(t *testing.T, pod *corev1.Pod) {
				want(t, "app", state(pod.Status.ContainerStatuses[0].State),
					`waiting ImagePullBackOff: Back-off pulling image "registry.example.com/shop/web:v2": ErrImagePull: `+
						`rpc error: code = Unknown desc = failed to pull and unpack image "registry.example.com/shop/web:v2": `+
						`failed to resolve reference "registry.example.com/shop/web:v2": failed to do request: `+
						`Head "https://registry.example.com/v2/shop/web/manifests/v2": net/http: TLS handshake timeout`)
			}},
		{"crash loop, then ready", corev1.RestartPolicyAlways, nil,
			[]cluster.Step{cluster.Bind(), cluster.Running(), cluster.CrashLoopBackOff("app", cluster.ExitCode(1)),
				cluster.Running(), cluster.CrashLoopBackOff("app", cluster.OOMKilled)},
			func(t *testing.T, pod *corev1.Pod) {
				cs := pod.Status.ContainerStatuses[0]
				want(t, "phase", string(pod.Status.Phase), "Running")
				want(t, "app", state(cs.State), fmt.Sprintf(
					"waiting CrashLoopBackOff: back-off 20s restarting failed container=app pod=%s_%s(%s)", pod.Name, ns, pod.UID))
				want(t, "last state", state(cs.LastTerminationState), "terminated OOMKilled (exit 137)")
				want(t, "restarts", fmt.Sprint(cs.RestartCount), "2")
				if err := c.Apply(context.Background(), ns, pod.Name, cluster.Ready()); err != nil {
					t.Fatal(err)
				}
				pod = get(t, c, ns, pod.Name)
				cs = pod.Status.ContainerStatuses[0]
				want(t, "after Ready", fmt.Sprint(state(cs.State), " ready=", cs.Ready, " restarts=", cs.RestartCount,
					" last=", state(cs.LastTerminationState)), "running ready=true restarts=2 last=terminated OOMKilled (exit 137)")
			}},
		{"config error", corev1.RestartPolicyAlways, nil,
			[]cluster.Step{cluster.Bind(), cluster.CreateContainerConfigError("app", cluster.MissingConfigMap("shop"))},
			func(t *testing.T, pod *corev1.Pod) {
				want(t, "app", state(pod.Status.ContainerStatuses[0].State), `waiting CreateContainerConfigError: configmap "shop" not found`)
			}},
		{"init container crashing", corev1.RestartPolicyAlways, []string{"migrate", "warm"},
			[]cluster.Step{cluster.Bind(), cluster.ContainerCreating(), cluster.InitCrashLoopBackOff("migrate", cluster.ExitCode(2))},
			func(t *testing.T, pod *corev1.Pod) {
				want(t, "phase", string(pod.Status.Phase), "Pending")
				want(t, "Initialized", condition(pod, corev1.PodInitialized),
					"False/ContainersNotInitialized: containers with incomplete status: [migrate warm]")
				want(t, "migrate", fmt.Sprint(state(pod.Status.InitContainerStatuses[0].LastTerminationState), " restarts=",
					pod.Status.InitContainerStatuses[0].RestartCount), "terminated Error (exit 2) restarts=1")
				want(t, "app", state(pod.Status.ContainerStatuses[0].State), "waiting PodInitializing")
			}},
		{"unschedulable", corev1.RestartPolicyAlways, nil,
			[]cluster.Step{cluster.Unschedulable()},
			func(t *testing.T, pod *corev1.Pod) {
				want(t, "node", pod.Spec.NodeName, "")
				want(t, "PodScheduled", condition(pod, corev1.PodScheduled), "False/Unschedulable: 0/3 nodes are available: "+
					"3 Insufficient cpu. preemption: 0/3 nodes are available: 3 No preemption victims found for incoming pod.")
				if err := c.Apply(context.Background(), ns, pod.Name, cluster.Bind(), cluster.Ready()); err != nil {
					t.Fatal(err)
				}
				want(t, "PodScheduled once bound", condition(get(t, c, ns, pod.Name), corev1.PodScheduled), "True/")
			}},
		{"evicted", corev1.RestartPolicyAlways, nil,
			[]cluster.Step{cluster.Bind(), cluster.Ready(), cluster.Evicted()},
			func(t *testing.T, pod *corev1.Pod) {
				want(t, "phase", fmt.Sprint(pod.Status.Phase, " ", pod.Status.Reason), "Failed Evicted")
				want(t, "message", pod.Status.Message, "The node was low on resource: memory. Threshold quantity: 100Mi, "+
					"available: 51200Ki. Container app was using 1Gi, request is 0, has larger consumption of memory. ")
				want(t, "DisruptionTarget", strings.SplitN(condition(pod, corev1.DisruptionTarget), ":", 2)[0],
					"True/TerminationByKubelet")
				want(t, "app", state(pod.Status.ContainerStatuses[0].State), "terminated Error (exit 137)")
			}},
		{"succeeded", corev1.RestartPolicyNever, nil,
			[]cluster.Step{cluster.Bind(), cluster.Running(), cluster.Succeeded()},
			func(t *testing.T, pod *corev1.Pod) {
				want(t, "phase", string(pod.Status.Phase), "Succeeded")
				want(t, "Ready", condition(pod, corev1.PodReady), "False/PodCompleted")
				want(t, "app", state(pod.Status.ContainerStatuses[0].State), "terminated Completed (exit 0)")
			}},
		{"failed", corev1.RestartPolicyNever, nil,
			[]cluster.Step{cluster.Bind(), cluster.Running(), cluster.Failed(cluster.ExitCode(3))},
			func(t *testing.T, pod *corev1.Pod) {
				want(t, "phase", string(pod.Status.Phase), "Failed")
				want(t, "app", state(pod.Status.ContainerStatuses[0].State), "terminated Error (exit 3)")
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			name := strings.ReplaceAll(tc.name, " ", "-")
			name = strings.ReplaceAll(name, ",", "")
			pod := newPod(t, c, ns, name, image, tc.restart, tc.inits...)
			if err := c.Apply(context.Background(), ns, pod.Name, tc.steps...); err != nil {
				t.Fatal(err)
			}
			tc.check(t, get(t, c, ns, pod.Name))
		})
	}
}

func want(t *testing.T, what, got, want string) {
	t.Helper()
	if got != want {
		t.Errorf("%s = %q, want %q", what, got, want)
	}
}

func get(t *testing.T, c *cluster.Cluster, ns, name string) *corev1.Pod {
	t.Helper()
	pod, err := c.Client.CoreV1().Pods(ns).Get(context.Background(), name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return pod
}

// TestPullErrorMessages checks the runtime's spelling of image references
// in the pull errors' messages: Docker Hub's images under docker.io (and
// library/), a registry with a port, a digest.
func TestPullErrorMessages(t *testing.T) {
	for _, tc := range []struct {
		err   cluster.PullError
		image string
		want  string
	}{
		{cluster.ImageNotFound, "nginx", `rpc error: code = NotFound desc = failed to pull and unpack image ` +
			`"docker.io/library/nginx:latest": failed to resolve reference "docker.io/library/nginx:latest": ` +
			`docker.io/library/nginx:latest: not found`},
		{cluster.ManifestUnknown, "bitnami/redis:7.9", `rpc error: code = Unknown desc = initializing source ` +
			`docker://docker.io/bitnami/redis:7.9: reading manifest 7.9 in docker.io/bitnami/redis: manifest unknown`},
		{cluster.RegistryUnavailable, "localhost:5000/app:1", `rpc error: code = Unknown desc = failed to pull and ` +
			`unpack image "localhost:5000/app:1": failed to resolve reference "localhost:5000/app:1": unexpected status ` +
			`from HEAD request to https://localhost:5000/v2/app/manifests/1: 503 Service Unavailable`},
		{cluster.RegistryTLSTimeout, "nginx@sha256:abc", `rpc error: code = Unknown desc = failed to pull and unpack ` +
			`image "docker.io/library/nginx@sha256:abc": failed to resolve reference "docker.io/library/nginx@sha256:abc": ` +
			`failed to do request: Head "https://registry-1.docker.io/v2/library/nginx/manifests/sha256:abc": ` +
			`net/http: TLS handshake timeout`},
	} {
		if got := tc.err.Message(tc.image); got != tc.want {
			t.Errorf("Message(%q) =\n%s\nwant\n%s", tc.image, got, tc.want)
		}
	}
	if cluster.ImageNotFound.Transient || cluster.ManifestUnknown.Transient ||
		!cluster.RegistryTLSTimeout.Transient || !cluster.RegistryUnavailable.Transient {
		t.Error("Transient: want the registry's failures transient, the missing images not")
	}
}

// TestKubeletFinishesDeletion checks that a bound pod that is deleted
// goes at once, as the kubelet finishes it, not after its grace period
// of 30 s, after which Apply says ErrPodGone; and that SetKubelet's
// policy applies to the pods created after it.
func TestKubeletFinishesDeletion(t *testing.T) {
	t.Parallel()
	c := cluster.Start(t, cluster.Options{})
	ns := c.Namespace(t)
	if !strings.HasPrefix(ns, "testkubeletfinishesdeletion-") {
		t.Errorf("Namespace = %q, want it named after the test", ns)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	c.SetKubelet(func(pod *corev1.Pod) []cluster.Step {
		return []cluster.Step{cluster.BindTo("node-1"), cluster.Running()}
	})
	pod := newPod(t, c, ns, "p", "nginx", corev1.RestartPolicyAlways)
	if _, err := c.WaitWrite(ctx, func(w cluster.Write) bool { return w.Pod == "p" && w.Step == "Running" }); err != nil {
		t.Fatal(err)
	}
	want(t, "node", get(t, c, ns, "p").Spec.NodeName, "node-1")

	w, err := c.Client.CoreV1().Pods(ns).Watch(ctx, metav1.ListOptions{FieldSelector: "metadata.name=p",
		ResourceVersion: pod.ResourceVersion})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	if err := c.Client.CoreV1().Pods(ns).Delete(ctx, "p", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	for e := range w.ResultChan() {
		if e.Type == "DELETED" {
			if err := c.Apply(ctx, ns, "p", cluster.Ready()); !errors.Is(err, cluster.ErrPodGone) {
				t.Errorf("Apply to the deleted pod = %v, want ErrPodGone", err)
			}
			return
		}
	}
	_, err = c.Client.CoreV1().Pods(ns).Get(context.Background(), "p", metav1.GetOptions{})
	t.Errorf("the pod was not deleted within 20 s of its graceful deletion (Get: %v)", err)
	if !apierrors.IsNotFound(err) {
		t.Log("(the kubelet the test plays did not finish it)")
	}
}

// TestQuotaRefusesPods checks that a quota of 2 pods lets the ReplicaSet
// controller create 2 of a Deployment's 3, and that the ReplicaSet then
// reports ReplicaFailure with the admission's message.
func TestQuotaRefusesPods(t *testing.T) {
	t.Parallel()
	c := cluster.Start(t, cluster.Options{})
	ns := c.Namespace(t)
	c.Quota(t, ns, "pods", corev1.ResourceList{corev1.ResourcePods: resource.MustParse("2")})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if _, err := c.Client.AppsV1().Deployments(ns).Create(ctx, cluster.Deployment(ns, "web", 3, "nginx"),
		metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	w, err := c.Client.AppsV1().ReplicaSets(ns).Watch(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	for e := range w.ResultChan() {
		rs, ok := e.Object.(*appsv1.ReplicaSet)
		if !ok {
			continue
		}
		for _, cond := range rs.Status.Conditions {
			if cond.Type == appsv1.ReplicaSetReplicaFailure && cond.Status == corev1.ConditionTrue {
				if cond.Reason != "FailedCreate" || !strings.Contains(cond.Message, "exceeded quota: pods") {
					t.Errorf("ReplicaFailure %s: %s, want FailedCreate: ... exceeded quota: pods ...", cond.Reason, cond.Message)
				}
				t.Logf("ReplicaFailure %s: %s", cond.Reason, cond.Message)
				return
			}
		}
	}
	t.Fatalf("no ReplicaFailure within a minute: %v", ctx.Err())
}
