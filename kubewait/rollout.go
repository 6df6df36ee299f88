package kubewait

import (
	"errors"
	"fmt"
	"strconv"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/cli-utils/pkg/kstatus/status"
)

// RolloutOptions tune [Rollout]: how long each cause of trouble must last
// on the pods of a revision before the rollout fails. Each default is
// longer than what a healthy cluster shows of that cause, so that a
// deploy that would succeed never fails on it. The zero value is the
// defaults; a negative duration or count is rejected with the rule. A
// workload's annotations override them for that workload (see
// [Rollout]).
type RolloutOptions struct {
	// Window is how long an image that cannot be pulled (the registry
	// says it is not there, or refuses access; after two pulls), or a
	// container that cannot be created or run, must last (default 30 s):
	// the kubelet's first retries of a pull, 10 s and 20 s apart, fall
	// inside it. Annotation rollout.waitable.dev/window.
	Window time.Duration
	// Config is how long a Secret or ConfigMap that a container or a
	// volume needs may be missing (CreateContainerConfigError, or a
	// FailedMount Event naming it) (default 90 s): a controller such as
	// cert-manager or external-secrets creates it within a minute, and
	// the kubelet's next try (10 s later for a container, at the volume
	// manager's back-off, about 64 s in, for a volume) finds it.
	// Annotation rollout.waitable.dev/config.
	Config time.Duration
	// CrashLoop is how long a container may crash over and over
	// (CrashLoopBackOff) (default 90 s): the kubelet restarts it 10, 20
	// and 40 s apart, so a container that crashes until a dependency
	// (a database) comes up within a minute runs at its restart some
	// 70 s in. Annotation rollout.waitable.dev/crash-loop.
	CrashLoop time.Duration
	// Restarts is how many times a crashing container must have been
	// restarted (restartCount) before its crash loop counts (default 2).
	// Annotation rollout.waitable.dev/restarts.
	Restarts int
	// Unschedulable is how long a pod may wait to be scheduled (default
	// 4 minutes): a cluster autoscaler adds a node for it within 3
	// minutes, and the scheduler places the pod when the node is ready.
	// Annotation rollout.waitable.dev/unschedulable.
	Unschedulable time.Duration
	// Quota is how long a ReplicaSet may fail to create its pods
	// (ReplicaFailure, as when a quota refuses them) (default 3 minutes):
	// in a surge, the old pods' end frees the quota, and the ReplicaSet
	// controller, which backs off a refused create from 5 ms doubling,
	// finds it so at its next try, which comes as late again as its tries
	// have lasted (some 80 s in, for a quota freed 40 s in). Annotation
	// rollout.waitable.dev/quota.
	Quota time.Duration
	// Events is how long a trouble that only the kubelet's Warning Events
	// tell may last on a pod that has not started (default 2 minutes):
	// FailedMount (but one naming a missing Secret or ConfigMap, which is
	// Config's), FailedAttachVolume (a cloud disk attaches within a
	// minute or two, or once the old node lets it go) and
	// FailedCreatePodSandBox (a new node's network plugin starting).
	// Annotation rollout.waitable.dev/events.
	Events time.Duration
}

// rolloutAnnotation prefixes the workload annotations that override
// RolloutOptions, one an option.
const rolloutAnnotation = "rollout.waitable.dev/"

// rolloutOption is one of RolloutOptions: the name of its annotation and
// of its field, where it is, and its default.
type rolloutOption struct {
	annotation, field string
	d                 *time.Duration // the duration it sets, or
	n                 *int           // the count (Restarts)
	def               time.Duration  // a count, for Restarts
	kind              troubleKind    // the trouble whose window it is (Window: any other)
}

// options returns o's options, in the order of RolloutOptions.
func (o *RolloutOptions) options() []rolloutOption {
	return []rolloutOption{
		{annotation: "window", field: "Window", d: &o.Window, def: 30 * time.Second},
		{annotation: "config", field: "Config", d: &o.Config, def: 90 * time.Second, kind: troubleConfig},
		{annotation: "crash-loop", field: "CrashLoop", d: &o.CrashLoop, def: 90 * time.Second, kind: troubleCrash},
		{annotation: "restarts", field: "Restarts", n: &o.Restarts, def: 2},
		{annotation: "unschedulable", field: "Unschedulable", d: &o.Unschedulable, def: 4 * time.Minute,
			kind: troubleUnschedulable},
		{annotation: "quota", field: "Quota", d: &o.Quota, def: 3 * time.Minute, kind: troubleQuota},
		{annotation: "events", field: "Events", d: &o.Events, def: 2 * time.Minute, kind: troubleEvent},
	}
}

// Rollout is the rule that an object's rollout is done, failing as soon as
// its current revision cannot make progress: `waitable kube
// --for=rollout`. It holds as [Current] does (kstatus: the controller has
// observed the latest spec, and every replica is updated and available),
// but of a Job once it is complete (kstatus: once it runs).
//
// The pods of the current revision are a Deployment's new ReplicaSet's
// (the one of its revision), a ReplicaSet's, a StatefulSet's of its
// updateRevision, a DaemonSet's of its template generation, a Job's, or
// a Pod itself. A pod that its controller replaces counts for nothing: a
// pod that failed (as one its node shut down under, or one the kubelet
// rejected at admission: OutOfcpu, NodeAffinity, ...), one being deleted,
// or one with the DisruptionTarget condition. The rule fails the wait,
// without waiting for the controller's progressDeadlineSeconds (600 s by
// default):
//
//   - when every counting pod of the current revision is doomed (Shopify
//     krane's rule): each has a trouble that has lasted its window, on a
//     container that has not become ready. The troubles: an image that
//     cannot be pulled (ErrImagePull or ImagePullBackOff whose message
//     says the image is not there or access is denied, InvalidImageName,
//     ErrImageNeverPull), a container that crashes over and over
//     (CrashLoopBackOff, reported with its last exit code and reason,
//     OOMKilled among them), one that cannot be created or run
//     (CreateContainerConfigError, CreateContainerError,
//     RunContainerError, ContainerCannotRun), an init container that does
//     any of these, a pod that stays unschedulable, and, on a pod that has
//     not started, a Warning Event of the kubelet that says why:
//     FailedMount, FailedAttachVolume or FailedCreatePodSandBox;
//   - when a ReplicaSet cannot create its pods for its window (the
//     condition ReplicaFailure, as when a quota refuses them);
//   - at once, when a Job failed (its condition Failed), when kstatus says
//     the object Failed (a Deployment past its progress deadline), and
//     when a StatefulSet or DaemonSet updates OnDelete (as `kubectl
//     rollout status` refuses it: its pods change only when deleted).
//
// One pod's trouble on a revision whose other pods run (a bad node, a
// slow volume) does not fail the wait: the controller makes progress
// without it, and the progress deadline still ends a rollout that
// stalls. Each cause has its own window (RolloutOptions), longer than
// what a healthy cluster shows; a pull error the registry may recover
// from (a timeout, a refused connection, a 5xx, a rate limit: any message
// that does not say the image is not there or access is denied) and a
// config cache still syncing never fail the wait. A paused Deployment
// does not fail: its events say it is paused.
//
// A workload tunes its own windows with annotations, which override
// opts: rollout.waitable.dev/window, /config, /crash-loop,
// /unschedulable, /quota and /events take Go durations ("90s", "5m"),
// rollout.waitable.dev/restarts a count. An annotation that does not
// parse fails the object's wait at once, naming it.
//
// The wait follows the pods through the Client's informers, listing and
// watching once the pods (and a Deployment's ReplicaSets) of the object's
// selector, or of its namespace when the wait follows several workloads
// there (a release's, a selector's), and the Warning Events of pods of
// each namespace. The wait's events report each reason the moment it is
// first seen, as "pod NAME, container NAME: message"; the error names the
// object, the pod, the container, the reason and its message.
//
// A wait for the objects of a manifest (Request.Objects) takes Rollout
// for every kind: kinds that have no pods are judged by kstatus alone.
func Rollout(opts RolloutOptions) Rule {
	return Rule{is: rolloutRule{opts.withDefaults()}, text: "rollout", err: opts.check()}
}

// rolloutRule is Rollout's rule: done as kstatus's Current (a Job once
// complete); what fails it, the podWatch of each object tells.
type rolloutRule struct{ opts RolloutOptions }

func (rolloutRule) matches(obj Object) (bool, error) {
	switch {
	case obj["kind"] == "Job":
		return jobComplete.matches(obj) // kstatus: Current once it runs
	case updatesOnDelete(obj):
		return false, nil // kstatus: Current at once
	}
	return kstatusRule{status.CurrentStatus}.matches(obj)
}

// describe returns kstatus's status and message.
func (rolloutRule) describe(obj Object) (reason, message string) {
	return kstatusRule{}.describe(obj)
}

func (rolloutRule) name() string { return "KubeRollout" }

// check rejects negative options, naming each.
func (o RolloutOptions) check() error {
	var errs []error
	for _, opt := range o.options() {
		switch {
		case opt.d != nil && *opt.d < 0:
			errs = append(errs, fmt.Errorf("rollout: %s %v is negative", opt.field, *opt.d))
		case opt.n != nil && *opt.n < 0:
			errs = append(errs, fmt.Errorf("rollout: %s %d is negative", opt.field, *opt.n))
		}
	}
	return errors.Join(errs...)
}

// withDefaults fills in the options left zero.
func (o RolloutOptions) withDefaults() RolloutOptions {
	for _, opt := range o.options() {
		switch {
		case opt.d != nil && *opt.d == 0:
			*opt.d = opt.def
		case opt.n != nil && *opt.n == 0:
			*opt.n = int(opt.def)
		}
	}
	return o
}

// annotated returns o as obj's annotations override it, or an error that
// names the first annotation that does not parse.
func (o RolloutOptions) annotated(obj Object) (RolloutOptions, error) {
	ann := (&unstructured.Unstructured{Object: obj}).GetAnnotations()
	for _, opt := range o.options() {
		v, ok := ann[rolloutAnnotation+opt.annotation]
		if !ok {
			continue
		}
		bad := func(want string) error {
			return fmt.Errorf("annotation %s%s: %q is not %s", rolloutAnnotation, opt.annotation, v, want)
		}
		if opt.n != nil {
			n, err := strconv.Atoi(v)
			if err != nil || n < 0 {
				return o, bad("a count (0 or more)")
			}
			*opt.n = n
			continue
		}
		d, err := time.ParseDuration(v)
		if err != nil || d < 0 {
			return o, bad(`a duration ("90s", "5m")`)
		}
		*opt.d = d
	}
	return o.withDefaults(), nil
}

// window returns how long a trouble of kind k must last before it dooms
// its pod (or its ReplicaSet).
func (o RolloutOptions) window(k troubleKind) time.Duration {
	for _, opt := range o.options() {
		if opt.d != nil && opt.kind == k {
			return *opt.d
		}
	}
	return o.Window
}

// rolloutProgress is the share of a rollout done, for the waiter's
// estimate of the time left ([waiter.WithProgress]): the ready replicas
// of the current revision out of those desired (a Deployment's, a
// StatefulSet's; a ReplicaSet's ready ones), a DaemonSet's ready pods out
// of those it should run, a Job's succeeded pods out of its completions;
// negative for another kind, or one that says nothing yet.
func rolloutProgress(obj Object) float64 {
	count := func(path ...string) (int64, bool) {
		n, ok, _ := unstructured.NestedInt64(obj, path...)
		return n, ok
	}
	var done, want int64
	var ok bool
	switch obj["kind"] {
	case "Deployment", "StatefulSet":
		want, ok = count("spec", "replicas")
		ready, _ := count("status", "readyReplicas")
		updated, _ := count("status", "updatedReplicas")
		done = min(ready, updated)
	case "ReplicaSet":
		want, ok = count("spec", "replicas")
		done, _ = count("status", "readyReplicas")
	case "DaemonSet":
		want, ok = count("status", "desiredNumberScheduled")
		done, _ = count("status", "numberReady")
	case "Job":
		want, ok = count("spec", "completions")
		done, _ = count("status", "succeeded")
	}
	if !ok || want <= 0 {
		return -1
	}
	return float64(done) / float64(want)
}
