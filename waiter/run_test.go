package waiter_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/waitable/waitable/backoff"
	"github.com/waitable/waitable/classify"
	"github.com/waitable/waitable/clocktest"
	"github.com/waitable/waitable/retry"
	"github.com/waitable/waitable/waiter"
)

const sec = time.Second

// Thing is the resource of these tests.
type GetThingInput struct{ Name string }
type GetThingOutput struct {
	Status *string
	Reason *string
}

func status(s string) *GetThingOutput { return &GetThingOutput{Status: &s} }

// thingExists is the spec's example waiter: fail fast on "failed",
// succeed on "success".
var thingExists = waiter.Definition{
	Name: "ThingExists",
	Acceptors: []classify.Acceptor{
		{State: classify.Failure, Matcher: classify.OnOutput("status", classify.StringEquals, "failed"), Message: "Reason"},
		{State: classify.Success, Matcher: classify.OnOutput("status", classify.StringEquals, "success")},
		{State: classify.Retry, Matcher: classify.OnErrorType("NotFound")},
	},
}

type notFound struct{}

func (notFound) Error() string     { return "thing not found" }
func (notFound) ErrorCode() string { return "NotFound" }

type accessDenied struct{}

func (accessDenied) Error() string       { return "access denied" }
func (accessDenied) ErrorCode() string   { return "AccessDenied" }
func (accessDenied) HTTPStatusCode() int { return 403 }

type throttled struct{ after time.Duration }

func (throttled) Error() string               { return "rate exceeded" }
func (throttled) ErrorCode() string           { return "ThrottlingException" }
func (t throttled) RetryAfter() time.Duration { return t.after }

// recorder is an operation scripted by call number, recording call times.
type recorder struct {
	mu     sync.Mutex
	start  time.Time
	calls  []time.Duration
	script func(n int) (*GetThingOutput, error)
	delay  time.Duration // how long each call takes
}

func newRecorder(script func(n int) (*GetThingOutput, error)) *recorder {
	return &recorder{start: time.Now(), script: script}
}

func (r *recorder) op(ctx context.Context, in GetThingInput) (*GetThingOutput, error) {
	r.mu.Lock()
	r.calls = append(r.calls, time.Since(r.start))
	n := len(r.calls)
	r.mu.Unlock()
	if r.delay > 0 {
		select {
		case <-time.After(r.delay):
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	return r.script(n)
}

func (r *recorder) times() []time.Duration {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]time.Duration(nil), r.calls...)
}

func mustNew(t *testing.T, def waiter.Definition, op func(context.Context, GetThingInput) (*GetThingOutput, error), opts ...waiter.Option) *waiter.Waiter[GetThingInput, *GetThingOutput] {
	t.Helper()
	w, err := waiter.New(def, op, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return w
}

func equalDurations(a, b []time.Duration) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestImmediateSuccess(t *testing.T) {
	clocktest.Run(t, func(t *testing.T) {
		rec := newRecorder(func(int) (*GetThingOutput, error) { return status("success"), nil })
		out, err := mustNew(t, thingExists, rec.op).Wait(t.Context(), GetThingInput{"a"}, time.Minute)
		if err != nil || *out.Status != "success" || len(rec.times()) != 1 || time.Since(rec.start) != 0 {
			t.Fatalf("Wait = %v, %v after %d calls, %v", out, err, len(rec.times()), time.Since(rec.start))
		}
	})
}

// TestSuccessAfterRetries: with the jitter at the midpoint the polls land
// at exact times: delays 2s ([2,2]), 3s ([2,4]), 5s ([2,8]).
func TestSuccessAfterRetries(t *testing.T) {
	clocktest.Run(t, func(t *testing.T) {
		rec := newRecorder(func(n int) (*GetThingOutput, error) {
			if n < 4 {
				return status("creating"), nil
			}
			return status("success"), nil
		})
		w := mustNew(t, thingExists, rec.op, waiter.WithJitter(backoff.Midpoint))
		out, err := w.Wait(t.Context(), GetThingInput{"a"}, 5*time.Minute)
		if err != nil || *out.Status != "success" {
			t.Fatalf("Wait = %v, %v", out, err)
		}
		if got, want := rec.times(), []time.Duration{0, 2 * sec, 5 * sec, 10 * sec}; !equalDurations(got, want) {
			t.Errorf("polls at %v, want %v", got, want)
		}
	})
}

func TestFailureAcceptor(t *testing.T) {
	clocktest.Run(t, func(t *testing.T) {
		rec := newRecorder(func(n int) (*GetThingOutput, error) {
			if n < 2 {
				return status("creating"), nil
			}
			o := status("failed")
			reason := "quota exceeded"
			o.Reason = &reason
			return o, nil
		})
		out, err := mustNew(t, thingExists, rec.op, waiter.WithJitter(backoff.Low)).Wait(t.Context(), GetThingInput{"a"}, time.Minute)
		var we *waiter.Error
		if !errors.As(err, &we) || !errors.Is(err, waiter.ErrFailure) || we.Acceptor != 0 || we.Message != "quota exceeded" || we.Attempts != 2 || we.Elapsed != 2*sec {
			t.Fatalf("Wait error = %v (%+v)", err, we)
		}
		if *out.Status != "failed" {
			t.Errorf("Wait output = %v, want the last output", out)
		}
		want := `waiter ThingExists: failure after 2 polls in 2s: acceptor 0 matched (output: status stringEquals "failed"): quota exceeded`
		if err.Error() != want {
			t.Errorf("Error() = %q\nwant      %q", err, want)
		}
	})
}

// TestErrorMatchedAsRetry: S3 BucketExists-style, NotFound retries, then
// success.
func TestErrorMatchedAsRetry(t *testing.T) {
	clocktest.Run(t, func(t *testing.T) {
		rec := newRecorder(func(n int) (*GetThingOutput, error) {
			if n < 3 {
				return nil, fmt.Errorf("GetThing: %w", notFound{})
			}
			return status("success"), nil
		})
		r := mustNew(t, thingExists, rec.op, waiter.WithJitter(backoff.Low)).Start(t.Context(), GetThingInput{"a"}, time.Minute)
		var got []string
		for a := range r.Events() {
			got = append(got, fmt.Sprintf("%d %v %d %v", a.Checkpoint.Attempts, a.Decision, a.Acceptor, a.NextDelay))
		}
		if _, err := r.Result(); err != nil {
			t.Fatal(err)
		}
		want := []string{"1 retry 2 2s", "2 retry 2 2s", "3 success 1 0s"}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("attempts %v, want %v", got, want)
		}
	})
}

func TestUnmatchedErrorFailsAtOnce(t *testing.T) {
	clocktest.Run(t, func(t *testing.T) {
		rec := newRecorder(func(int) (*GetThingOutput, error) { return nil, accessDenied{} })
		_, err := mustNew(t, thingExists, rec.op).Wait(t.Context(), GetThingInput{"a"}, time.Minute)
		var we *waiter.Error
		if !errors.As(err, &we) || !errors.Is(err, waiter.ErrFailure) || !errors.Is(err, accessDenied{}) || we.Acceptor != -1 || we.Attempts != 1 || len(rec.times()) != 1 {
			t.Fatalf("Wait = %v (%+v), %d calls", err, we, len(rec.times()))
		}
	})
}

// TestThrottleRetried: a throttle no acceptor matches is retried on the
// waiter's schedule, never sooner than its retry-after, and shows in the
// events as transient.
func TestThrottleRetried(t *testing.T) {
	clocktest.Run(t, func(t *testing.T) {
		rec := newRecorder(func(n int) (*GetThingOutput, error) {
			switch n {
			case 1:
				return nil, throttled{}
			case 2:
				return nil, throttled{after: 7 * sec}
			}
			return status("success"), nil
		})
		// The strategy's own jitter at its highest, so that its delays are
		// exact: the throttle backoff (1s, then 2s) and, for the second,
		// the retry-after of 7s, within its 5s of slack.
		strategy, err := retry.NewStandard(retry.WithJitter(backoff.High))
		if err != nil {
			t.Fatal(err)
		}
		r := mustNew(t, thingExists, rec.op, waiter.WithJitter(backoff.Low), waiter.WithRetryStrategy(strategy)).Start(t.Context(), GetThingInput{"a"}, time.Minute)
		var transient []bool
		for a := range r.Events() {
			transient = append(transient, a.Transient)
		}
		if _, err := r.Result(); err != nil {
			t.Fatal(err)
		}
		if fmt.Sprint(transient) != "[true true false]" {
			t.Errorf("transient flags %v", transient)
		}
		if got, want := rec.times(), []time.Duration{0, 2 * sec, 9 * sec}; !equalDurations(got, want) {
			t.Errorf("polls at %v, want %v", got, want)
		}
	})
}

// TestSpecLetter: with no retry strategy, a throttle is terminal.
func TestSpecLetter(t *testing.T) {
	clocktest.Run(t, func(t *testing.T) {
		rec := newRecorder(func(int) (*GetThingOutput, error) { return nil, throttled{} })
		_, err := mustNew(t, thingExists, rec.op, waiter.WithRetryStrategy(nil)).Wait(t.Context(), GetThingInput{"a"}, time.Minute)
		if !errors.Is(err, waiter.ErrFailure) || len(rec.times()) != 1 {
			t.Fatalf("Wait = %v after %d calls, want an immediate failure", err, len(rec.times()))
		}
	})
}

// TestTransientErrorsRetriedUntilTheDeadline: throttles for the whole
// budget never end the wait early: it times out at its deadline, its
// chain holding the last throttle.
func TestTransientErrorsRetriedUntilTheDeadline(t *testing.T) {
	clocktest.Run(t, func(t *testing.T) {
		start := time.Now()
		rec := newRecorder(func(int) (*GetThingOutput, error) { return nil, throttled{} })
		_, err := mustNew(t, thingExists, rec.op).Wait(t.Context(), GetThingInput{"a"}, time.Minute)
		var th throttled
		if !errors.Is(err, waiter.ErrTimeout) || !errors.As(err, &th) || len(rec.times()) <= 3 {
			t.Fatalf("Wait = %v after %d calls; want a timeout holding the throttle, after more than 3 calls", err, len(rec.times()))
		}
		if got := time.Since(start); got < time.Minute-100*time.Millisecond || got > time.Minute {
			t.Errorf("the wait ended at %v, want at its 1m deadline", got)
		}
	})
}

// TestMaxWait: an operation that always says "retry" and takes 300ms; the
// polls follow the schedule exactly and the last one, timed with the
// observed latency and a margin as reserve, ends before the deadline.
func TestMaxWait(t *testing.T) {
	clocktest.Run(t, func(t *testing.T) {
		const maxWait = 60 * sec
		rec := newRecorder(func(int) (*GetThingOutput, error) { return status("creating"), nil })
		rec.delay = 300 * time.Millisecond
		w := mustNew(t, thingExists, rec.op, waiter.WithJitter(backoff.Midpoint))
		out, err := w.Wait(t.Context(), GetThingInput{"a"}, maxWait)

		// The expected starts: the schedule with the latency counted and
		// a reserve of 1.5 x 300ms + 20ms.
		reserve := rec.delay*3/2 + 20*time.Millisecond
		var want []time.Duration
		sched := backoff.WaiterSchedule{Jitter: backoff.Midpoint}
		at := time.Duration(0)
		for attempt := 1; ; attempt++ {
			want = append(want, at)
			end := at + rec.delay
			d := sched.DelayAfterCall(attempt, maxWait-end, reserve, rec.delay, 0)
			if d == 0 {
				break
			}
			at = end + d
		}
		got := rec.times()
		if !equalDurations(got, want) {
			t.Fatalf("polls at %v, want %v", got, want)
		}
		t.Log("polls", got)
		last := got[len(got)-1]
		if last != maxWait-reserve {
			t.Errorf("the last poll started at %v, want %v: the reserve before the %v deadline", last, maxWait-reserve, maxWait)
		}
		var we *waiter.Error
		if !errors.As(err, &we) || !errors.Is(err, waiter.ErrTimeout) || !we.Timeout() || we.Attempts != len(want) || we.Elapsed != last+rec.delay || *out.Status != "creating" {
			t.Errorf("Wait = %v, %+v; want a timeout after %d attempts in %v with the last output", out, we, len(want), last+rec.delay)
		}
	})
}

// TestHungOperation: an operation that never returns on its own is
// cancelled at the deadline, and the run ends right then.
func TestHungOperation(t *testing.T) {
	clocktest.Run(t, func(t *testing.T) {
		start := time.Now()
		hang := func(ctx context.Context, in GetThingInput) (*GetThingOutput, error) {
			<-ctx.Done()
			return nil, ctx.Err()
		}
		_, err := mustNew(t, thingExists, hang).Wait(t.Context(), GetThingInput{"a"}, 10*sec)
		if elapsed := time.Since(start); !errors.Is(err, waiter.ErrTimeout) || !errors.Is(err, context.DeadlineExceeded) || elapsed > 10*sec+5*time.Millisecond {
			t.Fatalf("Wait = %v after %v, want a timeout within 5ms of the 10s deadline", err, elapsed)
		}
	})
}

// TestAttemptTimeout: each call is cut at the per-attempt timeout; the
// timeouts are transient, retried until the wait's deadline, and
// WithTransientLimit bounds them.
func TestAttemptTimeout(t *testing.T) {
	clocktest.Run(t, func(t *testing.T) {
		rec := newRecorder(func(int) (*GetThingOutput, error) { return status("success"), nil })
		rec.delay = time.Hour // every call hangs until cut
		r := mustNew(t, thingExists, rec.op, waiter.WithAttemptTimeout(sec), waiter.WithJitter(backoff.Low)).Start(t.Context(), GetThingInput{"a"}, time.Minute)
		n := 0
		for a := range r.Events() {
			n++
			if a.Latency != sec || !errors.Is(a.Err, context.DeadlineExceeded) || !a.Transient {
				t.Errorf("attempt %d: latency %v, error %v, transient %t; want 1s, DeadlineExceeded, transient", a.Checkpoint.Attempts, a.Latency, a.Err, a.Transient)
			}
		}
		if _, err := r.Result(); !errors.Is(err, waiter.ErrTimeout) || !errors.Is(err, context.DeadlineExceeded) || n < 10 {
			t.Fatalf("Result = %v after %d attempts; want a timeout holding the last DeadlineExceeded", err, n)
		}

		rec = newRecorder(func(int) (*GetThingOutput, error) { return status("success"), nil })
		rec.delay = time.Hour
		r = mustNew(t, thingExists, rec.op, waiter.WithAttemptTimeout(sec), waiter.WithJitter(backoff.Low), waiter.WithTransientLimit(3)).Start(t.Context(), GetThingInput{"a"}, time.Minute)
		if _, err := r.Result(); !errors.Is(err, waiter.ErrFailure) || !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("Result with WithTransientLimit(3) = %v", err)
		}
		if got, want := rec.times(), []time.Duration{0, 3 * sec, 6 * sec}; !equalDurations(got, want) {
			t.Errorf("calls at %v, want %v", got, want)
		}
	})
}

func TestMaxPolls(t *testing.T) {
	clocktest.Run(t, func(t *testing.T) {
		rec := newRecorder(func(int) (*GetThingOutput, error) { return status("creating"), nil })
		_, err := mustNew(t, thingExists, rec.op, waiter.WithMaxPolls(3)).Wait(t.Context(), GetThingInput{"a"}, time.Hour)
		var we *waiter.Error
		if !errors.As(err, &we) || !errors.Is(err, waiter.ErrMaxPolls) || we.Attempts != 3 || len(rec.times()) != 3 {
			t.Fatalf("Wait = %v, %d calls", err, len(rec.times()))
		}
	})
}

func TestCancelMidSleep(t *testing.T) {
	clocktest.Run(t, func(t *testing.T) {
		rec := newRecorder(func(int) (*GetThingOutput, error) { return status("creating"), nil })
		ctx, cancel := context.WithCancelCause(t.Context())
		r := mustNew(t, thingExists, rec.op, waiter.WithJitter(backoff.High)).Start(ctx, GetThingInput{"a"}, time.Hour)
		clocktest.Advance(sec) // the run sleeps its first 2s
		cause := errors.New("user pressed ^C")
		cancel(cause)
		out, err := r.Result()
		if !errors.Is(err, cause) || errors.Is(err, waiter.ErrTimeout) || *out.Status != "creating" || len(rec.times()) != 1 {
			t.Fatalf("Result = %v, %v after %d calls; want the cause and the last output", out, err, len(rec.times()))
		}
	})
}

func TestCancelMidCall(t *testing.T) {
	clocktest.Run(t, func(t *testing.T) {
		rec := newRecorder(func(int) (*GetThingOutput, error) { return status("creating"), nil })
		rec.delay = time.Hour
		r := mustNew(t, thingExists, rec.op).Start(t.Context(), GetThingInput{"a"}, 2*time.Hour)
		clocktest.Advance(time.Minute)
		r.Cancel()
		_, err := r.Result()
		var we *waiter.Error
		if !errors.As(err, &we) || !errors.Is(err, context.Canceled) || we.Elapsed != time.Minute || we.Attempts != 1 {
			t.Fatalf("Result = %v (%+v), want context.Canceled after 1m", err, we)
		}
	})
}

type boom struct{ code int }

// panickyDescribe is an operation that panics, named so that its frame can
// be found in a stack.
func panickyDescribe(context.Context, GetThingInput) (*GetThingOutput, error) { panic(boom{42}) }

// TestPanicReachesResult: a Run's operation panics in the Run's goroutine;
// Result panics in the caller's with a *PanicError holding the value and
// the stack of the panic, and the attempt's event carries it.
func TestPanicReachesResult(t *testing.T) {
	clocktest.Run(t, func(t *testing.T) {
		r := mustNew(t, thingExists, panickyDescribe).Start(t.Context(), GetThingInput{"a"}, time.Minute)
		var events []waiter.Attempt[*GetThingOutput]
		for a := range r.Events() {
			events = append(events, a)
		}
		var pe *waiter.PanicError
		if len(events) != 1 || !errors.As(events[0].Err, &pe) || events[0].Decision != classify.Failure {
			t.Fatalf("events %+v, want one attempt whose error is the panic", events)
		}
		defer func() {
			p, ok := recover().(*waiter.PanicError)
			if !ok || p.Value != (boom{42}) || !strings.Contains(string(p.Stack), "panickyDescribe") {
				t.Errorf("recovered %v, want a *PanicError with boom{42} and the operation's frame", p)
			}
		}()
		r.Result()
		t.Error("Result returned instead of panicking")
	})
}

// TestPanicThroughWait: Wait calls the operation in the caller's
// goroutine, so its panic goes through Wait as it is, with its own stack.
func TestPanicThroughWait(t *testing.T) {
	clocktest.Run(t, func(t *testing.T) {
		w := mustNew(t, thingExists, panickyDescribe)
		defer func() {
			if p := recover(); p != (boom{42}) {
				t.Errorf("recovered %v, want the original panic value", p)
			}
		}()
		w.Wait(t.Context(), GetThingInput{"a"}, time.Minute)
		t.Error("Wait returned instead of panicking")
	})
}

// TestRetryDoInsideOperation: retry.Do inside a waiter's operation makes
// one attempt; the waiter's schedule does the retrying.
func TestRetryDoInsideOperation(t *testing.T) {
	clocktest.Run(t, func(t *testing.T) {
		s, _ := retry.NewStandard(retry.WithMaxAttempts(5))
		calls := 0
		op := func(ctx context.Context, in GetThingInput) (*GetThingOutput, error) {
			return retry.Do(ctx, s, func(ctx context.Context) (*GetThingOutput, error) {
				calls++
				return nil, accessDenied{}
			})
		}
		mustNew(t, thingExists, op).Wait(t.Context(), GetThingInput{"a"}, time.Minute)
		if calls != 1 {
			t.Errorf("retry.Do inside the operation made %d calls, want 1", calls)
		}
	})
}

func TestInvalidMaxWait(t *testing.T) {
	w := mustNew(t, thingExists, newRecorder(nil).op)
	for _, d := range []time.Duration{0, -sec} {
		if _, err := w.Wait(context.Background(), GetThingInput{}, d); !errors.Is(err, waiter.ErrInvalidOption) {
			t.Errorf("Wait with maxWait %v = %v, want ErrInvalidOption", d, err)
		}
	}
}

// TestErrorElapsedRounded: an Error's message gives its elapsed time to
// the millisecond (2.01s, not 2.00992439s); Elapsed keeps it exact, and
// a time under a millisecond is given as it is.
func TestErrorElapsedRounded(t *testing.T) {
	e := &waiter.Error{Waiter: "JobDone", Reason: waiter.ErrTimeout, Attempts: 2, Acceptor: -1, Elapsed: 2009924390 * time.Nanosecond}
	if got := e.Error(); !strings.Contains(got, "after 2 polls in 2.01s") {
		t.Errorf("Error() = %q, want the elapsed time to the millisecond", got)
	}
	e.Elapsed = 765644 * time.Nanosecond
	if got := e.Error(); !strings.Contains(got, "in 765.644µs") {
		t.Errorf("Error() = %q, want a time under a millisecond as it is", got)
	}
}
