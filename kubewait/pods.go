package kubewait

import (
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/cli-utils/pkg/kstatus/status"
)

var (
	podsResource        = schema.GroupVersionResource{Version: "v1", Resource: "pods"}
	replicaSetsResource = schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "replicasets"}
)

// A podWatch follows, for the [Rollout] rule, the pods of one object's
// current revision: through the Client's informers of the pods (and a
// Deployment's ReplicaSets) of its selector, it keeps each reason a
// container or a pod cannot start, since when it has lasted, and how
// many status writes have shown it.
type podWatch struct {
	d    *driver
	m    *member
	opts RolloutOptions
	obj  Object // the object, as last judged
	kind string
	// pods and sets are the subscriptions to the pods and the ReplicaSets
	// of the object's selector (nil when it has none to follow).
	pods, sets *subscription
	selector   string
	seen       map[string]string            // a pod's resourceVersion, as last observed
	lastPull   map[string]map[string]string // a pod's containers' last ErrImagePull messages
	episodes   map[string]*episode          // by pod, container and kind of trouble
	shown      *trouble                     // what the events say: the failure, else the trouble seen first
}

// episode is one trouble as it lasts.
type episode struct {
	trouble
	since  time.Time
	writes int // status writes that showed it
}

// workloads are the resources whose objects have pods to follow.
var workloads = map[string]bool{"deployments": true, "replicasets": true, "statefulsets": true, "daemonsets": true, "jobs": true}

// sharedPods returns the namespaces where a wait follows the pods of
// several workloads (a release's namespace, a selector's): it lists and
// watches the pods (and ReplicaSets) of each such namespace once, rather
// than those of each workload's selector.
func sharedPods(req Request, groups []named) map[string]bool {
	shared := map[string]bool{}
	if len(groups) == 0 && req.Namespace != "" && workloads[req.Resource.Resource] {
		shared[req.Namespace] = true // a selector's
	}
	n := map[string]int{}
	for _, g := range groups {
		if workloads[g.gvr.Resource] {
			if n[g.namespace] += len(g.refs); n[g.namespace] > 1 {
				shared[g.namespace] = true
			}
		}
	}
	return shared
}

// follow starts or updates m's podWatch with obj, as the Rollout rule
// judges it.
func (d *driver) follow(m *member, obj Object, now time.Time) {
	pw := d.podWatches[m]
	if pw == nil {
		pw = &podWatch{d: d, m: m, opts: d.rollout.rollout, seen: map[string]string{},
			lastPull: map[string]map[string]string{}, episodes: map[string]*episode{}}
		d.podWatches[m] = pw
		d.byRef[refKey(m.ref)] = pw
	}
	pw.obj = obj
	pw.kind, _, _ = unstructured.NestedString(obj, "kind")
	pw.subscribe()
	pw.observe(now)
}

func refKey(r Ref) string { return r.Resource.String() + " " + r.String() }

// subscribe subscribes to the informers of the object's pods (and
// ReplicaSets), or again if its selector changed.
func (pw *podWatch) subscribe() {
	sel := ""
	switch pw.kind {
	case "Deployment", "ReplicaSet", "StatefulSet", "DaemonSet", "Job":
		if m, ok, _ := unstructured.NestedMap(pw.obj, "spec", "selector"); ok {
			var ls metav1.LabelSelector
			if err := runtime.DefaultUnstructuredConverter.FromUnstructured(m, &ls); err == nil {
				if s, err := metav1.LabelSelectorAsSelector(&ls); err == nil && !s.Empty() {
					sel = s.String()
				}
			}
		}
	}
	if sel == pw.selector && (pw.pods != nil || sel == "") {
		return
	}
	pw.unsubscribe()
	pw.selector = sel
	if sel == "" {
		return
	}
	ns := pw.m.ref.Namespace
	if pw.d.sharedPods[ns] {
		sel = "" // the pods of every workload of the wait in ns: one list and watch
	}
	pw.pods = pw.d.c.subscribe(informerKey{gvr: podsResource, namespace: ns, labels: sel}, nil, pw.d.wake)
	if pw.kind == "Deployment" {
		pw.sets = pw.d.c.subscribe(informerKey{gvr: replicaSetsResource, namespace: ns, labels: sel}, nil, pw.d.wake)
	}
}

func (pw *podWatch) unsubscribe() {
	for _, s := range []*subscription{pw.pods, pw.sets} {
		if s != nil {
			s.unsubscribe()
		}
	}
	pw.pods, pw.sets = nil, nil
}

// refresh takes what changed in the pods' informers: if anything did, it
// observes the pods again and makes the object's wait due.
func (pw *podWatch) refresh(now time.Time) {
	changed := false
	for _, s := range []*subscription{pw.pods, pw.sets} {
		if s == nil {
			continue
		}
		dirty, all, notes := s.take()
		for _, n := range notes {
			pw.d.emit(Event{Time: n.at, Object: Ref{Resource: s.inf.key.gvr, Namespace: s.inf.key.namespace}, Watch: n.what, Err: n.err})
		}
		changed = changed || all || len(dirty) > 0
	}
	if changed {
		pw.observe(now)
		pw.m.next = now
	}
}

// observe reads the object and the pods of its current revision: each
// trouble seen goes on (or starts) its episode, a status write that shows
// it again counts, and an episode no longer seen (the container is ready,
// the pod gone) ends.
func (pw *podWatch) observe(now time.Time) {
	var troubles []trouble
	if t, ok := objectTrouble(pw.obj); ok {
		troubles = append(troubles, t)
	} else if res, err := status.Compute(&unstructured.Unstructured{Object: pw.obj}); err == nil && res.Status == status.FailedStatus {
		troubles = append(troubles, trouble{reason: "Failed", message: res.Message, kind: troubleFinal})
	}
	written := map[string]bool{} // pods with a status write not yet observed
	for _, pod := range pw.currentPods() {
		u := unstructured.Unstructured{Object: pod}
		name := u.GetName()
		if pw.seen[name] != u.GetResourceVersion() {
			pw.seen[name] = u.GetResourceVersion()
			written[name] = true
		}
		if pw.lastPull[name] == nil {
			pw.lastPull[name] = map[string]string{}
		}
		for _, t := range podTroubles(pod, pw.lastPull[name]) {
			if t.reason == "PodFailed" && pw.kind == "Job" {
				continue // the Job controller starts another; the Job's Failed condition decides
			}
			troubles = append(troubles, t)
		}
	}
	if rs := pw.newReplicaSet(); rs != nil {
		if t, ok := objectTrouble(rs); ok {
			troubles = append(troubles, t)
		}
	}
	still := map[string]bool{}
	for _, t := range troubles {
		key := fmt.Sprintf("%s/%s/%d", t.pod, t.container, t.kind)
		still[key] = true
		e := pw.episodes[key]
		if e == nil || written[t.pod] || t.pod == "" {
			if e == nil {
				e = &episode{since: now}
				pw.episodes[key] = e
			}
			e.writes++
		}
		e.trouble = t
	}
	for key := range pw.episodes {
		if !still[key] {
			delete(pw.episodes, key)
		}
	}
	pw.shown = pw.failed(now)
	if pw.shown == nil {
		var first *episode
		for _, e := range pw.episodes {
			if first == nil || e.since.Before(first.since) {
				first = e
			}
		}
		if first != nil {
			pw.shown = &first.trouble
		}
	}
}

// failed returns the trouble that fails the rollout at now: one that has
// lasted as long as its kind needs.
func (pw *podWatch) failed(now time.Time) *trouble {
	var found *episode
	for _, e := range pw.episodes {
		if pw.due(e).After(now) || (found != nil && !e.since.Before(found.since)) {
			continue
		}
		found = e
	}
	if found == nil {
		return nil
	}
	return &found.trouble
}

// due returns when e fails the rollout if it lasts, or a time never
// reached (the far future) if it never does, or not yet for want of
// writes or restarts.
func (pw *podWatch) due(e *episode) time.Time {
	never := e.since.Add(1 << 62)
	switch e.kind {
	case troubleFinal:
		return e.since
	case troublePull:
		if e.writes < 2 {
			return never
		}
	case troubleCrash:
		if e.restarts < int64(pw.opts.Restarts) {
			return never
		}
	case troubleUnschedulable:
		return e.since.Add(pw.opts.Unschedulable)
	case troubleRetried:
		return never
	}
	return e.since.Add(pw.opts.Window)
}

// next returns when the object's wait must next be judged for its pods:
// the earliest an episode may fail the rollout.
func (pw *podWatch) next() (time.Time, bool) {
	var next time.Time
	for _, e := range pw.episodes {
		if due := pw.due(e); due.Sub(e.since) < 1<<61 && (next.IsZero() || due.Before(next)) {
			next = due
		}
	}
	return next, !next.IsZero()
}

// currentPods returns the pods of the object's current revision.
func (pw *podWatch) currentPods() []Object {
	u := unstructured.Unstructured{Object: pw.obj}
	owner := string(u.GetUID())
	label, value := "", ""
	switch pw.kind {
	case "Pod":
		return []Object{pw.obj}
	case "Deployment":
		rs := pw.newReplicaSet()
		if rs == nil {
			return nil
		}
		owner = string((&unstructured.Unstructured{Object: rs}).GetUID())
	case "StatefulSet":
		label = "controller-revision-hash"
		value, _, _ = unstructured.NestedString(pw.obj, "status", "updateRevision")
	case "DaemonSet":
		label, value = "pod-template-generation", u.GetAnnotations()["deprecated.daemonset.template.generation"]
	}
	if pw.pods == nil {
		return nil
	}
	var pods []Object
	for _, key := range pw.pods.keys() {
		pod := pw.pods.get(key)
		if pod == nil || !ownedBy(pod, owner) {
			continue
		}
		if label != "" && value != "" && (&unstructured.Unstructured{Object: pod}).GetLabels()[label] != value {
			continue
		}
		pods = append(pods, pod)
	}
	return pods
}

// newReplicaSet returns a Deployment's ReplicaSet of its current revision
// (nil if the controller has not made it yet, or for another kind).
func (pw *podWatch) newReplicaSet() Object {
	if pw.kind != "Deployment" || pw.sets == nil {
		return nil
	}
	const revision = "deployment.kubernetes.io/revision"
	u := unstructured.Unstructured{Object: pw.obj}
	want := u.GetAnnotations()[revision]
	if want == "" {
		return nil
	}
	for _, key := range pw.sets.keys() {
		rs := pw.sets.get(key)
		if rs != nil && ownedBy(rs, string(u.GetUID())) && (&unstructured.Unstructured{Object: rs}).GetAnnotations()[revision] == want {
			return rs
		}
	}
	return nil
}

// ownedBy reports whether obj's controller is the object of uid.
func ownedBy(obj Object, uid string) bool {
	for _, ref := range (&unstructured.Unstructured{Object: obj}).GetOwnerReferences() {
		if string(ref.UID) == uid && ref.Controller != nil && *ref.Controller {
			return true
		}
	}
	return false
}
