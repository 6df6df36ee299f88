package temporal

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"time"

	"go.temporal.io/sdk/client"
	sdktemporal "go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/waitable/waitable/internal/waitname"
	"github.com/waitable/waitable/waiter"
)

// GroupWorkflowName is the name of the workflow that runs a group of
// waits ([StartGroup]) of the waiter registered under name.
func GroupWorkflowName(name string) string { return "waitable.Group." + name }

// QueryGroupProgress is the query that returns a group's [GroupProgress].
const QueryGroupProgress = "waitable.group-progress"

// DefaultGroupHistoryLimit is the number of history events after which a
// group's workflow run continues as new (Temporal warns at 10,240 events
// and refuses a run's history past 51,200).
const DefaultGroupHistoryLimit = 10_000

// WithGroupHistoryLimit sets the number of history events after which a
// group's workflow run brings its members to a halt and continues as new
// (default DefaultGroupHistoryLimit). A run also does when Temporal
// suggests it (its history's size). Every run makes at least one attempt
// before it continues as new, however small the limit. The limit decides
// the workflow's commands: change it only while no group runs, or a
// running group's replay on a worker with another limit may decide
// otherwise than it ran (Temporal's nondeterminism error).
func WithGroupHistoryLimit(n int) Option { return func(o *options) { o.historyLimit = n } }

// groupAttemptsKept is how many of a member's latest attempts its
// progress keeps.
const groupAttemptsKept = 20

// GroupOption configures [StartGroup].
type GroupOption func(*groupOptions)

type groupOptions struct {
	concurrency int
}

// WithGroupConcurrency runs at most n of the group's waits at once (n <=
// 0: all of them, the default). Further waits start, in the order of the
// inputs, as earlier ones end, as [waiter.GroupOptions] Concurrency does in
// process: a wait's maxWait counts from its own start.
func WithGroupConcurrency(n int) GroupOption {
	return func(o *groupOptions) { o.concurrency = n }
}

// groupRequest is a group workflow's input.
type groupRequest[I, O any] struct {
	Inputs      []I
	MaxWait     time.Duration
	Concurrency int `json:",omitempty"`
	// Set when a run continues an earlier one: the runs before it, the
	// group's seed (each member's is drawn from it), and every member as
	// the run left it.
	Run     int         `json:",omitempty"`
	Seed    uint64      `json:",omitempty"`
	Members []member[O] `json:",omitempty"`
	// Form is requestForm for the requests of this version of
	// StartGroup, which draw the group's Seed (see request.Form).
	Form int `json:",omitempty"`
}

// member is one wait of a group, as the workflow keeps it, hands it to
// its next run and returns it.
type member[O any] struct {
	Name string
	// State is the wait's checkpoint; nil until it begins.
	State *waiter.Checkpoint `json:",omitempty"`
	// Output is the last output observed, if HaveOutput.
	Output     O
	HaveOutput bool `json:",omitempty"`
	// Done reports that the wait ended: End is then nil for success, or
	// its error.
	Done       bool     `json:",omitempty"`
	End        *details `json:",omitempty"`
	EndMessage string   `json:",omitempty"`
}

// groupResult is a group workflow's result: every member, in the order
// of the inputs.
type groupResult[O any] struct {
	Members []member[O]
}

// GroupProgress is a running group's progress, as [GroupWait.Progress]
// reports it.
type GroupProgress struct {
	// Run counts the workflow runs before the current one (each continued
	// as new).
	Run int
	// Members are the group's waits, in the order of the inputs.
	Members []MemberProgress
	// Done counts the waits that ended, and Failed those of them that did
	// not succeed.
	Done, Failed int
}

// MemberProgress is one wait of a group.
type MemberProgress struct {
	// Name is the wait's name: its input's text for strings, numbers and
	// fmt.Stringers, "#n" (its order, from 1) otherwise, as in process
	// (see [waiter.Go]).
	Name string
	// Checkpoint is the wait's Checkpoint (nil until it begins): its attempts
	// so far (across runs), deadline and next call.
	Checkpoint *waiter.Checkpoint `json:",omitempty"`
	// Attempts are its latest attempts in the current run (at most 20).
	Attempts []Attempt `json:",omitempty"`
	// Done reports that the wait ended, and Err how, if it did not
	// succeed (its *waiter.Error's message).
	Done bool
	Err  string `json:",omitempty"`
}

// group is the workflow of a group of waits: each member a wait of its
// own (its own checkpoint, deadline and seed) in a coroutine, stepped as a
// single wait is (see step), at most req.Concurrency at once. A member
// that fails fails neither the others nor the workflow, which returns
// every member's outcome.
//
// When the run's history reaches the limit (WithGroupHistoryLimit), or
// Temporal suggests it, the run drains: it cancels halt, which ends the
// members' timers and heartbeating activities (whose cancellation carries
// their checkpoint), lets the poll activities in flight end, and, once every
// member has stopped, continues as new with every member as it stands.
// Cancelling the workflow cancels every member that has not ended; the
// workflow then ends cancelled, its details the members' outcomes.
func (d *driver[I, O]) group(ctx workflow.Context, req groupRequest[I, O]) (groupResult[O], error) {
	n := len(req.Inputs)
	if req.Members == nil { // the first run
		if _, err := d.w.Begin(workflow.Now(ctx), req.MaxWait, 1); err != nil {
			return groupResult[O]{}, sdktemporal.NewNonRetryableApplicationError(err.Error(), "waitable.InvalidOption", nil)
		}
		if n == 0 {
			return groupResult[O]{Members: []member[O]{}}, nil
		}
		if req.Form < requestForm || req.Seed == 0 { // started by an earlier version
			if err := workflow.SideEffect(ctx, func(workflow.Context) any { return rand.Uint64() }).Get(&req.Seed); err != nil {
				return groupResult[O]{}, err
			}
		}
		req.Members = make([]member[O], n)
		for i, in := range req.Inputs {
			req.Members[i].Name = waitname.For(in, i+1)
		}
	} else if len(req.Members) != n {
		return groupResult[O]{}, sdktemporal.NewNonRetryableApplicationError(
			fmt.Sprintf("temporal: a group run carries %d members for %d inputs", len(req.Members), n), "waitable.BadRequest", nil)
	}
	g := &groupRun[I, O]{d: d, req: &req, attempts: make([][]Attempt, n)}
	if err := workflow.SetQueryHandler(ctx, QueryGroupProgress, g.progress); err != nil {
		return groupResult[O]{}, err
	}
	var queue []int // the members left, in order
	for i, m := range req.Members {
		if !m.Done {
			queue = append(queue, i)
		}
	}
	limit := req.Concurrency
	if limit <= 0 || limit > len(queue) {
		limit = len(queue)
	}
	next, active := 0, limit
	for range limit {
		workflow.Go(ctx, func(ctx workflow.Context) {
			defer func() { active-- }()
			// A coroutine blocks on contexts of its own: its halt is
			// cancelled when the run drains.
			halt, stop := workflow.WithCancel(ctx)
			g.stops = append(g.stops, stop)
			for next < len(queue) && !g.halted && ctx.Err() == nil {
				i := queue[next]
				next++
				g.member(ctx, halt, i)
			}
		})
	}
	all, _ := workflow.NewDisconnectedContext(ctx) // the members end even once ctx is cancelled
	_ = workflow.Await(all, func() bool { return active == 0 })
	res := groupResult[O]{Members: req.Members}
	left := false
	for i := range req.Members {
		if m := &req.Members[i]; !m.Done {
			left = true
			if ctx.Err() != nil {
				g.cancelled(ctx, m)
			}
		}
	}
	switch {
	case !left:
		return res, nil
	case ctx.Err() != nil:
		return res, sdktemporal.NewCanceledError(res)
	}
	req.Run++
	return groupResult[O]{}, workflow.NewContinueAsNewError(ctx, GroupWorkflowName(d.name), req)
}

// groupRun is a group workflow's run.
type groupRun[I, O any] struct {
	d        *driver[I, O]
	req      *groupRequest[I, O]
	attempts [][]Attempt // each member's latest, for its progress
	made     int         // the attempts made in this run
	halted   bool        // the run drains
	stops    []workflow.CancelFunc
}

// member runs member i until it ends, or the run drains (halt is
// cancelled: the member stops where it stands), or the workflow is
// cancelled.
func (g *groupRun[I, O]) member(ctx, halt workflow.Context, i int) {
	d, m, in := g.d, &g.req.Members[i], g.req.Inputs[i]
	if m.State == nil {
		s, err := d.w.Begin(workflow.Now(ctx), g.req.MaxWait, memberSeed(g.req.Seed, i))
		if err != nil { // the workflow checked maxWait: not expected
			dd := toDetails(err)
			m.Done, m.End, m.EndMessage = true, &dd, err.Error()
			return
		}
		m.State = &s
	}
	for {
		if g.draining(ctx) {
			return
		}
		st, err := d.step(ctx, halt, in, m.State, &g.attempts[i], d.o.attemptsPerRun, g.req.Form)
		g.made += st.attempts
		if k := len(g.attempts[i]) - groupAttemptsKept; k > 0 {
			g.attempts[i] = slices.Delete(g.attempts[i], 0, k)
		}
		if st.haveOutput {
			m.Output, m.HaveOutput = st.output, true
		}
		switch {
		case err == nil && st.done:
			m.Done, m.End, m.EndMessage = true, st.end, st.endMessage
			g.draining(ctx) // the others may have to stop
			return
		case err == nil:
		case ctx.Err() != nil: // the workflow is cancelled
			g.cancelled(ctx, m)
			return
		case halt.Err() != nil: // the run drains: the member stops here
			return
		default: // step's errors are cancellations: not expected
			dd := toDetails(err)
			m.Done, m.End, m.EndMessage = true, &dd, err.Error()
			return
		}
	}
}

// draining reports whether the run drains, and starts draining it once
// its history reaches the limit (after at least one attempt in the run,
// so that every run gets on).
func (g *groupRun[I, O]) draining(ctx workflow.Context) bool {
	if g.halted || ctx.Err() != nil {
		return true
	}
	if g.made == 0 {
		return false
	}
	info := workflow.GetInfo(ctx)
	if info.GetCurrentHistoryLength() < g.d.o.historyLimit && !info.GetContinueAsNewSuggested() {
		return false
	}
	g.halted = true
	for _, stop := range g.stops {
		stop()
	}
	return true
}

// cancelled ends m, which the workflow's cancellation stopped, with the
// error a cancelled single wait ends with.
func (g *groupRun[I, O]) cancelled(ctx workflow.Context, m *member[O]) {
	now := workflow.Now(ctx)
	s := waiter.Checkpoint{Start: now} // a member that never began
	if m.State != nil {
		s = *m.State
	}
	err := g.d.cancelled(s, now)
	var dd details
	var canceled *sdktemporal.CanceledError
	if !errors.As(err, &canceled) || canceled.Details(&dd) != nil {
		dd = toDetails(err)
	}
	m.Done, m.End, m.EndMessage = true, &dd, err.Error()
}

// progress answers QueryGroupProgress.
func (g *groupRun[I, O]) progress() (GroupProgress, error) {
	p := GroupProgress{Run: g.req.Run, Members: make([]MemberProgress, len(g.req.Members))}
	for i, m := range g.req.Members {
		mp := MemberProgress{Name: m.Name, Done: m.Done, Attempts: slices.Clone(g.attempts[i])}
		if m.State != nil {
			s := *m.State
			mp.Checkpoint = &s
		}
		if m.Done {
			p.Done++
			if m.End != nil {
				p.Failed++
				mp.Err = m.EndMessage
			}
		}
		p.Members[i] = mp
	}
	return p, nil
}

// memberSeed is member i's seed, drawn from the group's (splitmix64).
func memberSeed(seed uint64, i int) uint64 {
	z := seed + uint64(i+1)*0x9e3779b97f4a7c15
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return (z ^ (z >> 31)) | 1
}

// GroupWait is a durable group of waits started with [StartGroup]: one
// workflow, a wait per input.
type GroupWait[O any] struct {
	c   client.Client
	run client.WorkflowRun
}

// StartGroup starts one workflow that waits, with the waiter registered
// under name on the workers of opts.TaskQueue, for every input, at most
// maxWait each: a durable [waiter.WaitAll]. Each input is a wait of its
// own (its own attempts, deadline and delays), and a wait that fails
// fails neither the others nor the workflow. Give opts.ID to make the
// start idempotent.
func StartGroup[I, O any](ctx context.Context, c client.Client, name string, inputs []I, maxWait time.Duration, opts client.StartWorkflowOptions, gopts ...GroupOption) (*GroupWait[O], error) {
	var o groupOptions
	for i, opt := range gopts {
		if opt == nil {
			return nil, fmt.Errorf("temporal: StartGroup: option %d of %d is nil", i+1, len(gopts))
		}
		opt(&o)
	}
	run, err := c.ExecuteWorkflow(ctx, opts, GroupWorkflowName(name), groupRequest[I, O]{Inputs: inputs, MaxWait: maxWait, Concurrency: o.concurrency,
		Form: requestForm, Seed: rand.Uint64() | 1})
	if err != nil {
		return nil, err
	}
	return &GroupWait[O]{c: c, run: run}, nil
}

// AttachGroup returns the group of a workflow started earlier, by its ID
// (and run ID, or "" for the latest run).
func AttachGroup[O any](ctx context.Context, c client.Client, workflowID, runID string) *GroupWait[O] {
	return &GroupWait[O]{c: c, run: c.GetWorkflow(ctx, workflowID, runID)}
}

// ID returns the group's workflow ID.
func (g *GroupWait[O]) ID() string { return g.run.GetID() }

// Get blocks until every wait of the group has ended and returns their
// outcomes in the order of the inputs, as [waiter.WaitAll] does: each
// wait's last output observed and its error, nil or a *waiter.Error
// (errors.Is(err, waiter.ErrFailure) and the like work on each), and a
// [*waiter.GroupError] listing the waits that did not succeed, or nil if
// all did. A group that was cancelled returns its outcomes too: the waits
// that had ended keep theirs, the others an error matching
// context.Canceled, which the GroupError then matches as well. A group
// that continued as new is followed to its end. Any other failure of the
// workflow (terminated, timed out) is returned as it is, with no
// outcomes.
func (g *GroupWait[O]) Get(ctx context.Context) ([]waiter.Result[O], error) {
	var res groupResult[O]
	err := g.run.GetWithOptions(ctx, &res, client.WorkflowRunGetOptions{})
	return outcomesOf(res, err)
}

// outcomesOf is Get's answer for what a group's workflow returned: res,
// or err (a cancelled group's carries res as its details).
func outcomesOf[O any](res groupResult[O], err error) ([]waiter.Result[O], error) {
	if err != nil {
		var canceled *sdktemporal.CanceledError
		if !errors.As(err, &canceled) || !canceled.HasDetails() || canceled.Details(&res) != nil {
			return nil, err
		}
	}
	return res.outcomes()
}

// outcomes are the members' outcomes and the group's error.
func (r groupResult[O]) outcomes() ([]waiter.Result[O], error) {
	out := make([]waiter.Result[O], len(r.Members))
	var failed []error
	for i, m := range r.Members {
		out[i].Output = m.Output
		if m.End != nil {
			out[i].Err = m.err()
			failed = append(failed, out[i].Err)
		}
	}
	if len(failed) > 0 {
		return out, &waiter.GroupError{Failed: failed, Total: len(out)}
	}
	return out, nil
}

// err is m's error (m.End must be set) as a *waiter.Error naming m.
func (m member[O]) err() error {
	err := encodeDetails(m.EndMessage, *m.End)
	if reasons[m.End.Reason] == context.Canceled {
		err = sdktemporal.NewCanceledError(*m.End)
	}
	err = decode(err)
	if we, ok := err.(*waiter.Error); ok && we.Input == "" {
		we.Input = m.Name
	}
	return err
}

// Progress queries the group's waits: each one's checkpoint, latest
// attempts, and outcome if it ended. While a wait polls inside a
// heartbeating activity, its checkpoint is the one of the activity's
// latest heartbeat, as for [Wait.Progress] (read with Temporal's default
// data converter).
func (g *GroupWait[O]) Progress(ctx context.Context) (GroupProgress, error) {
	v, err := g.c.QueryWorkflow(ctx, g.run.GetID(), "", QueryGroupProgress)
	if err != nil {
		return GroupProgress{}, err
	}
	var p GroupProgress
	if err := v.Get(&p); err != nil {
		return p, err
	}
	for _, b := range runningBeats(ctx, g.c, g.run.GetID()) {
		// A member's seed is its own: it says whose activity this is.
		for i := range p.Members {
			m := &p.Members[i]
			if c := m.Checkpoint; c != nil && !m.Done && c.Seed == b.State.Seed && b.State.Attempts > c.Attempts {
				s := b.State
				m.Checkpoint = &s
				if b.Last != nil {
					m.Attempts = append(m.Attempts, *b.Last)
				}
			}
		}
	}
	return p, nil
}

// Cancel cancels the group: every wait that has not ended, and the calls
// in flight. Get then returns the outcomes, those of the cancelled waits
// matching context.Canceled.
func (g *GroupWait[O]) Cancel(ctx context.Context) error {
	return g.c.CancelWorkflow(ctx, g.run.GetID(), "")
}
