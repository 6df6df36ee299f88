package temporal

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"go.temporal.io/sdk/activity"
	sdktemporal "go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/waitable/waitable/classify"
	"github.com/waitable/waitable/waiter"
)

// DefaultAttemptsPerRun is how many attempts a workflow run makes before it
// continues as new: each attempt adds about a dozen history events.
const DefaultAttemptsPerRun = 200

// QueryProgress is the query that returns a wait's [Progress].
const QueryProgress = "waitable.progress"

// WorkflowName and ActivityName are the names a waiter registered under
// name runs as.
func WorkflowName(name string) string { return "waitable.Wait." + name }

// ActivityName is the name of the activity that makes one call of the
// waiter registered under name.
func ActivityName(name string) string { return "waitable.Poll." + name }

// Option configures Register.
type Option func(*options)

type options struct {
	attemptsPerRun int
	callTimeout    time.Duration
}

// WithAttemptsPerRun sets how many attempts a workflow run makes before it
// continues as new (default DefaultAttemptsPerRun).
func WithAttemptsPerRun(n int) Option { return func(o *options) { o.attemptsPerRun = n } }

// WithCallTimeout bounds each call (the activity's start-to-close
// timeout; default: a minute, or the time left if less). A worker that
// dies mid-call is noticed after it, and the call is made again elsewhere.
func WithCallTimeout(d time.Duration) Option { return func(o *options) { o.callTimeout = d } }

// request is the workflow's input.
type request[I any] struct {
	Input   I
	MaxWait time.Duration
	// State is set when a run continues an earlier one.
	State *waiter.State `json:",omitempty"`
}

// Attempt is one attempt of a durable wait, as Progress reports it.
type Attempt struct {
	Number   int
	Start    time.Time
	Latency  time.Duration
	State    string // success, failure or retry
	Acceptor int
	Matcher  string `json:",omitempty"`
	Err      string `json:",omitempty"`
	// NextDelay is the durable timer before the next attempt.
	NextDelay time.Duration
}

// Progress is a running wait's attempts (those of the current workflow
// run; Checkpoint.Attempts counts them all) and its checkpoint.
type Progress struct {
	Attempts   []Attempt
	Checkpoint waiter.State
}

// poll is what the activity returns: the output and the judged call, as
// data.
type poll[O any] struct {
	Output     O
	Latency    time.Duration
	Err        string `json:",omitempty"`
	Acceptor   int
	Matcher    string `json:",omitempty"`
	State      classify.State
	Message    string `json:",omitempty"`
	Failure    string `json:",omitempty"`
	Retry      bool
	Quota      bool
	Refusal    string        `json:",omitempty"`
	RetryAfter time.Duration `json:",omitempty"` // the least delay before the next call
	Hint       time.Duration `json:",omitempty"` // the service's own hint of when to call again
	Delay      time.Duration `json:",omitempty"` // waiter.WithDelayFunc's choice
	Identity   string        `json:",omitempty"` // waiter.WithIdentity's value
}

// errString is an error carried across Temporal as its message.
type errString string

func (e errString) Error() string { return string(e) }

func asErr(s string) error {
	if s == "" {
		return nil
	}
	return errString(s)
}

func msg(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// Register registers, on a Temporal worker, the workflow and the activity
// that run w's waits under name. It refuses a waiter whose delays are not
// replayable (one given waiter.WithJitter).
func Register[I, O any](r worker.Registry, name string, w *waiter.Waiter[I, O], opts ...Option) error {
	if w == nil || name == "" {
		return errors.New("temporal: Register needs a waiter and a name")
	}
	if !w.Replayable() {
		return fmt.Errorf("temporal: waiter %s has a jitter of its own (waiter.WithJitter): its delays would differ on replay; use the default jitter, which draws from the wait's State", name)
	}
	o := options{attemptsPerRun: DefaultAttemptsPerRun, callTimeout: time.Minute}
	for _, opt := range opts {
		opt(&o)
	}
	if o.attemptsPerRun < 1 || o.callTimeout <= 0 {
		return errors.New("temporal: WithAttemptsPerRun must be at least 1 and WithCallTimeout positive")
	}
	d := &driver[I, O]{name: name, w: w, o: o}
	r.RegisterWorkflowWithOptions(d.workflow, workflow.RegisterOptions{Name: WorkflowName(name)})
	r.RegisterActivityWithOptions(d.activity, activity.RegisterOptions{Name: ActivityName(name)})
	return nil
}

type driver[I, O any] struct {
	name string
	w    *waiter.Waiter[I, O]
	o    options
}

// activity makes one call and judges it.
func (d *driver[I, O]) activity(ctx context.Context, in I) (poll[O], error) {
	out, p, _ := d.w.Call(ctx, in, nil)
	return poll[O]{Output: out, Latency: p.Latency, Err: msg(p.Err), Acceptor: p.Acceptor, Matcher: p.Matcher, State: p.State,
		Message: p.Message, Failure: msg(p.Failure), Retry: p.Advice.Retry, Quota: p.Advice.Quota, Refusal: msg(p.Advice.Refusal),
		RetryAfter: p.Advice.MinDelay, Hint: p.Advice.Hint, Delay: p.Delay, Identity: p.Identity}, nil
}

// workflow is the wait: the core's Begin and Step, an activity per call,
// a durable timer per delay.
func (d *driver[I, O]) workflow(ctx workflow.Context, req request[I]) (O, error) {
	var zero O
	var s waiter.State
	if req.State != nil {
		s = *req.State
	} else {
		var seed uint64
		if err := workflow.SideEffect(ctx, func(workflow.Context) any { return rand.Uint64() | 1 }).Get(&seed); err != nil {
			return zero, err
		}
		var err error
		if s, err = d.w.Begin(workflow.Now(ctx), req.MaxWait, seed); err != nil {
			return zero, sdktemporal.NewNonRetryableApplicationError(err.Error(), "waitable.InvalidOption", nil)
		}
	}
	var attempts []Attempt
	if err := workflow.SetQueryHandler(ctx, QueryProgress, func() (Progress, error) {
		return Progress{Attempts: attempts, Checkpoint: s}, nil
	}); err != nil {
		return zero, err
	}
	if s.Attempts == 0 && !s.Next.IsZero() { // waiter.WithInitialDelay
		if err := workflow.Sleep(ctx, s.Next.Sub(workflow.Now(ctx))); err != nil {
			return zero, d.cancelled(s, workflow.Now(ctx))
		}
	}
	for run := 0; ; run++ {
		if run == d.o.attemptsPerRun {
			next := req
			next.State = &s
			return zero, workflow.NewContinueAsNewError(ctx, WorkflowName(d.name), next)
		}
		start := workflow.Now(ctx)
		left := s.Deadline.Sub(start)
		timeout := min(d.o.callTimeout, max(left, time.Second))
		actx := workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
			StartToCloseTimeout: timeout,
			// A call is one attempt; the core decides whether to make
			// another. Temporal retries only a call whose worker was lost.
			RetryPolicy: &sdktemporal.RetryPolicy{MaximumAttempts: 3, NonRetryableErrorTypes: []string{"waitable.Call"}},
		})
		var p poll[O]
		err := workflow.ExecuteActivity(actx, ActivityName(d.name), req.Input).Get(ctx, &p)
		if ctx.Err() != nil {
			return zero, d.cancelled(s, workflow.Now(ctx))
		}
		if err != nil { // the call could not be made: an error no acceptor saw
			p = poll[O]{Err: err.Error(), Acceptor: -1, State: classify.Failure, Retry: true}
		}
		now := workflow.Now(ctx)
		// An answer that came after the deadline is not judged: the wait
		// times out, as in process.
		call := waiter.Poll{Start: start, Latency: now.Sub(start), Err: asErr(p.Err), Late: now.After(s.Deadline),
			Judgment: waiter.Judgment{Acceptor: p.Acceptor, Matcher: p.Matcher, State: p.State, Message: p.Message, Failure: asErr(p.Failure)},
			Advice:   waiter.RetryAdvice{Retry: p.Retry, Quota: p.Quota, Refusal: asErr(p.Refusal), MinDelay: p.RetryAfter, Hint: p.Hint},
			Delay:    p.Delay, Identity: p.Identity}
		var dec waiter.Decision
		s, dec = d.w.Step(s, call, now)
		attempts = append(attempts, Attempt{Number: s.Attempts, Start: start, Latency: call.Latency, State: dec.State.String(),
			Acceptor: p.Acceptor, Matcher: p.Matcher, Err: p.Err, NextDelay: dec.Delay})
		if dec.Done {
			if dec.Err != nil {
				return p.Output, encode(dec.Err)
			}
			return p.Output, nil
		}
		if err := workflow.Sleep(ctx, dec.Delay); err != nil {
			return zero, d.cancelled(s, workflow.Now(ctx))
		}
	}
}

func (d *driver[I, O]) cancelled(s waiter.State, now time.Time) error {
	return sdktemporal.NewCanceledError(details{Waiter: d.name, Reason: "canceled", Attempts: s.Attempts, Elapsed: now.Sub(s.Start), Acceptor: -1})
}
