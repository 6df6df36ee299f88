package kubewait

import (
	"fmt"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/cli-utils/pkg/kstatus/status"
)

// RolloutOptions tune [Rollout]: how long a pod's reason must last before
// it fails the wait. The zero value is the default; a negative duration
// or count is rejected with the rule.
type RolloutOptions struct {
	// Window is how long a reason must stay on a container of a pod of
	// the current revision, unrecovered, before it fails the wait
	// (default 30 s): the kubelet's first retries of an image pull (10 s
	// and 20 s apart) and of a crashed container fall inside it, so a
	// registry's hiccup, or a crash that does not repeat, is not a
	// failure.
	Window time.Duration
	// Restarts is how many times a crashing container must have been
	// restarted (restartCount) before its crash loop counts (default 2).
	Restarts int
	// Unschedulable is how long a pod may wait to be scheduled before
	// the wait fails (default 2 minutes): a cluster autoscaler may be
	// adding a node for it.
	Unschedulable time.Duration
}

// The defaults of RolloutOptions.
const (
	defaultRolloutWindow = 30 * time.Second
	defaultRestarts      = 2
	defaultUnschedulable = 2 * time.Minute
)

// Rollout is the rule that an object's rollout is done, failing as soon as
// one of its current revision's pods cannot start: `waitable kube
// --for=rollout`. It holds as [Current] does (kstatus: the controller has
// observed the latest spec, and every replica is updated and available),
// but of a Job once it is complete (kstatus: once it runs). And it fails
// the wait, without waiting for the controller's progressDeadlineSeconds
// (600 s by default), when:
//
//   - a pod of the current revision cannot start: its image cannot be
//     pulled (ErrImagePull or ImagePullBackOff whose message says the
//     image is not there or access is denied, InvalidImageName,
//     ErrImageNeverPull), a container crashes over and over
//     (CrashLoopBackOff, reported with its last exit code and reason,
//     OOMKilled among them), cannot be created or run
//     (CreateContainerConfigError, CreateContainerError,
//     RunContainerError, ContainerCannotRun), an init container does
//     any of these, the pod stays unschedulable, or it failed (phase
//     Failed, but for an eviction or a preemption, and but for a Job's
//     pods, which its controller replaces until its backoffLimit);
//   - a ReplicaSet cannot create its pods (the condition ReplicaFailure,
//     as when a quota refuses them);
//   - a Job failed (its condition Failed), or kstatus says the object
//     Failed (a Deployment past its progress deadline).
//
// The pods of the current revision are a Deployment's new ReplicaSet's
// (the one of its revision), a ReplicaSet's, a StatefulSet's of its
// updateRevision, a DaemonSet's of its template generation, a Job's, or
// a Pod itself; the wait follows them through the Client's informers,
// listing and watching once the pods (and a Deployment's ReplicaSets) of
// the object's selector, or of its namespace when the wait follows
// several workloads there (a release's, a selector's). A reason fails the
// wait only once it has lasted opts.Window on a container that has not
// become ready (and, for a crash loop, after opts.Restarts restarts; for
// an image pull, after two failed pulls), so that the kubelet's retries
// may recover it. A pull error that the registry may recover from (a
// timeout, a refused connection, a 5xx, a rate limit: any message that
// does not say the image is not there or access is denied) and a config
// cache still syncing never fail the wait early: they are reported, and
// the wait goes on. The wait's events report each reason the moment it is first
// seen, as "pod NAME, container NAME: message"; the error names the
// object, the pod, the container, the reason and its message.
//
// A wait for the objects of a manifest (Request.Objects) takes Rollout
// for every kind: kinds that have no pods are judged by kstatus alone.
func Rollout(opts RolloutOptions) Rule {
	r := Rule{kind: ruleRollout, kstatus: status.CurrentStatus, text: "rollout", rollout: opts}
	switch {
	case opts.Window < 0:
		r.err = fmt.Errorf("rollout: Window %v is negative", opts.Window)
	case opts.Restarts < 0:
		r.err = fmt.Errorf("rollout: Restarts %d is negative", opts.Restarts)
	case opts.Unschedulable < 0:
		r.err = fmt.Errorf("rollout: Unschedulable %v is negative", opts.Unschedulable)
	}
	if r.rollout.Window == 0 {
		r.rollout.Window = defaultRolloutWindow
	}
	if r.rollout.Restarts == 0 {
		r.rollout.Restarts = defaultRestarts
	}
	if r.rollout.Unschedulable == 0 {
		r.rollout.Unschedulable = defaultUnschedulable
	}
	return r
}

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

// troubleKind is how a reason fails a wait.
type troubleKind uint8

const (
	troublePull          troubleKind = iota + 1 // an image that cannot be pulled: after two pulls and the window
	troubleRetried                              // one the kubelet or the registry may recover from: never early
	troubleCrash                                // a crash loop: after the restarts and the window
	troubleStart                                // a container that cannot be created or run, a pod that failed: after the window
	troubleUnschedulable                        // after RolloutOptions.Unschedulable
	troubleFinal                                // a Job's Failed condition: at once
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
	u := unstructured.Unstructured{Object: pod}
	name := u.GetName()
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
			term, ok, _ := unstructured.NestedMap(cs, "state", "terminated")
			if !ok {
				continue
			}
			code, _, _ := unstructured.NestedInt64(term, "exitCode")
			if code == 0 {
				continue
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
		msg := t.message
		if t.reason == "ErrImagePull" {
			lastPull[t.container] = msg
		} else if !strings.Contains(msg, "ErrImagePull") && lastPull[t.container] != "" {
			msg += ": " + lastPull[t.container] // an older kubelet's back-off names no cause
			t.message = msg
		}
		t.kind = troubleRetried
		if imageMissing(msg) {
			t.kind = troublePull
		}
	case "InvalidImageName", "ErrImageNeverPull":
		t.kind = troubleStart
	case "CrashLoopBackOff":
		t.kind = troubleCrash
	case "CreateContainerConfigError":
		t.kind = troubleStart
		if strings.Contains(t.message, "failed to sync") { // a configmap or secret cache still syncing
			t.kind = troubleRetried
		}
	case "CreateContainerError", "RunContainerError":
		t.kind = troubleStart
	default: // ContainerCreating, PodInitializing: on its way
		return trouble{}, false
	}
	return t, true
}

// imageMissing reports whether a pull error says that the image is not
// there, or that the registry refuses it: what a retry will not mend. A
// timeout, a refused connection, a 5xx or a rate limit says neither. (A
// bare "404" is not read: a digest may hold those digits.)
func imageMissing(msg string) bool {
	msg = strings.ToLower(msg)
	for _, s := range []string{"not found", "manifest unknown", "name unknown", "does not exist",
		"pull access denied", "unauthorized", "authentication required", "access denied",
		"invalid reference format"} {
		if strings.Contains(msg, s) {
			return true
		}
	}
	return false
}

// objectTrouble reads the object's own conditions that fail a rollout: a
// ReplicaSet's (or a Deployment's) ReplicaFailure, a Job's Failed.
func objectTrouble(obj Object) (trouble, bool) {
	kind, _, _ := unstructured.NestedString(obj, "kind")
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
			return trouble{reason: "ReplicaFailure", message: strings.TrimSpace(reason + ": " + msg), kind: troubleStart}, true
		case m["type"] == "Failed" && kind == "Job":
			return trouble{reason: reason, message: msg, kind: troubleFinal}, true
		}
	}
	return trouble{}, false
}
