package bench

import (
	"os"
	"testing"
	"time"
)

// TestLearnedSchedule: the bars the learned schedule is held to, on the
// report's distributions in virtual time (the same figures as
// bench/README.md's "How long a wait will take" tables):
//   - EKS-like: p90 detection lag at most 35s, no more requests a wait
//     than the Smithy schedule;
//   - RDS-like: p90 lag at most 35s in at most 1.3x Smithy's requests;
//   - after a speed-up: no lag over MaxDelay (and a call), p90 back under
//     35s once five waits of the new regime have run;
//   - a history of 3 waits: the Smithy schedule, exactly;
//   - the estimate: its p10–p90 band holds the truth 70% to 90% of the
//     time, its p50 misses by no more than the mean of the past does;
//     Overdue on every wait slower than all before it, on at most 10% of
//     the others.
func TestLearnedSchedule(t *testing.T) {
	for _, c := range []struct {
		d        Durations
		requests float64 // the most requests, as a share of Smithy's
	}{{EKS, 1}, {RDS, 1.3}} {
		rows, err := LearnedRows(c.d, 1000, 1)
		if err != nil {
			t.Fatal(err)
		}
		smithy, tuned, learned := rows[0], rows[1], rows[2]
		t.Logf("%s: Smithy %.2f requests, p90 %v; tuned %s %.2f, p90 %v; learned %.2f, p90 %v", c.d.Name, smithy.Requests, smithy.P90, tuned.Schedule, tuned.Requests, tuned.P90, learned.Requests, learned.P90)
		if learned.P90 > 35*time.Second || learned.Requests > c.requests*smithy.Requests {
			t.Errorf("%s: learned p90 lag %v in %.2f requests a wait; Smithy's %.2f: want at most 35s in at most %.1fx", c.d.Name, learned.P90, learned.Requests, smithy.Requests, c.requests)
		}
		if learned.Cover < 0.7 || learned.Cover > 0.9 || learned.MAE > learned.Naive {
			t.Errorf("%s: the band held the truth %.1f%% of %d times, the p50 missed by %v (naive %v): want 70%% to 90%%, no more than naive", c.d.Name, 100*learned.Cover, learned.Estimates, learned.MAE, learned.Naive)
		}
		if learned.SlowestOverdue != learned.Slowest || float64(learned.OrdinaryFlag) > 0.1*float64(learned.Ordinary) {
			t.Errorf("%s: overdue on %d of %d waits slower than all before, on %d of %d others: want all, at most 10%%", c.d.Name, learned.SlowestOverdue, learned.Slowest, learned.OrdinaryFlag, learned.Ordinary)
		}
	}
	su, err := LearnedSpeedUp(50)
	if err != nil {
		t.Fatal(err)
	}
	if su.Worst > learnedMax+learnedLatency || su.AfterFive > 35*time.Second {
		t.Errorf("after the speed-up: worst lag %v, p90 after 5 waits %v; want at most %v, 35s", su.Worst, su.AfterFive, learnedMax+learnedLatency)
	}
	if same, err := LearnedFewWaits(EKS, 200); err != nil || !same {
		t.Errorf("a history of 3 waits: the learned delays are the Smithy schedule's: %v (%v)", same, err)
	}
	if testing.Verbose() {
		if err := WriteLearned(os.Stdout, 1000, 50); err != nil {
			t.Fatal(err)
		}
	}
}
