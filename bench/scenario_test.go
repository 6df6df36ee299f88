package bench

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

// TestFanoutScenario: the shared limit keeps Waitable's waiters from being
// throttled and loses none of them, while the independent waiters throttle
// each other out; nobody beats the lower bound.
func TestFanoutScenario(t *testing.T) {
	const n = 1000
	ind := RunScenario(t, "independent", n, 7)
	wt := RunScenario(t, "waitable", n, 7)
	lb := LowerBound(n, 1, 7)
	t.Logf("%v\n%v\n%v", ind, wt, lb)
	if wt.Undetected != 0 || wt.Throttled != 0 {
		t.Errorf("waitable: %v, want every resource detected and no call throttled", wt)
	}
	if wt.P50 < lb.P50 || wt.P99 < 0 {
		t.Errorf("waitable p50 %v beats the lower bound %v", wt.P50, lb.P50)
	}
	if ind.Throttled == 0 || ind.Undetected == 0 {
		t.Errorf("independent: %v, want throttles and lost waiters at this load", ind)
	}
}

// TestFanoutScenarioDeterministic: the same seed gives the same numbers.
func TestFanoutScenarioDeterministic(t *testing.T) {
	for _, client := range []string{"independent", "waitable", "waitable + events"} {
		a, b := RunScenario(t, client, 300, 3), RunScenario(t, client, 300, 3)
		if a != b {
			t.Errorf("%s: %v, then %v", client, a, b)
		}
	}
}

// TestLowerBound checks the round-robin bound on a case small enough to
// work out by hand: every resource ready at once is found in one sweep.
func TestLowerBound(t *testing.T) {
	st := LowerBound(1000, 1, 7)
	if st.Undetected != 0 || st.P50 <= 0 || st.P99 < st.P50 || st.P99 > 20*time.Minute {
		t.Errorf("LowerBound(1000, 1, 7) = %v", st)
	}
}

// TestBatchedScenario: polling 10 or 100 resources a call under the same
// budget detects within seconds, never throttled, with full calls (the
// last few resources of a run cannot fill one, hence 9.5 of 10).
func TestBatchedScenario(t *testing.T) {
	const n = 1000
	for _, tt := range []struct {
		client  string
		p50     time.Duration
		perCall float64
	}{{"waitable batch 10", 5 * time.Second, 9.5}, {"waitable batch 100", time.Second, 50}} {
		st := RunScenario(t, tt.client, n, 7)
		t.Log(st)
		if st.Undetected != 0 || st.Throttled != 0 || st.P50 > tt.p50 || float64(st.Polled) < tt.perCall*float64(st.Calls) {
			t.Errorf("%v; want all detected, none throttled, p50 at most %v, at least %.1f resources a call", st, tt.p50, tt.perCall)
		}
	}
}

// TestEventsScenario: issue 16's goal for wake-ups from events, at 1,000
// resources. With nine resources in ten poking their wait a second after
// they are ready, half of all resources are detected within 2s, with at
// most a third of the calls of polling alone (the "waitable" row, same n
// and seed), and the tenth that never announce are still found by the
// schedule.
//
// At 10,000 resources (the report's size) the calls half of the goal does
// not hold, and cannot: polling alone is held at the service's limit
// there (about 3 calls a resource), below the one call each wait makes
// when it starts plus its poked call.
func TestEventsScenario(t *testing.T) {
	const n, seed = 1000, 7
	ev := RunScenario(t, "waitable + events", n, seed)
	wt := RunScenario(t, "waitable", n, seed)
	t.Logf("%v\n%v", ev, wt)
	if ev.Undetected != 0 || ev.Throttled != 0 {
		t.Errorf("waitable + events: %v, want every resource detected and no call throttled", ev)
	}
	if ev.P50 < 0 || ev.P50 > 2*time.Second {
		t.Errorf("waitable + events: p50 = %v, want at most 2s", lagFmt(ev.P50))
	}
	if 3*ev.Calls > wt.Calls {
		t.Errorf("waitable + events: %d calls, want at most a third of polling alone's %d", ev.Calls, wt.Calls)
	}
}

// TestAnnounced: exactly nine resources in ten announce their readiness,
// the same ones for the same seed.
func TestAnnounced(t *testing.T) {
	a, b := announced(1000, 7), announced(1000, 7)
	count := 0
	for i := range a {
		if a[i] != b[i] {
			t.Fatalf("announced(1000, 7)[%d] = %v, then %v", i, a[i], b[i])
		}
		if a[i] {
			count++
		}
	}
	if count != 900 {
		t.Errorf("announced(1000, 7) announces %d, want 900", count)
	}
}

// TestFanout prints the fan-out table alone, at the report's size (small
// by default, full with -report), with a row for every client.
func TestFanout(t *testing.T) {
	o := QuickReport()
	if *reportFull {
		o = FullReport(false)
	}
	var buf bytes.Buffer
	writeFanout(&buf, o.FanoutN, fanoutRows(t, o.FanoutN))
	for _, c := range []string{"independent", "waitable", "waitable + events", "waitable batch 10", "waitable batch 100", "lower bound, 1 a call", "lower bound, 10 a call", "lower bound, 100 a call"} {
		if !strings.Contains(buf.String(), "| "+c+" | ") {
			t.Errorf("the fan-out table has no row for %s:\n%s", c, buf.String())
		}
	}
	t.Log("\n" + buf.String())
}
