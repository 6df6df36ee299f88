package kubewait

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic/fake"

	"github.com/waitable/waitable/classify"
	"github.com/waitable/waitable/waiter"
)

var (
	deployments  = schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}
	statefulSets = schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "statefulsets"}
	daemonSets   = schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "daemonsets"}
	jobs         = schema.GroupVersionResource{Group: "batch", Version: "v1", Resource: "jobs"}
)

// apps is a fake API with workloads, their ReplicaSets and pods, and
// helpers to write them as their controllers and a kubelet would.
type apps struct {
	t      *testing.T
	dyn    *fake.FakeDynamicClient
	writes atomic.Int64
}

func newApps(t *testing.T, objs ...Object) *apps {
	var ros []runtime.Object
	for _, o := range objs {
		ros = append(ros, &unstructured.Unstructured{Object: o})
	}
	dyn := fake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(), map[schema.GroupVersionResource]string{
		deployments: "DeploymentList", replicaSetsResource: "ReplicaSetList", podsResource: "PodList", eventsResource: "EventList",
		statefulSets: "StatefulSetList", daemonSets: "DaemonSetList", jobs: "JobList"}, ros...)
	return &apps{t: t, dyn: dyn}
}

func (a *apps) put(gvr schema.GroupVersionResource, o Object) {
	a.t.Helper()
	r := a.dyn.Resource(gvr).Namespace("ns")
	u := &unstructured.Unstructured{Object: runtime.DeepCopyJSON(o)}
	u.SetResourceVersion(fmt.Sprint(a.writes.Add(1))) // as the API server numbers writes
	if _, err := r.Update(context.Background(), u, metav1.UpdateOptions{}); err != nil {
		if _, err := r.Create(context.Background(), u, metav1.CreateOptions{}); err != nil {
			a.t.Fatal(err)
		}
	}
}

// at writes o at d from now, in the bubble.
func (a *apps) at(d time.Duration, gvr schema.GroupVersionResource, o Object) {
	after(d, func() { a.put(gvr, o) })
}

func object(kind, apiVersion, name, uid string) Object {
	return Object{"apiVersion": apiVersion, "kind": kind,
		"metadata": map[string]any{"name": name, "namespace": "ns", "uid": uid, "generation": int64(1),
			"labels": map[string]any{"app": "web"}}}
}

func owned(o Object, kind, name, uid string) Object {
	yes := true
	o["metadata"].(map[string]any)["ownerReferences"] = []any{map[string]any{
		"apiVersion": "apps/v1", "kind": kind, "name": name, "uid": uid, "controller": yes}}
	return o
}

func annotate(o Object, kv ...string) Object {
	a := map[string]any{}
	for i := 0; i+1 < len(kv); i += 2 {
		a[kv[i]] = kv[i+1]
	}
	o["metadata"].(map[string]any)["annotations"] = a
	return o
}

var selector = map[string]any{"matchLabels": map[string]any{"app": "web"}}

// deployment is web at revision 2: rolled out when done.
func deployment(done bool) Object {
	d := annotate(object("Deployment", "apps/v1", "web", "uid-web"), "deployment.kubernetes.io/revision", "2")
	d["spec"] = map[string]any{"replicas": int64(1), "selector": selector}
	st := map[string]any{"observedGeneration": int64(1), "replicas": int64(1), "updatedReplicas": int64(1)}
	if done {
		st["readyReplicas"], st["availableReplicas"] = int64(1), int64(1)
		st["conditions"] = []any{map[string]any{"type": "Available", "status": "True"}}
	}
	d["status"] = st
	return d
}

// replicaSet is web's ReplicaSet of revision rev.
func replicaSet(rev string, conds ...any) Object {
	rs := owned(annotate(object("ReplicaSet", "apps/v1", "web-"+rev, "uid-rs-"+rev), "deployment.kubernetes.io/revision", rev),
		"Deployment", "web", "uid-web")
	rs["spec"] = map[string]any{"selector": selector}
	if conds != nil {
		rs["status"] = map[string]any{"conditions": conds}
	}
	return rs
}

// pod is a pod of the owner (kind, name, uid) with one container "app"
// in state, and the pod's conditions.
func pod(name, ownerKind, owner, ownerUID string, state map[string]any, conds ...any) Object {
	p := owned(object("Pod", "v1", name, "uid-"+name), ownerKind, owner, ownerUID)
	cs := map[string]any{"name": "app", "ready": false, "restartCount": int64(0)}
	for k, v := range state {
		cs[k] = v
	}
	st := map[string]any{"phase": "Pending", "containerStatuses": []any{cs}}
	if conds != nil {
		st["conditions"] = conds
	}
	if cs["ready"] == true {
		st["phase"] = "Running"
	}
	p["status"] = st
	return p
}

func waiting(reason, message string) map[string]any {
	return map[string]any{"state": map[string]any{"waiting": map[string]any{"reason": reason, "message": message}}}
}

func crashing(restarts int64, exitCode int64, lastReason string) map[string]any {
	s := waiting("CrashLoopBackOff", "back-off 10s restarting failed container=app")
	s["restartCount"] = restarts
	s["lastState"] = map[string]any{"terminated": map[string]any{"exitCode": exitCode, "reason": lastReason}}
	return s
}

func running() map[string]any {
	return map[string]any{"ready": true, "state": map[string]any{"running": map[string]any{}}}
}

const notFound = `rpc error: code = NotFound desc = failed to pull and unpack image "docker.io/library/nginx:nope": not found`
const handshake = `rpc error: code = Unknown desc = failed to pull image "registry.example.com/web:1": net/http: TLS handshake timeout`

// rolloutWait waits for web's rollout, and returns its result, error, the
// time it took and the events' reasons and messages.
func rolloutWait(t *testing.T, a *apps, gvr schema.GroupVersionResource, opts RolloutOptions) (Result, time.Duration, []string, error) {
	c := NewClient(a.dyn, ClientOptions{})
	var events []string
	start := time.Now()
	res, err := c.Wait(t.Context(), Request{Resource: gvr, Namespace: "ns", Names: []string{"web"},
		For: rules(Rollout(opts)), Timeout: 10 * time.Minute,
		OnEvent: func(e Event) {
			if e.Ref.Name == "web" {
				events = append(events, time.Since(start).String()+" "+e.Reason+": "+e.Message)
			}
		}})
	return res, time.Since(start), events, err
}

func wantRolloutFailure(t *testing.T, err error, took, at time.Duration, says ...string) {
	t.Helper()
	if !errors.Is(err, waiter.ErrFailure) {
		t.Fatalf("err = %v after %v, want the rollout's failure", err, took)
	}
	if took != at {
		t.Errorf("failed after %v, want %v", took, at)
	}
	for _, s := range says {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("error %q does not say %q", err, s)
		}
	}
}

func TestRolloutFailsOnAnImageThatIsNotThere(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rs := replicaSet("2")
		a := newApps(t, deployment(false), rs, pod("web-2-a", "ReplicaSet", "web-2", "uid-rs-2", waiting("ErrImagePull", notFound)))
		a.at(2*time.Second, podsResource, pod("web-2-a", "ReplicaSet", "web-2", "uid-rs-2",
			waiting("ImagePullBackOff", `Back-off pulling image "nginx:nope": ErrImagePull: `+notFound)))
		_, took, events, err := rolloutWait(t, a, deployments, RolloutOptions{})
		wantRolloutFailure(t, err, took, 30*time.Second, "deployments.apps", "ns/web: failed on rollout: ImagePullBackOff: pod web-2-a, container app: Back-off pulling image")
		if !slices.ContainsFunc(events, func(e string) bool {
			return strings.HasPrefix(e, "0s ErrImagePull: pod web-2-a, container app: rpc error")
		}) {
			t.Errorf("events %q: none reports the trouble at once", events)
		}
	})
}

// A pull error the registry may recover from (a TLS handshake timeout)
// does not fail the wait; the pod runs once the registry is back.
func TestRolloutGoesOnThroughATransientPullError(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		a := newApps(t, deployment(false), replicaSet("2"), pod("web-2-a", "ReplicaSet", "web-2", "uid-rs-2", waiting("ErrImagePull", handshake)))
		for i, d := range []time.Duration{5, 20, 40, 60} {
			reason := []string{"ImagePullBackOff", "ErrImagePull"}[i%2]
			a.at(d*time.Second, podsResource, pod("web-2-a", "ReplicaSet", "web-2", "uid-rs-2", waiting(reason, handshake)))
		}
		a.at(70*time.Second, podsResource, pod("web-2-a", "ReplicaSet", "web-2", "uid-rs-2", running()))
		a.at(71*time.Second, deployments, deployment(true))
		res, took, events, err := rolloutWait(t, a, deployments, RolloutOptions{})
		if err != nil || took != 71*time.Second || res.Objects[0].Decision != classify.Success {
			t.Fatalf("err = %v after %v, want success at 71s", err, took)
		}
		if !strings.Contains(strings.Join(events, "\n"), "TLS handshake timeout") {
			t.Errorf("events %q do not report the transient error", events)
		}
	})
}

// A pod that recovers inside the window (its image pulled after two
// failures) leaves the wait going.
func TestRolloutGoesOnWhenAPodRecoversInTheWindow(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		a := newApps(t, deployment(false), replicaSet("2"), pod("web-2-a", "ReplicaSet", "web-2", "uid-rs-2", waiting("ErrImagePull", notFound)))
		a.at(10*time.Second, podsResource, pod("web-2-a", "ReplicaSet", "web-2", "uid-rs-2", waiting("ImagePullBackOff", notFound)))
		a.at(20*time.Second, podsResource, pod("web-2-a", "ReplicaSet", "web-2", "uid-rs-2", running()))
		a.at(45*time.Second, deployments, deployment(true))
		if _, took, _, err := rolloutWait(t, a, deployments, RolloutOptions{}); err != nil || took != 45*time.Second {
			t.Fatalf("err = %v after %v, want success at 45s", err, took)
		}
	})
}

// A crash that does not repeat is not a crash loop.
func TestRolloutGoesOnAfterACrashThatDoesNotRepeat(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		a := newApps(t, deployment(false), replicaSet("2"), pod("web-2-a", "ReplicaSet", "web-2", "uid-rs-2", crashing(1, 1, "Error")))
		up := running()
		up["restartCount"] = int64(1)
		a.at(12*time.Second, podsResource, pod("web-2-a", "ReplicaSet", "web-2", "uid-rs-2", up))
		a.at(50*time.Second, deployments, deployment(true))
		if _, took, _, err := rolloutWait(t, a, deployments, RolloutOptions{}); err != nil || took != 50*time.Second {
			t.Fatalf("err = %v after %v, want success at 50s", err, took)
		}
	})
}

// A crash loop fails the wait once the container has restarted twice and
// its window (90 s by default) has passed since its first crash, with the
// exit code and reason of its last crash.
func TestRolloutFailsOnACrashLoop(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		a := newApps(t, deployment(false), replicaSet("2"), pod("web-2-a", "ReplicaSet", "web-2", "uid-rs-2", crashing(1, 137, "OOMKilled")))
		a.at(12*time.Second, podsResource, pod("web-2-a", "ReplicaSet", "web-2", "uid-rs-2", crashing(2, 137, "OOMKilled")))
		_, took, _, err := rolloutWait(t, a, deployments, RolloutOptions{})
		wantRolloutFailure(t, err, took, 90*time.Second, "CrashLoopBackOff: pod web-2-a, container app:", "(exit code 137, OOMKilled, 2 restarts)")
	})
}

// A pod of the old ReplicaSet that crashes while the new one rolls out
// is not the rollout's failure.
func TestRolloutIgnoresTheOldReplicaSetsPods(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		a := newApps(t, deployment(false), replicaSet("1"), replicaSet("2"),
			pod("web-1-a", "ReplicaSet", "web-1", "uid-rs-1", crashing(5, 1, "Error")),
			pod("web-2-a", "ReplicaSet", "web-2", "uid-rs-2", waiting("ContainerCreating", "")))
		a.at(60*time.Second, podsResource, pod("web-2-a", "ReplicaSet", "web-2", "uid-rs-2", running()))
		a.at(61*time.Second, deployments, deployment(true))
		if _, took, _, err := rolloutWait(t, a, deployments, RolloutOptions{}); err != nil || took != 61*time.Second {
			t.Fatalf("err = %v after %v, want success at 61s", err, took)
		}
	})
}

func unschedulable() any {
	return map[string]any{"type": "PodScheduled", "status": "False", "reason": "Unschedulable",
		"message": "0/3 nodes are available: 3 Insufficient cpu."}
}

// A pod unschedulable for less than RolloutOptions.Unschedulable may be
// scheduled yet; past it, the wait fails.
func TestRolloutUnschedulable(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		a := newApps(t, deployment(false), replicaSet("2"), pod("web-2-a", "ReplicaSet", "web-2", "uid-rs-2", nil, unschedulable()))
		a.at(90*time.Second, podsResource, pod("web-2-a", "ReplicaSet", "web-2", "uid-rs-2", running()))
		a.at(91*time.Second, deployments, deployment(true))
		if _, took, _, err := rolloutWait(t, a, deployments, RolloutOptions{}); err != nil || took != 91*time.Second {
			t.Fatalf("err = %v after %v, want success at 91s", err, took)
		}
	})
	synctest.Test(t, func(t *testing.T) {
		a := newApps(t, deployment(false), replicaSet("2"), pod("web-2-a", "ReplicaSet", "web-2", "uid-rs-2", nil, unschedulable()))
		_, took, _, err := rolloutWait(t, a, deployments, RolloutOptions{Unschedulable: time.Minute})
		wantRolloutFailure(t, err, took, time.Minute, "Unschedulable: pod web-2-a: 0/3 nodes are available")
	})
}

// A ReplicaSet that cannot create its pods (a quota) fails the rollout.
func TestRolloutFailsWhenAQuotaRefusesPods(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		a := newApps(t, deployment(false), replicaSet("2", map[string]any{"type": "ReplicaFailure", "status": "True",
			"reason": "FailedCreate", "message": `pods "web-2-x" is forbidden: exceeded quota: compute`}))
		_, took, _, err := rolloutWait(t, a, deployments, RolloutOptions{Quota: 10 * time.Second})
		wantRolloutFailure(t, err, took, 10*time.Second, "ReplicaFailure: FailedCreate: pods \"web-2-x\" is forbidden: exceeded quota")
	})
}

// A Job that failed fails the wait at once; a StatefulSet's pods of its
// update revision and a DaemonSet's of its template generation are its
// current ones.
func TestRolloutOfJobsStatefulSetsAndDaemonSets(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		job := object("Job", "batch/v1", "web", "uid-job")
		job["spec"] = map[string]any{"selector": selector}
		failed := runtime.DeepCopyJSON(job)
		failed["status"] = map[string]any{"conditions": []any{map[string]any{"type": "Failed", "status": "True",
			"reason": "BackoffLimitExceeded", "message": "Job has reached the specified backoff limit"}}}
		// A pod that failed is the Job controller's to replace (until its
		// backoffLimit): it does not fail the wait, however long it lasts.
		exited := pod("web-a", "Job", "web", "uid-job", map[string]any{"state": map[string]any{"terminated": map[string]any{"exitCode": int64(1), "reason": "Error"}}})
		exited["status"].(map[string]any)["phase"] = "Failed"
		a := newApps(t, job, exited)
		a.at(3*time.Second, jobs, failed)
		_, took, _, err := rolloutWait(t, a, jobs, RolloutOptions{Window: time.Second})
		wantRolloutFailure(t, err, took, 3*time.Second, "BackoffLimitExceeded: Job has reached the specified backoff limit")
	})
	synctest.Test(t, func(t *testing.T) {
		sts := object("StatefulSet", "apps/v1", "web", "uid-sts")
		sts["spec"] = map[string]any{"replicas": int64(1), "selector": selector}
		sts["status"] = map[string]any{"updateRevision": "web-new", "currentRevision": "web-old", "observedGeneration": int64(1)}
		old := pod("web-0", "StatefulSet", "web", "uid-sts", crashing(4, 1, "Error"))
		old["metadata"].(map[string]any)["labels"] = map[string]any{"app": "web", "controller-revision-hash": "web-old"}
		a := newApps(t, sts, old)
		if _, _, _, err := rolloutWait(t, a, statefulSets, RolloutOptions{CrashLoop: time.Second}); errors.Is(err, waiter.ErrFailure) {
			t.Errorf("err = %v: a pod of the old revision failed the StatefulSet's rollout", err)
		}
		current := pod("web-0", "StatefulSet", "web", "uid-sts", crashing(4, 1, "Error"))
		current["metadata"].(map[string]any)["labels"] = map[string]any{"app": "web", "controller-revision-hash": "web-new"}
		a.put(podsResource, current)
		_, took, _, err := rolloutWait(t, a, statefulSets, RolloutOptions{CrashLoop: time.Second})
		wantRolloutFailure(t, err, took, time.Second, "pod web-0, container app")
	})
	synctest.Test(t, func(t *testing.T) {
		ds := annotate(object("DaemonSet", "apps/v1", "web", "uid-ds"), "deprecated.daemonset.template.generation", "2")
		ds["spec"] = map[string]any{"selector": selector}
		p := pod("web-x", "DaemonSet", "web", "uid-ds", waiting("CreateContainerConfigError", `configmap "web" not found`))
		p["metadata"].(map[string]any)["labels"] = map[string]any{"app": "web", "pod-template-generation": "2"}
		a := newApps(t, ds, p)
		_, took, _, err := rolloutWait(t, a, daemonSets, RolloutOptions{Config: 5 * time.Second})
		wantRolloutFailure(t, err, took, 5*time.Second, `CreateContainerConfigError: pod web-x, container app: configmap "web" not found`)
	})
}

func TestPodTroubles(t *testing.T) {
	for _, tc := range []struct {
		name string
		pod  Object
		want string // reason and kind, "" for none
	}{
		{"running", pod("p", "ReplicaSet", "r", "u", running()), ""},
		{"creating", pod("p", "ReplicaSet", "r", "u", waiting("ContainerCreating", "")), ""},
		{"not found", pod("p", "ReplicaSet", "r", "u", waiting("ErrImagePull", notFound)), "ErrImagePull pull"},
		{"manifest unknown", pod("p", "ReplicaSet", "r", "u", waiting("ErrImagePull", "manifest unknown: manifest unknown")), "ErrImagePull pull"},
		{"denied", pod("p", "ReplicaSet", "r", "u", waiting("ErrImagePull", "pull access denied, repository does not exist or may require authorization")), "ErrImagePull pull"},
		{"handshake", pod("p", "ReplicaSet", "r", "u", waiting("ErrImagePull", handshake)), "ErrImagePull retried"},
		{"rate limit", pod("p", "ReplicaSet", "r", "u", waiting("ImagePullBackOff", "toomanyrequests: You have reached your pull rate limit")), "ImagePullBackOff retried"},
		{"503", pod("p", "ReplicaSet", "r", "u", waiting("ErrImagePull", "unexpected status code 503 Service Unavailable")), "ErrImagePull retried"},
		{"invalid name", pod("p", "ReplicaSet", "r", "u", waiting("InvalidImageName", "couldn't parse image name")), "InvalidImageName start"},
		{"never pull", pod("p", "ReplicaSet", "r", "u", waiting("ErrImageNeverPull", "image is absent")), "ErrImageNeverPull start"},
		{"config", pod("p", "ReplicaSet", "r", "u", waiting("CreateContainerConfigError", `secret "db" not found`)), "CreateContainerConfigError config"},
		{"cache syncing", pod("p", "ReplicaSet", "r", "u", waiting("CreateContainerConfigError", "failed to sync configmap cache: timed out")), "CreateContainerConfigError retried"},
		{"create", pod("p", "ReplicaSet", "r", "u", waiting("CreateContainerError", "context deadline exceeded")), "CreateContainerError start"},
		{"run", pod("p", "ReplicaSet", "r", "u", waiting("RunContainerError", "exec: not found")), "RunContainerError start"},
		{"crash", pod("p", "ReplicaSet", "r", "u", crashing(3, 137, "OOMKilled")), "CrashLoopBackOff crash"},
		{"cannot run", pod("p", "ReplicaSet", "r", "u", map[string]any{"state": map[string]any{"terminated": map[string]any{
			"reason": "ContainerCannotRun", "exitCode": int64(127), "message": "exec format error"}}}), "ContainerCannotRun start"},
		{"cannot run 128", pod("p", "ReplicaSet", "r", "u", map[string]any{"state": map[string]any{"terminated": map[string]any{
			"reason": "ContainerCannotRun", "exitCode": int64(128)}}}), ""},
		{"unschedulable", pod("p", "ReplicaSet", "r", "u", nil, unschedulable()), "Unschedulable unschedulable"},
		{"failed", withPhase(pod("p", "ReplicaSet", "r", "u", nil), "Failed", "OutOfcpu"), "PodFailed start"},
		{"evicted", withPhase(pod("p", "ReplicaSet", "r", "u", nil), "Failed", "Evicted"), ""},
		{"preempting", withPhase(pod("p", "ReplicaSet", "r", "u", nil), "Failed", "Preempting"), ""},
		{"init", initCrash(), "CrashLoopBackOff crash init"},
	} {
		var got []string
		for _, tr := range podTroubles(tc.pod, map[string]string{}) {
			s := tr.reason + " " + [...]string{"", "pull", "retried", "crash", "start", "config", "unschedulable", "quota", "event", "final"}[tr.kind]
			if tr.init {
				s += " init"
			}
			got = append(got, s)
		}
		if strings.Join(got, ";") != tc.want {
			t.Errorf("%s: podTroubles = %q, want %q", tc.name, got, tc.want)
		}
	}
}

// A failed pod whose status gives no reason is told by how its
// containers ended.
func TestFailedPodSaysHowItsContainersEnded(t *testing.T) {
	p := pod("p", "ReplicaSet", "r", "u", map[string]any{"state": map[string]any{"terminated": map[string]any{"exitCode": int64(3), "reason": "Error"}}})
	p["status"].(map[string]any)["phase"] = "Failed"
	got := podTroubles(p, map[string]string{})
	if len(got) != 1 || got[0].String() != "pod p: container app exited with code 3 (Error)" {
		t.Errorf("podTroubles = %v, want the container's exit", got)
	}
	bare := withPhase(pod("p", "ReplicaSet", "r", "u", nil), "Failed", "")
	if got := podTroubles(bare, map[string]string{}); len(got) != 1 || got[0].String() != "pod p: the pod failed" {
		t.Errorf("podTroubles = %v, want a pod that failed", got)
	}
}

func withPhase(p Object, phase, reason string) Object {
	st := p["status"].(map[string]any)
	st["phase"], st["reason"] = phase, reason
	delete(st, "containerStatuses")
	return p
}

func initCrash() Object {
	p := pod("p", "ReplicaSet", "r", "u", waiting("PodInitializing", ""))
	ic := crashing(3, 1, "Error")
	ic["name"] = "migrate"
	p["status"].(map[string]any)["initContainerStatuses"] = []any{ic}
	return p
}

// An ImagePullBackOff that names no cause (an older kubelet's) is told by
// the ErrImagePull before it.
func TestPodTroublesRememberThePullError(t *testing.T) {
	last := map[string]string{}
	podTroubles(pod("p", "ReplicaSet", "r", "u", waiting("ErrImagePull", notFound)), last)
	got := podTroubles(pod("p", "ReplicaSet", "r", "u", waiting("ImagePullBackOff", `Back-off pulling image "nginx:nope"`)), last)
	if len(got) != 1 || got[0].kind != troublePull || !strings.Contains(got[0].message, "not found") {
		t.Errorf("podTroubles = %+v, want a pull trouble that says not found", got)
	}
}

// A Job's rollout is done when it is complete, not when it runs (which
// kstatus calls Current).
func TestRolloutOfAJobIsItsCompletion(t *testing.T) {
	job := object("Job", "batch/v1", "migrate", "uid-job")
	job["status"] = map[string]any{"startTime": "2026-11-28T00:00:00Z", "active": int64(1)}
	r := Rollout(RolloutOptions{})
	if r.Matches(job) || !Current().Matches(job) {
		t.Errorf("a running Job: rollout %v, kstatus Current %v; want false and true", r.Matches(job), Current().Matches(job))
	}
	job["status"].(map[string]any)["conditions"] = []any{map[string]any{"type": "Complete", "status": "True"}}
	if !r.Matches(job) {
		t.Error("a complete Job: rollout not done")
	}
}

func TestRolloutRejectsNegativeOptions(t *testing.T) {
	for _, tc := range []struct {
		o    RolloutOptions
		says string
	}{
		{RolloutOptions{Window: -1}, "Window -1ns is negative"},
		{RolloutOptions{Config: -1}, "Config -1ns is negative"},
		{RolloutOptions{CrashLoop: -1}, "CrashLoop -1ns is negative"},
		{RolloutOptions{Restarts: -1}, "Restarts -1 is negative"},
		{RolloutOptions{Unschedulable: -1}, "Unschedulable -1ns is negative"},
		{RolloutOptions{Quota: -1}, "Quota -1ns is negative"},
		{RolloutOptions{Events: -1}, "Events -1ns is negative"},
	} {
		if r := Rollout(tc.o); r.err == nil || !strings.Contains(r.err.Error(), tc.says) {
			t.Errorf("Rollout(%+v) = error %v, want one that says %q", tc.o, r.err, tc.says)
		}
	}
	want := RolloutOptions{Window: 30 * time.Second, Config: 90 * time.Second, CrashLoop: 90 * time.Second, Restarts: 2,
		Unschedulable: 4 * time.Minute, Quota: 3 * time.Minute, Events: 2 * time.Minute}
	r, err := ParseRule("rollout")
	if got, ok := r.rollout(); err != nil || !ok || got != want {
		t.Errorf("ParseRule(rollout) = %+v, %v; want the defaults %+v", got, err, want)
	}
}

// A wait that follows the pods of several workloads of one namespace
// lists and watches that namespace's pods once; of one workload, its
// selector's.
func TestSharedPods(t *testing.T) {
	dep := func(ns string, names ...string) named {
		g := named{gvr: deployments, namespace: ns}
		for _, n := range names {
			g.refs = append(g.refs, Ref{Resource: deployments, Namespace: ns, Name: n})
		}
		return g
	}
	svc := named{gvr: schema.GroupVersionResource{Version: "v1", Resource: "services"}, namespace: "a",
		refs: []Ref{{Name: "x"}, {Name: "y"}}}
	sts := named{gvr: statefulSets, namespace: "a", refs: []Ref{{Name: "db"}}}
	for _, tc := range []struct {
		name   string
		req    Request
		groups []named
		want   string
	}{
		{"one deployment", Request{}, []named{dep("a", "web")}, ""},
		{"two deployments", Request{}, []named{dep("a", "web", "api")}, "a"},
		{"a deployment and a statefulset", Request{}, []named{dep("a", "web"), sts, dep("b", "x")}, "a"},
		{"services have no pods", Request{}, []named{svc, dep("a", "web")}, ""},
		{"a selector", Request{Resource: deployments, Namespace: "a", Selector: "app=web"}, nil, "a"},
		{"a selector in every namespace", Request{Resource: deployments, Selector: "app=web"}, nil, ""},
	} {
		var got []string
		for ns := range sharedPods(tc.req, tc.groups) {
			got = append(got, ns)
		}
		if strings.Join(got, ",") != tc.want {
			t.Errorf("%s: sharedPods = %q, want %q", tc.name, got, tc.want)
		}
	}
}
