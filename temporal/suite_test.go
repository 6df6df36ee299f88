package temporal

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/testsuite"

	"github.com/waitable/waitable/classify"
	"github.com/waitable/waitable/telemetry"
	"github.com/waitable/waitable/waiter"
)

type JobInput struct{ ID string }
type JobOutput struct {
	ID    string
	State string
}

var jobDone = waiter.Definition{
	Name: "JobDone",
	Acceptors: []classify.Acceptor{
		{State: classify.Success, Matcher: classify.OnOutput("State", classify.StringEquals, "done")},
		{State: classify.Failure, Matcher: classify.OnOutput("State", classify.StringEquals, "failed")},
	},
}

// job is an operation whose job reaches final after ready calls (never,
// if ready is 0).
func job(ready int, final string, calls *atomic.Int32) func(context.Context, JobInput) (JobOutput, error) {
	return func(ctx context.Context, in JobInput) (JobOutput, error) {
		n := int(calls.Add(1))
		if ready > 0 && n >= ready {
			return JobOutput{ID: in.ID, State: final}, nil
		}
		return JobOutput{ID: in.ID, State: "running"}, nil
	}
}

type scenario struct {
	name    string
	ready   int
	final   string
	maxWait time.Duration
	reason  error // nil: success
}

var scenarios = []scenario{
	{"done on the 4th poll", 4, "done", time.Minute, nil},
	{"failed on the 3rd poll", 3, "failed", time.Minute, waiter.ErrFailure},
	{"never done: timeout", 0, "", time.Minute, waiter.ErrTimeout},
}

func newJobWaiter(t *testing.T, ready int, final string, calls *atomic.Int32) *waiter.Waiter[JobInput, JobOutput] {
	w, err := waiter.New(jobDone, job(ready, final, calls), waiter.WithDelays(2*time.Second, 2*time.Second), waiter.WithTelemetry(telemetry.Settings{Off: true}))
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// inProcess runs the scenario with the in-process waiter in virtual time.
func inProcess(t *testing.T, sc scenario) (int, error) {
	var err error
	var calls atomic.Int32
	synctest.Test(t, func(t *testing.T) {
		w := newJobWaiter(t, sc.ready, sc.final, &calls)
		_, err = w.Wait(t.Context(), JobInput{"j-1"}, sc.maxWait)
	})
	return int(calls.Load()), err
}

// TestSameAsInProcess: each scenario ends the same way, after the same
// number of calls, in Temporal's time-skipping test environment as in
// process.
func TestSameAsInProcess(t *testing.T) {
	for _, mode := range []Mode{ModeTimers, ModeHeartbeat} {
		for _, sc := range scenarios {
			t.Run(mode.String()+"/"+sc.name, func(t *testing.T) {
				wantCalls, wantErr := inProcess(t, sc)
				if mode == ModeHeartbeat {
					// The activity sleeps on real time: a bubble makes it virtual.
					synctest.Test(t, func(t *testing.T) { sameAsInProcess(t, sc, mode, wantCalls, wantErr) })
					return
				}
				sameAsInProcess(t, sc, mode, wantCalls, wantErr)
			})
		}
	}
}

func sameAsInProcess(t *testing.T, sc scenario, mode Mode, wantCalls int, wantErr error) {
	var s testsuite.WorkflowTestSuite
	env := s.NewTestWorkflowEnvironment()
	env.SetTestTimeout(time.Hour) // in heartbeat mode, of the bubble's virtual time
	var calls atomic.Int32
	if err := Register(env, "JobDone", newJobWaiter(t, sc.ready, sc.final, &calls), WithMode(mode)); err != nil {
		t.Fatal(err)
	}
	env.ExecuteWorkflow(WorkflowName("JobDone"), request[JobInput]{Input: JobInput{"j-1"}, MaxWait: sc.maxWait})
	if !env.IsWorkflowCompleted() {
		t.Fatal("the workflow did not complete")
	}
	err := decode(env.GetWorkflowError())
	if sc.reason == nil {
		var out JobOutput
		if err != nil || env.GetWorkflowResult(&out) != nil || out.State != "done" {
			t.Errorf("result %+v, %v; want done", out, err)
		}
	} else if !errors.Is(err, sc.reason) || !errors.Is(wantErr, sc.reason) {
		t.Errorf("error %v; in process %v; want %v", err, wantErr, sc.reason)
	}
	var we *waiter.Error
	if errors.As(err, &we) && we.Attempts != wantCalls {
		t.Errorf("the error counts %d attempts, want %d", we.Attempts, wantCalls)
	}
	if got := int(calls.Load()); got != wantCalls {
		t.Errorf("%d calls, in process %d", got, wantCalls)
	}
}

// TestContinueAsNew: a wait longer than a run's attempts continues as
// new with its Checkpoint, and numbering goes on. The default mode polls these
// 2s delays inside a heartbeating activity, which sleeps on real time: a
// bubble makes it virtual.
func TestContinueAsNew(t *testing.T) {
	synctest.Test(t, continueAsNew)
}

func continueAsNew(t *testing.T) {
	var s testsuite.WorkflowTestSuite
	env := s.NewTestWorkflowEnvironment()
	env.SetTestTimeout(time.Hour) // of the bubble's virtual time
	var calls atomic.Int32
	if err := Register(env, "JobDone", newJobWaiter(t, 0, "", &calls), WithAttemptsPerRun(5)); err != nil {
		t.Fatal(err)
	}
	env.ExecuteWorkflow(WorkflowName("JobDone"), request[JobInput]{Input: JobInput{"j-1"}, MaxWait: time.Minute})
	if !env.IsWorkflowCompleted() {
		t.Fatal("not completed")
	}
	// The test environment stops at the first continue-as-new.
	err := env.GetWorkflowError()
	var next request[JobInput]
	if !isContinueAsNew(err, &next) || next.State == nil || next.State.Attempts != 5 {
		t.Fatalf("error %v, state %+v; want a continue-as-new after 5 attempts", err, next.State)
	}
	env2 := s.NewTestWorkflowEnvironment()
	env2.SetTestTimeout(time.Hour)
	if err := Register(env2, "JobDone", newJobWaiter(t, 0, "", &calls)); err != nil {
		t.Fatal(err)
	}
	env2.ExecuteWorkflow(WorkflowName("JobDone"), next)
	var we *waiter.Error
	if err := decode(env2.GetWorkflowError()); !errors.As(err, &we) || !errors.Is(err, waiter.ErrTimeout) || we.Attempts != int(calls.Load()) {
		t.Errorf("second run: %v (%d calls)", err, calls.Load())
	}
}

// TestRefusesOwnJitter: a waiter with a jitter of its own would not replay.
func TestRefusesOwnJitter(t *testing.T) {
	var s testsuite.WorkflowTestSuite
	env := s.NewTestWorkflowEnvironment()
	w, err := waiter.New(jobDone, job(1, "done", new(atomic.Int32)), waiter.WithJitter(func(lo, hi time.Duration) time.Duration { return hi }))
	if err != nil {
		t.Fatal(err)
	}
	if err := Register(env, "JobDone", w); err == nil {
		t.Error("Register accepted a waiter with its own jitter")
	}
}

// TestRefusesBadOptions: Register refuses options out of range, saying
// which.
func TestRefusesBadOptions(t *testing.T) {
	w := newJobWaiter(t, 1, "done", new(atomic.Int32))
	for _, tt := range []struct {
		opt  Option
		want string
	}{
		{WithAttemptsPerRun(0), "WithAttemptsPerRun(0)"},
		{WithCallTimeout(0), "WithCallTimeout(0s)"},
		{WithMode(Mode(7)), "WithMode(Mode(7))"},
		{WithHeartbeatBelow(0), "WithHeartbeatBelow(0s)"},
		{WithHeartbeatTimeout(500 * time.Millisecond), "WithHeartbeatTimeout(500ms)"},
	} {
		var s testsuite.WorkflowTestSuite
		if err := Register(s.NewTestWorkflowEnvironment(), "JobDone", w, tt.opt); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Register with %s: %v", tt.want, err)
		}
	}
}

// pacedJob answers how long to wait before the next poll: the waiter's
// WithDelayFunc reads it.
type pacedJob struct {
	State string
	Next  time.Duration
}

// TestAutoSwitchesByDelay: in ModeAuto, polls whose next delay is under
// the threshold run inside one heartbeating activity; a long delay hands
// the wait back to a durable timer and an activity per poll, and a short
// one back to a heartbeating activity.
func TestAutoSwitchesByDelay(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var calls atomic.Int32
		// Polls 1-3 a second apart, 4-5 two minutes apart, then a second apart again; done at 8.
		op := func(ctx context.Context, in JobInput) (pacedJob, error) {
			switch n := calls.Add(1); {
			case n >= 8:
				return pacedJob{State: "done"}, nil
			case n == 3 || n == 4:
				return pacedJob{State: "running", Next: 2 * time.Minute}, nil
			}
			return pacedJob{State: "running", Next: time.Second}, nil
		}
		w, err := waiter.New(jobDone, op, waiter.WithDelays(time.Second, 2*time.Minute), waiter.WithTelemetry(telemetry.Settings{Off: true}),
			waiter.WithDelayFunc(func(_ int, out pacedJob, _ error) time.Duration { return out.Next }))
		if err != nil {
			t.Fatal(err)
		}
		var s testsuite.WorkflowTestSuite
		env := s.NewTestWorkflowEnvironment()
		env.SetTestTimeout(time.Hour)
		var started []string
		env.SetOnActivityStartedListener(func(info *activity.Info, _ context.Context, _ converter.EncodedValues) {
			started = append(started, info.ActivityType.Name)
		})
		if err := Register(env, "JobDone", w); err != nil {
			t.Fatal(err)
		}
		env.ExecuteWorkflow(WorkflowName("JobDone"), request[JobInput]{Input: JobInput{"j-1"}, MaxWait: time.Hour})
		var out pacedJob
		if err := env.GetWorkflowError(); err != nil || env.GetWorkflowResult(&out) != nil || out.State != "done" {
			t.Fatalf("result %+v, %v; want done", out, err)
		}
		loop, poll := LoopActivityName("JobDone"), ActivityName("JobDone")
		if want := []string{loop, poll, poll, loop}; !slices.Equal(started, want) || calls.Load() != 8 {
			t.Errorf("activities %q, %d calls; want %q, 8 calls", started, calls.Load(), want)
		}
	})
}
