package tfwait_test

import (
	"testing"
	"testing/synctest"
	"time"

	"github.com/waitable/waitable/backoff"
	"github.com/waitable/waitable/waiter"
)

// readyAfter are the times the bench row's cluster takes to become
// available, one wait each, under a 20-minute Timeout and the SDK's
// default schedule: 9s, 27s, 45s, … 17m51s, spread over the SDK's 10s
// poll grid (ready times on round numbers would all fall at one phase
// of it).
var readyAfter = func() (d []time.Duration) {
	for i := range 60 {
		d = append(d, 9*time.Second+time.Duration(i)*18*time.Second)
	}
	return d
}()

// benchSide is one side of the bench row: how it waits on conf.
type benchSide struct {
	name string
	wait waitFunc
}

var benchSides = []benchSide{
	{"WaitForStateContext", sdkWait},
	{"tfwait", tfWait()},
	{"tfwait-no-jitter", tfWait(waiter.WithJitter(backoff.High))},
}

// rowFigures are a side's means per wait: refreshes, and the detection
// lag, from the cluster becoming available to the wait's return.
type rowFigures struct {
	refreshes float64
	lag       time.Duration
}

// measureSide runs side's waits on the scripted cluster in a synctest
// bubble, where its sleeps (the SDK's on the wall clock too) are virtual.
func measureSide(t *testing.T, side benchSide) (f rowFigures) {
	synctest.Test(t, func(t *testing.T) {
		n := 0
		for _, after := range readyAfter {
			c := &cluster{now: time.Now, readyAt: time.Now().Add(after)}
			out, err := side.wait(t.Context(), createConf(c.refresh, 20*time.Minute))
			if err != nil || out.(*object).Status != "available" {
				t.Fatalf("%s: wait() = %v, %v, want the available cluster", side.name, out, err)
			}
			f.lag += time.Since(c.readyAt)
			f.refreshes += float64(c.calls)
			n++
			synctest.Wait() // the SDK's refresh goroutine ends after its wait
		}
		f.lag /= time.Duration(n)
		f.refreshes /= float64(n)
	})
	return f
}

// BenchmarkVersusWaitForStateContext is the bench row: the SDK's
// WaitForStateContext and tfwait on the same scripted cluster, in virtual
// time, reporting refreshes per wait and the detection lag. CPU time
// means nothing here; the figures are counts and virtual durations.
func BenchmarkVersusWaitForStateContext(b *testing.B) {
	for _, side := range benchSides {
		b.Run(side.name, func(b *testing.B) {
			var f rowFigures
			for b.Loop() {
				f = inBubble(b, side)
			}
			b.ReportMetric(f.refreshes, "refreshes/wait")
			b.ReportMetric(f.lag.Seconds(), "lag-s/wait")
		})
	}
}

// inBubble measures side from a benchmark: synctest.Test wants a
// *testing.T, which testing.RunTests (the go command's own entry point)
// makes; a benchmark has none.
func inBubble(b *testing.B, side benchSide) (f rowFigures) {
	b.Helper()
	all := func(string, string) (bool, error) { return true, nil }
	if !testing.RunTests(all, []testing.InternalTest{{Name: b.Name(), F: func(t *testing.T) { f = measureSide(t, side) }}}) {
		b.Fatalf("%s: the waits failed", side.name)
	}
	return f
}

// TestBenchRow: every side of the row detects the cluster, tfwait never
// later on average than WaitForStateContext and, with the SDK's delays
// (no jitter), with no more refreshes.
func TestBenchRow(t *testing.T) {
	figures := map[string]rowFigures{}
	for _, side := range benchSides {
		figures[side.name] = measureSide(t, side)
		t.Logf("%-20s %6.1f refreshes/wait, lag %v", side.name, figures[side.name].refreshes, figures[side.name].lag)
	}
	sdk, ours, high := figures["WaitForStateContext"], figures["tfwait"], figures["tfwait-no-jitter"]
	if ours.lag > sdk.lag || high.lag > sdk.lag {
		t.Errorf("lag: tfwait %v, without jitter %v; want no more than WaitForStateContext's %v", ours.lag, high.lag, sdk.lag)
	}
	if high.refreshes > sdk.refreshes {
		t.Errorf("tfwait without jitter made %.1f refreshes a wait, want at most WaitForStateContext's %.1f", high.refreshes, sdk.refreshes)
	}
}
