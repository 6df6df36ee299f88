package azwait_test

import (
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"reflect"
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/waitable/waitable/clocktest"
	"github.com/waitable/waitable/waiter"
)

// side is one waiter of the side-by-side: it waits for the creation
// whose token it is given and returns the result.
type side func(t *testing.T, vm *vmWorld, tok string) (createResponse, error)

var sides = []struct {
	name string
	wait side
}{
	{"azcore PollUntilDone", func(t *testing.T, vm *vmWorld, tok string) (createResponse, error) {
		p, err := vm.resume("vm1")(t.Context(), tok)
		if err != nil {
			return createResponse{}, err
		}
		return p.PollUntilDone(t.Context(), nil) // every 30s, azcore's default
	}},
	{"azwait", azwaitSide()},
}

// azwaitSide is azwait's side, with opts.
func azwaitSide(opts ...waiter.Option) side {
	return func(t *testing.T, vm *vmWorld, tok string) (createResponse, error) {
		st, err := vm.waiter(t, "vm1", opts...).Wait(t.Context(), tok, time.Hour)
		if st == nil {
			return createResponse{}, err
		}
		return st.Result, err
	}
}

// versus runs a side on a creation that the fake reports in progress for
// inProgress polls, and ready from readyAfter on (0: as soon as the fake
// says so), and returns its result, its polls, its detection lag: from
// the creation's end to the side's return, in the bubble's virtual time.
func versus(t *testing.T, s side, inProgress int, readyAfter time.Duration) (res createResponse, polls int, lag time.Duration, err error) {
	vm := newVMWorld(t, inProgress, "")
	tok := vm.begin(t, "vm1")
	start := time.Now()
	vm.faults.readyAt = start.Add(readyAfter)
	res, err = s(t, vm, tok)
	end := time.Now()
	times := vm.faults.pollTimes()
	ready := vm.faults.readyAt
	if readyAfter == 0 && len(times) >= inProgress {
		// The fake's last in-progress answer is its (inProgress-1)th poll:
		// the creation ended just after it.
		ready = times[inProgress-2]
	}
	return res, len(times), end.Sub(ready), err
}

// TestSideBySideWithPollUntilDone: on the same fake, azwait gets the same
// result as azcore's PollUntilDone, with at most its requests, and
// detects the end no later.
func TestSideBySideWithPollUntilDone(t *testing.T) {
	for _, inProgress := range []int{2, 4, 8} {
		t.Run(fmt.Sprint(inProgress, " in progress"), func(t *testing.T) {
			var results []createResponse
			var polls []int
			var lags []time.Duration
			for _, s := range sides {
				clocktest.Run(t, func(t *testing.T) {
					res, n, lag, err := versus(t, s.wait, inProgress, 0)
					if err != nil {
						t.Fatalf("%s: %v", s.name, err)
					}
					results, polls, lags = append(results, res), append(polls, n), append(lags, lag)
				})
			}
			t.Logf("polls %v, lags %v (PollUntilDone, azwait)", polls, lags)
			if !reflect.DeepEqual(results[0], results[1]) {
				t.Errorf("results differ: PollUntilDone %+v, azwait %+v", results[0], results[1])
			}
			if polls[1] > polls[0] {
				t.Errorf("azwait polled %d times, PollUntilDone %d: want at most its polls", polls[1], polls[0])
			}
			if lags[1] > lags[0] {
				t.Errorf("azwait saw the end %v after it, PollUntilDone %v: want no later", lags[1], lags[0])
			}
		})
	}
}

// TestConnectionResetIsRetried: a poll, or the final GET of a PUT, whose
// connection is reset (no answer) is made again within the budget, as
// azcore's retry policy makes it again under PollUntilDone: both get the
// VM.
func TestConnectionResetIsRetried(t *testing.T) {
	const opURL = "https://management.azure.com/subscriptions/sub/providers/Microsoft.Compute/locations/westeurope/operations/op1"
	for _, c := range []struct {
		name  string
		match func(*http.Request) bool
	}{
		{"a poll", isARMPoll},
		{"the final GET", isFinalGet},
	} {
		for _, s := range sides {
			t.Run(c.name+"/"+s.name, func(t *testing.T) {
				clocktest.Run(t, func(t *testing.T) {
					ok := fault{status: 200, body: `{"status":"Succeeded"}`}
					svc := &armService{first: fault{status: 201, header: http.Header{"Azure-Asyncoperation": {opURL}}}, polls: []fault{ok, ok}}
					r := &resets{next: svc, match: c.match}
					vm := newWorld(t, r)
					tok := vm.begin(t, "vm1")
					r.mu.Lock()
					r.n = 1
					r.mu.Unlock()
					res, err := s.wait(t, vm, tok)
					if err != nil || res.Name == nil || *res.Name != "vm1" {
						t.Fatalf("wait = %+v, %v, want the VM after one connection reset", res, err)
					}
					r.mu.Lock()
					defer r.mu.Unlock()
					if r.n != 0 {
						t.Fatalf("the connection was not reset")
					}
				})
			})
		}
	}
}

// rowReadyAfter are the creation times of the bench row.
var rowReadyAfter = []time.Duration{10 * time.Second, 45 * time.Second, 200 * time.Second, 620 * time.Second}

// rowSides are the sides of the bench row: those of the side-by-side, and
// azwait with PollUntilDone's fixed 30s.
var rowSides = append(sides[:len(sides):len(sides)], struct {
	name string
	wait side
}{"azwait 30s", azwaitSide(waiter.WithDelays(30*time.Second, 30*time.Second))})

// rowRounds is how many waits of each side the bench row averages over:
// azwait's delays are jittered from a random seed.
const rowRounds = 20

// TestBenchRowFigures measures the bench row in a synctest bubble (a
// benchmark cannot hold one): for creations ending at each time of
// rowReadyAfter, each side's polls and detection lag, averaged over
// rowRounds waits. It prints them when BenchmarkVersusPollUntilDone runs
// it.
func TestBenchRowFigures(t *testing.T) {
	for _, ready := range rowReadyAfter {
		for _, s := range rowSides {
			polls, lags := 0, time.Duration(0)
			for range rowRounds {
				clocktest.Run(t, func(t *testing.T) {
					_, n, lag, err := versus(t, s.wait, 1, ready)
					if err != nil {
						t.Fatalf("%s, ready after %v: %v", s.name, ready, err)
					}
					polls, lags = polls+n, lags+lag
				})
			}
			if os.Getenv("AZWAIT_BENCH_ROW") != "" {
				fmt.Printf("row\t%s\t%v\t%g\t%v\n", s.name, ready, float64(polls)/rowRounds, lags/rowRounds)
			}
		}
	}
}

var rowLine = regexp.MustCompile(`(?m)^row\t(.+)\t(.+)\t([0-9.]+)\t(.+)$`)

// BenchmarkVersusPollUntilDone is the bench row: azcore's PollUntilDone
// and azwait on the same fake creation, ending 10s, 45s, 3m20s and 10m20s after
// its start, and azwait's learned schedule after ten waits of history
// (TestLearnedScheduleBesidePollUntilDone); it reports the requests
// (polls) per wait and the detection lag in virtual time, averaged over
// 20 waits. The figures come from TestBenchRowFigures, run in
// a child process of this test binary: the vendor's waiter sleeps on the
// wall clock, which only a synctest bubble (a test's, not a benchmark's)
// makes virtual.
func BenchmarkVersusPollUntilDone(b *testing.B) {
	var out []byte
	for b.Loop() {
		cmd := exec.Command(os.Args[0], "-test.run=^(TestBenchRowFigures|TestLearnedScheduleBesidePollUntilDone)$", "-test.count=1")
		cmd.Env = append(os.Environ(), "AZWAIT_BENCH_ROW=1")
		var err error
		if out, err = cmd.Output(); err != nil {
			b.Fatalf("TestBenchRowFigures: %v\n%s", err, out)
		}
	}
	for _, m := range rowLine.FindAllStringSubmatch(string(out), -1) {
		ready, _ := time.ParseDuration(m[2])
		polls, _ := strconv.ParseFloat(m[3], 64)
		lag, _ := time.ParseDuration(m[4])
		b.Run(m[1]+"/ready="+ready.String(), func(b *testing.B) {
			for b.Loop() {
			}
			b.ReportMetric(polls, "requests/wait")
			b.ReportMetric(lag.Seconds(), "lag-s")
		})
	}
}
