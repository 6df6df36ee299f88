package bench

import (
	"context"
	"errors"
	"time"

	"github.com/jmespath/go-jmespath"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/waitable/waitable/backoff"
	"github.com/waitable/waitable/classify"
	"github.com/waitable/waitable/telemetry"
	"github.com/waitable/waitable/waiter"
)

// pollOutput is what the polled operation returns: a new value each call,
// as an SDK's deserializer would.
type pollOutput struct{ Status *string }

var (
	pollCreating, pollActive = "CREATING", "ACTIVE"
	pollDef                  = waiter.Definition{Name: "ThingActive", Acceptors: []classify.Acceptor{
		{State: classify.Success, Matcher: classify.OnOutput("Status", classify.StringEquals, "ACTIVE")},
	}}
)

// pollOp returns CREATING 10 times, then ACTIVE, over and over: one run
// makes 11 polls. Each call allocates its output.
func pollOp() func(context.Context, string) (*pollOutput, error) {
	n := 0
	return func(context.Context, string) (*pollOutput, error) {
		if n++; n%11 != 0 {
			return &pollOutput{Status: &pollCreating}, nil
		}
		return &pollOutput{Status: &pollActive}, nil
	}
}

// callerCtx is the caller's context of the poll rows' runs: the
// background, which never ends, or (cancellable) one that the caller may
// cancel, as a service's request or a command's signal context is.
func callerCtx(cancellable bool) (context.Context, context.CancelFunc) {
	if cancellable {
		return context.WithCancel(context.Background())
	}
	return context.Background(), func() {}
}

// pollLoop is a hand-written side's run: it polls op with delay between
// polls until the output is ACTIVE.
type pollLoop func(ctx context.Context, delay time.Duration, op func(context.Context, string) (*pollOutput, error)) error

// pollSides are the per-poll row's sides: one op is a run of 11 polls with
// the given delay between polls and one output condition, each run under
// the caller's context (see callerCtx).
func pollSides(delay time.Duration, cancellable bool) []Side {
	waitable := func(name string, opts ...waiter.Option) Side {
		return Side{Name: name, Op: func(n int) {
			w, err := waiter.New(pollDef, pollOp(), append(opts, waiter.WithDelays(delay, delay))...)
			if err != nil {
				panic(err)
			}
			ctx, cancel := callerCtx(cancellable)
			defer cancel()
			for range n {
				if _, err := w.Wait(ctx, "thing", time.Hour); err != nil {
					panic(err)
				}
			}
		}}
	}
	byHand := func(name string, loop pollLoop) Side {
		return Side{Name: name, Op: func(n int) {
			op := pollOp()
			ctx, cancel := callerCtx(cancellable)
			defer cancel()
			for range n {
				if err := loop(ctx, delay, op); err != nil {
					panic(err)
				}
			}
		}}
	}
	return []Side{
		waitable("waitable"),
		waitable("waitable, telemetry off", waiter.WithTelemetry(telemetry.Settings{Off: true})),
		byHand("hand-written (deadline, compiled JMESPath, one timer)", HandPoll),
		byHand("hand-written Smithy schedule (timed calls, classify, jittered delays)", SmithyPoll),
		byHand("k8s wait.PollUntilContextTimeout", k8sPoll),
	}
}

// statusActive is the condition of the hand-written loops, compiled once.
var statusActive = jmespath.MustCompile("Status")

func isActive(out *pollOutput) (bool, error) {
	v, err := statusActive.Search(out)
	if err != nil {
		return false, err
	}
	s, ok := v.(*string)
	return ok && *s == "ACTIVE", nil
}

// HandPoll is the poll loop a competent Go programmer writes: the
// condition compiled once, one timer made once and reset between polls,
// and, as every waiter must have, a total wait time (an hour) as a
// context deadline that each call gets and each sleep watches.
func HandPoll(ctx context.Context, delay time.Duration, op func(context.Context, string) (*pollOutput, error)) error {
	ctx, cancel := context.WithTimeout(ctx, time.Hour)
	defer cancel()
	var t *time.Timer
	defer func() {
		if t != nil {
			t.Stop()
		}
	}()
	for {
		out, err := op(ctx, "thing")
		if err != nil {
			return err
		}
		if ok, err := isActive(out); ok || err != nil {
			return err
		}
		if t == nil {
			t = time.NewTimer(delay)
		} else {
			t.Reset(delay)
		}
		select {
		case <-t.C:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// pollAcceptors are pollDef's acceptors, compiled once for SmithyPoll.
var pollAcceptors = func() *classify.Set[string, *pollOutput] {
	s, err := classify.Compile[string, *pollOutput](pollDef.Acceptors)
	if err != nil {
		panic(err)
	}
	return s
}()

// errPollTimeout is SmithyPoll's when no call fits in the time left.
var errPollTimeout = errors.New("bench: no call fits in the time left")

// SmithyPoll is the least of a Smithy waiter's rules, written by hand on
// this module's packages: each call is timed (the longest so far is the
// time kept for the last call), its answer judged by the compiled
// acceptors (classify), and the next call comes after the
// specification's jittered delay (backoff.WaiterSchedule, seeded), within
// the total wait time (an hour), or the wait times out when none fits.
// It keeps no Checkpoint, counts no answers, takes no pokes, publishes
// nothing and has no observer: beside Wait, it shows what the rest of
// Wait's rules cost each poll.
func SmithyPoll(ctx context.Context, delay time.Duration, op func(context.Context, string) (*pollOutput, error)) error {
	schedule := backoff.WaiterSchedule{MinDelay: delay, MaxDelay: delay}
	deadline := time.Now().Add(time.Hour)
	ctx, cancel := context.WithDeadline(ctx, deadline)
	defer cancel()
	var t *time.Timer
	defer func() {
		if t != nil {
			t.Stop()
		}
	}()
	var longest time.Duration
	for attempt := 1; ; attempt++ {
		start := time.Now()
		out, err := op(ctx, "thing")
		now := time.Now()
		longest = max(longest, now.Sub(start))
		switch m := pollAcceptors.Match("thing", out, err); m.State {
		case classify.Success:
			return nil
		case classify.Failure:
			return errors.Join(errors.New("bench: failure"), err)
		}
		d := schedule.DelayAfterCall(attempt, deadline.Sub(now), min(longest, delay), longest, 1)
		if d <= 0 {
			return errPollTimeout
		}
		if t == nil {
			t = time.NewTimer(d)
		} else {
			t.Reset(d)
		}
		select {
		case <-t.C:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// k8sPoll is the same wait with Kubernetes' wait package.
func k8sPoll(ctx context.Context, delay time.Duration, op func(context.Context, string) (*pollOutput, error)) error {
	return wait.PollUntilContextTimeout(ctx, delay, time.Hour, true, func(ctx context.Context) (bool, error) {
		out, err := op(ctx, "thing")
		if err != nil {
			return false, err
		}
		return isActive(out)
	})
}
