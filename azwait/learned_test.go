package azwait_test

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/waitable/waitable/clocktest"
	"github.com/waitable/waitable/waiter"
)

// frozen is a History that others read and nobody adds to: the waits of
// a learned row learn from the same past.
type frozen struct{ waiter.History }

func (frozen) Add(context.Context, string, string, waiter.Sample) error { return nil }

// learnedRow is the learned schedule's row beside PollUntilDone: for a
// creation ending ready after its start, the history of ten waits of
// azwait's default schedule on it, then rowRounds waits of each side,
// their average requests and detection lag.
func learnedRow(t *testing.T, ready time.Duration, sides map[string]func(past waiter.History) side) map[string][2]float64 {
	h := waiter.NewMemoryHistory()
	for range 10 {
		clocktest.Run(t, func(t *testing.T) {
			if _, _, _, err := versus(t, azwaitSide(waiter.WithHistory(h)), 1, ready); err != nil {
				t.Fatal(err)
			}
		})
	}
	got := map[string][2]float64{}
	for name, mk := range sides {
		s := mk(frozen{h})
		var polls int
		var lags time.Duration
		for range rowRounds {
			clocktest.Run(t, func(t *testing.T) {
				_, n, lag, err := versus(t, s, 1, ready)
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				polls, lags = polls+n, lags+lag
			})
		}
		got[name] = [2]float64{float64(polls) / rowRounds, (lags / rowRounds).Seconds()}
	}
	return got
}

// TestLearnedScheduleBesidePollUntilDone reports, for creations of 3m20s
// and 10m20s, each after ten waits of history of the same creation,
// azwait's learned schedule (waiter.WithLearnedSchedule) beside azcore's
// PollUntilDone and azwait's default: requests per wait and detection
// lag, averaged over rowRounds waits (go test -v prints them;
// BenchmarkVersusPollUntilDone reports them). The learned schedule's
// delays are kept within the waiter's [MinDelay, MaxDelay]: with azwait's
// 30s MaxDelay it cannot make much fewer requests than a wait's length
// over 30s, so the last row gives it the MaxDelay of 2m a user opting in
// may give it. The test checks that the learned schedule makes fewer
// requests than azwait's default, and that with a MaxDelay of 2m it makes
// no more than PollUntilDone and sees the end no later.
func TestLearnedScheduleBesidePollUntilDone(t *testing.T) {
	const (
		pud, def, learned, wide = "PollUntilDone", "azwait", "azwait learned", "azwait learned max 2m"
	)
	for _, ready := range []time.Duration{200 * time.Second, 620 * time.Second} {
		got := learnedRow(t, ready, map[string]func(waiter.History) side{
			pud: func(waiter.History) side { return sides[0].wait },
			def: func(waiter.History) side { return sides[1].wait },
			learned: func(past waiter.History) side {
				return azwaitSide(waiter.WithHistory(past), waiter.WithLearnedSchedule())
			},
			wide: func(past waiter.History) side {
				return azwaitSide(waiter.WithHistory(past), waiter.WithLearnedSchedule(), waiter.WithDelays(2*time.Second, 2*time.Minute))
			},
		})
		for _, name := range []string{pud, def, learned, wide} {
			t.Logf("ready after %v: %-22s %5.1f requests, lag %5.1fs", ready, name, got[name][0], got[name][1])
			if name != pud && name != def && os.Getenv("AZWAIT_BENCH_ROW") != "" {
				fmt.Printf("row\t%s\t%v\t%g\t%v\n", name, ready, got[name][0], time.Duration(got[name][1]*float64(time.Second)))
			}
		}
		if got[learned][0] >= got[def][0] {
			t.Errorf("ready after %v: the learned schedule made %.1f requests, the default %.1f: want fewer", ready, got[learned][0], got[def][0])
		}
		if got[wide][0] > got[pud][0] || got[wide][1] > got[pud][1] {
			t.Errorf("ready after %v: the learned schedule with a MaxDelay of 2m made %.1f requests with a lag of %.1fs, "+
				"PollUntilDone %.1f and %.1fs: want no more requests, no later", ready, got[wide][0], got[wide][1], got[pud][0], got[pud][1])
		}
	}
}
