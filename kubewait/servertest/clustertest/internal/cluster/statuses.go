package cluster

import (
	"fmt"
	"slices"

	corev1 "k8s.io/api/core/v1"
)

// ContainerCreating is the kubelet's first status of a pod it admitted:
// phase Pending, the containers waiting (ContainerCreating, or
// PodInitializing behind init containers), not ready.
func ContainerCreating() Step {
	return statusStep("ContainerCreating", func(pod *corev1.Pod, sc statusContext) {
		pod.Status.Phase = corev1.PodPending
		reason := "ContainerCreating"
		if len(pod.Spec.InitContainers) > 0 {
			reason = "PodInitializing"
		}
		for _, cs := range containerStatuses(pod) {
			if isZeroState(cs.State) {
				cs.State = waiting(reason, "")
			}
		}
		setConditions(pod, sc, corev1.ConditionFalse)
	})
}

// Running is a pod whose containers have all started (init containers
// completed) and are not ready yet: phase Running, Ready False, as while
// a readiness probe has not passed.
func Running() Step {
	return statusStep("Running", func(pod *corev1.Pod, sc statusContext) {
		run(pod, sc, false)
	})
}

// Ready is a pod whose containers all run and are ready: phase Running,
// the conditions PodReadyToStartContainers, Initialized, ContainersReady,
// Ready and PodScheduled True. A container that crashed before keeps its
// restart count and last state.
func Ready() Step {
	return statusStep("Ready", func(pod *corev1.Pod, sc statusContext) {
		run(pod, sc, true)
	})
}

// run makes every init container completed and every container running,
// ready or not.
func run(pod *corev1.Pod, sc statusContext, ready bool) {
	pod.Status.Phase = corev1.PodRunning
	for i := range pod.Spec.InitContainers {
		cs := initStatus(pod, i)
		if cs.State.Terminated == nil || cs.State.Terminated.ExitCode != 0 {
			cs.State = terminated(pod, cs, ExitCode(0), sc)
		}
	}
	for _, cs := range appStatuses(pod) {
		if cs.State.Running == nil {
			cs.State = corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: sc.now}}
		}
		cs.ContainerID = containerID(pod, cs)
		cs.ImageID = imageID(cs.Image)
		cs.Started, cs.Ready = ptr(true), ready
	}
	setConditions(pod, sc, corev1.ConditionTrue)
}

// ErrImagePull is a failed pull of container's image, with err's
// message: phase Pending, the container waiting with reason
// ErrImagePull.
func ErrImagePull(container string, err PullError) Step {
	return statusStep("ErrImagePull", func(pod *corev1.Pod, sc statusContext) {
		cs := appStatus(pod, container)
		setWaiting(pod, sc, cs, "ErrImagePull", err.Message(cs.Image))
	})
}

// ImagePullBackOff is the back-off after a failed pull of container's
// image: the container waiting with reason ImagePullBackOff and the
// kubelet's message, Back-off pulling image "IMAGE": ErrImagePull: and
// err's message.
func ImagePullBackOff(container string, err PullError) Step {
	return statusStep("ImagePullBackOff", func(pod *corev1.Pod, sc statusContext) {
		cs := appStatus(pod, container)
		setWaiting(pod, sc, cs, "ImagePullBackOff",
			fmt.Sprintf("Back-off pulling image %q: ErrImagePull: %s", cs.Image, err.Message(cs.Image)))
	})
}

// CreateContainerConfigError is a container the kubelet cannot create
// for its configuration, with the kubelet's message (see
// [MissingConfigMap], [MissingSecret]): phase Pending, the container
// waiting with reason CreateContainerConfigError.
func CreateContainerConfigError(container, message string) Step {
	return statusStep("CreateContainerConfigError", func(pod *corev1.Pod, sc statusContext) {
		setWaiting(pod, sc, appStatus(pod, container), "CreateContainerConfigError", message)
	})
}

// MissingConfigMap is the kubelet's message for a container whose
// environment names a ConfigMap that does not exist.
func MissingConfigMap(name string) string { return fmt.Sprintf("configmap %q not found", name) }

// MissingSecret is the kubelet's message for a container whose
// environment names a Secret that does not exist.
func MissingSecret(name string) string { return fmt.Sprintf("secret %q not found", name) }

// CrashLoopBackOff is container's crash and the back-off after it: its
// restart count one higher, its last state terminated with exit, its
// state waiting with reason CrashLoopBackOff and the kubelet's message
// (back-off 10s restarting failed container=NAME pod=POD_NS(UID), the
// back-off doubling with the restarts), phase Running, not ready.
func CrashLoopBackOff(container string, exit Exit) Step {
	return statusStep("CrashLoopBackOff", func(pod *corev1.Pod, sc statusContext) {
		pod.Status.Phase = corev1.PodRunning
		crash(pod, sc, appStatus(pod, container), exit)
		setConditions(pod, sc, corev1.ConditionTrue)
	})
}

// InitCrashLoopBackOff is init container container's crash and the
// back-off after it, as [CrashLoopBackOff] is a container's: phase
// Pending, Initialized False, the containers after it waiting with reason
// PodInitializing.
func InitCrashLoopBackOff(container string, exit Exit) Step {
	return statusStep("Init:CrashLoopBackOff", func(pod *corev1.Pod, sc statusContext) {
		pod.Status.Phase = corev1.PodPending
		i := slices.IndexFunc(pod.Spec.InitContainers, func(c corev1.Container) bool { return c.Name == container })
		if i < 0 {
			panic("cluster: pod " + pod.Name + " has no init container " + container)
		}
		crash(pod, sc, initStatus(pod, i), exit)
		for _, cs := range containerStatuses(pod) {
			if isZeroState(cs.State) || cs.State.Waiting != nil && cs.State.Waiting.Reason == "ContainerCreating" {
				cs.State = waiting("PodInitializing", "")
			}
		}
		setConditions(pod, sc, corev1.ConditionTrue)
	})
}

// crash records cs's exit and the back-off after it.
func crash(pod *corev1.Pod, sc statusContext, cs *corev1.ContainerStatus, exit Exit) {
	cs.LastTerminationState = terminated(pod, cs, exit, sc)
	cs.RestartCount++
	cs.State = waiting("CrashLoopBackOff", fmt.Sprintf("back-off %s restarting failed container=%s pod=%s_%s(%s)",
		backOff(int(cs.RestartCount)), cs.Name, pod.Name, pod.Namespace, pod.UID))
	cs.Started, cs.Ready = ptr(false), false
}

// Unschedulable is the scheduler's verdict on a pod that fits no node:
// PodScheduled False with reason Unschedulable and its message (0/3 nodes
// are available: 3 Insufficient cpu. preemption: ...), phase Pending.
func Unschedulable() Step {
	return statusStep("Unschedulable", func(pod *corev1.Pod, sc statusContext) {
		pod.Status.Phase = corev1.PodPending
		n := sc.nodes
		setCondition(pod, sc, corev1.PodScheduled, corev1.ConditionFalse, corev1.PodReasonUnschedulable,
			fmt.Sprintf("0/%d nodes are available: %d Insufficient cpu. preemption: 0/%d nodes are available: "+
				"%d No preemption victims found for incoming pod.", n, n, n, n))
	})
}

// Evicted is a pod the kubelet evicted because its node ran low on
// memory: phase Failed with reason Evicted and the kubelet's message, the
// condition DisruptionTarget True, its containers killed (exit 137).
func Evicted() Step {
	return statusStep("Evicted", func(pod *corev1.Pod, sc statusContext) {
		msg := fmt.Sprintf("The node was low on resource: memory. Threshold quantity: 100Mi, available: 51200Ki. "+
			"Container %s was using 1Gi, request is 0, has larger consumption of memory. ", pod.Spec.Containers[0].Name)
		end(pod, sc, corev1.PodFailed, ExitCode(137))
		pod.Status.Reason, pod.Status.Message = "Evicted", msg
		setCondition(pod, sc, corev1.DisruptionTarget, corev1.ConditionTrue, corev1.PodReasonTerminationByKubelet, msg)
	})
}

// Succeeded is a pod whose containers all exited 0: phase Succeeded,
// the containers terminated with reason Completed, not ready.
func Succeeded() Step {
	return statusStep("Succeeded", func(pod *corev1.Pod, sc statusContext) {
		end(pod, sc, corev1.PodSucceeded, ExitCode(0))
	})
}

// Failed is a pod, one that is not restarted (restartPolicy Never), whose
// containers exited, with exit: phase Failed.
func Failed(exit Exit) Step {
	return statusStep("Failed", func(pod *corev1.Pod, sc statusContext) {
		end(pod, sc, corev1.PodFailed, exit)
	})
}

// end makes pod terminal with phase, its running containers terminated
// with exit.
func end(pod *corev1.Pod, sc statusContext, phase corev1.PodPhase, exit Exit) {
	pod.Status.Phase = phase
	for _, cs := range appStatuses(pod) {
		if cs.State.Terminated == nil {
			cs.State = terminated(pod, cs, exit, sc)
		}
		cs.Started, cs.Ready = ptr(false), false
	}
	setConditions(pod, sc, corev1.ConditionFalse)
}

func statusStep(name string, f func(*corev1.Pod, statusContext)) Step {
	return Step{name: name, status: f}
}

// NodeShutdown is a pod whose node shut down (a spot instance reclaimed),
// as the kubelet's graceful node shutdown writes it: phase Failed with
// reason Terminated and its message, the condition DisruptionTarget True,
// its containers ended (exit 143, SIGTERM). Its ReplicaSet replaces it.
func NodeShutdown() Step {
	return statusStep("NodeShutdown", func(pod *corev1.Pod, sc statusContext) {
		const msg = "Pod was terminated in response to imminent node shutdown."
		end(pod, sc, corev1.PodFailed, ExitCode(143))
		pod.Status.Reason, pod.Status.Message = "Terminated", msg
		setCondition(pod, sc, corev1.DisruptionTarget, corev1.ConditionTrue, corev1.PodReasonTerminationByKubelet, msg)
	})
}

// Rejected is a pod the kubelet rejected at admission, as when its node
// has no room left for it (reason OutOfcpu) or no longer matches its
// affinity (NodeAffinity): phase Failed with the reason and the kubelet's
// message, no container started. Its ReplicaSet replaces it.
func Rejected(reason string) Step {
	return statusStep("Rejected", func(pod *corev1.Pod, sc statusContext) {
		pod.Status.Phase = corev1.PodFailed
		pod.Status.Reason = reason
		pod.Status.Message = "Pod was rejected: Node didn't have enough resource: cpu, requested: 500, used: 3800, capacity: 4000"
		if reason != "OutOfcpu" {
			pod.Status.Message = "Pod was rejected: Predicate " + reason + " failed"
		}
	})
}

// Warning is the kubelet's Warning Event about the pod, with reason and
// message (FailedMount, FailedAttachVolume, FailedCreatePodSandBox), as
// its event recorder writes one: the pod's status does not change.
func Warning(reason, message string) Step {
	return Step{name: reason, event: &corev1.Event{Reason: reason, Message: message, Type: corev1.EventTypeWarning}}
}

// MissingSecretVolume is the kubelet's FailedMount message for a volume
// whose Secret does not exist.
func MissingSecretVolume(volume, secret string) string {
	return fmt.Sprintf("MountVolume.SetUp failed for volume %q : secret %q not found", volume, secret)
}
