package gcpwait_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"testing"
	"testing/synctest"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/waitable/waitable/gcpwait"
)

// A side is a way to wait for an operation by name: Waitable's waiter, or
// the wrapper's own Wait (longrunning's Operation.Wait).
type side struct {
	name string
	wait func(ctx context.Context, c client, name string) error
}

var sides = []side{
	{"waitable", func(ctx context.Context, c client, name string) error {
		w, err := gcpwait.New(c.JobOperation)
		if err != nil {
			return err
		}
		_, err = w.Wait(ctx, name, time.Hour)
		return err
	}},
	{"longrunning", func(ctx context.Context, c client, name string) error {
		_, err := c.JobOperation(name).Wait(ctx)
		return err
	}},
}

// figures are one side's averages over the runs of a scenario: the
// GetOperation calls a wait made, and its detection lag, from the instant
// the operation was done to the wait's return, in virtual time.
type figures struct {
	Requests float64 `json:"requests"`
	LagS     float64 `json:"lag_s"`
	Failed   int     `json:"failed"`
}

// measure waits runs times with sd for an operation done ready after its
// creation, each in a synctest bubble of its own (virtual time: gax's
// sleeps too), against a fresh in-process Operations service.
func measure(t *testing.T, sd side, ready time.Duration, runs int) figures {
	var f figures
	for range runs {
		synctest.Test(t, func(t *testing.T) {
			s := &ops{}
			now := time.Now()
			s.add("operations/v", &job{created: now, readyAt: now.Add(ready)})
			c := client{serve(t, s)}
			if err := sd.wait(t.Context(), c, "operations/v"); err != nil {
				f.Failed++
				t.Logf("%s: %v", sd.name, err)
			}
			f.Requests += float64(s.gets("operations/v"))
			f.LagS += time.Since(now.Add(ready)).Seconds()
		})
	}
	f.Requests /= float64(runs)
	f.LagS /= float64(runs)
	return f
}

// readyAfter are the bench row's scenarios, operations done after these,
// and runs the waits of each side in each: both sides draw their delays
// at random, and the figures are averages.
var readyAfter = []time.Duration{37 * time.Second, 5 * time.Minute}

const runs = 100

// TestVersusOperationWait runs Waitable's waiter and longrunning's
// Operation.Wait side by side on the same in-process service. Both see
// every operation done; the figures (requests per wait, detection lag)
// are the bench row's (BenchmarkVersusOperationWait writes them to the
// file GCPWAIT_VERSUS_OUT names). Where the service answers an error
// gax does not retry (ResourceExhausted or Internal once, NotFound right
// after the creation), Operation.Wait ends with it and Waitable's waiter succeeds;
// where the operation fails, both return its error.
func TestVersusOperationWait(t *testing.T) {
	report := map[string]map[string]figures{}
	for _, ready := range readyAfter {
		key := fmt.Sprint(ready)
		report[key] = map[string]figures{}
		for _, sd := range sides {
			f := measure(t, sd, ready, runs)
			if f.Failed > 0 {
				t.Errorf("%s, done after %v: %d of %d waits failed", sd.name, ready, f.Failed, runs)
			}
			if f.LagS < 0 {
				t.Errorf("%s, done after %v: a negative lag %.1fs", sd.name, ready, f.LagS)
			}
			report[key][sd.name] = f
		}
	}
	t.Logf("%v", report)
	if out := os.Getenv("GCPWAIT_VERSUS_OUT"); out != "" {
		b, _ := json.Marshal(report)
		if err := os.WriteFile(out, b, 0o600); err != nil {
			t.Fatal(err)
		}
	}

	for _, tc := range []struct {
		name    string
		answers []answer
		// the code of longrunning's error, and whether Waitable's waiter
		// succeeds (else it fails with the same code)
		theirs codes.Code
		ours   bool
	}{
		{"ResourceExhausted once", []answer{{}, {code: codes.ResourceExhausted}, {done: true}}, codes.ResourceExhausted, true},
		{"Internal once (the service's 500)", []answer{{}, {code: codes.Internal}, {done: true}}, codes.Internal, true},
		{"NotFound right after creation", []answer{{code: codes.NotFound}, {}, {done: true}}, codes.NotFound, true},
		{"Unavailable once (gax retries it)", []answer{{}, {code: codes.Unavailable}, {done: true}}, codes.OK, true},
		{"the operation fails", []answer{{}, {done: true, failed: true}}, codes.FailedPrecondition, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			errs := map[string]error{}
			for _, sd := range sides {
				synctest.Test(t, func(t *testing.T) {
					s := &ops{}
					s.add("operations/v", &job{answers: tc.answers})
					errs[sd.name] = sd.wait(t.Context(), client{serve(t, s)}, "operations/v")
				})
			}
			if got := status.Code(errs["longrunning"]); got != tc.theirs {
				t.Errorf("Operation.Wait = %v, want code %v", errs["longrunning"], tc.theirs)
			}
			switch ours := errs["waitable"]; {
			case tc.ours && ours != nil:
				t.Errorf("Waitable's Wait = %v, want success", ours)
			case !tc.ours && status.Code(ours) != tc.theirs:
				t.Errorf("Waitable's Wait = %v, want code %v", ours, tc.theirs)
			}
		})
	}
}

// BenchmarkVersusOperationWait is the bench row: Waitable's waiter and
// longrunning's Operation.Wait on the same in-process service, for
// operations done after 37s and 5m, 100 waits each: requests per wait and
// detection lag in virtual time. The waits run in synctest bubbles,
// which only a test can start: the benchmark runs TestVersusOperationWait
// in a child process of the test binary and reports its figures. Run it
// once (-benchtime 1x); the figures are counts and virtual times, which
// the machine's speed does not change.
func BenchmarkVersusOperationWait(b *testing.B) {
	out := b.TempDir() + "/figures.json"
	for b.Loop() {
		cmd := exec.Command(os.Args[0], "-test.run=^TestVersusOperationWait$", "-test.count=1")
		cmd.Env = append(os.Environ(), "GCPWAIT_VERSUS_OUT="+out)
		if msg, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("%v\n%s", err, msg)
		}
	}
	raw, err := os.ReadFile(out)
	if err != nil {
		b.Fatal(err)
	}
	var report map[string]map[string]figures
	if err := json.Unmarshal(raw, &report); err != nil {
		b.Fatal(err)
	}
	for _, ready := range readyAfter {
		for _, sd := range sides {
			f := report[fmt.Sprint(ready)][sd.name]
			b.ReportMetric(f.Requests, fmt.Sprintf("%s-%v-requests/wait", sd.name, ready))
			b.ReportMetric(f.LagS, fmt.Sprintf("%s-%v-lag-s", sd.name, ready))
		}
	}
}
