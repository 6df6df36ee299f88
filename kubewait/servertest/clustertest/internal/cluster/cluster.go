package cluster

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apiserver/pkg/storage/storagebackend"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/klog/v2"
	kubeapiservertesting "k8s.io/kubernetes/cmd/kube-apiserver/app/testing"
	"k8s.io/kubernetes/test/utils/ktesting"

	"github.com/waitable/waitable/kubewait/servertest/internal/apiserver"
	"github.com/waitable/waitable/kubewait/servertest/internal/proxy"
)

// readyTimeout bounds each wait of Start: for the API server, the nodes,
// the informers' first lists.
const readyTimeout = time.Minute

// Options configures [Start]. The zero value runs three nodes and the
// [Healthy] kubelet.
type Options struct {
	// Nodes is how many Nodes the cluster has (node-0, node-1, ...); 0
	// means 3.
	Nodes int
	// Kubelet decides what the kubelet and scheduler do with each pod;
	// nil means [Healthy].
	Kubelet Kubelet
	// Termination is how long a bound pod that is deleted takes to stop
	// (a preStop hook draining its connections, say) before the kubelet
	// removes it; 0 means at once.
	Termination time.Duration
}

// Cluster is a kube-apiserver with etcd under it, the workload
// controllers and the kubelet the test plays beside it, and a proxy in
// front (see the package doc). Clients under test use the embedded
// Proxy's Config and Kubeconfig; its Count, Requests, ResetCounts and
// SetFault see and steer their requests. Its methods are safe for
// concurrent use.
type Cluster struct {
	*proxy.Proxy
	// Direct reaches the API server itself, over TLS as its privileged
	// loopback client, unseen by the proxy: the controllers and the
	// kubelet use it.
	Direct *rest.Config
	// Client is a clientset on Direct, for the test's own reads and
	// writes (creating a Deployment, say), which the proxy does not
	// count.
	Client kubernetes.Interface
	// Nodes are the names of the cluster's Nodes.
	Nodes []string

	kubelet *kubelet
}

// init silences klog, which the API server, the controllers and
// client-go log to, for the process: their lines would drown the test's
// output. (Package apiserver, imported for etcd, does the same.)
func init() { klog.SetLogger(logr.Discard()) }

// Start starts etcd, the kube-apiserver, the proxy, the nodes, the
// controllers and the kubelet the test plays, in process, and returns
// when the controllers' informers have listed. It fails t if any of them
// does not start, and stops them all when t ends. A start takes about
// 5 s on 2 cores (etcd 1 s; the API server installs every built-in API
// and its default objects), a stop about 1 s.
func Start(t testing.TB, opts Options) *Cluster {
	t.Helper()
	if opts.Nodes == 0 {
		opts.Nodes = 3
	}
	if opts.Kubelet == nil {
		opts.Kubelet = Healthy
	}

	etcd := apiserver.RunEtcd(t)
	storage := storagebackend.NewDefaultConfig("/registry", nil)
	storage.Transport.ServerList = etcd.Endpoints()
	// The API server logs through its context's logger too: discard it.
	tCtx := ktesting.InitCtx(klog.NewContext(context.Background(), logr.Discard()), t)
	server, err := kubeapiservertesting.StartTestServer(tCtx,
		&kubeapiservertesting.TestServerInstanceOptions{DisableInvariantChecks: true},
		[]string{
			// No Endpoints for the API server's own Service: its
			// address is a loopback one.
			"--endpoint-reconciler-type=none",
			// No service account controller runs to make the
			// namespaces' default service accounts, and no node
			// lifecycle controller to untaint new nodes.
			"--disable-admission-plugins=ServiceAccount,TaintNodesByCondition",
			// HTTP/2 stays on: over HTTP/1.1, the server waits 5 s on
			// stopping for the connections that client-go's shared
			// transports dialed and never used (over HTTP/2, 1 s).
		}, storage)
	if err != nil {
		t.Fatalf("cluster: start the API server: %v", err)
	}
	t.Cleanup(server.TearDownFn)

	c := &Cluster{Direct: rest.CopyConfig(server.ClientConfig)}
	c.Client, err = kubernetes.NewForConfig(c.Direct)
	if err != nil {
		t.Fatal(err)
	}
	c.Proxy = proxy.Start(t, c.Direct)

	ctx, cancel := context.WithTimeout(context.Background(), readyTimeout)
	defer cancel()
	for i := range opts.Nodes {
		name := fmt.Sprintf("node-%d", i)
		if err := createNode(ctx, c.Client, name); err != nil {
			t.Fatalf("cluster: %v", err)
		}
		c.Nodes = append(c.Nodes, name)
	}

	c.kubelet = newKubelet(c.Client, c.Nodes, opts.Kubelet)
	c.kubelet.termination = opts.Termination
	if err := runControllers(t, c.Direct, c.kubelet); err != nil {
		t.Fatalf("cluster: %v", err)
	}
	return c
}

// createNode creates a Node called name, Ready, with room for 110 pods,
// 4 CPUs and 16 GiB of memory, as a kubelet registers it.
func createNode(ctx context.Context, client kubernetes.Interface, name string) error {
	capacity := corev1.ResourceList{
		corev1.ResourceCPU:    resource.MustParse("4"),
		corev1.ResourceMemory: resource.MustParse("16Gi"),
		corev1.ResourcePods:   resource.MustParse("110"),
	}
	node, err := client.CoreV1().Nodes().Create(ctx, &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{
			"kubernetes.io/hostname": name, "kubernetes.io/os": "linux", "kubernetes.io/arch": "amd64",
		}},
	}, metav1.CreateOptions{})
	if err != nil {
		return fmt.Errorf("create node %s: %w", name, err)
	}
	now := metav1.Now()
	node.Status = corev1.NodeStatus{
		Capacity:    capacity,
		Allocatable: capacity,
		Phase:       corev1.NodeRunning,
		Conditions: []corev1.NodeCondition{
			{Type: corev1.NodeReady, Status: corev1.ConditionTrue, Reason: "KubeletReady",
				Message: "kubelet is posting ready status", LastHeartbeatTime: now, LastTransitionTime: now},
			{Type: corev1.NodeMemoryPressure, Status: corev1.ConditionFalse, Reason: "KubeletHasSufficientMemory",
				LastHeartbeatTime: now, LastTransitionTime: now},
			{Type: corev1.NodeDiskPressure, Status: corev1.ConditionFalse, Reason: "KubeletHasNoDiskPressure",
				LastHeartbeatTime: now, LastTransitionTime: now},
			{Type: corev1.NodePIDPressure, Status: corev1.ConditionFalse, Reason: "KubeletHasSufficientPID",
				LastHeartbeatTime: now, LastTransitionTime: now},
		},
		Addresses: []corev1.NodeAddress{
			{Type: corev1.NodeInternalIP, Address: nodeIP(name)},
			{Type: corev1.NodeHostName, Address: name},
		},
	}
	if _, err := client.CoreV1().Nodes().UpdateStatus(ctx, node, metav1.UpdateOptions{}); err != nil {
		return fmt.Errorf("write the status of node %s: %w", name, err)
	}
	return nil
}

// Namespace creates a namespace for t, named after the test (lowercase,
// other characters as "-", cut to 40) and a random suffix, and returns
// its name. No namespace controller runs: the namespace is not deleted
// when t ends, but the cluster goes with its own test.
func (c *Cluster) Namespace(t testing.TB) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), readyTimeout)
	defer cancel()
	ns, err := c.Client.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{
		ObjectMeta: metav1.ObjectMeta{GenerateName: namespacePrefix(t.Name())},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("cluster: create a namespace: %v", err)
	}
	return ns.Name
}

// Quota creates a ResourceQuota called name in namespace with hard as
// its limits, and writes its status as the resource quota controller
// (which does not run) would for a namespace with nothing in it yet: from
// then on, admission counts what is created and refuses what exceeds
// hard ("exceeded quota: NAME, requested: pods=1, used: pods=2, limited:
// pods=2"), and a ReplicaSet whose pods it refuses reports ReplicaFailure.
// Without a status, the quota would refuse everything it limits ("status
// unknown for quota").
func (c *Cluster) Quota(t testing.TB, namespace, name string, hard corev1.ResourceList) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), readyTimeout)
	defer cancel()
	q, err := c.Client.CoreV1().ResourceQuotas(namespace).Create(ctx, &corev1.ResourceQuota{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name},
		Spec:       corev1.ResourceQuotaSpec{Hard: hard},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("cluster: create quota %s/%s: %v", namespace, name, err)
	}
	q.Status.Hard, q.Status.Used = hard, corev1.ResourceList{}
	for r := range hard {
		q.Status.Used[r] = resource.MustParse("0")
	}
	if _, err := c.Client.CoreV1().ResourceQuotas(namespace).UpdateStatus(ctx, q, metav1.UpdateOptions{}); err != nil {
		t.Fatalf("cluster: write the status of quota %s/%s: %v", namespace, name, err)
	}
}

// Replenish plays the resource quota controller's replenishment for the
// quota namespace/name, which limits pods, until ctx ends: every half
// second, its status's used pods is the count of the namespace's pods
// that have not ended, as the controller recounts them when a pod goes
// away. A pod being deleted counts until it is gone.
func (c *Cluster) Replenish(ctx context.Context, t testing.TB, namespace, name string) {
	t.Helper()
	tick := time.NewTicker(500 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		pods, err := c.Client.CoreV1().Pods(namespace).List(ctx, metav1.ListOptions{})
		if err != nil {
			continue
		}
		n := 0
		for _, p := range pods.Items {
			if p.Status.Phase != corev1.PodSucceeded && p.Status.Phase != corev1.PodFailed {
				n++
			}
		}
		q, err := c.Client.CoreV1().ResourceQuotas(namespace).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			continue
		}
		used := resource.MustParse(strconv.Itoa(n))
		if q.Status.Used.Pods().Cmp(used) == 0 {
			continue
		}
		q.Status.Used[corev1.ResourcePods] = used
		_, _ = c.Client.CoreV1().ResourceQuotas(namespace).UpdateStatus(ctx, q, metav1.UpdateOptions{}) // a conflict: the next tick
	}
}

// namespacePrefix makes a namespace's generateName of a test's name.
func namespacePrefix(test string) string {
	b := []byte(strings.ToLower(test))
	for i, ch := range b {
		if (ch < 'a' || ch > 'z') && (ch < '0' || ch > '9') {
			b[i] = '-'
		}
	}
	s := strings.Trim(string(b), "-")
	if len(s) > 40 {
		s = strings.TrimRight(s[:40], "-")
	}
	if s == "" || s[0] < 'a' {
		s = "t" + s
	}
	return s + "-"
}

// SetKubelet makes k decide for the pods that appear from now on; the
// pods already seen keep the steps they were given.
func (c *Cluster) SetKubelet(k Kubelet) { c.kubelet.set(k) }
