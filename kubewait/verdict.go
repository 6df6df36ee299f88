package kubewait

import (
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/cli-utils/pkg/kstatus/status"
)

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
	pw.shown = pw.failure(now)
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
	out := map[string][]Object{}
	for _, ev := range pw.events.objects() {
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

// failure returns the trouble that fails the rollout at now: one of the
// object's own that has lasted its window, or, when every pod of the
// revision that counts is doomed (has a trouble that has lasted its
// window), the trouble seen first among theirs.
func (pw *podWatch) failure(now time.Time) *trouble {
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
