package kubewait

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/waitable/waitable/waiter"
)

// What healthy clusters do every day never fails a rollout with the
// default windows: each case succeeds when the Deployment is done.

func failedPod(name, reason, message string, conds ...any) Object {
	p := pod(name, "ReplicaSet", "web-2", "uid-rs-2", nil, conds...)
	st := p["status"].(map[string]any)
	st["phase"], st["reason"], st["message"] = "Failed", reason, message
	delete(st, "containerStatuses")
	return p
}

func wantRolledOut(t *testing.T, a *apps, at time.Duration) {
	t.Helper()
	if _, took, events, err := rolloutWait(t, a, deployments, RolloutOptions{}); err != nil || took != at {
		t.Fatalf("err = %v after %v, want success at %v; events:\n%s", err, took, at, strings.Join(events, "\n"))
	}
}

// write is a status a test writes at a time of the bubble.
type write struct {
	at  time.Duration
	gvr schema.GroupVersionResource
	obj Object
}

func rs2(name string, state map[string]any, conds ...any) Object {
	return pod(name, "ReplicaSet", "web-2", "uid-rs-2", state, conds...)
}

func TestRolloutNoFalseAlarm(t *testing.T) {
	deleting := rs2("web-2-a", crashing(5, 1, "Error"))
	deleting["metadata"].(map[string]any)["deletionTimestamp"] = "2026-12-06T00:00:00Z"
	secret := func(at time.Duration) write {
		return write{at, podsResource, rs2("web-2-a", waiting("CreateContainerConfigError", `secret "db-tls" not found`))}
	}
	dbUp := running()
	dbUp["restartCount"] = int64(3)
	quota := replicaSet("2", map[string]any{"type": "ReplicaFailure", "status": "True",
		"reason": "FailedCreate", "message": `pods "web-2-x" is forbidden: exceeded quota: compute`})
	for _, tc := range []struct {
		name   string
		objs   []Object // with the Deployment, rolling out
		writes []write
		done   time.Duration // when the Deployment is done
	}{
		{"a pod whose node shut down is replaced", []Object{replicaSet("2"), rs2("web-2-a", running())}, []write{
			{5 * time.Second, podsResource, failedPod("web-2-a", "Terminated", "Pod was terminated in response to imminent node shutdown.",
				map[string]any{"type": "DisruptionTarget", "status": "True", "reason": "TerminationByKubelet"})},
			{6 * time.Second, podsResource, rs2("web-2-b", nil, unschedulable())},
			{40 * time.Second, podsResource, rs2("web-2-b", waiting("ContainerCreating", ""))},
			{44 * time.Second, podsResource, rs2("web-2-b", running())},
		}, 45 * time.Second},
		{"a pod rejected at admission is replaced", []Object{replicaSet("2"),
			failedPod("web-2-a", "OutOfcpu", "Pod was rejected: Node didn't have enough resource: cpu, requested: 500, used: 3800, capacity: 4000"),
			rs2("web-2-b", waiting("ContainerCreating", ""))}, []write{
			{44 * time.Second, podsResource, rs2("web-2-b", running())},
		}, 45 * time.Second},
		{"a pod being deleted", []Object{replicaSet("2"), deleting, rs2("web-2-b", waiting("ContainerCreating", ""))}, []write{
			{100 * time.Second, podsResource, rs2("web-2-b", running())},
		}, 101 * time.Second},
		{"a Secret a controller creates 50 s later", []Object{replicaSet("2"), secret(0).obj}, []write{
			secret(10 * time.Second), secret(20 * time.Second), secret(30 * time.Second), secret(40 * time.Second), secret(50 * time.Second),
			{60 * time.Second, podsResource, rs2("web-2-a", running())},
		}, 61 * time.Second},
		{"unschedulable until the autoscaler adds a node at 3 min", []Object{replicaSet("2"), rs2("web-2-a", nil, unschedulable())}, []write{
			{180 * time.Second, podsResource, rs2("web-2-a", waiting("ContainerCreating", ""))},
			{190 * time.Second, podsResource, rs2("web-2-a", running())},
		}, 191 * time.Second},
		{"a crash loop that ends when the database comes up at 72 s", []Object{replicaSet("2"), rs2("web-2-a", waiting("ContainerCreating", ""))},
			append(crashLoop(), write{74 * time.Second, podsResource, rs2("web-2-a", dbUp)}), 75 * time.Second},
		{"a quota the surge frees at 45 s", []Object{quota}, []write{
			{45 * time.Second, replicaSetsResource, replicaSet("2")},
			{46 * time.Second, podsResource, rs2("web-2-a", waiting("ContainerCreating", ""))},
			{50 * time.Second, podsResource, rs2("web-2-a", running())},
		}, 51 * time.Second},
		{"one pod in trouble while the others run", []Object{replicaSet("2"), rs2("web-2-a", running()),
			rs2("web-2-b", waiting("ErrImagePull", notFound))}, []write{
			{10 * time.Second, podsResource, rs2("web-2-b", waiting("ImagePullBackOff", notFound))},
			{100 * time.Second, podsResource, rs2("web-2-b", running())},
		}, 101 * time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				a := newApps(t, append([]Object{deployment(false)}, tc.objs...)...)
				for _, w := range tc.writes {
					a.at(w.at, w.gvr, w.obj)
				}
				a.at(tc.done, deployments, deployment(true))
				wantRolledOut(t, a, tc.done)
			})
		})
	}
}

// crashLoop is web-2-a's container crashing as the kubelet restarts it,
// 10, 20 and 40 s apart: crashes at 2, 13 and 34 s, runs between.
func crashLoop() []write {
	var out []write
	at := 2 * time.Second
	for i, backOff := range []time.Duration{10, 20, 40} {
		out = append(out, write{at, podsResource, rs2("web-2-a", crashing(int64(i), 1, "Error"))})
		if i < 2 {
			run := running()
			run["ready"], run["restartCount"] = false, int64(i+1)
			out = append(out, write{at + backOff*time.Second, podsResource, rs2("web-2-a", run)})
			at += backOff*time.Second + time.Second
		}
	}
	return out
}

// A crash loop that does not end fails at its window from the first
// crash, though the container ran between its crashes.
func TestRolloutCrashLoopLastsFromTheFirstCrash(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		a := newApps(t, deployment(false), replicaSet("2"), rs2("web-2-a", waiting("ContainerCreating", "")))
		for _, w := range crashLoop() {
			a.at(w.at, w.gvr, w.obj)
		}
		a.at(74*time.Second, podsResource, rs2("web-2-a", crashing(3, 1, "Error")))
		_, took, _, err := rolloutWait(t, a, deployments, RolloutOptions{})
		wantRolloutFailure(t, err, took, 92*time.Second, "CrashLoopBackOff: pod web-2-a, container app", "(exit code 1, 3 restarts)")
	})
}

// warning is a Warning Event of the kubelet about pod web-2-a.
func warning(name, reason, message string) Object {
	return Object{"apiVersion": "v1", "kind": "Event",
		"metadata":       map[string]any{"name": name, "namespace": "ns"},
		"involvedObject": map[string]any{"kind": "Pod", "name": "web-2-a", "namespace": "ns", "uid": "uid-web-2-a"},
		"reason":         reason, "message": message, "type": "Warning", "count": int64(1),
		"source": map[string]any{"component": "kubelet"}}
}

// Troubles only Events tell: a pod whose Secret volume does not exist
// stays ContainerCreating; the kubelet's FailedMount says why, and fails
// the rollout once it outlasts its window.
func TestRolloutFailsOnAnEventThatOutlastsItsWindow(t *testing.T) {
	creating := func() Object {
		return pod("web-2-a", "ReplicaSet", "web-2", "uid-rs-2", waiting("ContainerCreating", ""))
	}
	for _, tc := range []struct {
		name, reason, message string
		opts                  RolloutOptions
		at                    time.Duration
	}{
		{"secret volume", "FailedMount", `MountVolume.SetUp failed for volume "tls" : secret "web-tls" not found`, RolloutOptions{}, 91 * time.Second},
		{"disk", "FailedAttachVolume", `AttachVolume.Attach failed for volume "pvc-1" : rpc error: code = Internal desc = disk busy`, RolloutOptions{Events: 30 * time.Second}, 31 * time.Second},
		{"sandbox", "FailedCreatePodSandBox", `Failed to create pod sandbox: rpc error: code = Unknown desc = failed to setup network for sandbox: plugin type="calico" failed (add): stat /var/lib/calico/nodename: no such file or directory`, RolloutOptions{}, 121 * time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				a := newApps(t, deployment(false), replicaSet("2"), creating())
				a.at(time.Second, eventsResource, warning("web-2-a.1", tc.reason, tc.message))
				_, took, events, err := rolloutWait(t, a, deployments, tc.opts)
				wantRolloutFailure(t, err, took, tc.at, tc.reason+": pod web-2-a: "+tc.message)
				if !slices.ContainsFunc(events, func(e string) bool { return strings.HasPrefix(e, "1s "+tc.reason+": pod web-2-a") }) {
					t.Errorf("events %q: none reports the Event when it comes", events)
				}
			})
		})
	}
	// The mount works at last: the Event is history once the pod runs.
	synctest.Test(t, func(t *testing.T) {
		a := newApps(t, deployment(false), replicaSet("2"), creating(),
			warning("web-2-a.1", "FailedMount", `MountVolume.SetUp failed for volume "tls" : secret "web-tls" not found`))
		a.at(64*time.Second, podsResource, pod("web-2-a", "ReplicaSet", "web-2", "uid-rs-2", running()))
		a.at(100*time.Second, deployments, deployment(true))
		wantRolledOut(t, a, 100*time.Second)
	})
}

// A StatefulSet or DaemonSet that updates OnDelete is refused at once,
// as kubectl rollout status refuses it.
func TestRolloutRefusesOnDelete(t *testing.T) {
	for _, gvr := range []struct {
		kind string
		res  any
	}{{"StatefulSet", statefulSets}, {"DaemonSet", daemonSets}} {
		synctest.Test(t, func(t *testing.T) {
			o := object(gvr.kind, "apps/v1", "web", "uid-web")
			o["spec"] = map[string]any{"selector": selector, "updateStrategy": map[string]any{"type": "OnDelete"}}
			a := newApps(t, o)
			res := statefulSets
			if gvr.kind == "DaemonSet" {
				res = daemonSets
			}
			_, took, _, err := rolloutWait(t, a, res, RolloutOptions{})
			wantRolloutFailure(t, err, took, 0, "OnDelete: rollout status is only available for RollingUpdate strategy type")
		})
	}
}

// A paused Deployment does not fail; its events say it is paused.
func TestRolloutSaysADeploymentIsPaused(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		d := deployment(false)
		d["spec"].(map[string]any)["paused"] = true
		a := newApps(t, d, replicaSet("2"))
		_, took, events, err := rolloutWait(t, a, deployments, RolloutOptions{})
		if !errors.Is(err, waiter.ErrTimeout) || took != 10*time.Minute {
			t.Fatalf("err = %v after %v, want a timeout at 10m", err, took)
		}
		if !slices.ContainsFunc(events, func(e string) bool {
			return strings.HasPrefix(e, "0s Paused: the Deployment is paused") && strings.Contains(e, "kubectl rollout resume deployment/web")
		}) {
			t.Errorf("events %q do not say the Deployment is paused", events)
		}
	})
}

// A workload's annotations override the windows; one that does not parse
// fails the wait at once, naming it.
func TestRolloutAnnotations(t *testing.T) {
	config := func() Object {
		return pod("web-2-a", "ReplicaSet", "web-2", "uid-rs-2", waiting("CreateContainerConfigError", `configmap "web" not found`))
	}
	synctest.Test(t, func(t *testing.T) {
		d := deployment(false)
		d["metadata"].(map[string]any)["annotations"].(map[string]any)["rollout.waitable.dev/config"] = "10s"
		a := newApps(t, d, replicaSet("2"), config())
		_, took, _, err := rolloutWait(t, a, deployments, RolloutOptions{Config: time.Hour})
		wantRolloutFailure(t, err, took, 10*time.Second, `CreateContainerConfigError: pod web-2-a, container app: configmap "web" not found`)
	})
	for _, bad := range []struct{ key, value, says string }{
		{"rollout.waitable.dev/window", "soon", `annotation rollout.waitable.dev/window: "soon" is not a duration`},
		{"rollout.waitable.dev/restarts", "-1", `annotation rollout.waitable.dev/restarts: "-1" is not a count`},
	} {
		synctest.Test(t, func(t *testing.T) {
			d := runtime.DeepCopyJSON(deployment(false))
			d["metadata"].(map[string]any)["annotations"].(map[string]any)[bad.key] = bad.value
			a := newApps(t, d, replicaSet("2"))
			_, took, _, err := rolloutWait(t, a, deployments, RolloutOptions{})
			wantRolloutFailure(t, err, took, 0, "InvalidAnnotation: "+bad.says)
		})
	}
}

// A namespace's pods and Events, which the waits of its workloads share,
// judge only the wait of the pod's owner: another workload's pod, or its
// Event, does not concern a podWatch.
func TestPodWatchConcernsOnlyItsOwnersPods(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		apiEvent := warning("api-1-a.1", "FailedMount", "x")
		apiEvent["involvedObject"].(map[string]any)["uid"] = "uid-api-1-a"
		a := newApps(t, pod("web-2-a", "ReplicaSet", "web-2", "uid-rs-2", running()),
			pod("api-1-a", "ReplicaSet", "api-1", "uid-rs-api", running()),
			warning("web-2-a.1", "FailedMount", "x"), apiEvent)
		c := NewClient(a.dyn, ClientOptions{})
		wake := make(chan struct{}, 1)
		pods := c.subscribe(informerKey{gvr: podsResource, namespace: "ns"}, nil, wake)
		events := c.subscribe(informerKey{gvr: eventsResource, namespace: "ns", fields: podWarnings}, nil, wake)
		defer pods.unsubscribe()
		defer events.unsubscribe()
		synctest.Wait()
		pw := &podWatch{kind: "ReplicaSet", obj: replicaSet("2"), pods: pods, events: events,
			seen: map[string]string{"web-2-a": "1", "web-2-gone": "1"}, uids: map[string]bool{"uid-web-2-a": true}}
		for _, tc := range []struct {
			s    *subscription
			key  string
			want bool
		}{
			{pods, "ns/web-2-a", true},
			{pods, "ns/api-1-a", false},
			{pods, "ns/web-2-gone", true}, // deleted: one it saw
			{pods, "ns/api-1-gone", false},
			{events, "ns/web-2-a.1", true},
			{events, "ns/api-1-a.1", false},
		} {
			if got := pw.concerns(tc.s, tc.key, pw.owner()); got != tc.want {
				t.Errorf("concerns(%s, %s) = %v, want %v", tc.s.inf.key.gvr.Resource, tc.key, got, tc.want)
			}
		}
	})
}

// A Pod waited for itself fails on its own Warning Events too.
func TestRolloutOfAPodReadsItsEvents(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := pod("web", "ReplicaSet", "web-2", "uid-rs-2", waiting("ContainerCreating", ""))
		ev := warning("web.1", "FailedMount", `MountVolume.SetUp failed for volume "tls" : secret "web-tls" not found`)
		ev["involvedObject"].(map[string]any)["name"], ev["involvedObject"].(map[string]any)["uid"] = "web", "uid-web"
		a := newApps(t, p, ev)
		_, took, _, err := rolloutWait(t, a, podsResource, RolloutOptions{Config: 5 * time.Second})
		wantRolloutFailure(t, err, took, 5*time.Second, `FailedMount: pod web: MountVolume.SetUp failed`)
	})
}
