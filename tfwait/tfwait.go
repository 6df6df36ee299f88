package tfwait

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-sdk/v2/helper/retry"

	"github.com/waitable/waitable/waiter"
)

// The SDK's schedule: its delay doubles from 200ms up to 10s, never below
// MinTimeout; a PollInterval under 180s replaces it.
const (
	sdkFirstDelay      = 200 * time.Millisecond
	sdkMaxDelay        = 10 * time.Second
	sdkMaxPollInterval = 180 * time.Second
	sdkNotFoundChecks  = 20
)

// RefreshFunc is [retry.StateRefreshFunc] with a context, for providers on
// terraform-plugin-framework: it returns the object watched (nil: not
// found), its state, and an error. ctx is the poll's: it ends at the
// wait's deadline and when the wait's context ends.
type RefreshFunc func(ctx context.Context) (result any, state string, err error)

// Waiter waits as a [retry.StateChangeConf] says, on Waitable's rules (see
// the package doc). Build it with [StateChange] or [StateChangeFunc]; it is
// safe for concurrent use, each [Waiter.Wait] being a wait of its own. A
// Waiter not built by them (the zero Waiter, a nil *Waiter) does not wait:
// its Wait returns an error.
type Waiter struct {
	w       *waiter.Waiter[*answer, *answer]
	timeout time.Duration
	target  []string
}

// answer is a wait's own record of its refreshes, its input, written in
// the wait's goroutine: the op writes each refresh into got, and the
// condition, which judges only the answers that came back in time, copies
// it into result, state and err; nils counts the nil results in a row.
type answer struct {
	got    refreshed
	nils   int
	result any
	state  string
	err    error
}

// refreshed is what one refresh returned.
type refreshed struct {
	result any
	state  string
	err    error
}

// errNotFound is what a nil result is to the waiter, when a target state
// is awaited: a not-found answer, which waiter.WithNotFoundLimit counts.
var errNotFound = notFoundError{}

type notFoundError struct{}

func (notFoundError) Error() string     { return "tfwait: the refresh found no object (nil result)" }
func (notFoundError) ErrorCode() string { return "NotFound" }

// StateChange builds a [Waiter] from conf as providers write it, with
// conf.Refresh as the refresh; the package doc says how each field maps.
// opts come after the mapping, so they override it: [waiter.WithClock]
// for virtual time in tests, [waiter.WithTelemetry] for spans and logs,
// [waiter.WithRetryStrategy](nil) to end the wait on any refresh error as
// the SDK does. StateChange reads conf once: changing it later changes
// nothing. An invalid conf is an error listing every problem.
func StateChange(conf *retry.StateChangeConf, opts ...waiter.Option) (*Waiter, error) {
	if conf == nil {
		return nil, errors.New("tfwait: the StateChangeConf is nil")
	}
	var refresh RefreshFunc
	if conf.Refresh != nil {
		f := conf.Refresh
		refresh = func(context.Context) (any, string, error) { return f() }
	}
	return build(conf, refresh, "Refresh is nil", opts)
}

// StateChangeFunc is [StateChange] with a refresh that takes the poll's
// context, for providers on terraform-plugin-framework; conf.Refresh must
// be nil.
func StateChangeFunc(conf *retry.StateChangeConf, refresh RefreshFunc, opts ...waiter.Option) (*Waiter, error) {
	if conf == nil {
		return nil, errors.New("tfwait: the StateChangeConf is nil")
	}
	if conf.Refresh != nil && refresh != nil {
		return nil, errors.New("tfwait: StateChangeConf.Refresh is set: give StateChangeFunc one refresh, not two")
	}
	return build(conf, refresh, "the refresh is nil", opts)
}

// build checks conf and maps it to a waiter.
func build(conf *retry.StateChangeConf, refresh RefreshFunc, nilRefresh string, opts []waiter.Option) (*Waiter, error) {
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf("tfwait: "+format, args...)) }
	if refresh == nil {
		bad("%s", nilRefresh)
	}
	if conf.Timeout <= 0 {
		bad("Timeout is %v: it must be positive (the wait's budget)", conf.Timeout)
	}
	for _, f := range []struct {
		name string
		d    time.Duration
	}{{"Delay", conf.Delay}, {"MinTimeout", conf.MinTimeout}, {"PollInterval", conf.PollInterval}} {
		if f.d < 0 {
			bad("%s is %v: it must not be negative", f.name, f.d)
		}
	}
	if conf.NotFoundChecks < 0 {
		bad("NotFoundChecks is %d: it must not be negative", conf.NotFoundChecks)
	}
	if conf.ContinuousTargetOccurence < 0 {
		bad("ContinuousTargetOccurence is %d: it must not be negative", conf.ContinuousTargetOccurence)
	}
	if errs != nil {
		return nil, errors.Join(errs...)
	}

	t := &Waiter{timeout: conf.Timeout, target: slices.Clone(conf.Target)}
	target, pending := t.target, slices.Clone(conf.Pending)
	op := func(ctx context.Context, a *answer) (*answer, error) {
		r := &a.got
		r.result, r.state, r.err = refresh(ctx)
		if r.err == nil && r.result == nil && len(target) > 0 {
			a.nils++
			return a, errNotFound
		}
		a.nils = 0
		return a, r.err
	}
	if conf.Delay >= conf.Timeout {
		// The SDK sleeps Delay before its first refresh and times out
		// first: no refresh, a TimeoutError with no last state. The poll's
		// context ends at the wait's deadline, or with the caller's.
		op = func(ctx context.Context, a *answer) (*answer, error) {
			<-ctx.Done()
			return a, ctx.Err()
		}
	}
	cond := func(_ *answer, a *answer, err error) (bool, error) {
		a.result, a.state, a.err = a.got.result, a.got.state, a.got.err
		switch {
		case errors.Is(err, errNotFound):
			return false, nil // counted by WithNotFoundLimit
		case err != nil:
			return false, err // the retry strategy's to judge
		case a.result == nil: // no target: waiting for the object to be gone
			return true, nil
		case slices.Contains(target, a.state):
			return true, nil
		case len(pending) == 0 || slices.Contains(pending, a.state):
			return false, nil
		}
		return false, &retry.UnexpectedStateError{State: a.state, ExpectedState: target}
	}

	mapped := []waiter.Option{waiter.WithDelays(schedule(conf))}
	if conf.Delay > 0 {
		mapped = append(mapped, waiter.WithInitialDelay(conf.Delay))
	}
	if len(target) > 0 {
		n := conf.NotFoundChecks
		if n == 0 {
			n = sdkNotFoundChecks
		}
		mapped = append(mapped, waiter.WithNotFoundLimit(n+1)) // the SDK fails on the check after the last allowed
	}
	if n := conf.ContinuousTargetOccurence; n > 1 {
		mapped = append(mapped, waiter.WithStability(n, 0))
	}
	w, err := waiter.NewFunc(name(target), op, cond, append(mapped, opts...)...)
	if err != nil {
		return nil, fmt.Errorf("tfwait: %w", err)
	}
	t.w = w
	return t, nil
}

// schedule is the SDK's schedule as a Smithy one: MinDelay the first
// delay, MaxDelay its cap.
func schedule(conf *retry.StateChangeConf) (minDelay, maxDelay time.Duration) {
	if conf.PollInterval > 0 && conf.PollInterval < sdkMaxPollInterval {
		return conf.PollInterval, conf.PollInterval
	}
	minDelay = max(sdkFirstDelay, conf.MinTimeout)
	return minDelay, max(sdkMaxDelay, minDelay)
}

// name names the waiter in errors, events and telemetry.
func name(target []string) string {
	if len(target) == 0 {
		return "StateChange to gone"
	}
	return "StateChange to " + strings.Join(target, "|")
}

// Wait waits as [retry.StateChangeConf.WaitForStateContext] does and
// returns what it returns: the result of the refresh that reached the
// target; or nil and a [*retry.TimeoutError] (its LastState and LastError
// those of the last refresh judged: one that returned after the deadline
// is not), a [*retry.NotFoundError], or ctx's error; or the last result
// and a [*retry.UnexpectedStateError], or the last result and the
// refresh's own error when the retry strategy calls it fatal or it is a
// not-found error (a 404) that reaches the NotFoundChecks limit. Other
// ends (options such as [waiter.WithMaxPolls]) return nil and the
// waiter's [*waiter.Error]. On a Waiter not built by [StateChange] or
// [StateChangeFunc] it returns nil and an error saying so.
func (t *Waiter) Wait(ctx context.Context) (any, error) {
	if t == nil || t.w == nil {
		return nil, errors.New("tfwait: Wait on a Waiter not built by StateChange or StateChangeFunc")
	}
	last := new(answer)
	_, err := t.w.Wait(ctx, last, t.timeout)
	var use *retry.UnexpectedStateError
	var we *waiter.Error
	switch {
	case err == nil:
		return last.result, nil
	case errors.Is(err, waiter.ErrTimeout):
		return nil, &retry.TimeoutError{LastError: last.err, LastState: last.state, Timeout: t.timeout, ExpectedState: t.target}
	case errors.As(err, &use):
		return last.result, use
	case !errors.As(err, &we):
		return nil, err
	case (we.Failure == waiter.FailureError || we.Failure == waiter.FailureNeverAppeared) && last.err != nil:
		// The refresh's own error (a 404 the waiter counts as not found
		// among them) ends the wait as the SDK ends it: with that error.
		return last.result, last.err
	case we.Failure == waiter.FailureNeverAppeared:
		return nil, &retry.NotFoundError{Retries: last.nils}
	case ctx.Err() != nil && errors.Is(err, context.Canceled):
		return nil, ctx.Err()
	}
	return nil, err
}
