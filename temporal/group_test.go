package temporal

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"go.temporal.io/sdk/testsuite"

	"github.com/waitable/waitable/telemetry"
	"github.com/waitable/waitable/waiter"
)

// groupJob is a job service's answer, with its retry-after hint.
type groupJob struct {
	ID, State string
	Hint      time.Duration
}

func (j groupJob) RetryAfter() time.Duration { return j.Hint }

// jobSpec is how a job answers: final after ready calls (never, if 0),
// and a retry-after hint while it is not.
type jobSpec struct {
	ready int
	final string
	hint  time.Duration
}

// jobs is an operation on jobs by ID, counting the calls of each.
type jobs struct {
	specs map[string]jobSpec
	mu    sync.Mutex
	calls map[string]int
}

func newJobs(specs map[string]jobSpec) *jobs { return &jobs{specs: specs, calls: map[string]int{}} }

func (j *jobs) op(_ context.Context, in JobInput) (groupJob, error) {
	j.mu.Lock()
	j.calls[in.ID]++
	n := j.calls[in.ID]
	j.mu.Unlock()
	sp := j.specs[in.ID]
	if sp.ready > 0 && n >= sp.ready {
		return groupJob{ID: in.ID, State: sp.final}, nil
	}
	return groupJob{ID: in.ID, State: "running", Hint: sp.hint}, nil
}

func (j *jobs) count(id string) int {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.calls[id]
}

func (j *jobs) waiter(t *testing.T, delay time.Duration) *waiter.Waiter[JobInput, groupJob] {
	w, err := waiter.New(jobDone, j.op, waiter.WithDelays(delay, delay), waiter.WithTelemetry(telemetry.Settings{Off: true}))
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// threeJobs: one done on its 3rd call, one failed on its 2nd, one never
// done.
var threeJobs = map[string]jobSpec{"ok": {3, "done", 0}, "bad": {2, "failed", 0}, "slow": {}}

var threeInputs = []JobInput{{"ok"}, {"bad"}, {"slow"}}

// runGroup runs a group workflow in the test environment and returns
// Get's answer and what the run returned.
func runGroup(t *testing.T, env *testsuite.TestWorkflowEnvironment, req groupRequest[JobInput, groupJob]) ([]waiter.Result[groupJob], groupResult[groupJob], error) {
	t.Helper()
	env.ExecuteWorkflow(GroupWorkflowName("JobDone"), req)
	if !env.IsWorkflowCompleted() {
		t.Fatal("the group workflow did not complete")
	}
	var res groupResult[groupJob]
	werr := env.GetWorkflowError()
	if werr == nil {
		if err := env.GetWorkflowResult(&res); err != nil {
			t.Fatal(err)
		}
	}
	out, err := outcomesOf(res, werr)
	return out, res, err
}

func newEnv(t *testing.T, j *jobs, opts ...Option) *testsuite.TestWorkflowEnvironment {
	var s testsuite.WorkflowTestSuite
	env := s.NewTestWorkflowEnvironment()
	env.SetTestTimeout(time.Hour) // in heartbeat mode, of the bubble's virtual time
	if err := Register(env, "JobDone", j.waiter(t, 2*time.Second), opts...); err != nil {
		t.Fatal(err)
	}
	return env
}

// inModes runs f in timer mode, and in heartbeat mode in a synctest
// bubble (its activity sleeps on real time).
func inModes(t *testing.T, f func(t *testing.T, mode Mode)) {
	for _, mode := range []Mode{ModeTimers, ModeHeartbeat} {
		t.Run(mode.String(), func(t *testing.T) {
			if mode == ModeHeartbeat {
				synctest.Test(t, func(t *testing.T) { f(t, mode) })
				return
			}
			f(t, mode)
		})
	}
}

// TestGroupOutcomes: a group of three (done, failed, timed out) ends as
// waiter.WaitAll does in process: each member's outcome, its attempts and
// its calls the same; a member's failure fails neither the others nor the
// workflow.
func TestGroupOutcomes(t *testing.T) {
	// In process, in virtual time.
	var want []waiter.Result[groupJob]
	var wantErr error
	inProc := newJobs(threeJobs)
	synctest.Test(t, func(t *testing.T) {
		want, wantErr = waiter.WaitAll(t.Context(), inProc.waiter(t, 2*time.Second), threeInputs, time.Minute, waiter.GroupOptions{})
	})
	if inProc.count("ok") != 3 || inProc.count("bad") != 2 || inProc.count("slow") < 10 {
		t.Fatalf("in process: calls %v", inProc.calls)
	}
	inModes(t, func(t *testing.T, mode Mode) {
		j := newJobs(threeJobs)
		env := newEnv(t, j, WithMode(mode))
		out, res, err := runGroup(t, env, groupRequest[JobInput, groupJob]{Inputs: threeInputs, MaxWait: time.Minute})
		if env.GetWorkflowError() != nil {
			t.Fatalf("the workflow failed: %v", env.GetWorkflowError())
		}
		if len(out) != 3 {
			t.Fatalf("%d outcomes, want 3", len(out))
		}
		if out[0].Err != nil || out[0].Output.State != "done" {
			t.Errorf("ok: %+v, %v; want done", out[0].Output, out[0].Err)
		}
		var we *waiter.Error
		if !errors.Is(out[1].Err, waiter.ErrFailure) || !errors.As(out[1].Err, &we) || we.Acceptor != 1 || we.Input != "#2" {
			t.Errorf("bad: %v; want a failure, acceptor 1, input #2", out[1].Err)
		}
		if out[1].Output.State != "failed" {
			t.Errorf("bad's output %+v; want its last answer, failed", out[1].Output)
		}
		if !errors.Is(out[2].Err, waiter.ErrTimeout) {
			t.Errorf("slow: %v; want a timeout", out[2].Err)
		}
		var ge *waiter.GroupError
		if !errors.As(err, &ge) || ge.Total != 3 || len(ge.Failed) != 2 || !errors.Is(err, waiter.ErrFailure) || !errors.Is(err, waiter.ErrTimeout) {
			t.Errorf("group error %v; want 2 of 3 failed", err)
		}
		if err.Error() != wantErr.Error() { // both in virtual time: the same elapsed times
			t.Errorf("durable:    %v\nin process: %v", err, wantErr)
		}
		for i, in := range threeInputs {
			id := in.ID
			if got, w := j.count(id), inProc.count(id); got != w {
				t.Errorf("%s: %d calls, in process %d", id, got, w)
			}
			if (out[i].Err == nil) != (want[i].Err == nil) || (out[i].Err != nil && !errors.Is(out[i].Err, reasonOf(want[i].Err))) {
				t.Errorf("%s: %v, in process %v", id, out[i].Err, want[i].Err)
			}
			if errors.As(out[i].Err, &we) && we.Attempts != j.count(id) {
				t.Errorf("%s: the error counts %d attempts, %d calls made", id, we.Attempts, j.count(id))
			}
			if m := res.Members[i]; m.State == nil || m.State.Attempts != j.count(id) || m.State.Deadline.Sub(m.State.Start) != time.Minute {
				t.Errorf("%s: state %+v; want %d attempts and a minute's deadline", id, m.State, j.count(id))
			}
		}
		if s0, s1 := res.Members[0].State, res.Members[1].State; s0 != nil && s1 != nil && s0.Seed == s1.Seed {
			t.Error("two members share a seed")
		}
	})
}

// reasonOf is a wait error's Reason.
func reasonOf(err error) error {
	var we *waiter.Error
	if errors.As(err, &we) {
		return we.Reason
	}
	return err
}

// TestGroupConcurrency: with WithGroupConcurrency(1) the members run one
// after another, each with its own maxWait from its own start.
func TestGroupConcurrency(t *testing.T) {
	j := newJobs(map[string]jobSpec{"a": {2, "done", 0}, "b": {3, "done", 0}, "c": {1, "done", 0}})
	env := newEnv(t, j, WithMode(ModeTimers))
	_, res, err := runGroup(t, env, groupRequest[JobInput, groupJob]{Inputs: []JobInput{{"a"}, {"b"}, {"c"}}, MaxWait: time.Minute, Concurrency: 1})
	if err != nil {
		t.Fatal(err)
	}
	for i := 1; i < len(res.Members); i++ {
		prev, s := res.Members[i-1].State, res.Members[i].State
		prevEnd := prev.Start.Add(time.Duration(prev.Attempts-1) * 2 * time.Second)
		if s.Start.Before(prevEnd) {
			t.Errorf("member %d began at %v, before member %d ended at %v", i, s.Start, i-1, prevEnd)
		}
		if s.Deadline.Sub(s.Start) != time.Minute {
			t.Errorf("member %d: deadline %v after its start, want a minute", i, s.Deadline.Sub(s.Start))
		}
	}
	if res.Members[0].State.Start.Equal(res.Members[2].State.Start) {
		t.Error("the members began together")
	}
}

// TestGroupProgress: the progress query, mid-wait, gives each member's
// attempts, checkpoint and outcome so far.
func TestGroupProgress(t *testing.T) {
	j := newJobs(threeJobs)
	env := newEnv(t, j, WithMode(ModeTimers))
	var p GroupProgress
	var qerr error
	queried := false
	// Polls at 0s, 2s, 4s: at 3s, bad has failed (2nd call), ok and slow
	// have made 2 attempts.
	env.RegisterDelayedCallback(func() {
		queried = true
		v, err := env.QueryWorkflow(QueryGroupProgress)
		if qerr = err; err == nil {
			qerr = v.Get(&p)
		}
	}, 3*time.Second)
	runGroup(t, env, groupRequest[JobInput, groupJob]{Inputs: threeInputs, MaxWait: time.Minute})
	if !queried || qerr != nil {
		t.Fatalf("query: ran %v, %v", queried, qerr)
	}
	if p.Done != 1 || p.Failed != 1 || len(p.Members) != 3 || p.Run != 0 {
		t.Fatalf("progress %+v; want 1 done, 1 failed, of 3, in run 0", p)
	}
	for i, m := range p.Members {
		if m.Name != []string{"#1", "#2", "#3"}[i] || m.Checkpoint == nil || m.Checkpoint.Attempts != 2 || len(m.Attempts) != 2 {
			t.Errorf("member %d: %+v; want #%d with 2 attempts", i, m, i+1)
		}
	}
	if bad := p.Members[1]; !bad.Done || !strings.Contains(bad.Err, "failure") || bad.Attempts[1].State != "failure" {
		t.Errorf("bad: %+v; want done, failed", bad)
	}
	if ok := p.Members[0]; ok.Done || ok.Err != "" || ok.Attempts[1].State != "retry" {
		t.Errorf("ok: %+v; want still waiting", ok)
	}
}

// TestGroupContinueAsNew: once the run's history passes the limit, the
// group stops its members where they stand (a timer, a heartbeating
// activity: its cancellation carries its Checkpoint), waits for them, and
// continues as new with every member's Checkpoint and the ended members'
// outcomes; the next run takes each member on from where it was, its
// attempts numbered on, its deadline kept, no call lost nor made twice.
// In timer mode: the SDK's test environment resolves a cancelled
// activity at once, without the details a heartbeating one hands back,
// and leaves it running; TestGroupServer drains heartbeating activities.
func TestGroupContinueAsNew(t *testing.T) {
	t.Run("timers", func(t *testing.T) {
		mode := ModeTimers
		// Delays of 1s, and 2s and 5s for two jobs that ask so: polls of
		// done at 0, 1, 2, 3s (done), of two at 0, 2, 4s..., of five at
		// 0, 5s...; the history passes the limit at 2.5s, done ends at
		// 3s and the run stops: two has made 2 attempts, five 1.
		specs := map[string]jobSpec{"done": {4, "done", 0}, "two": {0, "", 2 * time.Second}, "five": {0, "", 5 * time.Second}}
		inputs := []JobInput{{"done"}, {"two"}, {"five"}}
		j := newJobs(specs)
		var s testsuite.WorkflowTestSuite
		env := s.NewTestWorkflowEnvironment()
		env.SetTestTimeout(time.Hour)
		w := j.waiter(t, time.Second)
		if err := Register(env, "JobDone", w, WithMode(mode), WithGroupHistoryLimit(500)); err != nil {
			t.Fatal(err)
		}
		env.RegisterDelayedCallback(func() { env.SetCurrentHistoryLength(501) }, 2500*time.Millisecond)
		env.ExecuteWorkflow(GroupWorkflowName("JobDone"), groupRequest[JobInput, groupJob]{Inputs: inputs, MaxWait: 30 * time.Second})
		if !env.IsWorkflowCompleted() {
			t.Fatal("not completed")
		}
		var next groupRequest[JobInput, groupJob]
		if err := env.GetWorkflowError(); !isContinueAsNew(err, &next) {
			t.Fatalf("error %v; want a continue-as-new", err)
		}
		if next.Run != 1 || len(next.Members) != 3 || len(next.Inputs) != 3 || next.Seed == 0 {
			t.Fatalf("next run %+v", next)
		}
		done, two, five := next.Members[0], next.Members[1], next.Members[2]
		if !done.Done || done.End != nil || done.Output.State != "done" || done.State.Attempts != 4 || j.count("done") != 4 {
			t.Errorf("done: %+v (%d calls); want done after 4", done, j.count("done"))
		}
		for _, c := range []struct {
			m        member[groupJob]
			id       string
			attempts int
		}{{two, "two", 2}, {five, "five", 1}} {
			if c.m.Done || c.m.State == nil || c.m.State.Attempts != c.attempts || j.count(c.id) != c.attempts || c.m.State.Next.IsZero() {
				t.Errorf("%s: %+v (%d calls); want stopped after %d attempts, its next call due", c.id, c.m, j.count(c.id), c.attempts)
			}
		}
		if t.Failed() {
			t.FailNow()
		}
		carried := map[string]waiter.Checkpoint{"two": *two.State, "five": *five.State}

		// The next run, from the carried request, on the same clock.
		env2 := s.NewTestWorkflowEnvironment()
		env2.SetTestTimeout(time.Hour)
		env2.SetStartTime(env.Now())
		if err := Register(env2, "JobDone", w, WithMode(mode), WithGroupHistoryLimit(500)); err != nil {
			t.Fatal(err)
		}
		out, res, err := runGroup(t, env2, next)
		if env2.GetWorkflowError() != nil {
			t.Fatalf("second run: %v", env2.GetWorkflowError())
		}
		if out[0].Err != nil || out[0].Output.State != "done" {
			t.Errorf("done, carried over: %+v, %v", out[0].Output, out[0].Err)
		}
		for i, id := range []string{"two", "five"} {
			var we *waiter.Error
			m := res.Members[i+1]
			if !errors.Is(out[i+1].Err, waiter.ErrTimeout) || !errors.As(out[i+1].Err, &we) || we.Attempts != j.count(id) || we.Attempts <= carried[id].Attempts {
				t.Errorf("%s: %v (%d calls); want a timeout, every call counted once, attempts numbered on from %d", id, out[i+1].Err, j.count(id), carried[id].Attempts)
			}
			if !m.State.Deadline.Equal(carried[id].Deadline) || m.State.Seed != carried[id].Seed {
				t.Errorf("%s: deadline %v, seed %x; carried %v, %x", id, m.State.Deadline, m.State.Seed, carried[id].Deadline, carried[id].Seed)
			}
		}
		var ge *waiter.GroupError
		if !errors.As(err, &ge) || len(ge.Failed) != 2 || ge.Total != 3 {
			t.Errorf("group error %v; want 2 of 3", err)
		}
	})
}

// TestGroupCancel: cancelling the group cancels every member that has
// not ended (those running, and those not begun for the concurrency
// limit); the ended keep their outcomes; Get's errors match
// context.Canceled, each member's and the group's. In timer mode, as
// TestGroupContinueAsNew.
func TestGroupCancel(t *testing.T) {
	t.Run("timers", func(t *testing.T) {
		mode := ModeTimers
		// At most 3 at once: ok (done on its 2nd call, at 2s), s1 and s2
		// begin at once, s3 when ok ends, s4 never.
		specs := map[string]jobSpec{"ok": {2, "done", 0}, "s1": {}, "s2": {}, "s3": {}, "s4": {}}
		inputs := []JobInput{{"ok"}, {"s1"}, {"s2"}, {"s3"}, {"s4"}}
		j := newJobs(specs)
		env := newEnv(t, j, WithMode(mode))
		env.RegisterDelayedCallback(env.CancelWorkflow, 5*time.Second)
		out, _, err := runGroup(t, env, groupRequest[JobInput, groupJob]{Inputs: inputs, MaxWait: time.Minute, Concurrency: 3})
		var canceled interface{ HasDetails() bool }
		if werr := env.GetWorkflowError(); !errors.As(werr, &canceled) {
			t.Fatalf("workflow error %v; want a cancellation", werr)
		}
		if len(out) != 5 {
			t.Fatalf("outcomes %v, %v; want 5", out, err)
		}
		if out[0].Err != nil || out[0].Output.State != "done" {
			t.Errorf("ok: %+v, %v; want done", out[0].Output, out[0].Err)
		}
		for i, in := range inputs[1:] {
			var we *waiter.Error
			if !errors.Is(out[i+1].Err, context.Canceled) || !errors.As(out[i+1].Err, &we) || we.Attempts != j.count(in.ID) {
				t.Errorf("%s: %v (%d calls); want cancelled, every call counted", in.ID, out[i+1].Err, j.count(in.ID))
			}
		}
		if j.count("s3") == 0 || j.count("s4") != 0 {
			t.Errorf("s3 made %d calls, s4 %d; want s3 begun, s4 not", j.count("s3"), j.count("s4"))
		}
		var ge *waiter.GroupError
		if !errors.As(err, &ge) || len(ge.Failed) != 4 || !errors.Is(err, context.Canceled) {
			t.Errorf("group error %v; want 4 of 5 cancelled", err)
		}
	})
}

// TestGroupEmpty: a group of no inputs ends at once, with no outcome;
// one with no maxWait is refused.
func TestGroupEmpty(t *testing.T) {
	j := newJobs(nil)
	out, _, err := runGroup(t, newEnv(t, j), groupRequest[JobInput, groupJob]{MaxWait: time.Minute})
	if err != nil || len(out) != 0 {
		t.Errorf("empty group: %v, %v", out, err)
	}
	env := newEnv(t, j)
	env.ExecuteWorkflow(GroupWorkflowName("JobDone"), groupRequest[JobInput, groupJob]{Inputs: threeInputs})
	if err := env.GetWorkflowError(); err == nil || !strings.Contains(err.Error(), "maxWait") || len(j.calls) != 0 {
		t.Errorf("no maxWait: %v, calls %v; want refused", err, j.calls)
	}
}
