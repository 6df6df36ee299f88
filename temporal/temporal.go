package temporal

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strconv"
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

// LoopActivityName is the name of the activity that polls, in heartbeat
// mode, for the waiter registered under name.
func LoopActivityName(name string) string { return "waitable.Loop." + name }

// Mode says how a wait's polls run on Temporal, as Temporal advises for
// polling: frequent polls inside one activity that heartbeats, infrequent
// ones as activities between durable timers.
type Mode int

const (
	// ModeAuto polls inside a heartbeating activity while the delay
	// before the next poll is shorter than the threshold
	// (WithHeartbeatBelow), and with durable timers otherwise, switching
	// as the delays change.
	ModeAuto Mode = iota
	// ModeTimers makes each poll an activity and each delay a durable
	// timer: about 11 history events per poll.
	ModeTimers
	// ModeHeartbeat makes every poll inside heartbeating activities,
	// whatever the delays: no history event per poll.
	ModeHeartbeat
)

func (m Mode) String() string {
	switch m {
	case ModeAuto:
		return "auto"
	case ModeTimers:
		return "timers"
	case ModeHeartbeat:
		return "heartbeat"
	}
	return "Mode(" + strconv.Itoa(int(m)) + ")"
}

// DefaultHeartbeatBelow is the delay under which ModeAuto polls inside a
// heartbeating activity.
const DefaultHeartbeatBelow = time.Minute

// DefaultHeartbeatTimeout is how long Temporal waits for a heartbeat of a
// polling activity before it retries the activity, from its last
// heartbeat, on another worker.
const DefaultHeartbeatTimeout = 30 * time.Second

// Option configures Register.
type Option func(*options)

type options struct {
	attemptsPerRun   int
	callTimeout      time.Duration
	mode             Mode
	below            time.Duration
	heartbeatTimeout time.Duration
	historyLimit     int // of a group's run (see group.go)
}

// WithMode sets how the polls run (default ModeAuto).
func WithMode(m Mode) Option { return func(o *options) { o.mode = m } }

// WithHeartbeatBelow sets the delay under which ModeAuto polls inside a
// heartbeating activity (default DefaultHeartbeatBelow).
func WithHeartbeatBelow(d time.Duration) Option { return func(o *options) { o.below = d } }

// WithHeartbeatTimeout sets how long Temporal waits for a heartbeat of a
// polling activity (default DefaultHeartbeatTimeout): a worker that dies
// mid-activity is noticed after it, and another worker resumes the wait
// from its last heartbeat, making again only the call that was in
// flight. The activity heartbeats after every poll, and after half this
// timeout without a poll (a long delay, a slow call).
func WithHeartbeatTimeout(d time.Duration) Option {
	return func(o *options) { o.heartbeatTimeout = d }
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
	State *waiter.Checkpoint `json:",omitempty"`
	// Form is requestForm for the requests of this version of Start,
	// which draw the wait's Seed: the workflow takes today's paths with
	// no marker (see requestForm). 0: a request of an earlier version,
	// whose wait draws its seed in a side effect and is replayed as it
	// ran.
	Form int    `json:",omitempty"`
	Seed uint64 `json:",omitempty"`
}

// requestForm is the form of the requests of Start and StartGroup: they
// carry their seed (no SideEffect marker), take heartbeat mode without a
// version marker (whose search-attribute upsert costs one more event and
// a visibility write per wait), and learn from the waiter's history in
// workflow code (a local activity) when they poll with timers. Requests
// without it were started by an earlier version, and their histories
// replay as they ran.
const requestForm = 1

// Attempt is one attempt of a durable wait, as Progress reports it.
type Attempt struct {
	Number   int
	Start    time.Time
	Latency  time.Duration
	State    string // success, failure or retry
	Acceptor int
	Matcher  string `json:",omitempty"`
	Err      string `json:",omitempty"`
	// ErrCode, ErrType and ErrStatusCode are Err's kind: its code, the
	// name of its Go type and its HTTP status (see [OperationError]).
	ErrCode       string `json:",omitempty"`
	ErrType       string `json:",omitempty"`
	ErrStatusCode int    `json:",omitempty"`
	// NextDelay is the durable timer before the next attempt.
	NextDelay time.Duration
}

// withErr returns a with its error: the message and its kind.
func (a Attempt) withErr(message string, k *errKind) Attempt {
	a.Err = message
	if k != nil {
		a.ErrCode, a.ErrType, a.ErrStatusCode = k.Code, k.Type, k.StatusCode
	}
	return a
}

// Progress is a running wait's attempts (those of the current workflow
// run; Checkpoint.Attempts counts them all) and its checkpoint.
type Progress struct {
	Attempts   []Attempt
	Checkpoint waiter.Checkpoint
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
	// ErrKind, FailureKind and RefusalKind are the kinds of Err, Failure
	// and Refusal (nil in histories recorded before them).
	ErrKind     *errKind `json:",omitempty"`
	FailureKind *errKind `json:",omitempty"`
	RefusalKind *errKind `json:",omitempty"`
}

func msg(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// Register registers, on a Temporal worker, the workflows and the
// activities that run w's waits under name: single waits ([Start]) and
// groups ([StartGroup]). It refuses a waiter whose delays are not
// replayable (one given waiter.WithJitter).
func Register[I, O any](r worker.Registry, name string, w *waiter.Waiter[I, O], opts ...Option) error {
	if w == nil || name == "" {
		return errors.New("temporal: Register needs a waiter and a name")
	}
	if w.Schedule().Jitter != nil {
		return fmt.Errorf("temporal: waiter %s has a jitter of its own (waiter.WithJitter): its delays would differ on replay; use the default jitter, which draws from the wait's Checkpoint", name)
	}
	o := options{attemptsPerRun: DefaultAttemptsPerRun, callTimeout: time.Minute, below: DefaultHeartbeatBelow, heartbeatTimeout: DefaultHeartbeatTimeout,
		historyLimit: DefaultGroupHistoryLimit}
	for i, opt := range opts {
		if opt == nil {
			return fmt.Errorf("temporal: Register: option %d of %d is nil", i+1, len(opts))
		}
		opt(&o)
	}
	switch {
	case o.attemptsPerRun < 1:
		return fmt.Errorf("temporal: WithAttemptsPerRun(%d): want at least 1", o.attemptsPerRun)
	case o.callTimeout <= 0:
		return fmt.Errorf("temporal: WithCallTimeout(%v): want a positive duration", o.callTimeout)
	case o.mode < ModeAuto || o.mode > ModeHeartbeat:
		return fmt.Errorf("temporal: WithMode(%v): want ModeAuto, ModeTimers or ModeHeartbeat", o.mode)
	case o.below <= 0:
		return fmt.Errorf("temporal: WithHeartbeatBelow(%v): want a positive duration", o.below)
	case o.heartbeatTimeout < time.Second:
		return fmt.Errorf("temporal: WithHeartbeatTimeout(%v): want at least a second (Temporal's timers are coarser)", o.heartbeatTimeout)
	case o.historyLimit < 1:
		return fmt.Errorf("temporal: WithGroupHistoryLimit(%d): want at least 1", o.historyLimit)
	}
	d := &driver[I, O]{name: name, w: w, o: o}
	// The SDK's test environment has no server to send heartbeats to
	// directly: its activities heartbeat through the SDK.
	_, d.sdkHeartbeats = r.(interface{ SetStartTime(time.Time) })
	r.RegisterWorkflowWithOptions(d.workflow, workflow.RegisterOptions{Name: WorkflowName(name)})
	r.RegisterWorkflowWithOptions(d.group, workflow.RegisterOptions{Name: GroupWorkflowName(name)})
	r.RegisterActivityWithOptions(d.activity, activity.RegisterOptions{Name: ActivityName(name)})
	r.RegisterActivityWithOptions(d.loop, activity.RegisterOptions{Name: LoopActivityName(name)})
	return nil
}

type driver[I, O any] struct {
	name          string
	w             *waiter.Waiter[I, O]
	o             options
	sdkHeartbeats bool
}

// activity makes one call and judges it.
func (d *driver[I, O]) activity(ctx context.Context, in I) (poll[O], error) {
	p, _ := d.w.Call(ctx, in, 0, nil)
	j := p.Judgment
	return poll[O]{Output: p.Output, Latency: p.Latency, Err: msg(p.Err), Acceptor: j.Acceptor, Matcher: j.Matcher,
		State: j.State, Message: j.Message, Failure: msg(j.ConditionErr), Retry: j.Retry, Quota: j.Quota,
		Refusal: msg(j.Refusal), ErrKind: kindOf(p.Err), FailureKind: kindOf(j.ConditionErr), RefusalKind: kindOf(j.Refusal),
		RetryAfter: j.Backoff, Hint: j.Hint, Delay: j.Delay, Identity: j.Identity}, nil
}

// workflow is the wait: the core's Begin and Step, an activity per call,
// a durable timer per delay.
func (d *driver[I, O]) workflow(ctx workflow.Context, req request[I]) (O, error) {
	var zero O
	var s waiter.Checkpoint
	if req.State != nil {
		s = *req.State
	} else {
		seed := req.Seed
		if req.Form < requestForm || seed == 0 { // started by an earlier version
			if err := workflow.SideEffect(ctx, func(workflow.Context) any { return rand.Uint64() | 1 }).Get(&seed); err != nil {
				return zero, err
			}
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
	// Histories recorded before heartbeat mode replay as they ran.
	if (req.Form >= requestForm || workflow.GetVersion(ctx, "waitable.heartbeat-mode", workflow.DefaultVersion, 1) != workflow.DefaultVersion) &&
		d.o.mode != ModeTimers {
		return d.mixed(ctx, req, &s, &attempts)
	}
	if s.Attempts == 0 && !s.Next.IsZero() { // waiter.WithInitialDelay
		if err := workflow.Sleep(ctx, s.Next.Sub(workflow.Now(ctx))); err != nil {
			return zero, d.cancelled(s, workflow.Now(ctx))
		}
	}
	d.learnIn(ctx, req.Input, &s, req.Form)
	for run := 0; ; run++ {
		if run == d.o.attemptsPerRun {
			next := req
			next.State = &s
			return zero, workflow.NewContinueAsNewError(ctx, WorkflowName(d.name), next)
		}
		start := workflow.Now(ctx)
		p, dec, err := d.pollOnce(ctx, req.Input, &s, &attempts, start)
		if err != nil {
			return zero, err
		}
		if dec.Done {
			d.rememberIn(ctx, req.Input, s, req.Form)
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

// pollOnce makes one attempt as an activity (timer mode) and steps the
// core with it.
func (d *driver[I, O]) pollOnce(ctx workflow.Context, in I, s *waiter.Checkpoint, attempts *[]Attempt, start time.Time) (poll[O], decision, error) {
	left := s.Deadline.Sub(start)
	timeout := min(d.o.callTimeout, max(left, time.Second))
	actx := workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout: timeout,
		// A call is one attempt; the core decides whether to make
		// another. Temporal retries only a call whose worker was lost.
		RetryPolicy: &sdktemporal.RetryPolicy{MaximumAttempts: 3, NonRetryableErrorTypes: []string{"waitable.Call"}},
	})
	var p poll[O]
	err := workflow.ExecuteActivity(actx, ActivityName(d.name), in).Get(ctx, &p)
	if ctx.Err() != nil {
		return p, decision{}, d.cancelled(*s, workflow.Now(ctx))
	}
	if err != nil { // the call could not be made: an error no acceptor saw
		p = poll[O]{Err: err.Error(), ErrKind: kindOf(err), Acceptor: -1, State: classify.Failure, Retry: true}
	}
	now := workflow.Now(ctx)
	// An answer that came after the deadline is not judged (the core's
	// rule): the wait times out, as in process. The errors are rebuilt
	// with their kinds, so that the core reads their codes and statuses as
	// in process.
	call := waiter.Answer[O]{Start: start, Latency: now.Sub(start), Err: judged(p.Err, p.ErrKind),
		Judgment: waiter.Judgment{Acceptor: p.Acceptor, Matcher: p.Matcher, State: p.State, Message: p.Message,
			ConditionErr: judged(p.Failure, p.FailureKind), Retry: p.Retry, Quota: p.Quota,
			Refusal: judged(p.Refusal, p.RefusalKind), Backoff: p.RetryAfter, Hint: p.Hint, Delay: p.Delay,
			Identity: p.Identity}}
	dec := d.stepCore(s, call, now)
	*attempts = append(*attempts, Attempt{Number: s.Attempts, Start: start, Latency: call.Latency, State: dec.State.String(),
		Acceptor: p.Acceptor, Matcher: p.Matcher, NextDelay: dec.Delay}.withErr(p.Err, p.ErrKind))
	return p, dec, nil
}

// heartbeat reports whether the wait polls next inside a heartbeating
// activity, the next poll being due after delay.
func (d *driver[I, O]) heartbeat(delay time.Duration) bool {
	return d.o.mode == ModeHeartbeat || (d.o.mode == ModeAuto && delay < d.o.below)
}

// mixed is the wait in ModeAuto and ModeHeartbeat: runs of polls inside
// a heartbeating activity while delays are short, an activity per poll
// and a durable timer per delay while they are long.
func (d *driver[I, O]) mixed(ctx workflow.Context, req request[I], s *waiter.Checkpoint, attempts *[]Attempt) (O, error) {
	var zero O
	var last O // the last output observed
	run := 0
	for {
		if run >= d.o.attemptsPerRun {
			next := req
			next.State = s
			return zero, workflow.NewContinueAsNewError(ctx, WorkflowName(d.name), next)
		}
		st, err := d.step(ctx, ctx, req.Input, s, attempts, d.o.attemptsPerRun-run, req.Form)
		if err != nil {
			return zero, err
		}
		run += st.attempts
		if st.haveOutput {
			last = st.output
		}
		if st.done {
			return last, st.err
		}
	}
}

// stepped is what one step of a wait did.
type stepped[O any] struct {
	attempts   int // the attempts it made
	output     O   // the last output it observed, if haveOutput
	haveOutput bool
	done       bool     // the wait ended
	end        *details // the error it ended with (nil: success)
	endMessage string
	err        error // the workflow's error for end
}

// step is one step of a wait in ModeAuto and ModeHeartbeat: a run of at
// most max polls inside a heartbeating activity while the next delay is
// short, a durable timer and a poll as an activity when it is long. The
// timer and the heartbeating activity run under sleep, the poll activity
// under ctx: a group cancels sleep to bring its members to a halt (see
// group), and lets a call in flight end. Its error is a cancellation:
// the attempts it made until then are in attempts and s.
func (d *driver[I, O]) step(ctx, sleep workflow.Context, in I, s *waiter.Checkpoint, attempts *[]Attempt, max int, form int) (stepped[O], error) {
	var st stepped[O]
	now := workflow.Now(ctx)
	delay := s.Next.Sub(now) // when the next poll is due
	if s.Attempts == 0 && s.Next.IsZero() {
		delay = d.w.Schedule().MinDelay // the delays to come
	}
	if d.heartbeat(delay) {
		res, err := d.runLoop(sleep, in, s, max, form)
		st.attempts = len(res.Attempts)
		*attempts = append(*attempts, res.Attempts...)
		if err != nil {
			return st, err
		}
		st.output, st.haveOutput = res.Output, res.HaveOutput
		if res.Done {
			st.done = true
			if res.End != nil {
				st.end, st.endMessage = res.End, res.EndMessage
				st.err = encodeDetails(res.EndMessage, *res.End)
			}
		}
		return st, nil
	}
	if wait := s.Next.Sub(now); wait > 0 {
		if err := workflow.Sleep(sleep, wait); err != nil {
			return st, d.cancelled(*s, workflow.Now(ctx))
		}
	}
	d.learnIn(ctx, in, s, form)
	p, dec, err := d.pollOnce(ctx, in, s, attempts, workflow.Now(ctx))
	if err != nil {
		return st, err
	}
	st.attempts = 1
	if dec.Done {
		d.rememberIn(ctx, in, *s, form)
	}
	if p.Err == "" {
		st.output, st.haveOutput = p.Output, true
	}
	if dec.Done {
		st.done = true
		if dec.Err != nil {
			dd := toDetails(dec.Err)
			st.end, st.endMessage = &dd, dec.Err.Error()
			st.err = encode(dec.Err)
		}
	}
	return st, nil
}

// runLoop runs polls inside one heartbeating activity, at most max of
// them, and returns what it did. An activity that fails (its retries
// spent, or the deadline passed while no worker ran it) counts as an
// error no acceptor saw, from its last heartbeat.
func (d *driver[I, O]) runLoop(ctx workflow.Context, in I, s *waiter.Checkpoint, max int, form int) (loopResult[O], error) {
	now := workflow.Now(ctx)
	left := s.Deadline.Sub(now)
	below := d.o.below
	if d.o.mode == ModeHeartbeat {
		below = 0
	}
	life := left + d.o.callTimeout // the activity ends at the deadline; the margin lets its last call end
	actx := workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout:    life,
		ScheduleToCloseTimeout: life,
		HeartbeatTimeout:       d.o.heartbeatTimeout,
		WaitForCancellation:    true,
		RetryPolicy:            &sdktemporal.RetryPolicy{InitialInterval: time.Second, BackoffCoefficient: 2, MaximumInterval: d.o.heartbeatTimeout},
	})
	var res loopResult[O]
	err := workflow.ExecuteActivity(actx, LoopActivityName(d.name), loopRequest[I]{Input: in, State: *s, MaxAttempts: max, Below: below}).Get(ctx, &res)
	if err == nil {
		*s = res.State
		return res, nil
	}
	// The activity's last heartbeat holds the Checkpoint it reached.
	var b beat
	var canceled *sdktemporal.CanceledError
	var timeout *sdktemporal.TimeoutError
	switch {
	case errors.As(err, &canceled) && canceled.HasDetails():
		_ = canceled.Details(&b)
	case errors.As(err, &timeout) && timeout.HasLastHeartbeatDetails():
		_ = timeout.LastHeartbeatDetails(&b)
	}
	if b.State.Attempts > s.Attempts {
		*s = b.State
		if b.Last != nil {
			res.Attempts = append(res.Attempts, *b.Last)
		}
	}
	if ctx.Err() != nil {
		return res, d.cancelled(*s, workflow.Now(ctx))
	}
	now = workflow.Now(ctx)
	call := waiter.Answer[O]{Start: now, Err: err, Judgment: waiter.Judgment{Acceptor: -1, State: classify.Failure, Retry: true}}
	dec := d.stepCore(s, call, now)
	res.Attempts = append(res.Attempts, Attempt{Number: s.Attempts, Start: now, State: dec.State.String(), Acceptor: -1, NextDelay: dec.Delay}.withErr(err.Error(), kindOf(err)))
	res.State = *s
	if dec.Done {
		res.ended(dec)
		d.rememberIn(ctx, in, *s, form)
	}
	return res, nil
}

// learnIn puts in s what a wait that begins (no attempt made yet, nothing
// learnt) learns from the waiter's history ([waiter.Waiter.Learn]),
// through a local activity, whose result the workflow's history keeps: a
// replay decides the same. A wait of a request of an earlier form learns
// nothing here (its history replays as it ran).
func (d *driver[I, O]) learnIn(ctx workflow.Context, in I, s *waiter.Checkpoint, form int) {
	if form < requestForm || s.Attempts > 0 || s.Prior != nil {
		return
	}
	var p waiter.Prior
	if workflow.ExecuteLocalActivity(localOptions(ctx), d.learn, in).Get(ctx, &p) == nil {
		s.Prior = &p
	}
}

// rememberIn records the wait that ended at s in the waiter's history
// ([waiter.Waiter.Remember]), through a local activity (not for a request
// of an earlier form); its error is not the wait's.
func (d *driver[I, O]) rememberIn(ctx workflow.Context, in I, s waiter.Checkpoint, form int) {
	if form < requestForm {
		return
	}
	_ = workflow.ExecuteLocalActivity(localOptions(ctx), d.remember, in, s).Get(ctx, nil)
}

// localOptions are the options of learnIn's and rememberIn's local
// activities: one try, within a few seconds (the waiter gives its
// History 100ms).
func localOptions(ctx workflow.Context) workflow.Context {
	return workflow.WithLocalActivityOptions(ctx, workflow.LocalActivityOptions{
		StartToCloseTimeout: 5 * time.Second,
		RetryPolicy:         &sdktemporal.RetryPolicy{MaximumAttempts: 1},
	})
}

// learn and remember are learnIn's and rememberIn's local activities.
func (d *driver[I, O]) learn(ctx context.Context, in I) (*waiter.Prior, error) {
	return d.w.Learn(ctx, in), nil
}

func (d *driver[I, O]) remember(ctx context.Context, in I, s waiter.Checkpoint) error {
	_ = d.w.Remember(ctx, in, s) // a history's error never fails a wait
	return nil
}

// decision is what the core decided of an attempt.
type decision struct {
	Done  bool
	Err   error
	State classify.State
	Delay time.Duration
}

// stepCore applies an answer to *s at now (the core's Step).
func (d *driver[I, O]) stepCore(s *waiter.Checkpoint, ans waiter.Answer[O], now time.Time) decision {
	a, err := d.w.Step(*s, ans, now)
	*s = a.Checkpoint
	return decision{Done: a.Checkpoint.End != "", Err: err, State: a.Decision, Delay: a.NextDelay}
}

func (d *driver[I, O]) cancelled(s waiter.Checkpoint, now time.Time) error {
	return sdktemporal.NewCanceledError(details{Waiter: d.name, Reason: "canceled", Attempts: s.Attempts, Elapsed: now.Sub(s.Start), Acceptor: -1})
}
