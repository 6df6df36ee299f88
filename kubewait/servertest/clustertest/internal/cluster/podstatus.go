package cluster

import (
	"fmt"
	"hash/fnv"
	"strings"

	corev1 "k8s.io/api/core/v1"
)

// The parts of a pod's status that the kubelet derives from its
// containers': the conditions, the addresses, each container's IDs.

// setWaiting makes cs wait with reason and message, in a pod whose
// sandbox is up: phase Pending until a container has run.
func setWaiting(pod *corev1.Pod, sc statusContext, cs *corev1.ContainerStatus, reason, message string) {
	if pod.Status.Phase == "" {
		pod.Status.Phase = corev1.PodPending
	}
	cs.State = waiting(reason, message)
	cs.Started, cs.Ready = ptr(false), false
	for _, other := range appStatuses(pod) {
		if isZeroState(other.State) {
			other.State = waiting("ContainerCreating", "")
		}
	}
	setConditions(pod, sc, corev1.ConditionTrue)
}

// setConditions writes the conditions the kubelet derives from the
// containers' statuses, with PodReadyToStartContainers as sandbox says.
func setConditions(pod *corev1.Pod, sc statusContext, sandbox corev1.ConditionStatus) {
	if pod.Status.StartTime == nil {
		pod.Status.StartTime = &sc.now
	}
	pod.Status.HostIP = nodeIP(pod.Spec.NodeName)
	pod.Status.HostIPs = []corev1.HostIP{{IP: pod.Status.HostIP}}
	if sandbox == corev1.ConditionTrue && pod.Status.PodIP == "" {
		pod.Status.PodIP = podIP(pod)
		pod.Status.PodIPs = []corev1.PodIP{{IP: pod.Status.PodIP}}
	}
	setCondition(pod, sc, corev1.PodReadyToStartContainers, sandbox, "", "")

	var incomplete, unready []string
	for i := range pod.Spec.InitContainers {
		if t := initStatus(pod, i).State.Terminated; t == nil || t.ExitCode != 0 {
			incomplete = append(incomplete, pod.Spec.InitContainers[i].Name)
		}
	}
	for _, cs := range appStatuses(pod) {
		if !cs.Ready {
			unready = append(unready, cs.Name)
		}
	}
	initialized, ready := corev1.ConditionTrue, corev1.ConditionTrue
	var initReason, initMsg, readyReason, readyMsg string
	if len(incomplete) > 0 {
		initialized, initReason = corev1.ConditionFalse, "ContainersNotInitialized"
		initMsg = fmt.Sprintf("containers with incomplete status: [%s]", strings.Join(incomplete, " "))
	}
	switch {
	case pod.Status.Phase == corev1.PodSucceeded:
		ready, readyReason = corev1.ConditionFalse, "PodCompleted"
	case pod.Status.Phase == corev1.PodFailed:
		ready, readyReason = corev1.ConditionFalse, "PodFailed"
	case len(unready) > 0:
		ready, readyReason = corev1.ConditionFalse, "ContainersNotReady"
		readyMsg = fmt.Sprintf("containers with unready status: [%s]", strings.Join(unready, " "))
	}
	setCondition(pod, sc, corev1.PodInitialized, initialized, initReason, initMsg)
	setCondition(pod, sc, corev1.PodReady, ready, readyReason, readyMsg)
	setCondition(pod, sc, corev1.ContainersReady, ready, readyReason, readyMsg)
	setCondition(pod, sc, corev1.PodScheduled, corev1.ConditionTrue, "", "")
}

// setCondition sets pod's condition of type typ, its transition time
// changed only with its status.
func setCondition(pod *corev1.Pod, sc statusContext, typ corev1.PodConditionType, status corev1.ConditionStatus, reason, message string) {
	c := corev1.PodCondition{Type: typ, Status: status, Reason: reason, Message: message,
		LastTransitionTime: sc.now, ObservedGeneration: pod.Generation}
	for i, old := range pod.Status.Conditions {
		if old.Type == typ {
			if old.Status == status {
				c.LastTransitionTime = old.LastTransitionTime
			}
			pod.Status.Conditions[i] = c
			return
		}
	}
	pod.Status.Conditions = append(pod.Status.Conditions, c)
}

// containerStatuses returns the statuses of pod's init containers and
// containers, in the order of its spec, each made if missing.
func containerStatuses(pod *corev1.Pod) []*corev1.ContainerStatus {
	var out []*corev1.ContainerStatus
	for i := range pod.Spec.InitContainers {
		out = append(out, initStatus(pod, i))
	}
	return append(out, appStatuses(pod)...)
}

// appStatuses returns the statuses of pod's containers, in the order of
// its spec, each made if missing.
func appStatuses(pod *corev1.Pod) []*corev1.ContainerStatus {
	var out []*corev1.ContainerStatus
	for _, c := range pod.Spec.Containers {
		out = append(out, status(&pod.Status.ContainerStatuses, c))
	}
	return out
}

// appStatus returns the status of pod's container called name, made if
// missing; it panics if the pod has no such container.
func appStatus(pod *corev1.Pod, name string) *corev1.ContainerStatus {
	for _, c := range pod.Spec.Containers {
		if c.Name == name {
			return status(&pod.Status.ContainerStatuses, c)
		}
	}
	panic("cluster: pod " + pod.Name + " has no container " + name)
}

// initStatus returns the status of pod's i-th init container, made if
// missing.
func initStatus(pod *corev1.Pod, i int) *corev1.ContainerStatus {
	return status(&pod.Status.InitContainerStatuses, pod.Spec.InitContainers[i])
}

// status returns the status of c in *statuses, appended if missing.
func status(statuses *[]corev1.ContainerStatus, c corev1.Container) *corev1.ContainerStatus {
	for i := range *statuses {
		if (*statuses)[i].Name == c.Name {
			return &(*statuses)[i]
		}
	}
	*statuses = append(*statuses, corev1.ContainerStatus{Name: c.Name, Image: c.Image, Started: ptr(false)})
	return &(*statuses)[len(*statuses)-1]
}

func isZeroState(s corev1.ContainerState) bool {
	return s.Waiting == nil && s.Running == nil && s.Terminated == nil
}

func waiting(reason, message string) corev1.ContainerState {
	return corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: reason, Message: message}}
}

// terminated is cs's state once it exited with exit.
func terminated(pod *corev1.Pod, cs *corev1.ContainerStatus, exit Exit, sc statusContext) corev1.ContainerState {
	started := sc.now
	if cs.State.Running != nil {
		started = cs.State.Running.StartedAt
	}
	return corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{
		ExitCode: exit.Code, Reason: exit.Reason, StartedAt: started, FinishedAt: sc.now,
		ContainerID: containerID(pod, cs)}}
}

// containerID is the runtime's ID of cs's current run.
func containerID(pod *corev1.Pod, cs *corev1.ContainerStatus) string {
	return fmt.Sprintf("containerd://%016x%016x", hash(string(pod.UID), cs.Name), hash(cs.Name, fmt.Sprint(cs.RestartCount)))
}

// imageID is the digest the runtime reports for image.
func imageID(image string) string {
	r := parseImage(image)
	return fmt.Sprintf("%s@sha256:%016x%016x%016x%016x", r.repoFull, hash(image, "1"), hash(image, "2"), hash(image, "3"), hash(image, "4"))
}

// nodeIP is the address of node (node-0 is 10.0.1.1) or "".
func nodeIP(node string) string {
	var i int
	if _, err := fmt.Sscanf(node, "node-%d", &i); err != nil {
		return ""
	}
	return fmt.Sprintf("10.0.1.%d", i+1)
}

// podIP is pod's address in its node's pod range (node-0 is
// 10.244.1.0/24).
func podIP(pod *corev1.Pod) string {
	var i int
	_, _ = fmt.Sscanf(pod.Spec.NodeName, "node-%d", &i)
	return fmt.Sprintf("10.244.%d.%d", i+1, 2+hash(string(pod.UID))%250)
}

func hash(parts ...string) uint64 {
	h := fnv.New64a()
	for _, p := range parts {
		h.Write([]byte(p))
		h.Write([]byte{0})
	}
	return h.Sum64()
}

func ptr[T any](v T) *T { return &v }
