package temporal

import (
	"context"
	"math/rand/v2"
	"strings"
	"time"

	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"
)

// Wait is a durable wait started with [Start].
type Wait[O any] struct {
	c   client.Client
	run client.WorkflowRun
}

// Start starts a durable wait of the waiter registered under name on the
// workers of opts.TaskQueue, for input in and at most maxWait. Give
// opts.ID to make the start idempotent (Temporal refuses a second running
// workflow of one ID).
func Start[I, O any](ctx context.Context, c client.Client, name string, in I, maxWait time.Duration, opts client.StartWorkflowOptions) (*Wait[O], error) {
	req := request[I]{Input: in, MaxWait: maxWait, Form: requestForm, Seed: rand.Uint64() | 1}
	run, err := c.ExecuteWorkflow(ctx, opts, WorkflowName(name), req)
	if err != nil {
		return nil, err
	}
	return &Wait[O]{c: c, run: run}, nil
}

// Attach returns the wait of a workflow started earlier, by its ID (and
// run ID, or "" for the latest run).
func Attach[O any](ctx context.Context, c client.Client, workflowID, runID string) *Wait[O] {
	return &Wait[O]{c: c, run: c.GetWorkflow(ctx, workflowID, runID)}
}

// ID returns the wait's workflow ID.
func (w *Wait[O]) ID() string { return w.run.GetID() }

// Get blocks until the wait ends and returns its output, or an error of
// the in-process kinds: errors.Is(err, waiter.ErrTimeout) and
// errors.As(err, new(*waiter.Error)) work as they do for Waiter.Wait. A
// wait that continued as new is followed to its end.
func (w *Wait[O]) Get(ctx context.Context) (O, error) {
	var out O
	err := w.run.GetWithOptions(ctx, &out, client.WorkflowRunGetOptions{})
	return out, decode(err)
}

// Progress queries the wait's attempts (of its current workflow run) and
// its checkpoint. While the wait polls inside a heartbeating activity,
// the checkpoint is the one of its latest heartbeat, and Attempts ends
// with the latest attempt (those before it in the same activity are
// added when the activity hands the wait back). Heartbeats are read with
// Temporal's default data converter: with a converter of your own, the
// checkpoint is the workflow's, as of the activity's start.
func (w *Wait[O]) Progress(ctx context.Context) (Progress, error) {
	v, err := w.c.QueryWorkflow(ctx, w.run.GetID(), "", QueryProgress)
	if err != nil {
		return Progress{}, err
	}
	var p Progress
	if err := v.Get(&p); err != nil {
		return p, err
	}
	for _, b := range runningBeats(ctx, w.c, w.run.GetID()) {
		if b.State.Attempts > p.Checkpoint.Attempts {
			p.Checkpoint = b.State
			if b.Last != nil {
				p.Attempts = append(p.Attempts, *b.Last)
			}
		}
	}
	return p, nil
}

// Cancel cancels the wait and the call in flight; Get then returns an
// error matching context.Canceled.
func (w *Wait[O]) Cancel(ctx context.Context) error {
	return w.c.CancelWorkflow(ctx, w.run.GetID(), "")
}

// runningBeats returns the latest heartbeats of the workflow's running
// polling activities (none if it cannot tell: the query's answer then
// stands). Heartbeats are read with Temporal's default data converter.
func runningBeats(ctx context.Context, c client.Client, workflowID string) []beat {
	desc, err := c.DescribeWorkflowExecution(ctx, workflowID, "")
	if err != nil {
		return nil
	}
	var beats []beat
	for _, pa := range desc.GetPendingActivities() {
		if !strings.HasPrefix(pa.GetActivityType().GetName(), "waitable.Loop.") || pa.GetHeartbeatDetails() == nil {
			continue
		}
		var b beat
		if converter.GetDefaultDataConverter().FromPayloads(pa.GetHeartbeatDetails(), &b) == nil {
			beats = append(beats, b)
		}
	}
	return beats
}
