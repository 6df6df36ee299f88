package tfwait_test

import (
	"context"
	"testing"
	"testing/synctest"
	"time"

	"github.com/waitable/waitable/waiter"
)

// frozen is a History that others read and nobody adds to: the waits of
// a learned row learn from the same past.
type frozen struct{ waiter.History }

func (frozen) Add(context.Context, string, string, waiter.Sample) error { return nil }

// learnedFigures runs rounds waits of wait on a cluster available ready
// after its start, under a 20-minute Timeout, and returns their mean
// refreshes and detection lag.
func learnedFigures(t *testing.T, ready time.Duration, rounds int, wait waitFunc) (f rowFigures) {
	synctest.Test(t, func(t *testing.T) {
		for range rounds {
			c := &cluster{now: time.Now, readyAt: time.Now().Add(ready)}
			out, err := wait(t.Context(), createConf(c.refresh, 20*time.Minute))
			if err != nil || out.(*object).Status != "available" {
				t.Fatalf("wait() = %v, %v, want the available cluster", out, err)
			}
			f.lag += time.Since(c.readyAt)
			f.refreshes += float64(c.calls)
			synctest.Wait()
		}
	})
	f.lag /= time.Duration(rounds)
	f.refreshes /= float64(rounds)
	return f
}

// TestLearnedScheduleBesideWaitForStateContext reports, for a cluster
// that takes 10m to create, after ten waits of history of the same
// creation, tfwait's learned schedule (waiter.WithLearnedSchedule) beside
// WaitForStateContext and tfwait's default: refreshes per wait and
// detection lag (go test -v prints them). The learned schedule's delays
// are kept within the waiter's [MinDelay, MaxDelay], the SDK's 200ms to
// 10s, so it cannot make much fewer refreshes than a wait's length over
// 10s; the last row gives it the MaxDelay of 2m a user opting in may give
// it. The test checks that the learned schedule makes fewer refreshes
// than tfwait's default, and that with a MaxDelay of 2m it makes no more
// than WaitForStateContext and sees the end no later.
func TestLearnedScheduleBesideWaitForStateContext(t *testing.T) {
	const ready, rounds = 10 * time.Minute, 20
	h := waiter.NewMemoryHistory()
	learnedFigures(t, ready, 10, tfWait(waiter.WithHistory(h)))
	past := frozen{h}
	got := map[string]rowFigures{}
	names := []string{"WaitForStateContext", "tfwait", "tfwait learned", "tfwait learned max 2m"}
	for i, wait := range []waitFunc{
		sdkWait,
		tfWait(),
		tfWait(waiter.WithHistory(past), waiter.WithLearnedSchedule()),
		tfWait(waiter.WithHistory(past), waiter.WithLearnedSchedule(), waiter.WithDelays(200*time.Millisecond, 2*time.Minute)),
	} {
		got[names[i]] = learnedFigures(t, ready, rounds, wait)
		t.Logf("ready after %v: %-22s %5.1f refreshes, lag %v", ready, names[i], got[names[i]].refreshes, got[names[i]].lag)
	}
	sdk, def, learned, wide := got[names[0]], got[names[1]], got[names[2]], got[names[3]]
	if learned.refreshes >= def.refreshes {
		t.Errorf("the learned schedule made %.1f refreshes, the default %.1f: want fewer", learned.refreshes, def.refreshes)
	}
	if wide.refreshes > sdk.refreshes || wide.lag > sdk.lag {
		t.Errorf("the learned schedule with a MaxDelay of 2m made %.1f refreshes with a lag of %v, WaitForStateContext %.1f and %v: "+
			"want no more refreshes, no later", wide.refreshes, wide.lag, sdk.refreshes, sdk.lag)
	}
}
