package kubewait

import (
	"testing"
	"testing/synctest"
	"time"

	"github.com/waitable/waitable/classify"
	"github.com/waitable/waitable/waiter"
)

// Each object's wait learns from the past waits of that object (its
// resource, namespace and name) in the Client's History: once it has
// waited for it MinHistory times, its events carry the waiter's estimate
// of the time left; an object it never waited for has none, and says why.
func TestEventsCarryTheEstimateOfTheObjectsPastWaits(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		k := newCluster(t, widget("a", nil), widget("b", nil))
		c := NewClient(k.dyn, ClientOptions{})
		first := func(name string) Event {
			var got *Event
			r := req(Condition("Ready", ""), name)
			r.OnEvent = func(e Event) {
				if got == nil && e.Watch == "" {
					got = &e
				}
			}
			after(10*time.Second, func() { k.update(widget(name, conditions("Ready", "True"))) })
			if _, err := c.Wait(t.Context(), r); err != nil {
				t.Fatal(err)
			}
			k.update(widget(name, nil))
			return *got
		}
		for i := range waiter.MinHistory {
			if e := first("a"); e.Estimate.None == "" {
				t.Fatalf("wait %d of a: estimate %+v, want none yet", i+1, e.Estimate)
			}
		}
		e := first("a")
		t.Logf("estimate after %d waits of 10 s: %+v", waiter.MinHistory, e.Estimate)
		if e.Decision != classify.Retry || e.Estimate.None != "" || e.Estimate.P50 <= 0 || e.Estimate.P90 > 20*time.Second {
			t.Errorf("wait %d of a: first event %v with estimate %+v, want about 10 s left", waiter.MinHistory+1, e.Decision, e.Estimate)
		}
		if e := first("b"); e.Estimate.None == "" {
			t.Errorf("first wait of b: estimate %+v, want none: the past waits were a's", e.Estimate)
		}
	})
}

// A rollout's progress is its ready replicas of the current revision out
// of those desired (a Job's succeeded pods out of its completions); a
// kind with no replicas says none.
func TestRolloutProgress(t *testing.T) {
	deployment := Object{"kind": "Deployment", "spec": map[string]any{"replicas": int64(4)},
		"status": map[string]any{"readyReplicas": int64(3), "updatedReplicas": int64(2)}}
	job := Object{"kind": "Job", "spec": map[string]any{"completions": int64(5)}, "status": map[string]any{"succeeded": int64(5)}}
	for _, tc := range []struct {
		obj  Object
		want float64
	}{
		{deployment, 0.5}, {job, 1}, {Object{"kind": "Service"}, -1}, {Object{"kind": "Deployment"}, -1},
	} {
		if got := rolloutProgress(tc.obj); got != tc.want {
			t.Errorf("rolloutProgress(%v) = %v, want %v", tc.obj, got, tc.want)
		}
	}
}
