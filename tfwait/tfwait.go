package tfwait

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-sdk/v2/helper/retry"

	"github.com/waitable/waitable/classify"
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

// Refresh is what one refresh returned, the output of tfwait's waiters:
// each attempt's event carries it, and a wait returns the last one judged
// that returned no error. [Result] reads the SDK's result and errors from
// it and the wait's error.
type Refresh struct {
	// Result is the object the refresh returned; nil: not found.
	Result any
	// State is the object's state as the refresh said it.
	State string

	// The conf's, for Result's TimeoutError.
	target  []string
	timeout time.Duration
}

// refreshError is a refresh that returned an error: the error, and what
// else the refresh returned, for [Result]. It unwraps to the refresh's
// error, whose facts package classify reads.
type refreshError struct {
	Refresh
	err error
}

func (e *refreshError) Error() string { return e.err.Error() }
func (e *refreshError) Unwrap() error { return e.err }

// errNilResult is what a nil result is to the waiter, when a target state
// is awaited: a not-found answer, which waiter.WithNotFoundLimit counts.
var errNilResult = &classify.CallError{Err: errors.New("tfwait: the refresh found no object (nil result)"), Code: "NotFound"}

// StateChange returns a waiter that waits as conf says, with conf.Refresh
// as the refresh; the package doc says how each field maps. Its input is
// nothing of its own (struct{}{}): give its Wait, Start, WaitFrom,
// StartFrom (or a Group's Go, a WaitAll) conf.Timeout as the wait's
// budget, and [Result] its outcome for the SDK's result and errors:
//
//	out, err := tfwait.Result(w.Wait(ctx, struct{}{}, conf.Timeout)) // was: conf.WaitForStateContext(ctx)
//
// Its output is each refresh's record, [Refresh]. opts come after the
// mapping, so they override it: [waiter.WithClock] for virtual time in
// tests, [waiter.WithTelemetry] for spans and logs,
// [waiter.WithRetryStrategy](nil) to end the wait on any refresh error as
// the SDK does. StateChange reads conf once: changing it later changes
// nothing. An invalid conf is an error listing every problem.
func StateChange(conf *retry.StateChangeConf, opts ...waiter.Option) (*waiter.Waiter[struct{}, *Refresh], error) {
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
func StateChangeFunc(conf *retry.StateChangeConf, refresh RefreshFunc, opts ...waiter.Option) (*waiter.Waiter[struct{}, *Refresh], error) {
	if conf == nil {
		return nil, errors.New("tfwait: the StateChangeConf is nil")
	}
	if conf.Refresh != nil && refresh != nil {
		return nil, errors.New("tfwait: StateChangeConf.Refresh is set: give StateChangeFunc one refresh, not two")
	}
	return build(conf, refresh, "the refresh is nil", opts)
}

// build checks conf and maps it to a waiter.
func build(conf *retry.StateChangeConf, refresh RefreshFunc, nilRefresh string, opts []waiter.Option) (*waiter.Waiter[struct{}, *Refresh], error) {
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

	target, pending, timeout := slices.Clone(conf.Target), slices.Clone(conf.Pending), conf.Timeout
	op := func(ctx context.Context, _ struct{}) (*Refresh, error) {
		res, state, err := refresh(ctx)
		r := &Refresh{Result: res, State: state, target: target, timeout: timeout}
		if ctx.Err() != nil {
			// The refresh took no context and returned after the wait's
			// ended (its deadline, or the caller's cancellation): it is
			// not judged, whatever it answered.
			err = ctx.Err()
		}
		switch {
		case err == nil && res == nil && len(target) > 0:
			err = errNilResult
		case err == nil:
			return r, nil
		}
		return r, &refreshError{Refresh: *r, err: err}
	}
	if conf.Delay >= conf.Timeout {
		// The SDK sleeps Delay before its first refresh and times out
		// first: no refresh, a TimeoutError with no last state. The poll's
		// context ends at the wait's deadline, or with the caller's.
		op = func(ctx context.Context, _ struct{}) (*Refresh, error) {
			<-ctx.Done()
			r := &Refresh{target: target, timeout: timeout}
			return r, &refreshError{Refresh: *r, err: ctx.Err()}
		}
	}
	cond := func(_ struct{}, r *Refresh, err error) (bool, error) {
		switch {
		case errors.Is(err, errNilResult):
			return false, nil // counted by WithNotFoundLimit
		case err != nil:
			return false, err // the retry strategy's to judge
		case r.Result == nil: // no target: waiting for the object to be gone
			return true, nil
		case slices.Contains(target, r.State):
			return true, nil
		case len(pending) == 0 || slices.Contains(pending, r.State):
			return false, nil
		}
		return false, &retry.UnexpectedStateError{State: r.State, ExpectedState: target}
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
	return w, nil
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

// Result returns what [retry.StateChangeConf.WaitForStateContext] returns,
// given what a wait of a waiter of [StateChange] or [StateChangeFunc]
// returned (its Wait, WaitFrom, or a Run's Result), out and err:
//
//   - the result of the refresh that reached the target, and no error;
//   - nil and a [*retry.TimeoutError] whose Timeout and ExpectedState are
//     the conf's and whose LastState and LastError are those of the last
//     refresh judged (one that returned after the deadline is not; with
//     no refresh, as when Delay is Timeout or more, they are empty);
//   - the last result and a [*retry.UnexpectedStateError];
//   - the last result and the refresh's own error, when the retry strategy
//     calls it fatal or it is a not-found error (a 404) that reaches the
//     NotFoundChecks limit;
//   - nil and a [*retry.NotFoundError] whose Retries counts the nil
//     results the wait saw (the SDK counts those in a row; the two differ
//     only when a result came between runs of nil results);
//   - nil and context.Canceled for a wait whose context was cancelled.
//
// Other ends (options such as [waiter.WithMaxPolls]) return nil and the
// waiter's [*waiter.Error].
func Result(out *Refresh, err error) (any, error) {
	var we *waiter.Error
	var re *refreshError
	var use *retry.UnexpectedStateError
	switch {
	case err == nil && out != nil:
		return out.Result, nil
	case err == nil:
		return nil, nil
	case !errors.As(err, &we):
		return nil, err
	case we.Reason == waiter.ErrTimeout:
		te := &retry.TimeoutError{}
		if out != nil {
			te.LastState, te.Timeout, te.ExpectedState = out.State, out.timeout, out.target
		}
		if errors.As(we.Err, &re) {
			te.Timeout, te.ExpectedState = re.timeout, re.target
			if !errors.Is(re.err, context.DeadlineExceeded) && !errors.Is(re.err, context.Canceled) {
				// The last refresh judged returned an error, or a nil result.
				te.LastState = re.State
				if re.err != errNilResult {
					te.LastError = re.err
				}
			}
		}
		return nil, te
	case we.Reason != waiter.ErrFailure && we.Reason != waiter.ErrMaxPolls:
		return nil, context.Canceled // the wait's context was cancelled
	case errors.As(err, &use):
		if out != nil {
			return out.Result, use
		}
		return nil, use
	case (we.Failure == waiter.FailureError || notFoundLimit(we.Failure)) &&
		errors.As(we.Err, &re) && re.err != errNilResult:
		// The refresh's own error (a 404 the waiter counts as not found
		// among them) ends the wait as the SDK ends it: with that error.
		return re.Result, re.err
	case notFoundLimit(we.Failure):
		return nil, &retry.NotFoundError{Retries: nilResults(we.Seen)}
	}
	return nil, err
}

// notFoundLimit reports a wait ended by the not-found limit, whether the
// resource was seen before or not: the SDK's NotFoundChecks tells no
// difference.
func notFoundLimit(f waiter.Failure) bool {
	return f == waiter.FailureNeverAppeared || f == waiter.FailureDisappeared
}

// nilResults counts the nil results among the answers a wait saw.
func nilResults(seen []waiter.SeenCount) int {
	n := 0
	for _, c := range seen {
		if c.Code == errNilResult.Code && c.State != "timeout" {
			n += c.N
		}
	}
	return n
}
