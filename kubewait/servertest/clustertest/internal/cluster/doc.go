// Package cluster runs a Kubernetes cluster in the test process, as far as
// a wait for a rollout can tell: etcd embedded, k8s.io/kubernetes's
// kube-apiserver (cmd/kube-apiserver/app/testing), and the real
// Deployment, ReplicaSet, StatefulSet, DaemonSet and Job controllers
// (k8s.io/kubernetes/pkg/controller/...) on shared informers, with a few
// Nodes. No kubelet or scheduler runs: the test plays both, through the
// cluster's [Kubelet] policy and [Cluster.Apply]. [Start] starts one for
// a test and stops it when the test ends.
//
// Clients under test reach the API server through a proxy
// (package proxy of kubewait/servertest, the one the API server of
// custom resources has) with the embedded Proxy's Config and Kubeconfig:
// its Count and Requests say what they asked for, and SetFault fails the
// requests a test picks. The controllers, the kubelet the test plays and
// the test's own writes ([Cluster.Client], [Cluster.Direct]) go to the
// API server directly, unseen and uncounted.
//
// # The kubelet and scheduler the test plays
//
// For every pod that appears, the cluster calls its [Kubelet] (set with
// [Options.Kubelet] or [Cluster.SetKubelet]), which returns the [Step]s
// to take: bind the pod to a node ([Bind], as the scheduler does), then
// write its status as the kubelet would ([Ready], [ErrImagePull],
// [ImagePullBackOff], [CrashLoopBackOff], [CreateContainerConfigError],
// [InitCrashLoopBackOff], [Unschedulable], [Evicted], [Succeeded], ...),
// each after a delay of real time. The default, [Healthy], binds every
// pod and makes it Running and Ready shortly after ([HealthyAfter] says
// when), and a pod that runs to completion (restartPolicy Never or
// OnFailure: a Job's) Succeeded, so that every workload rolls out. A pod deleted while bound is finished as
// the kubelet finishes it: deleted at once, without a grace period.
// [Cluster.Writes] and [Cluster.WaitWrite] tell a test what the kubelet
// wrote and when, so that it never sleeps to let a step happen.
//
// The messages are the kubelet's and the scheduler's own, as they reach
// a pod's status with containerd as the runtime (see [PullError]).
//
// A test of a rollout that cannot start:
//
//	c := cluster.Start(t, cluster.Options{Kubelet: func(pod *corev1.Pod) []cluster.Step {
//		if pod.Spec.Containers[0].Image == "shop/web:missing" {
//			return cluster.PullFailing("app", cluster.ImageNotFound, time.Second)
//		}
//		return cluster.Healthy(pod)
//	}})
//	ns := c.Namespace(t)
//	d := cluster.Deployment(ns, "web", 3, "shop/web:missing")
//	_, err := c.Client.AppsV1().Deployments(ns).Create(ctx, d, metav1.CreateOptions{})
//	// ... start the wait under test with c.Config or c.Kubeconfig ...
//	first, err := c.WaitWrite(ctx, func(w cluster.Write) bool {
//		return w.Namespace == ns && w.Step == "ErrImagePull"
//	})
//	// ... the wait's end, against first.Time; c.Count("LIST", "pods", ns) ...
//
// # What it does not do
//
// No garbage collector, namespace controller, service account controller,
// resource quota controller or node lifecycle controller runs: deleting a
// Deployment leaves its ReplicaSets and pods, a namespace stays
// Terminating, a ResourceQuota counts only once its status is written
// ([Cluster.Quota] does), and nodes stay as created (Ready, untainted). The ServiceAccount and TaintNodesByCondition
// admission plugins are off, as in Kubernetes' own integration tests, so
// that pods need no service account and new nodes no taint removal. No
// container runs: a pod is what the kubelet the test plays writes.
//
// Importing the package silences klog, which the API server, the
// controllers and client-go log to, in the whole process.
package cluster
