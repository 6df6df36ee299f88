package kubewait

import (
	"fmt"
	"regexp"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// trouble is why a pod, or one of its containers, cannot start.
type trouble struct {
	pod       string // the pod's name ("" for a ReplicaSet's or a Job's condition)
	container string // "" for the pod
	init      bool
	reason    string
	message   string
	restarts  int64
	// exitCode and lastReason are the last termination's, for a crash.
	exitCode   int64
	lastReason string
	kind       troubleKind
}

// troubleKind is how a reason fails a wait: the window of
// RolloutOptions it must last, and what else it needs.
type troubleKind uint8

const (
	troublePull          troubleKind = iota + 1 // an image that cannot be pulled: after two pulls and Window
	troubleRetried                              // one the kubelet or the registry may recover from: never
	troubleCrash                                // a crash loop: after Restarts and CrashLoop
	troubleStart                                // a container that cannot be created or run, a pod that failed: after Window
	troubleConfig                               // a missing Secret or ConfigMap: after Config
	troubleUnschedulable                        // after Unschedulable
	troubleQuota                                // a ReplicaSet that cannot create its pods: after Quota
	troubleEvent                                // a Warning Event on a pod that has not started: after Events
	troubleFinal                                // a Job's Failed condition, OnDelete, a bad annotation: at once
)

// String says where the trouble is, and what: "pod web-1, container app:
// back-off 20s restarting failed container (exit code 137, OOMKilled,
// 3 restarts)".
func (t trouble) String() string {
	var b strings.Builder
	if t.pod != "" {
		fmt.Fprintf(&b, "pod %s", t.pod)
	}
	if t.container != "" {
		kind := "container"
		if t.init {
			kind = "init container"
		}
		fmt.Fprintf(&b, ", %s %s", kind, t.container)
	}
	if b.Len() > 0 {
		b.WriteString(": ")
	}
	b.WriteString(t.message)
	if t.kind == troubleCrash || t.lastReason != "" {
		fmt.Fprintf(&b, " (exit code %d", t.exitCode)
		if t.lastReason != "" {
			fmt.Fprintf(&b, ", %s", t.lastReason)
		}
		fmt.Fprintf(&b, ", %d restarts)", t.restarts)
	}
	return b.String()
}

// podTroubles returns why pod cannot start, container by container (init
// containers first), and the pod's own trouble; none for a pod that runs
// or is on its way. lastPull is the last ErrImagePull message seen of
// each container, which an ImagePullBackOff's may leave out.
func podTroubles(pod Object, lastPull map[string]string) []trouble {
	name := (&unstructured.Unstructured{Object: pod}).GetName()
	var out []trouble
	phase, _, _ := unstructured.NestedString(pod, "status", "phase")
	if phase == "Failed" {
		reason, _, _ := unstructured.NestedString(pod, "status", "reason")
		if reason != "Evicted" && reason != "Preempting" {
			msg, _, _ := unstructured.NestedString(pod, "status", "message")
			msg = strings.TrimSpace(reason + " " + msg)
			if msg == "" {
				msg = exited(pod)
			}
			out = append(out, trouble{pod: name, reason: "PodFailed", message: msg, kind: troubleStart})
		}
		return out
	}
	if phase == "Succeeded" {
		return nil
	}
	conds, _, _ := unstructured.NestedSlice(pod, "status", "conditions")
	for _, c := range conds {
		m, _ := c.(map[string]any)
		if m["type"] == "PodScheduled" && m["status"] == "False" && m["reason"] == "Unschedulable" {
			msg, _ := m["message"].(string)
			out = append(out, trouble{pod: name, reason: "Unschedulable", message: msg, kind: troubleUnschedulable})
		}
	}
	for _, list := range []string{"initContainerStatuses", "containerStatuses"} {
		statuses, _, _ := unstructured.NestedSlice(pod, "status", list)
		for _, s := range statuses {
			cs, _ := s.(map[string]any)
			if t, ok := containerTrouble(cs, lastPull); ok {
				t.pod, t.init = name, list == "initContainerStatuses"
				out = append(out, t)
			}
		}
	}
	return out
}

// exited says how a failed pod's containers ended, for a pod whose
// status gives no reason: "container app exited with code 1 (Error)".
func exited(pod Object) string {
	var out []string
	for _, list := range []string{"initContainerStatuses", "containerStatuses"} {
		statuses, _, _ := unstructured.NestedSlice(pod, "status", list)
		for _, s := range statuses {
			cs, _ := s.(map[string]any)
			term, _, _ := unstructured.NestedMap(cs, "state", "terminated")
			code, _, _ := unstructured.NestedInt64(term, "exitCode")
			if code == 0 {
				continue // it runs, waits, or exited well
			}
			e := fmt.Sprintf("container %v exited with code %d", cs["name"], code)
			if r, _ := term["reason"].(string); r != "" {
				e += " (" + r + ")"
			}
			out = append(out, e)
		}
	}
	if len(out) == 0 {
		return "the pod failed"
	}
	return strings.Join(out, "; ")
}

// containerTrouble reads one container's status.
func containerTrouble(cs map[string]any, lastPull map[string]string) (trouble, bool) {
	if ready, _ := cs["ready"].(bool); ready {
		return trouble{}, false
	}
	t := trouble{container: fmt.Sprint(cs["name"])}
	t.restarts, _, _ = unstructured.NestedInt64(cs, "restartCount")
	t.exitCode, _, _ = unstructured.NestedInt64(cs, "lastState", "terminated", "exitCode")
	t.lastReason, _, _ = unstructured.NestedString(cs, "lastState", "terminated", "reason")
	if t.lastReason == "Error" || t.lastReason == "Completed" {
		t.lastReason = ""
	}
	if waiting, ok, _ := unstructured.NestedMap(cs, "state", "waiting"); ok {
		t.reason, _ = waiting["reason"].(string)
		t.message, _ = waiting["message"].(string)
	} else if term, ok, _ := unstructured.NestedMap(cs, "state", "terminated"); ok && term["reason"] == "ContainerCannotRun" {
		t.reason = "ContainerCannotRun"
		t.message, _ = term["message"].(string)
		t.exitCode, _, _ = unstructured.NestedInt64(term, "exitCode")
		if t.exitCode == 128 {
			return trouble{}, false // often a transient runtime error, as krane reads it
		}
		t.kind = troubleStart
		return t, true
	} else {
		return trouble{}, false
	}
	if t.message == "" {
		t.message = t.reason
	}
	switch t.reason {
	case "ErrImagePull", "ImagePullBackOff":
		if t.reason == "ErrImagePull" {
			lastPull[t.container] = t.message
		} else if !strings.Contains(t.message, "ErrImagePull") && lastPull[t.container] != "" {
			t.message += ": " + lastPull[t.container] // an older kubelet's back-off names no cause
		}
		t.kind = troubleRetried
		if imageMissing(t.message) {
			t.kind = troublePull
		}
	case "InvalidImageName", "ErrImageNeverPull", "CreateContainerError", "RunContainerError":
		t.kind = troubleStart
	case "CrashLoopBackOff":
		t.kind = troubleCrash
	case "CreateContainerConfigError":
		t.kind = troubleConfig
		if strings.Contains(t.message, "failed to sync") { // a configmap or secret cache still syncing
			t.kind = troubleRetried
		}
	default: // ContainerCreating, PodInitializing: on its way
		return trouble{}, false
	}
	return t, true
}

// imageMissing reports whether a pull error says that the image is not
// there, or that the registry refuses it: what a retry will not mend. A
// timeout, a refused connection, a 5xx or a rate limit says neither. (A
// bare "404" is not read: a digest may hold those digits.)
var imageMissing = regexp.MustCompile(`(?i)not found|manifest unknown|name unknown|does not exist|` +
	`pull access denied|unauthorized|authentication required|access denied|invalid reference format`).MatchString

// objectTrouble reads what of the object itself fails a rollout, or
// says why it does not go on: a ReplicaSet's (or a Deployment's)
// ReplicaFailure, a Job's Failed, a StatefulSet or DaemonSet that updates
// OnDelete, a paused Deployment.
func objectTrouble(obj Object) (trouble, bool) {
	kind, _, _ := unstructured.NestedString(obj, "kind")
	if updatesOnDelete(obj) { // in kubectl rollout status's words
		return trouble{reason: "OnDelete", message: "rollout status is only available for RollingUpdate strategy type", kind: troubleFinal}, true
	}
	if paused, _, _ := unstructured.NestedBool(obj, "spec", "paused"); paused && kind == "Deployment" {
		name, _, _ := unstructured.NestedString(obj, "metadata", "name")
		return trouble{reason: "Paused", message: fmt.Sprintf("the Deployment is paused: its rollout goes on after `kubectl rollout resume deployment/%s`", name),
			kind: troubleRetried}, true
	}
	conds, _, _ := unstructured.NestedSlice(obj, "status", "conditions")
	for _, c := range conds {
		m, _ := c.(map[string]any)
		if m["status"] != "True" {
			continue
		}
		reason, _ := m["reason"].(string)
		msg, _ := m["message"].(string)
		switch {
		case m["type"] == "ReplicaFailure":
			return trouble{reason: "ReplicaFailure", message: strings.TrimSpace(reason + ": " + msg), kind: troubleQuota}, true
		case m["type"] == "Failed" && kind == "Job":
			return trouble{reason: reason, message: msg, kind: troubleFinal}, true
		}
	}
	return trouble{}, false
}

// eventReasons are the reasons of the kubelet's Warning Events that tell
// why a pod has not started, where its status says only
// ContainerCreating.
var eventReasons = map[string]bool{"FailedMount": true, "FailedAttachVolume": true, "FailedCreatePodSandBox": true}

// eventTrouble reads a Warning Event of a pod that has not started: a
// FailedMount that names a missing Secret or ConfigMap is a config
// trouble, the others (a volume that does not mount or attach, a sandbox
// the runtime cannot create) an Event's.
func eventTrouble(pod string, event Object) (trouble, bool) {
	reason, _, _ := unstructured.NestedString(event, "reason")
	if !eventReasons[reason] {
		return trouble{}, false
	}
	msg, _, _ := unstructured.NestedString(event, "message")
	t := trouble{pod: pod, reason: reason, message: msg, kind: troubleEvent}
	if reason == "FailedMount" && missingConfig.MatchString(msg) {
		t.kind = troubleConfig
	}
	return t, true
}

// missingConfig is the kubelet's word for a volume whose Secret or
// ConfigMap does not exist: `secret "web-tls" not found`.
var missingConfig = regexp.MustCompile(`(secret|configmap) "[^"]*" not found`)

// started reports whether any of pod's containers has started (runs, or
// ran): its Events of mounts and sandboxes are then history.
func started(pod Object) bool {
	for _, list := range []string{"initContainerStatuses", "containerStatuses"} {
		statuses, _, _ := unstructured.NestedSlice(pod, "status", list)
		for _, s := range statuses {
			cs, _ := s.(map[string]any)
			for _, state := range []string{"running", "terminated"} {
				if _, ok, _ := unstructured.NestedMap(cs, "state", state); ok {
					return true
				}
			}
		}
	}
	return false
}

// updatesOnDelete reports whether obj is a StatefulSet or a DaemonSet
// whose pods change only when deleted (updateStrategy OnDelete): it has
// no rollout to follow.
func updatesOnDelete(obj Object) bool {
	kind, _, _ := unstructured.NestedString(obj, "kind")
	strategy, _, _ := unstructured.NestedString(obj, "spec", "updateStrategy", "type")
	return strategy == "OnDelete" && (kind == "StatefulSet" || kind == "DaemonSet")
}
