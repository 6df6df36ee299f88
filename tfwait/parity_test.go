package tfwait_test

import (
	"context"
	"errors"
	"reflect"
	"slices"
	"strconv"
	"testing"
	"testing/synctest"
	"time"

	"github.com/hashicorp/terraform-plugin-sdk/v2/helper/retry"

	"github.com/waitable/waitable/backoff"
	"github.com/waitable/waitable/tfwait"
	"github.com/waitable/waitable/waiter"
)

// object is what a provider's refresh returns: the API's description of
// the resource (a pointer, as SDK outputs are).
type object struct{ ID, Status string }

// step is one scripted refresh: found (a result with state) or not (a nil
// result), or an error.
type step struct {
	found    bool
	typedNil bool // found, as a nil *object: not nil to the SDK
	state    string
	err      error
}

func found(state string) step { return step{found: true, state: state} }

var (
	gone        = step{}
	errAuth     = errors.New("AccessDenied: not authorized to describe the resource")
	notFoundAPI = apiError("ResourceNotFoundException", 404)
)

// script is a refresh that answers its steps in order, the last one for
// ever after; each call returns a new *object, numbered, so that the test
// can tell which call's result a wait returned.
type script struct {
	steps []step
	calls int
}

func (s *script) refresh() (any, string, error) {
	st := s.steps[min(s.calls, len(s.steps)-1)]
	s.calls++
	switch {
	case st.typedNil:
		return (*object)(nil), st.state, st.err
	case !st.found:
		return nil, st.state, st.err
	}
	return &object{ID: "call-" + strconv.Itoa(s.calls), Status: st.state}, st.state, st.err
}

func repeat(st step, n int) []step { return slices.Repeat([]step{st}, n) }

func seq(parts ...[]step) []step { return slices.Concat(parts...) }

// parityCase is a StateChangeConf (its Refresh left to the script) and
// the script of refreshes it meets.
type parityCase struct {
	name     string
	conf     retry.StateChangeConf
	steps    []step
	cancel   time.Duration // cancel the wait's context after this long (0: never)
	sameTime bool          // the wait takes as long as the SDK's, to the instant
}

var parityCases = []parityCase{
	{name: "target at once", conf: conf([]string{"creating"}, []string{"available"}), steps: seq([]step{found("available")})},
	{name: "pending then target", conf: conf([]string{"creating"}, []string{"available"}),
		steps: seq(repeat(found("creating"), 4), []step{found("available")})},
	{name: "target in several states", conf: conf([]string{"creating", "modifying"}, []string{"available", "ready"}),
		steps: seq([]step{found("creating"), found("modifying"), found("ready")})},
	{name: "unexpected state", conf: conf([]string{"creating"}, []string{"available"}),
		steps: seq([]step{found("creating"), found("creating"), found("failed")})},
	{name: "unexpected state at once", conf: conf([]string{"creating"}, []string{"available"}),
		steps: seq([]step{found("error")})},
	{name: "empty Pending polls any state", conf: conf(nil, []string{"available"}),
		steps: seq([]step{found("creating"), found("whatever"), found("available")})},
	{name: "empty Pending until the timeout", conf: conf(nil, []string{"available"}),
		steps: seq([]step{found("creating"), found("whatever")})},
	{name: "not found beyond NotFoundChecks", conf: notFoundChecks(conf([]string{"creating"}, []string{"available"}), 3),
		steps: seq([]step{gone})},
	{name: "not found beyond the default 20 checks", conf: conf([]string{"creating"}, []string{"available"}),
		steps: seq([]step{gone})},
	{name: "NotFoundChecks 1", conf: notFoundChecks(conf([]string{"creating"}, []string{"available"}), 1),
		steps: seq([]step{found("creating"), gone, gone})},
	{name: "not found until the timeout", conf: notFoundChecks(conf([]string{"creating"}, []string{"available"}), 100000),
		steps: seq([]step{found("creating"), gone})},
	{name: "a 404 API error from the refresh", conf: conf([]string{"creating"}, []string{"available"}),
		steps: seq([]step{found("creating"), {err: notFoundAPI}})},
	{name: "a 404 API error at the NotFoundChecks limit", conf: notFoundChecks(conf([]string{"creating"}, []string{"available"}), 2),
		steps: seq([]step{gone, gone, {err: notFoundAPI}})},
	{name: "not found, then found", conf: notFoundChecks(conf([]string{"creating"}, []string{"available"}), 3),
		steps: seq(repeat(gone, 3), []step{found("creating"), found("available")})},
	{name: "not-found runs reset by a found answer", conf: notFoundChecks(conf([]string{"creating"}, []string{"available"}), 3),
		steps: seq(repeat(gone, 3), []step{found("creating")}, repeat(gone, 3), []step{found("available")})},
	{name: "gone: deleting, then nil", conf: conf([]string{"deleting"}, nil),
		steps: seq(repeat(found("deleting"), 3), []step{gone})},
	{name: "gone: unexpected state", conf: conf([]string{"deleting"}, nil),
		steps: seq([]step{found("deleting"), found("in-use")})},
	{name: "gone: never, until the timeout", conf: conf([]string{"deleting"}, nil),
		steps: seq([]step{found("deleting")})},
	{name: "gone: a refresh error", conf: conf([]string{"deleting"}, nil),
		steps: seq([]step{found("deleting"), {err: errAuth}})},
	{name: "gone: a typed nil result is found", conf: conf([]string{"deleting"}, nil),
		steps: seq([]step{{typedNil: true, state: "deleting"}, {typedNil: true, state: "in-use"}})},
	{name: "ContinuousTargetOccurence reached", conf: continuous(conf([]string{"creating"}, []string{"available"}), 3),
		steps: seq([]step{found("creating")}, repeat(found("available"), 3))},
	{name: "ContinuousTargetOccurence broken by a pending state", conf: continuous(conf([]string{"creating"}, []string{"available"}), 3),
		steps: seq(repeat(found("available"), 2), []step{found("creating")}, repeat(found("available"), 3))},
	{name: "ContinuousTargetOccurence of gone", conf: continuous(conf([]string{"deleting"}, nil), 2),
		steps: seq([]step{found("deleting"), gone, gone})},
	{name: "ContinuousTargetOccurence, then unexpected", conf: continuous(conf([]string{"creating"}, []string{"available"}), 3),
		steps: seq(repeat(found("available"), 2), []step{found("failed")})},
	{name: "timeout while pending", conf: conf([]string{"creating"}, []string{"available"}),
		steps: seq([]step{found("creating")})},
	{name: "refresh error", conf: conf([]string{"creating"}, []string{"available"}),
		steps: seq(repeat(found("creating"), 2), []step{{found: true, state: "creating", err: errAuth}})},
	{name: "refresh error at once, no result", conf: conf([]string{"creating"}, []string{"available"}),
		steps: seq([]step{{err: errAuth}})},
	{name: "an error returned with a target-state result", conf: conf([]string{"creating"}, []string{"available"}),
		steps: seq([]step{found("creating"), {found: true, state: "available", err: errAuth}})},
	{name: "a state in Target and Pending", conf: conf([]string{"creating", "available"}, []string{"available"}),
		steps: seq([]step{found("creating"), found("available")})},
	{name: "Delay then target", conf: delay(conf([]string{"creating"}, []string{"available"}), 30*time.Second),
		steps: seq(repeat(found("creating"), 2), []step{found("available")})},
	{name: "Delay then unexpected", conf: delay(conf([]string{"creating"}, []string{"available"}), 30*time.Second),
		steps: seq([]step{found("failed")})},
	{name: "Delay longer than Timeout: no refresh", conf: delay(conf([]string{"creating"}, []string{"available"}), 15*time.Minute),
		steps: seq([]step{found("available")}), sameTime: true},
	{name: "PollInterval", conf: pollInterval(conf([]string{"creating"}, []string{"available"}), 5*time.Second),
		steps: seq(repeat(found("creating"), 5), []step{found("available")})},
	{name: "PollInterval over 180s is ignored", conf: pollInterval(conf([]string{"creating"}, []string{"available"}), 200*time.Second),
		steps: seq(repeat(found("creating"), 5), []step{found("available")})},
	{name: "MinTimeout", conf: minTimeout(conf([]string{"creating"}, []string{"available"}), 10*time.Second),
		steps: seq(repeat(found("creating"), 3), []step{found("available")})},
	{name: "a typed nil result is found", conf: conf([]string{"creating"}, []string{"available"}),
		steps: seq([]step{{typedNil: true, state: "creating"}, {typedNil: true, state: "available"}})},
	{name: "empty Pending and empty Target: the object must go", conf: conf(nil, nil),
		steps: seq(repeat(found("anything"), 3), []step{gone})},
	{name: "cancelled", conf: conf([]string{"creating"}, []string{"available"}),
		steps: seq([]step{found("creating")}), cancel: 90 * time.Second},
}

func conf(pending, target []string) retry.StateChangeConf {
	return retry.StateChangeConf{Pending: pending, Target: target, Timeout: 10 * time.Minute}
}

func notFoundChecks(c retry.StateChangeConf, n int) retry.StateChangeConf {
	c.NotFoundChecks = n
	return c
}

func continuous(c retry.StateChangeConf, n int) retry.StateChangeConf {
	c.ContinuousTargetOccurence = n
	return c
}

func delay(c retry.StateChangeConf, d time.Duration) retry.StateChangeConf {
	c.Delay = d
	return c
}

func pollInterval(c retry.StateChangeConf, d time.Duration) retry.StateChangeConf {
	c.PollInterval = d
	return c
}

func minTimeout(c retry.StateChangeConf, d time.Duration) retry.StateChangeConf {
	c.MinTimeout = d
	return c
}

// end is how a wait ended: its result, its error, how long it took, how
// many refreshes it made.
type end struct {
	result  any
	err     error
	elapsed time.Duration
	calls   int
}

// waitFunc is a way to wait on a StateChangeConf: the SDK's, or tfwait's.
type waitFunc func(ctx context.Context, conf *retry.StateChangeConf) (any, error)

// sdkWait is the SDK's own WaitForStateContext.
func sdkWait(ctx context.Context, conf *retry.StateChangeConf) (any, error) {
	return conf.WaitForStateContext(ctx)
}

// tfWait is tfwait's Wait on conf, with opts.
func tfWait(opts ...waiter.Option) waitFunc {
	return func(ctx context.Context, conf *retry.StateChangeConf) (any, error) {
		w, err := tfwait.StateChange(conf, opts...)
		if err != nil {
			return nil, err
		}
		return wait(ctx, w, conf)
	}
}

// wait runs a wait of w, conf's waiter, as a provider does: conf.Timeout
// its budget, Result its outcome.
func wait(ctx context.Context, w *waiter.Waiter[struct{}, *tfwait.Refresh], conf *retry.StateChangeConf) (any, error) {
	return tfwait.Result(w.Wait(ctx, struct{}{}, conf.Timeout))
}

// waitSDK runs the SDK's WaitForStateContext on c's script, and waitTF
// tfwait, each in a synctest bubble: the SDK's wall-clock sleeps are
// virtual too.
func waitSDK(t *testing.T, c parityCase) end { return runScript(t, c, sdkWait) }
func waitTF(t *testing.T, c parityCase) end  { return runScript(t, c, tfWait()) }

func runScript(t *testing.T, c parityCase, wait waitFunc) (e end) {
	synctest.Test(t, func(t *testing.T) {
		s := &script{steps: c.steps}
		conf := c.conf
		conf.Refresh = s.refresh
		ctx := cancelAfter(t, c.cancel)
		start := time.Now()
		e.result, e.err = wait(ctx, &conf)
		e.elapsed, e.calls = time.Since(start), s.calls
		synctest.Wait() // the SDK's refresh goroutine ends after its wait
	})
	return e
}

// cancelAfter is a context cancelled after d (never if d is 0).
func cancelAfter(t *testing.T, d time.Duration) context.Context {
	ctx := t.Context()
	if d > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithCancel(ctx)
		timer := time.AfterFunc(d, cancel)
		t.Cleanup(func() { timer.Stop(); cancel() })
	}
	return ctx
}

// TestParityWithWaitForStateContext: on each scripted sequence, tfwait
// ends as the SDK's WaitForStateContext does: the same result, the same
// error type, the same fields of the SDK's errors (and, where the case
// says so, at the same instant).
func TestParityWithWaitForStateContext(t *testing.T) {
	if len(parityCases) < 20 {
		t.Fatalf("%d scripted sequences, want at least 20", len(parityCases))
	}
	for _, c := range parityCases {
		t.Run(c.name, func(t *testing.T) {
			sdk, ours := waitSDK(t, c), waitTF(t, c)
			t.Logf("SDK: %d refreshes in %v: %v; tfwait: %d refreshes in %v: %v",
				sdk.calls, sdk.elapsed, sdk.err, ours.calls, ours.elapsed, ours.err)
			if !reflect.DeepEqual(ours.result, sdk.result) {
				t.Errorf("Wait() result = %#v, want the SDK's %#v", ours.result, sdk.result)
			}
			sameError(t, ours.err, sdk.err)
			if c.sameTime && ours.elapsed != sdk.elapsed {
				t.Errorf("Wait() took %v, want the SDK's %v", ours.elapsed, sdk.elapsed)
			}
		})
	}
}

// sameError fails t unless got is the SDK's error want: the same type,
// with the same fields.
func sameError(t *testing.T, got, want error) {
	t.Helper()
	if reflect.TypeOf(got) != reflect.TypeOf(want) {
		t.Fatalf("Wait() error = %T %v, want the SDK's %T %v", got, got, want, want)
	}
	switch want := want.(type) {
	case nil:
	case *retry.TimeoutError:
		got := got.(*retry.TimeoutError)
		if got.LastState != want.LastState || !errors.Is(got.LastError, want.LastError) ||
			got.Timeout != want.Timeout || !slices.Equal(got.ExpectedState, want.ExpectedState) {
			t.Errorf("Wait() error = %#v, want the SDK's %#v", got, want)
		}
	case *retry.UnexpectedStateError:
		got := got.(*retry.UnexpectedStateError)
		if got.State != want.State || !errors.Is(got.LastError, want.LastError) ||
			!slices.Equal(got.ExpectedState, want.ExpectedState) {
			t.Errorf("Wait() error = %#v, want the SDK's %#v", got, want)
		}
	case *retry.NotFoundError:
		if *got.(*retry.NotFoundError) != *want {
			t.Errorf("Wait() error = %#v, want the SDK's %#v", got, want)
		}
	default:
		if got != want {
			t.Errorf("Wait() error = %v, want the SDK's %v", got, want)
		}
	}
	if got != nil && got.Error() != want.Error() {
		t.Errorf("Wait() error says %q, want the SDK's %q", got, want)
	}
}

// timedRun runs wait on c's script in a bubble and returns when each
// refresh came, from the start, and how the wait ended.
func timedRun(t *testing.T, c parityCase, wait waitFunc) (at []time.Duration, e end) {
	synctest.Test(t, func(t *testing.T) {
		s := &script{steps: c.steps}
		start := time.Now()
		conf := c.conf
		conf.Refresh = func() (any, string, error) {
			at = append(at, time.Since(start))
			return s.refresh()
		}
		e.result, e.err = wait(t.Context(), &conf)
		e.elapsed, e.calls = time.Since(start), s.calls
		synctest.Wait()
	})
	return at, e
}

// TestNoJitterGivesTheSDKsDelays: "[waiter.WithJitter]([backoff.High])
// gives the SDK's delays exactly" (the package doc): its refreshes come
// at the SDK's instants, for MinTimeout up to 10s, PollInterval (over
// 180s ignored), the two together, and Delay.
func TestNoJitterGivesTheSDKsDelays(t *testing.T) {
	steps := seq(repeat(found("creating"), 9), []step{found("available")})
	base := conf([]string{"creating"}, []string{"available"})
	both := pollInterval(minTimeout(base, 5*time.Second), 2*time.Second)
	for _, c := range []parityCase{
		{name: "default", conf: base},
		{name: "MinTimeout 3s", conf: minTimeout(base, 3*time.Second)},
		{name: "PollInterval 5s", conf: pollInterval(base, 5*time.Second)},
		{name: "PollInterval 2s over MinTimeout 5s", conf: both},
		{name: "PollInterval 200s ignored", conf: pollInterval(base, 200*time.Second)},
		{name: "Delay 30s", conf: delay(base, 30*time.Second)},
	} {
		t.Run(c.name, func(t *testing.T) {
			c.steps = steps
			sdk, _ := timedRun(t, c, sdkWait)
			ours, e := timedRun(t, c, tfWait(waiter.WithJitter(backoff.High)))
			if e.err != nil {
				t.Fatalf("Wait() error = %v", e.err)
			}
			if !slices.Equal(ours, sdk) {
				t.Errorf("refreshes at %v, want the SDK's %v", ours, sdk)
			}
		})
	}
}
