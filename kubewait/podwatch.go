package kubewait

import (
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
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

// watchPods starts or updates m's podWatch with obj, as the Rollout rule
// judges it.
func (d *driver) watchPods(m *member, obj Object, now time.Time) {
	pw := m.pods
	if pw == nil {
		pw = &podWatch{d: d, m: m, seen: map[string]string{},
			lastPull: map[string]map[string]string{}, episodes: map[string]*episode{}}
		m.pods = pw
	}
	pw.obj = obj
	pw.kind, _, _ = unstructured.NestedString(obj, "kind")
	opts, _ := d.rollout.rollout()
	pw.opts, pw.bad = opts.annotated(obj)
	pw.track()
	pw.observe(now)
}

// track subscribes to the Warning Events of pods in the object's
// namespace (once), and to the informers of the object's pods (and
// ReplicaSets), or again if its selector changed.
func (pw *podWatch) track() {
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
	ns := pw.m.ref.Namespace
	if pw.events == nil && (sel != "" || pw.kind == "Pod") {
		pw.events = pw.d.c.subscribe(informerKey{gvr: eventsResource, namespace: ns, fields: podWarnings}, nil, pw.d.wake)
	}
	if sel == pw.selector && (pw.pods != nil || sel == "") {
		return
	}
	pw.pods.unsubscribe()
	pw.sets.unsubscribe()
	pw.pods, pw.sets = nil, nil
	pw.selector = sel
	if sel == "" {
		return
	}
	if pw.d.sharedPods[ns] {
		sel = "" // the pods of every workload of the wait in ns: one list and watch
	}
	pw.pods = pw.d.c.subscribe(informerKey{gvr: podsResource, namespace: ns, labels: sel}, nil, pw.d.wake)
	if pw.kind == "Deployment" {
		pw.sets = pw.d.c.subscribe(informerKey{gvr: replicaSetsResource, namespace: ns, labels: sel}, nil, pw.d.wake)
	}
}

// unsubscribe ends the podWatch's subscriptions (pw may be nil).
func (pw *podWatch) unsubscribe() {
	if pw != nil {
		pw.pods.unsubscribe()
		pw.sets.unsubscribe()
		pw.events.unsubscribe()
	}
}

// refresh takes what changed in the pods' informers: if anything that
// concerns the object did, it observes the pods again and makes the
// object's wait due. A namespace's pods and Events, which several
// workloads' waits share, change for each of them: a change judges only
// the wait of the pod's owner.
func (pw *podWatch) refresh(now time.Time) {
	if pw == nil {
		return
	}
	changed := false
	owner := pw.owner()
	for _, s := range []*subscription{pw.pods, pw.sets, pw.events} {
		dirty, all, notes, _ := s.take()
		for _, n := range notes {
			pw.d.emit(n)
		}
		changed = changed || all
		for key := range dirty {
			if !changed && pw.concerns(s, key, owner) {
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
// what the podWatch observes: a pod of owner, the controller of its
// current revision's pods (or one it saw), an Event of one of its pods;
// any ReplicaSet.
func (pw *podWatch) concerns(s *subscription, key, owner string) bool {
	obj := s.get(key)
	switch {
	case s == pw.pods && obj == nil:
		_, name, _ := strings.Cut(key, "/")
		_, saw := pw.seen[name]
		return saw
	case s == pw.pods:
		return owner == "" || ownedBy(obj, owner)
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
		return string((&unstructured.Unstructured{Object: pw.newReplicaSet()}).GetUID()) // "" for none
	}
	return string((&unstructured.Unstructured{Object: pw.obj}).GetUID())
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
	var pods []Object
	for _, pod := range pw.pods.objects() {
		revision := (&unstructured.Unstructured{Object: pod}).GetLabels()[label]
		if ownedBy(pod, owner) && (label == "" || value == "" || revision == value) {
			pods = append(pods, pod)
		}
	}
	return pods
}

// newReplicaSet returns a Deployment's ReplicaSet of its current revision
// (nil if the controller has not made it yet, or for another kind).
func (pw *podWatch) newReplicaSet() Object {
	if pw.kind != "Deployment" {
		return nil
	}
	const revision = "deployment.kubernetes.io/revision"
	u := unstructured.Unstructured{Object: pw.obj}
	want := u.GetAnnotations()[revision]
	if want == "" {
		return nil
	}
	for _, rs := range pw.sets.objects() {
		if ownedBy(rs, string(u.GetUID())) && (&unstructured.Unstructured{Object: rs}).GetAnnotations()[revision] == want {
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
