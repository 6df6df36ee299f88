package cluster

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/retry"
)

// Kubelet decides what the kubelet and the scheduler the test plays do
// with a pod: the cluster calls it once for each pod it sees created,
// with a copy of the pod, and takes the steps it returns, in order. It
// returns none to leave the pod to the test ([Cluster.Apply]). It is
// called from one goroutine, and must not block.
type Kubelet func(pod *corev1.Pod) []Step

// Write is one write of the kubelet or the scheduler the test plays.
type Write struct {
	// Time is when the kubelet sent it (its last try, after a conflict):
	// no one saw it before.
	Time      time.Time
	Namespace string
	Pod       string
	UID       types.UID
	// Step is the step's name, as [Step.Name] says it: "Bind", "Ready",
	// "ImagePullBackOff", ...
	Step string
	// Node is the pod's node, once bound.
	Node string
}

// kubelet plays the kubelet and the scheduler of every node: it takes
// the steps its policy gives each new pod, each pod in a goroutine of its
// own, and finishes the deletion of bound pods.
type kubelet struct {
	client kubernetes.Interface
	nodes  []string

	mu      sync.Mutex
	policy  Kubelet
	seen    map[types.UID]bool // pods given to the policy
	deleted map[types.UID]bool // pods being finished
	queue   []func(ctx context.Context)
	queued  chan struct{} // has a value when queue may hold work
	next    int           // the node Bind picks next, round robin
	writes  []Write
	written chan struct{} // closed and replaced on each write
	errs    []error       // of its own work, see failed

	pods sync.WaitGroup // the pods' goroutines

	termination time.Duration // how long a deleted pod takes to stop
}

func newKubelet(client kubernetes.Interface, nodes []string, policy Kubelet) *kubelet {
	return &kubelet{client: client, nodes: nodes, policy: policy, seen: map[types.UID]bool{},
		deleted: map[types.UID]bool{}, queued: make(chan struct{}, 1), written: make(chan struct{})}
}

func (k *kubelet) set(policy Kubelet) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.policy = policy
}

// handler is the kubelet's pod informer handler: it queues the work a
// pod's appearance or deletion calls for, for run.
func (k *kubelet) handler() cache.ResourceEventHandler {
	return cache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj any) { k.saw(obj.(*corev1.Pod)) },
		UpdateFunc: func(_, obj any) { k.saw(obj.(*corev1.Pod)) },
	}
}

// saw queues the steps for a pod seen the first time, and the finishing
// of a bound pod being deleted.
func (k *kubelet) saw(pod *corev1.Pod) {
	k.mu.Lock()
	defer k.mu.Unlock()
	switch {
	case pod.DeletionTimestamp != nil && pod.Spec.NodeName != "":
		if k.deleted[pod.UID] {
			return
		}
		k.deleted[pod.UID] = true
		ns, name, uid := pod.Namespace, pod.Name, pod.UID
		k.queue = append(k.queue, func(ctx context.Context) {
			if k.termination > 0 {
				t := time.NewTimer(k.termination)
				defer t.Stop()
				select {
				case <-ctx.Done():
					return
				case <-t.C:
				}
			}
			k.failed(ctx, k.finish(ctx, ns, name, uid))
		})
	case !k.seen[pod.UID] && pod.DeletionTimestamp == nil:
		k.seen[pod.UID] = true
		steps := k.policy(pod.DeepCopy())
		if len(steps) == 0 {
			return
		}
		ns, name, uid := pod.Namespace, pod.Name, pod.UID
		k.queue = append(k.queue, func(ctx context.Context) { k.failed(ctx, k.apply(ctx, ns, name, uid, steps)) })
	default:
		return
	}
	select {
	case k.queued <- struct{}{}:
	default:
	}
}

// run starts a goroutine for each piece of work queued, until ctx ends,
// then waits for them.
func (k *kubelet) run(ctx context.Context) {
	defer k.pods.Wait()
	for {
		select {
		case <-ctx.Done():
			return
		case <-k.queued:
		}
		k.mu.Lock()
		work := k.queue
		k.queue = nil
		k.mu.Unlock()
		for _, w := range work {
			k.pods.Go(func() { w(ctx) })
		}
	}
}

// failed records err, the error of work of its own, unless the pod went
// away or the kubelet stopped.
func (k *kubelet) failed(ctx context.Context, err error) {
	if err == nil || errors.Is(err, ErrPodGone) || ctx.Err() != nil {
		return
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	k.errs = append(k.errs, err)
}

// finish deletes a pod that was deleted while bound, as the kubelet does
// once its containers have stopped (after the cluster's Termination).
func (k *kubelet) finish(ctx context.Context, ns, name string, uid types.UID) error {
	err := k.client.CoreV1().Pods(ns).Delete(ctx, name, metav1.DeleteOptions{
		GracePeriodSeconds: new(int64(0)), Preconditions: &metav1.Preconditions{UID: &uid}})
	if err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("cluster: delete pod %s/%s: %w", ns, name, err)
	}
	return nil
}

// ErrPodGone ends the steps of a pod that is deleted, being deleted, or
// replaced by another of its name: [Cluster.Apply] returns it.
var ErrPodGone = errors.New("cluster: the pod is gone")

// apply takes steps for the pod ns/name whose UID is uid ("" for any),
// each after its delay, and returns the first error; a pod that goes
// away ends them with ErrPodGone.
func (k *kubelet) apply(ctx context.Context, ns, name string, uid types.UID, steps []Step) error {
	for _, s := range steps {
		if s.after > 0 {
			t := time.NewTimer(s.after)
			select {
			case <-ctx.Done():
				t.Stop()
				return ctx.Err()
			case <-t.C:
			}
		}
		var err error
		switch {
		case s.bind:
			err = k.bind(ctx, ns, name, uid, s)
		case s.event != nil:
			err = k.writeEvent(ctx, ns, name, uid, s)
		default:
			err = k.writeStatus(ctx, ns, name, uid, s)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// get reads the pod ns/name, and returns ErrPodGone if it is not there, is
// being deleted, or has another UID than uid.
func (k *kubelet) get(ctx context.Context, ns, name string, uid types.UID) (*corev1.Pod, error) {
	pod, err := k.client.CoreV1().Pods(ns).Get(ctx, name, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
		return nil, ErrPodGone
	case err != nil:
		return nil, err
	case pod.DeletionTimestamp != nil || (uid != "" && pod.UID != uid):
		return nil, ErrPodGone
	}
	return pod, nil
}

// bind binds the pod to the step's node, or to the node its affinity
// requires (a DaemonSet's pod), or to the next node, as the scheduler
// does; a pod already bound stays where it is.
func (k *kubelet) bind(ctx context.Context, ns, name string, uid types.UID, s Step) error {
	pod, err := k.get(ctx, ns, name, uid)
	if err != nil {
		return err
	}
	if pod.Spec.NodeName != "" {
		return nil
	}
	node := s.node
	if node == "" {
		node = requiredNode(pod)
	}
	if node == "" {
		k.mu.Lock()
		node = k.nodes[k.next%len(k.nodes)]
		k.next++
		k.mu.Unlock()
	}
	sent := time.Now()
	err = k.client.CoreV1().Pods(ns).Bind(ctx, &corev1.Binding{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, UID: pod.UID},
		Target:     corev1.ObjectReference{Kind: "Node", Name: node},
	}, metav1.CreateOptions{})
	if apierrors.IsNotFound(err) {
		return ErrPodGone
	}
	if err != nil {
		return fmt.Errorf("cluster: bind pod %s/%s to %s: %w", ns, name, node, err)
	}
	k.wrote(Write{Time: sent, Namespace: ns, Pod: name, UID: pod.UID, Step: s.name, Node: node})
	return nil
}

// requiredNode returns the node that pod's required node affinity names
// by metadata.name, as a DaemonSet's pods have, or "".
func requiredNode(pod *corev1.Pod) string {
	a := pod.Spec.Affinity
	if a == nil || a.NodeAffinity == nil || a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution == nil {
		return ""
	}
	for _, term := range a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms {
		for _, f := range term.MatchFields {
			if f.Key == "metadata.name" && f.Operator == corev1.NodeSelectorOpIn && len(f.Values) == 1 {
				return f.Values[0]
			}
		}
	}
	return ""
}

// writeStatus writes the pod's status as the step makes it, reading the
// pod again after a conflict (the Job controller updates its pods'
// finalizers meanwhile).
func (k *kubelet) writeStatus(ctx context.Context, ns, name string, uid types.UID, s Step) error {
	var written *corev1.Pod
	var sent time.Time
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		pod, err := k.get(ctx, ns, name, uid)
		if err != nil {
			return err
		}
		s.status(pod, statusContext{now: metav1.Now(), nodes: len(k.nodes)})
		sent = time.Now()
		written, err = k.client.CoreV1().Pods(ns).UpdateStatus(ctx, pod, metav1.UpdateOptions{})
		return err
	})
	if apierrors.IsNotFound(err) {
		return ErrPodGone
	}
	if err != nil {
		return fmt.Errorf("cluster: write the status of pod %s/%s (%s): %w", ns, name, s.name, err)
	}
	k.wrote(Write{Time: sent, Namespace: ns, Pod: name, UID: written.UID, Step: s.name,
		Node: written.Spec.NodeName})
	return nil
}

// writeEvent writes the step's Warning Event about the pod, as the
// kubelet's event recorder does: a new Event, or the one of the same
// reason and message again with its count and lastTimestamp raised.
func (k *kubelet) writeEvent(ctx context.Context, ns, name string, uid types.UID, s Step) error {
	pod, err := k.get(ctx, ns, name, uid)
	if err != nil {
		return err
	}
	now := metav1.Now()
	evName := fmt.Sprintf("%s.%x", name, hash(string(pod.UID), s.event.Reason, s.event.Message))
	events := k.client.CoreV1().Events(ns)
	sent := time.Now()
	if ev, err := events.Get(ctx, evName, metav1.GetOptions{}); err == nil {
		ev.Count++
		ev.LastTimestamp = now
		_, err = events.Update(ctx, ev, metav1.UpdateOptions{})
		if err != nil {
			return fmt.Errorf("cluster: write event %s/%s: %w", ns, evName, err)
		}
	} else {
		ev := s.event.DeepCopy()
		ev.ObjectMeta = metav1.ObjectMeta{Namespace: ns, Name: evName}
		ev.InvolvedObject = corev1.ObjectReference{Kind: "Pod", Namespace: ns, Name: name, UID: pod.UID,
			APIVersion: "v1", ResourceVersion: pod.ResourceVersion}
		ev.Source = corev1.EventSource{Component: "kubelet", Host: pod.Spec.NodeName}
		ev.ReportingController, ev.ReportingInstance = "kubelet", pod.Spec.NodeName
		ev.FirstTimestamp, ev.LastTimestamp, ev.Count = now, now, 1
		if _, err := events.Create(ctx, ev, metav1.CreateOptions{}); err != nil {
			return fmt.Errorf("cluster: write event %s/%s: %w", ns, evName, err)
		}
	}
	k.wrote(Write{Time: sent, Namespace: ns, Pod: name, UID: pod.UID, Step: s.name, Node: pod.Spec.NodeName})
	return nil
}

// errors returns the errors of its own work (the steps its policy gave,
// the pods it finished), but for a pod's going away.
func (k *kubelet) errors() []error {
	k.mu.Lock()
	defer k.mu.Unlock()
	return slices.Clone(k.errs)
}

func (k *kubelet) wrote(w Write) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.writes = append(k.writes, w)
	close(k.written)
	k.written = make(chan struct{})
}

// Apply takes steps for the pod namespace/name now, in the calling
// goroutine, each after its delay, as the kubelet and the scheduler the
// test plays would: a test drives a pod that its [Kubelet] left alone,
// or one that already ran. It returns when the last step is written, or
// at the first error ([ErrPodGone] if the pod goes away), or when ctx
// ends.
func (c *Cluster) Apply(ctx context.Context, namespace, name string, steps ...Step) error {
	return c.kubelet.apply(ctx, namespace, name, "", steps)
}

// Writes returns every write of the kubelet and the scheduler the test
// plays so far, in the order the API server answered them.
func (c *Cluster) Writes() []Write {
	c.kubelet.mu.Lock()
	defer c.kubelet.mu.Unlock()
	return slices.Clone(c.kubelet.writes)
}

// WaitWrite returns the first write, since the cluster started, for which
// match returns true, waiting for it if there is none yet, or ctx's error
// when ctx ends first.
func (c *Cluster) WaitWrite(ctx context.Context, match func(Write) bool) (Write, error) {
	k := c.kubelet
	for seen := 0; ; {
		k.mu.Lock()
		writes, next := k.writes, k.written
		k.mu.Unlock()
		for ; seen < len(writes); seen++ {
			if match(writes[seen]) {
				return writes[seen], nil
			}
		}
		select {
		case <-next:
		case <-ctx.Done():
			return Write{}, ctx.Err()
		}
	}
}
