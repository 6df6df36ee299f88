package servertest

import (
	"errors"
	"strings"
	"testing"
	"time"

	"go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/server/temporaltest"

	"github.com/waitable/waitable/temporal"
	"github.com/waitable/waitable/waiter"
)

// TestGroupServer: against a real Temporal server in process, a group in
// the default mode (its polls inside heartbeating activities) with a
// member that fails: each member's outcome, on the client that started
// it and on another that attaches by ID. A history limit of 10 events
// makes each run drain as soon as a member ends, cancelling the others'
// heartbeating activities mid-wait: their cancellations carry their
// checkpoints, so that no attempt is lost nor made twice across the runs.
func TestGroupServer(t *testing.T) {
	ts := temporaltest.NewServer(temporaltest.WithT(t))
	c := ts.GetDefaultClient()
	j := newJobs(map[string]jobSpec{"ok": {5, "done"}, "bad": {2, "failed"}, "slow": {}})
	w := j.waiter(t, 100*time.Millisecond)
	ts.NewWorker("groups", func(r worker.Registry) {
		if err := temporal.Register(r, "JobDone", w, temporal.WithGroupHistoryLimit(10)); err != nil {
			t.Error(err)
		}
	})
	ctx := t.Context()
	g, err := temporal.StartGroup[JobInput, groupJob](ctx, c, "JobDone", []JobInput{{"ok"}, {"bad"}, {"slow"}}, 3*time.Second,
		client.StartWorkflowOptions{ID: "group-1", TaskQueue: "groups"})
	if err != nil {
		t.Fatal(err)
	}
	desc, err := c.DescribeWorkflowExecution(ctx, g.ID(), "")
	if err != nil {
		t.Fatal(err)
	}
	firstRun := desc.GetWorkflowExecutionInfo().GetExecution().GetRunId() // Get follows the runs
	var p temporal.GroupProgress
	waitFor(t, "the group's progress: bad failed, in a later run, slow polling", func() bool {
		var err error
		p, err = g.Progress(ctx)
		return err == nil && p.Run >= 1 && len(p.Members) == 3 && p.Members[1].Done &&
			p.Members[2].Checkpoint != nil && p.Members[2].Checkpoint.Attempts >= 3
	})
	if bad := p.Members[1]; !strings.Contains(bad.Err, "failure") || p.Failed < 1 {
		t.Errorf("progress: bad %+v, %d failed; want its failure", bad, p.Failed)
	}
	check := func(who string, out []waiter.Result[groupJob], err error) {
		t.Helper()
		if len(out) != 3 {
			t.Fatalf("%s: %v, %v; want 3 outcomes", who, out, err)
		}
		if out[0].Err != nil || out[0].Output.State != "done" {
			t.Errorf("%s: ok %+v, %v; want done", who, out[0].Output, out[0].Err)
		}
		var we *waiter.Error
		if !errors.Is(out[1].Err, waiter.ErrFailure) || !errors.As(out[1].Err, &we) || we.Acceptor != 1 || we.Attempts != 2 || we.Input != "#2" {
			t.Errorf("%s: bad %v; want a failure, acceptor 1, after 2 attempts", who, out[1].Err)
		}
		if !errors.Is(out[2].Err, waiter.ErrTimeout) || !errors.As(out[2].Err, &we) || we.Attempts != j.count("slow") || we.Elapsed < 2*time.Second || we.Elapsed > 4*time.Second {
			t.Errorf("%s: slow %v (%d calls); want a timeout at its deadline, every call counted once", who, out[2].Err, j.count("slow"))
		}
		var ge *waiter.GroupError
		if !errors.As(err, &ge) || len(ge.Failed) != 2 || ge.Total != 3 {
			t.Errorf("%s: group error %v; want 2 of 3", who, err)
		}
	}
	out, err := g.Get(ctx)
	check("Get", out, err)
	if j.count("ok") != 5 || j.count("bad") != 2 {
		t.Errorf("calls %v; want ok 5, bad 2", j.calls)
	}
	other := ts.NewClientWithOptions(client.Options{})
	defer other.Close()
	out, err = temporal.AttachGroup[groupJob](ctx, other, g.ID(), "").Get(ctx)
	check("temporal.AttachGroup", out, err)
	first, err := c.DescribeWorkflowExecution(ctx, g.ID(), firstRun)
	if err != nil || first.GetWorkflowExecutionInfo().GetStatus() != enums.WORKFLOW_EXECUTION_STATUS_CONTINUED_AS_NEW {
		t.Errorf("the first run: %v, %v; want continued as new", first.GetWorkflowExecutionInfo().GetStatus(), err)
	}
}
