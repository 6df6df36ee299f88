package kubewait

import (
	"fmt"
	"strings"
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
	eventsResource      = schema.GroupVersionResource{Version: "v1", Resource: "events"}
)

// podWarnings selects the Warning Events of pods: one list and watch of
// them a namespace serves every podWatch there.
const podWarnings = "involvedObject.kind=Pod,type=Warning"

// A podWatch follows, for the [Rollout] rule, the pods of one object's
// current revision: through the Client's informers of the pods (and a
// Deployment's ReplicaSets) of its selector and of the pods' Warning
// Events, it keeps each reason a container or a pod cannot start, since
// when it has lasted, and how many status writes have shown it.
type podWatch struct {
	d    *driver
	m    *member
	rule RolloutOptions // the rule's
	opts RolloutOptions // the rule's as the object's annotations override them
	bad  error          // an annotation that does not parse
	obj  Object         // the object, as last judged
	kind string
	// pods, sets and events are the subscriptions to the pods and the
	// ReplicaSets of the object's selector, and to the Warning Events of
	// pods in its namespace (nil when it has none to follow).
	pods, sets, events *subscription
	selector           string
	seen               map[string]string            // a pod's resourceVersion, as last observed
	lastPull           map[string]map[string]string // a pod's containers' last ErrImagePull messages
	episodes           map[string]*episode          // by pod, container and kind of trouble
	counting           map[string]bool              // the pods of the current revision that count: not replaced
	uids               map[string]bool              // the UIDs of the pods that count
	shown              *trouble                     // what the events say: the failure, else the trouble seen first
}

// episode is one trouble as it lasts.
type episode struct {
	trouble
	since  time.Time
	writes int // status writes that showed it
	// current is whether the pod shows the trouble now. A crash loop's
	// episode outlasts the runs between its crashes, so that it lasts
	// from the first crash; it dooms its pod only while the container is
	// down.
	current bool
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
		pw = &podWatch{d: d, m: m, rule: d.rollout.rollout, seen: map[string]string{},
			lastPull: map[string]map[string]string{}, episodes: map[string]*episode{}}
		d.podWatches[m] = pw
		d.byRef[refKey(m.ref)] = pw
	}
	pw.obj = obj
	pw.kind, _, _ = unstructured.NestedString(obj, "kind")
	pw.opts, pw.bad = pw.rule.annotated(obj)
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
	pw.events = pw.d.c.subscribe(informerKey{gvr: eventsResource, namespace: ns, fields: podWarnings}, nil, pw.d.wake)
}

func (pw *podWatch) unsubscribe() {
	for _, s := range pw.subscriptions() {
		s.unsubscribe()
	}
	pw.pods, pw.sets, pw.events = nil, nil, nil
}

// subscriptions returns the podWatch's subscriptions.
func (pw *podWatch) subscriptions() []*subscription {
	var out []*subscription
	for _, s := range []*subscription{pw.pods, pw.sets, pw.events} {
		if s != nil {
			out = append(out, s)
		}
	}
	return out
}

// refresh takes what changed in the pods' informers: if anything that
// concerns the object did, it observes the pods again and makes the
// object's wait due. A namespace's pods and Events, which several
// workloads' waits share, change for each of them: a change judges only
// the wait of the pod's owner.
func (pw *podWatch) refresh(now time.Time) {
	changed := false
	for _, s := range pw.subscriptions() {
		dirty, all, notes := s.take()
		for _, n := range notes {
			pw.d.emit(Event{Time: n.at, Object: Ref{Resource: s.inf.key.gvr, Namespace: s.inf.key.namespace}, Watch: n.what, Err: n.err})
		}
		changed = changed || all
		for key := range dirty {
			if !changed && pw.concerns(s, key) {
				changed = true
			}
		}
	}
	if changed {
		pw.observe(now)
		pw.m.next = now
	}
}

// concerns reports whether the change of the object key in s may change
// what the podWatch observes: a pod of its owner (or one it saw), an
// Event of one of its pods; any ReplicaSet.
func (pw *podWatch) concerns(s *subscription, key string) bool {
	obj := s.get(key)
	switch {
	case s == pw.pods && obj == nil:
		_, name, _ := strings.Cut(key, "/")
		_, saw := pw.seen[name]
		return saw
	case s == pw.pods:
		return pw.owner() == "" || ownedBy(obj, pw.owner())
	case s == pw.events && obj != nil:
		uid, _, _ := unstructured.NestedString(obj, "involvedObject", "uid")
		return pw.uids[uid]
	case s == pw.events:
		return false // an Event that expired says nothing new
	}
	return true
}

// owner returns the UID of the controller of the pods of the object's
// current revision ("" when it is not known yet, or the object is a Pod).
func (pw *podWatch) owner() string {
	switch pw.kind {
	case "Pod":
		return ""
	case "Deployment":
		if rs := pw.newReplicaSet(); rs != nil {
			return string((&unstructured.Unstructured{Object: rs}).GetUID())
		}
		return ""
	}
	return string((&unstructured.Unstructured{Object: pw.obj}).GetUID())
}

// observe reads the object and the pods of its current revision that
// count: each trouble seen goes on (or starts) its episode, a status
// write that shows it again counts, and an episode no longer seen (the
// container is ready, the pod gone or replaced) ends.
func (pw *podWatch) observe(now time.Time) {
	var troubles []trouble
	if pw.bad != nil {
		troubles = append(troubles, trouble{reason: "InvalidAnnotation", message: pw.bad.Error(), kind: troubleFinal})
	}
	if t, ok := objectTrouble(pw.obj); ok {
		troubles = append(troubles, t)
	} else if res, err := status.Compute(&unstructured.Unstructured{Object: pw.obj}); err == nil && res.Status == status.FailedStatus {
		troubles = append(troubles, trouble{reason: "Failed", message: res.Message, kind: troubleFinal})
	}
	written := map[string]bool{} // pods with a status write not yet observed
	pw.counting, pw.uids = map[string]bool{}, map[string]bool{}
	warnings := pw.warnings()
	for _, pod := range pw.currentPods() {
		u := unstructured.Unstructured{Object: pod}
		name := u.GetName()
		if pw.kind != "Pod" && replaced(pod) {
			continue
		}
		pw.counting[name], pw.uids[string(u.GetUID())] = true, true
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
		if !started(pod) {
			for _, ev := range warnings[string(u.GetUID())] {
				if t, ok := eventTrouble(name, ev); ok {
					troubles = append(troubles, t)
				}
			}
		}
	}
	if rs := pw.newReplicaSet(); rs != nil {
		if t, ok := objectTrouble(rs); ok {
			troubles = append(troubles, t)
		}
	}
	for _, e := range pw.episodes {
		e.current = false
	}
	for _, t := range troubles {
		key := fmt.Sprintf("%s/%s/%d", t.pod, t.container, t.kind)
		e := pw.episodes[key]
		if e == nil || written[t.pod] || t.pod == "" {
			if e == nil {
				e = &episode{since: now}
				pw.episodes[key] = e
			}
			e.writes++
		}
		e.trouble, e.current = t, true
	}
	for key, e := range pw.episodes {
		if !e.current && (e.kind != troubleCrash || !pw.counting[e.pod]) {
			delete(pw.episodes, key)
		}
	}
	pw.shown = pw.failed(now)
	if pw.shown == nil {
		var first *episode
		for _, e := range pw.episodes {
			if e.current && (first == nil || e.since.Before(first.since)) {
				first = e
			}
		}
		if first != nil {
			pw.shown = &first.trouble
		}
	}
}

// warnings returns the Warning Events of pods in the object's namespace,
// by the pod's UID.
func (pw *podWatch) warnings() map[string][]Object {
	if pw.events == nil {
		return nil
	}
	out := map[string][]Object{}
	for _, key := range pw.events.keys() {
		ev := pw.events.get(key)
		if ev == nil {
			continue
		}
		if typ, _, _ := unstructured.NestedString(ev, "type"); typ != "Warning" {
			continue
		}
		uid, _, _ := unstructured.NestedString(ev, "involvedObject", "uid")
		out[uid] = append(out[uid], ev)
	}
	return out
}

// replaced reports whether pod's controller replaces it, so that its
// troubles are not the revision's: it failed (its node shut down, the
// kubelet rejected it at admission, it was evicted), it is being deleted,
// or it is a disruption's target.
func replaced(pod Object) bool {
	u := unstructured.Unstructured{Object: pod}
	if u.GetDeletionTimestamp() != nil {
		return true
	}
	if phase, _, _ := unstructured.NestedString(pod, "status", "phase"); phase == "Failed" {
		return true
	}
	conds, _, _ := unstructured.NestedSlice(pod, "status", "conditions")
	for _, c := range conds {
		if m, _ := c.(map[string]any); m["type"] == "DisruptionTarget" && m["status"] == "True" {
			return true
		}
	}
	return false
}

// failed returns the trouble that fails the rollout at now: one of the
// object's own that has lasted its window, or, when every pod of the
// revision that counts is doomed (has a trouble that has lasted its
// window), the trouble seen first among theirs.
func (pw *podWatch) failed(now time.Time) *trouble {
	var found *episode
	earlier := func(e *episode) {
		if found == nil || e.since.Before(found.since) {
			found = e
		}
	}
	doomed := map[string]*episode{}
	for _, e := range pw.episodes {
		switch {
		case pw.due(e).After(now):
		case e.pod == "":
			earlier(e)
		case doomed[e.pod] == nil || e.since.Before(doomed[e.pod].since):
			doomed[e.pod] = e
		}
	}
	if len(doomed) > 0 && len(doomed) == len(pw.counting) {
		for _, e := range doomed {
			earlier(e)
		}
	}
	if found == nil {
		return nil
	}
	return &found.trouble
}

// due returns when e dooms its pod (or fails the rollout, for the
// object's own) if it lasts, or a time never reached (the far future) if
// it never does, or not yet for want of writes or restarts.
func (pw *podWatch) due(e *episode) time.Time {
	never := e.since.Add(1 << 62)
	if !e.current {
		return never
	}
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
	case troubleRetried:
		return never
	}
	return e.since.Add(pw.opts.window(e.kind))
}

// next returns when, after now, the object's wait must next be judged
// for its pods: the earliest an episode may doom its pod.
func (pw *podWatch) next(now time.Time) (time.Time, bool) {
	var next time.Time
	for _, e := range pw.episodes {
		if due := pw.due(e); due.Sub(e.since) < 1<<61 && due.After(now) && (next.IsZero() || due.Before(next)) {
			next = due
		}
	}
	return next, !next.IsZero()
}

// currentPods returns the pods of the object's current revision.
func (pw *podWatch) currentPods() []Object {
	u := unstructured.Unstructured{Object: pw.obj}
	owner := pw.owner()
	label, value := "", ""
	switch pw.kind {
	case "Pod":
		return []Object{pw.obj}
	case "Deployment":
		if owner == "" {
			return nil
		}
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
