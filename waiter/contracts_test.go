package waiter_test

// One test per contract of a wait under cancellation, deadlines, unread
// events and misbehaving code, each named after what it checks.

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"go.opentelemetry.io/otel"
	"golang.org/x/time/rate"

	"github.com/waitable/waitable/backoff"
	"github.com/waitable/waitable/classify"
	"github.com/waitable/waitable/clocktest"
	"github.com/waitable/waitable/retry"
	"github.com/waitable/waitable/telemetry"
	"github.com/waitable/waitable/waiter"
)

// TestCancelMidCallDeliversAttempt: cancelling while a call is in flight
// delivers that attempt too (its error is the cancellation), 200 times out
// of 200.
func TestCancelMidCallDeliversAttempt(t *testing.T) {
	clocktest.Run(t, func(t *testing.T) {
		for i := range 200 {
			var calls atomic.Int32
			op := func(ctx context.Context, in GetThingInput) (*GetThingOutput, error) {
				if calls.Add(1) == 1 {
					return status("creating"), nil
				}
				<-ctx.Done()
				return nil, ctx.Err()
			}
			r := mustNew(t, thingExists, op, waiter.WithJitter(backoff.Low)).Start(t.Context(), GetThingInput{"a"}, time.Hour)
			clocktest.Advance(3 * sec) // the second call is in flight
			r.Cancel()
			var states []string
			for a := range r.Events() {
				states = append(states, fmt.Sprintf("%d %v %v %q", a.Checkpoint.Attempts, a.Decision, a.Late, a.Checkpoint.End))
			}
			_, err := r.Result()
			if calls.Load() != 2 || fmt.Sprint(states) != `[1 retry false "" 2 retry false "cancelled"]` || !errors.Is(err, context.Canceled) {
				t.Fatalf("run %d: %d calls, events %v, Result %v; want both attempts delivered and context.Canceled", i, calls.Load(), states, err)
			}
		}
	})
}

// TestDeferCancelKeepsUnreadEvents: the Start context cancelled after the
// run succeeded (as a deferred cancel does) takes nothing from a slow
// reader: all 16 attempts (as many as a Run keeps unread) arrive.
func TestDeferCancelKeepsUnreadEvents(t *testing.T) {
	clocktest.Run(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		w := mustNew(t, thingExists, readyAfter(16), waiter.WithDelays(time.Millisecond, time.Millisecond))
		r := w.Start(ctx, GetThingInput{"a"}, time.Hour)
		events := r.Events()
		<-r.Done()
		cancel()
		n := 0
		for a := range events {
			if n++; a.Checkpoint.Attempts != n {
				t.Fatalf("event %d is attempt %d", n, a.Checkpoint.Attempts)
			}
			time.Sleep(time.Millisecond)
		}
		if n != 16 {
			t.Errorf("the reader got %d of 16 attempts", n)
		}
	})
}

// TestCancelledContextMakesNoCall: a context already done at Start or Wait
// makes no call, and the error says so.
func TestCancelledContextMakesNoCall(t *testing.T) {
	clocktest.Run(t, func(t *testing.T) {
		var calls atomic.Int32
		op := func(context.Context, GetThingInput) (*GetThingOutput, error) {
			calls.Add(1)
			return status("success"), nil
		}
		w := mustNew(t, thingExists, op)
		ctx, cancel := context.WithCancel(t.Context())
		cancel()
		_, err := w.Wait(ctx, GetThingInput{"a"}, time.Minute)
		var we *waiter.Error
		if !errors.As(err, &we) || !errors.Is(err, context.Canceled) || we.Attempts != 0 {
			t.Errorf("Wait = %v, want context.Canceled after 0 attempts", err)
		}
		_, err = w.Start(ctx, GetThingInput{"a"}, time.Minute).Result()
		if !errors.Is(err, context.Canceled) || calls.Load() != 0 {
			t.Errorf("Start: %v after %d calls, want context.Canceled and no call", err, calls.Load())
		}
	})
}

// TestFailFastStopsCalling: a fail-fast fan-out over 500 inputs, 5 at a
// time, whose first wait fails at once: the waits still to start make no
// call, and no call is made with a dead context.
func TestFailFastStopsCalling(t *testing.T) {
	clocktest.Run(t, func(t *testing.T) {
		var calls, dead atomic.Int32
		op := func(ctx context.Context, in GetThingInput) (*GetThingOutput, error) {
			calls.Add(1)
			if ctx.Err() != nil {
				dead.Add(1)
			}
			if in.Name == "0" {
				return nil, accessDenied{}
			}
			return status("creating"), nil
		}
		w := mustNew(t, thingExists, op)
		inputs := make([]GetThingInput, 500)
		for i := range inputs {
			inputs[i] = GetThingInput{fmt.Sprint(i)}
		}
		_, err := waiter.WaitAll(t.Context(), w, inputs, time.Hour, waiter.GroupOptions{Concurrency: 5, FailFast: true})
		if !errors.Is(err, waiter.ErrFailure) || calls.Load() > 5 || dead.Load() != 0 {
			t.Errorf("WaitAll = %v after %d calls (%d with a dead context); want the failure after at most 5 calls, none dead", err, calls.Load(), dead.Load())
		}
	})
}

// TestParentDeadline: a context deadline earlier than maxWait is the
// wait's deadline: the schedule times a final call to land before it, and
// the wait ends with ErrTimeout, not a cancellation.
func TestParentDeadline(t *testing.T) {
	clocktest.Run(t, func(t *testing.T) {
		rec := newRecorder(func(int) (*GetThingOutput, error) { return status("creating"), nil })
		ctx, cancel := context.WithTimeout(t.Context(), 10*sec)
		defer cancel()
		_, err := mustNew(t, thingExists, rec.op, waiter.WithJitter(backoff.Low)).Wait(ctx, GetThingInput{"a"}, time.Hour)
		times := rec.times()
		if !errors.Is(err, waiter.ErrTimeout) || errors.Is(err, context.Canceled) {
			t.Errorf("Wait = %v, want ErrTimeout", err)
		}
		if last := times[len(times)-1]; last < 9*sec || last >= 10*sec {
			t.Errorf("calls at %v: want a final call in the last second before the 10s deadline", times)
		}
	})
}

// TestSuccessAtDeadline: the final call, timed for the deadline's edge,
// returns success before its context ends: the wait succeeds.
func TestSuccessAtDeadline(t *testing.T) {
	clocktest.Run(t, func(t *testing.T) {
		const maxWait = 10 * sec
		start := time.Now()
		op := func(ctx context.Context, in GetThingInput) (*GetThingOutput, error) {
			if time.Since(start) < maxWait-time.Second {
				return status("creating"), nil
			}
			time.Sleep(time.Until(start.Add(maxWait)) - time.Nanosecond) // returns a nanosecond before the deadline
			return status("success"), nil
		}
		out, err := mustNew(t, thingExists, op, waiter.WithJitter(backoff.Low), waiter.WithFinalReserve(0)).Wait(t.Context(), GetThingInput{"a"}, maxWait)
		if err != nil || *out.Status != "success" {
			t.Errorf("Wait = %v, %v; want the final call's success", out, err)
		}
	})
}

// TestTimeoutKeepsLastOutput: a wait whose final call errored times out
// with the output of the last call that succeeded.
func TestTimeoutKeepsLastOutput(t *testing.T) {
	clocktest.Run(t, func(t *testing.T) {
		rec := newRecorder(func(n int) (*GetThingOutput, error) {
			if n%2 == 0 {
				return nil, throttled{}
			}
			return status(fmt.Sprint("creating ", n)), nil
		})
		out, err := mustNew(t, thingExists, rec.op, waiter.WithJitter(backoff.Low)).Wait(t.Context(), GetThingInput{"a"}, 7*sec)
		n := len(rec.times())
		if !errors.Is(err, waiter.ErrTimeout) || n%2 != 0 || out == nil || *out.Status != fmt.Sprint("creating ", n-1) {
			t.Errorf("Wait = %v, %v after %d calls; want a timeout with the output of call %d", out, err, n, n-1)
		}
	})
}

// TestTransientLimitWhateverTheQuota: WithTransientLimit(3) ends an
// always-throttling wait after 3 calls, whether the retry quota is full
// or empty.
func TestTransientLimitWhateverTheQuota(t *testing.T) {
	for _, capacity := range []int{500, 0} {
		t.Run(fmt.Sprint("bucket=", capacity), func(t *testing.T) {
			clocktest.Run(t, func(t *testing.T) {
				s, err := retry.NewStandard(retry.WithTokenBucket(retry.NewTokenBucket(capacity)))
				if err != nil {
					t.Fatal(err)
				}
				rec := newRecorder(func(int) (*GetThingOutput, error) { return nil, throttled{} })
				_, err = mustNew(t, thingExists, rec.op, waiter.WithRetryStrategy(s), waiter.WithTransientLimit(3)).Wait(t.Context(), GetThingInput{"a"}, time.Hour)
				var we *waiter.Error
				if !errors.As(err, &we) || we.Failure != waiter.FailureTransientLimit || !errors.Is(err, throttled{}) || len(rec.times()) != 3 {
					t.Fatalf("Wait = %v after %d calls; want FailureTransientLimit after 3", err, len(rec.times()))
				}
			})
		})
	}
}

// TestEmptyQuotaSlowsPolls: an empty retry quota does not end a wait on
// an always-throttling service; it halves the pace of the polls.
func TestEmptyQuotaSlowsPolls(t *testing.T) {
	calls := map[int]int{}
	for _, capacity := range []int{500, 0} {
		clocktest.Run(t, func(t *testing.T) {
			s, err := retry.NewStandard(retry.WithTokenBucket(retry.NewTokenBucket(capacity)), retry.WithJitter(backoff.Low))
			if err != nil {
				t.Fatal(err)
			}
			rec := newRecorder(func(int) (*GetThingOutput, error) { return nil, throttled{} })
			_, err = mustNew(t, thingExists, rec.op, waiter.WithRetryStrategy(s), waiter.WithJitter(backoff.Midpoint)).Wait(t.Context(), GetThingInput{"a"}, 10*time.Minute)
			if !errors.Is(err, waiter.ErrTimeout) || !errors.Is(err, throttled{}) {
				t.Errorf("bucket %d: Wait = %v, want a timeout holding the throttle", capacity, err)
			}
			calls[capacity] = len(rec.times())
		})
	}
	if calls[0] >= calls[500] || calls[0] < 3 {
		t.Errorf("calls with an empty quota %d, with a full one %d; want fewer, and more than 3", calls[0], calls[500])
	}
}

// refused is a connection refused, as the net package reports it.
type refused struct{}

func (refused) Error() string   { return "dial tcp 127.0.0.1:443: connect: connection refused" }
func (refused) Timeout() bool   { return false }
func (refused) Temporary() bool { return true }
func (refused) Fault() classify.Fault {
	return classify.FaultServer
}

// TestTransientLimitSaysWhat: the error after 3 connection refusals
// (WithTransientLimit(3)) says it was 3 transient errors in a row,
// matches ErrFailure, and unwraps to the refusal.
func TestTransientLimitSaysWhat(t *testing.T) {
	clocktest.Run(t, func(t *testing.T) {
		rec := newRecorder(func(int) (*GetThingOutput, error) { return nil, refused{} })
		_, err := mustNew(t, thingExists, rec.op, waiter.WithTransientLimit(3)).Wait(t.Context(), GetThingInput{"a"}, time.Hour)
		var we *waiter.Error
		if !errors.As(err, &we) || !errors.Is(err, waiter.ErrFailure) || !errors.Is(err, refused{}) ||
			we.Failure != waiter.FailureTransientLimit || !strings.Contains(err.Error(), "3 transient errors in a row") {
			t.Errorf("Wait = %v (%+v)", err, we)
		}
	})
}

// TestAdaptiveStrategyInWaiter: the adaptive strategy's delays are
// honoured between polls, and its send-rate limiter is not left in debt:
// a retry.Do after the wait starts at once.
func TestAdaptiveStrategyInWaiter(t *testing.T) {
	clocktest.Run(t, func(t *testing.T) {
		a, err := retry.NewAdaptive(retry.WithMaxAttempts(1000))
		if err != nil {
			t.Fatal(err)
		}
		rec := newRecorder(func(int) (*GetThingOutput, error) { return nil, throttled{} })
		w := mustNew(t, thingExists, rec.op, waiter.WithRetryStrategy(a), waiter.WithDelays(time.Millisecond, time.Millisecond))
		_, err = w.Wait(t.Context(), GetThingInput{"a"}, time.Minute)
		if !errors.Is(err, waiter.ErrTimeout) {
			t.Fatalf("Wait = %v, want a timeout", err)
		}
		st := a.Rate()
		// At most the unit reserved for the attempt the deadline cancelled
		// (and what the fill rate has not yet covered of the one before)
		// is still owed; a limiter the waiter drove into debt poll after
		// poll would owe one unit per throttled poll.
		if st.Capacity < -2 {
			t.Errorf("the send-rate limiter is %.1f units in debt after the wait", -st.Capacity)
		}
		// The first attempt waits at most for the one unit the limiter
		// lacks, at its fill rate (at least 0.5 per second): no debt of
		// the wait's is carried over.
		limit := time.Duration(max(1-st.Capacity, 0) / st.FillRate * float64(time.Second))
		start := time.Now()
		retry.Do(t.Context(), a, func(context.Context) (int, error) { return 1, nil })
		if waited := time.Since(start); waited > limit {
			t.Errorf("retry.Do after the wait waited %v before its first attempt; the limiter (%+v) needs %v", waited, st, limit)
		}
		// Every poll after the first throttle waited for the limiter.
		times := rec.times()
		for i := 2; i < len(times); i++ {
			if gap := times[i] - times[i-1]; gap < time.Millisecond {
				t.Fatalf("polls %d and %d only %v apart", i, i+1, gap)
			}
		}
	})
}

// TestPollRateLimitAllowsNoCall: a limiter with burst 0 is refused by New
// instead of timing out every wait after 0 attempts.
func TestPollRateLimitAllowsNoCall(t *testing.T) {
	_, err := waiter.New(thingExists, newRecorder(nil).op, waiter.WithPollRateLimit(rate.NewLimiter(10, 0)))
	if !errors.Is(err, waiter.ErrInvalidOption) || !strings.Contains(err.Error(), "burst 0") {
		t.Errorf("New = %v, want ErrInvalidOption naming the burst", err)
	}
	if _, err := waiter.New(thingExists, newRecorder(nil).op, waiter.WithPollRateLimit(rate.NewLimiter(rate.Inf, 0))); err != nil {
		t.Errorf("New with an infinite limit = %v", err)
	}
}

// TestRunEndsWhenItsCallReturns: Wait and Start make their calls the same
// way, in the wait's goroutine, and an operation honours its context: a
// call that ignores it past the deadline holds the wait until it returns
// (a Run is not done before), its answer is not judged (it is a success
// here), and the wait times out, its event saying the call was late. A
// call that ignores a cancellation holds the wait the same way, and the
// wait ends cancelled with that attempt reported.
func TestRunEndsWhenItsCallReturns(t *testing.T) {
	for _, entry := range []string{"Wait", "Start"} {
		for _, end := range []string{"deadline", "cancel"} {
			t.Run(entry+" "+end, func(t *testing.T) {
				clocktest.Run(t, func(t *testing.T) {
					release := make(chan struct{})
					op := func(ctx context.Context, in GetThingInput) (*GetThingOutput, error) {
						<-release // ignores ctx
						return status("success"), nil
					}
					ctx, cancel := context.WithCancel(t.Context())
					defer cancel()
					w := mustNew(t, thingExists, op)
					start := time.Now()
					var events []waiter.Attempt[*GetThingOutput]
					var err error
					returned := make(chan struct{})
					if entry == "Wait" {
						go func() {
							defer close(returned)
							_, err = w.Wait(ctx, GetThingInput{"a"}, 10*sec)
						}()
					} else {
						r := w.Start(ctx, GetThingInput{"a"}, 10*sec)
						go func() {
							defer close(returned)
							for a := range r.Events() {
								events = append(events, a)
							}
							_, err = r.Result()
						}()
					}
					if end == "cancel" {
						time.Sleep(sec)
						cancel()
						time.Sleep(time.Minute - sec)
					} else {
						time.Sleep(time.Minute) // long past the deadline
					}
					synctest.Wait()
					select {
					case <-returned:
						t.Fatalf("%s ended before its call returned: %v", entry, err)
					default:
					}
					close(release)
					<-returned
					wantErr, wantOutcome := error(waiter.ErrTimeout), "timeout"
					if end == "cancel" {
						wantErr, wantOutcome = context.Canceled, "cancelled"
					}
					if !errors.Is(err, wantErr) || time.Since(start) != time.Minute {
						t.Errorf("%s = %v after %v, want %v when the call returns, after 1m", entry, err, time.Since(start), wantErr)
					}
					if entry == "Start" && (len(events) != 1 || events[0].Checkpoint.End != wantOutcome || events[0].Latency != time.Minute ||
						events[0].Late != (end == "deadline") || events[0].Acceptor != -1) {
						t.Errorf("events %+v, want one attempt of 1m, not judged, ended %q", events, wantOutcome)
					}
				})
			})
		}
	}
}

// panicky is an observer that panics in the method named by where.
type panicky struct{ where string }

func (p panicky) StartWait(ctx context.Context, w telemetry.Wait, start time.Time) (context.Context, telemetry.WaitObserver) {
	if p.where == "StartWait" {
		panic("observer: " + p.where)
	}
	return ctx, p
}
func (p panicky) Recording() bool { return true }
func (p panicky) StartAttempt(ctx context.Context, n int, start time.Time) context.Context {
	if p.where == "StartAttempt" {
		panic("observer: " + p.where)
	}
	return ctx
}
func (p panicky) EndAttempt(ctx context.Context, a telemetry.Attempt, end time.Time) {
	if p.where == "EndAttempt" {
		panic("observer: " + p.where)
	}
}
func (p panicky) EndWait(o telemetry.Outcome, end time.Time) {
	if p.where == "EndWait" {
		panic("observer: " + p.where)
	}
}

// TestObserverPanic: an observer that panics in any method neither crashes
// the process nor changes the wait; the panic goes to OpenTelemetry's
// error handler.
func TestObserverPanic(t *testing.T) {
	var mu sync.Mutex
	var handled []string
	otel.SetErrorHandler(otel.ErrorHandlerFunc(func(err error) {
		mu.Lock()
		handled = append(handled, err.Error())
		mu.Unlock()
	}))
	defer otel.SetErrorHandler(otel.ErrorHandlerFunc(func(error) {}))
	for _, where := range []string{"StartWait", "StartAttempt", "EndAttempt", "EndWait"} {
		t.Run(where, func(t *testing.T) {
			clocktest.Run(t, func(t *testing.T) {
				mu.Lock()
				handled = nil
				mu.Unlock()
				w := mustNew(t, thingExists, readyAfter(3), waiter.WithTelemetry(telemetry.Settings{Off: true, Extra: []telemetry.Observer{panicky{where}}}))
				if _, err := w.Wait(t.Context(), GetThingInput{"a"}, time.Minute); err != nil {
					t.Errorf("Wait = %v", err)
				}
				if _, err := w.Start(t.Context(), GetThingInput{"a"}, time.Minute).Result(); err != nil {
					t.Errorf("Start: %v", err)
				}
				mu.Lock()
				defer mu.Unlock()
				if len(handled) != 2 || !strings.Contains(handled[0], "observer: "+where) {
					t.Errorf("the error handler got %q, want the panic once per wait", handled)
				}
			})
		})
	}
}

// TestMockDrivesWaiter: clocktest.Mock drives a waiter through every sleep,
// though the waiter re-arms one timer (a Run's, in its goroutine).
func TestMockDrivesWaiter(t *testing.T) {
	m := clocktest.NewMock()
	rec := newRecorder(func(n int) (*GetThingOutput, error) {
		if n < 5 {
			return status("creating"), nil
		}
		return status("success"), nil
	})
	w := mustNew(t, thingExists, rec.op, waiter.WithClock(m), waiter.WithJitter(backoff.Low), waiter.WithTelemetry(telemetry.Settings{Off: true}))
	r := w.Start(context.Background(), GetThingInput{"a"}, time.Hour)
	// Every sleep re-arms the run's one timer; the deadline (an hour away)
	// is the calls' context's: move the time to the end of each sleep, the
	// deadline's arming left alone.
	var delays []string
	for n := 1; len(delays) < 4; n++ {
		if a := m.WaitArmed(n); a.Delay < time.Minute {
			delays = append(delays, fmt.Sprint(a.Kind, " ", a.Delay))
			m.Set(a.At.Add(a.Delay))
		}
	}
	if _, err := r.Result(); err != nil || len(rec.times()) != 5 || fmt.Sprint(delays) != "[Timer 2s Reset 2s Reset 2s Reset 2s]" {
		t.Errorf("Result = %v after %d calls, sleeps %v; want success after 5 calls, 2s apart", err, len(rec.times()), delays)
	}
}

// TestWaitInCallersGoroutine: Wait calls the operation in the caller's
// goroutine.
func TestWaitInCallersGoroutine(t *testing.T) {
	clocktest.Run(t, func(t *testing.T) {
		caller := goroutineID()
		same := true
		op := func(context.Context, GetThingInput) (*GetThingOutput, error) {
			same = same && goroutineID() == caller
			return status("success"), nil
		}
		if _, err := mustNew(t, thingExists, op).Wait(t.Context(), GetThingInput{"a"}, time.Minute); err != nil || !same {
			t.Errorf("Wait = %v; called in the caller's goroutine: %t", err, same)
		}
	})
}

// goroutineID reads the current goroutine's ID from its stack header.
func goroutineID() int {
	var b [64]byte
	var id int
	fmt.Sscanf(string(b[:runtime.Stack(b[:], false)]), "goroutine %d ", &id)
	return id
}

// TestWaitTimersStayInTheirBubble: Waits on the real clock hand their timer
// to the next Wait, but not across a synctest bubble's edge. A bubble's
// Wait that took a timer of the real clock would sleep on a timer that the
// bubble's clock does not run (the test then hangs until go test's
// -timeout, in sleepReal); a Wait outside that took a bubble's timer
// would panic. WaitFrom, whose checkpoint may have been made outside the
// bubble, keeps a timer of its own.
func TestWaitTimersStayInTheirBubble(t *testing.T) {
	outside := func() {
		w := mustNew(t, thingExists, readyAfter(3), waiter.WithDelays(time.Nanosecond, time.Nanosecond))
		if _, err := w.Wait(context.Background(), GetThingInput{"a"}, time.Hour); err != nil {
			t.Fatal(err)
		}
	}
	inside := func() {
		synctest.Test(t, func(t *testing.T) {
			w := mustNew(t, thingExists, readyAfter(3), waiter.WithDelays(time.Second, time.Second))
			start := time.Now()
			if _, err := w.Wait(context.Background(), GetThingInput{"a"}, time.Hour); err != nil {
				t.Fatal(err)
			}
			if got := time.Since(start); got != 2*time.Second {
				t.Fatalf("3 polls 1s apart took %v of the bubble's time, want 2s", got)
			}
		})
	}
	// A checkpoint made outside, resumed inside: its deadline has a
	// monotonic reading, but the wait is in a bubble.
	resumed := func() {
		w := mustNew(t, thingExists, readyAfter(3), waiter.WithDelays(time.Second, time.Second))
		from, err := w.Begin(time.Now(), time.Hour, 1)
		if err != nil {
			t.Fatal(err)
		}
		synctest.Test(t, func(t *testing.T) {
			start := time.Now()
			if _, err := w.WaitFrom(context.Background(), GetThingInput{"a"}, from); err != nil {
				t.Fatal(err)
			}
			if got := time.Since(start); got != 2*time.Second {
				t.Fatalf("resumed: 3 polls 1s apart took %v of the bubble's time, want 2s", got)
			}
		})
	}
	for range 3 {
		outside()
		inside()
		outside()
		resumed()
	}
}
