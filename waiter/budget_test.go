package waiter_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/waitable/waitable/backoff"
	"github.com/waitable/waitable/classify"
	"github.com/waitable/waitable/clocktest"
	"github.com/waitable/waitable/waiter"
)

// The caller's budget rules the wait: these tests are the contract's, one
// finding each, in virtual time.

// TestTransientErrorsNeverEndAWait: throttles, 503s and refused
// connections at the start of a wait are retried for as long as the
// budget lasts; the wait succeeds once the service answers, with Wait
// and with Start.
func TestTransientErrorsNeverEndAWait(t *testing.T) {
	tests := []struct {
		name          string
		err           error
		until, budget time.Duration
	}{
		{"throttles for 20s of 5m", throttled{}, 20 * sec, 5 * time.Minute},
		{"503 for 15s of 2m", unavailable{}, 15 * sec, 2 * time.Minute},
		{"refused for 10s of 30s", refused{}, 10 * sec, 30 * sec},
	}
	for _, tt := range tests {
		for _, start := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/start=%t", tt.name, start), func(t *testing.T) {
				clocktest.Run(t, func(t *testing.T) {
					begin := time.Now()
					op := func(ctx context.Context, in GetThingInput) (*GetThingOutput, error) {
						if time.Since(begin) < tt.until {
							return nil, tt.err
						}
						return status("success"), nil
					}
					w := mustNew(t, thingExists, op)
					var err error
					if start {
						_, err = w.Start(t.Context(), GetThingInput{"a"}, tt.budget).Result()
					} else {
						_, err = w.Wait(t.Context(), GetThingInput{"a"}, tt.budget)
					}
					if err != nil || time.Since(begin) < tt.until {
						t.Fatalf("wait = %v at %v; want success after %v", err, time.Since(begin), tt.until)
					}
				})
			})
		}
	}
}

// TestFatalErrorEndsAtOnce: an error the retry strategy calls fatal
// (AccessDenied) ends the wait at its first call.
func TestFatalErrorEndsAtOnce(t *testing.T) {
	clocktest.Run(t, func(t *testing.T) {
		rec := newRecorder(func(int) (*GetThingOutput, error) { return nil, accessDenied{} })
		_, err := mustNew(t, thingExists, rec.op).Wait(t.Context(), GetThingInput{"a"}, time.Hour)
		var we *waiter.Error
		if !errors.As(err, &we) || we.Failure != waiter.FailureError || !errors.Is(err, accessDenied{}) || len(rec.times()) != 1 {
			t.Fatalf("Wait = %v after %d calls; want FailureError at once", err, len(rec.times()))
		}
	})
}

// TestConditionFalseNilPollsAgain: a NewFunc condition's (false, nil) polls again
// whatever the call returned, a fatal error included; (false, err) is
// the condition's own failure.
func TestConditionFalseNilPollsAgain(t *testing.T) {
	clocktest.Run(t, func(t *testing.T) {
		calls := 0
		op := func(ctx context.Context, in string) (string, error) {
			calls++
			if calls < 3 {
				return "", accessDenied{}
			}
			return "up", nil
		}
		cond := func(in, out string, err error) (bool, error) { return out == "up", nil }
		w, err := waiter.NewFunc("Up", op, cond, waiter.WithDelays(time.Second, time.Second))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Wait(t.Context(), "a", time.Minute); err != nil || calls != 3 {
			t.Fatalf("Wait = %v after %d calls; want success on the 3rd", err, calls)
		}

		// Never sooner than the error's retry-after hint.
		begin, calls := time.Now(), 0
		var second time.Duration
		hinted := func(ctx context.Context, in string) (string, error) {
			if calls++; calls == 1 {
				return "", throttled{after: 30 * sec}
			}
			second = time.Since(begin)
			return "up", nil
		}
		w, _ = waiter.NewFunc("Up", hinted, cond, waiter.WithDelays(time.Second, time.Second))
		if _, err := w.Wait(t.Context(), "a", time.Minute); err != nil || second != 30*sec {
			t.Fatalf("Wait = %v, second call at %v; want success, the second call at the 30s hint", err, second)
		}

		gone := errors.New("the thing is gone")
		calls = 0
		failing := func(in, out string, err error) (bool, error) { return false, gone }
		w, _ = waiter.NewFunc("Up", op, failing, waiter.WithDelays(time.Second, time.Second))
		var we *waiter.Error
		if _, err := w.Wait(t.Context(), "a", time.Minute); !errors.As(err, &we) || we.Failure != waiter.FailureAcceptor || !errors.Is(err, gone) || calls != 1 {
			t.Fatalf("Wait = %v after %d calls; want the condition's failure at once", err, calls)
		}
	})
}

// TestRetryAfterNeverUndercut: a service's retry-after is a floor for the
// next call, however long it is; a hint past the deadline ends the wait
// at once with ErrTimeout naming the hint, and no call follows.
func TestRetryAfterNeverUndercut(t *testing.T) {
	for _, matched := range []bool{false, true} {
		t.Run(fmt.Sprint("matched by an acceptor=", matched), func(t *testing.T) {
			clocktest.Run(t, func(t *testing.T) {
				def := thingExists
				if matched { // an acceptor says retry on throttles: the hint still holds
					def = withAcceptors(def, classify.Acceptor{State: classify.Retry, Matcher: classify.OnErrorType("ThrottlingException")})
				}
				rec := newRecorder(func(n int) (*GetThingOutput, error) {
					if n == 1 {
						return nil, throttled{after: 30 * sec}
					}
					return status("success"), nil
				})
				if _, err := mustNew(t, def, rec.op).Wait(t.Context(), GetThingInput{"a"}, 5*time.Minute); err != nil {
					t.Fatal(err)
				}
				if got := rec.times(); len(got) != 2 || got[1] < 30*sec {
					t.Errorf("calls at %v, want the second no sooner than the 30s retry-after", got)
				}

				start := time.Now()
				rec = newRecorder(func(int) (*GetThingOutput, error) { return nil, throttled{after: time.Hour} })
				_, err := mustNew(t, def, rec.op).Wait(t.Context(), GetThingInput{"a"}, time.Minute)
				var we *waiter.Error
				if !errors.As(err, &we) || !errors.Is(err, waiter.ErrTimeout) || we.Hint != time.Hour ||
					!strings.Contains(err.Error(), "retry after 1h0m0s, past the deadline") {
					t.Fatalf("Wait = %v (%+v); want a timeout naming the 1h retry-after", err, we)
				}
				if len(rec.times()) != 1 || time.Since(start) != 0 {
					t.Errorf("%d calls, ended after %v; want 1 call and the end at once", len(rec.times()), time.Since(start))
				}
			})
		})
	}
}

// readyAt is an operation that takes latency and answers success for a
// call that starts at or after ready (since its begin), "creating" before.
// If honour, it returns its context's error when the context ends first.
func readyAt(begin time.Time, ready, latency time.Duration, honour bool) func(context.Context, GetThingInput) (*GetThingOutput, error) {
	return func(ctx context.Context, in GetThingInput) (*GetThingOutput, error) {
		started := time.Since(begin)
		if honour {
			select {
			case <-time.After(latency):
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		} else {
			time.Sleep(latency)
		}
		if started >= ready {
			return status("success"), nil
		}
		return status("creating"), nil
	}
}

// TestFinalPollSucceeds: with a constant latency, a resource that becomes
// ready only in time for the final poll is seen ready by it: 20 seeded
// waits of 20, with Wait and Start, for operations that honour their
// context and operations that ignore it. (The final call used to start
// one latency before the deadline and end exactly at it.)
func TestFinalPollSucceeds(t *testing.T) {
	for _, latency := range []time.Duration{time.Millisecond, 50 * time.Millisecond, 300 * time.Millisecond, time.Second} {
		for _, honour := range []bool{true, false} {
			for _, start := range []bool{false, true} {
				t.Run(fmt.Sprintf("latency=%v/honour=%t/start=%t", latency, honour, start), func(t *testing.T) {
					failed := 0
					for seed := range uint64(20) {
						clocktest.Run(t, func(t *testing.T) {
							budget := time.Minute + time.Duration(seed)*1700*time.Millisecond
							// Ready MinDelay (2s) before the deadline: every poll but
							// the final one starts before that.
							op := readyAt(time.Now(), budget-2*sec, latency, honour)
							w := mustNew(t, thingExists, op, waiter.WithJitter(backoff.Seeded(seed+1)))
							var err error
							if start {
								_, err = w.Start(t.Context(), GetThingInput{"a"}, budget).Result()
							} else {
								_, err = w.Wait(t.Context(), GetThingInput{"a"}, budget)
							}
							if err != nil {
								failed++
								t.Logf("seed %d: %v", seed, err)
							}
						})
					}
					if failed > 0 {
						t.Errorf("%d of 20 waits whose resource was ready at the final poll did not succeed", failed)
					}
				})
			}
		}
	}
}

// TestLastAttemptCountsLatency: with 1.5s calls and a 58.5s wait, a final
// call is made, and it ends before the deadline.
func TestLastAttemptCountsLatency(t *testing.T) {
	for seed := range uint64(20) {
		clocktest.Run(t, func(t *testing.T) {
			rec := newRecorder(func(int) (*GetThingOutput, error) { return status("creating"), nil })
			rec.delay = 1500 * time.Millisecond
			_, err := mustNew(t, thingExists, rec.op, waiter.WithJitter(backoff.Seeded(seed+1))).Wait(t.Context(), GetThingInput{"a"}, 58500*time.Millisecond)
			calls := rec.times()
			last := calls[len(calls)-1]
			if want := 58500*time.Millisecond - (rec.delay*3/2 + 20*time.Millisecond); !errors.Is(err, waiter.ErrTimeout) || last != want {
				t.Errorf("seed %d: %v, calls at %v; want the final call at %v", seed, err, calls, want)
			}
		})
	}
}

// TestCallAtDeadlineInstantIsJudged: an answer returned at the deadline
// instant is judged (here: success), with Wait and with Start.
func TestCallAtDeadlineInstantIsJudged(t *testing.T) {
	for _, start := range []bool{false, true} {
		clocktest.Run(t, func(t *testing.T) {
			begin := time.Now()
			const budget = 10 * sec
			op := func(ctx context.Context, in GetThingInput) (*GetThingOutput, error) {
				if time.Since(begin) < budget-sec {
					return status("creating"), nil
				}
				time.Sleep(budget - time.Since(begin)) // ignore the context: return at the deadline
				return status("success"), nil
			}
			w := mustNew(t, thingExists, op, waiter.WithFinalReserve(0))
			var err error
			if start {
				_, err = w.Start(t.Context(), GetThingInput{"a"}, budget).Result()
			} else {
				_, err = w.Wait(t.Context(), GetThingInput{"a"}, budget)
			}
			if err != nil || time.Since(begin) != budget {
				t.Errorf("start=%t: %v at %v; want success at the %v deadline", start, err, time.Since(begin), budget)
			}
		})
	}
}

// TestCutOffCallIsATimeout: a final call cut off by the deadline is a
// timeout in its event, in the telemetry's attempt, in the checkpoint and
// in the result, whether the operation honours its context or not.
func TestCutOffCallIsATimeout(t *testing.T) {
	for _, honour := range []bool{true, false} {
		clocktest.Run(t, func(t *testing.T) {
			begin := time.Now()
			op := func(ctx context.Context, in GetThingInput) (*GetThingOutput, error) {
				if time.Since(begin) < 5*sec {
					return status("creating"), nil
				}
				if honour {
					<-ctx.Done()
					return nil, ctx.Err()
				}
				time.Sleep(time.Minute) // past the deadline, then a success: not judged
				return status("success"), nil
			}
			r := mustNew(t, thingExists, op).Start(t.Context(), GetThingInput{"a"}, 10*sec)
			var last waiter.Attempt[*GetThingOutput]
			for a := range r.Events() {
				last = a
			}
			_, err := r.Result()
			if !errors.Is(err, waiter.ErrTimeout) || last.Checkpoint.End != "timeout" || last.Decision != classify.Retry || r.Checkpoint().End != "timeout" {
				t.Errorf("honour=%t: Result %v, last event's checkpoint end %q decision %v, Run's checkpoint end %q; want timeout in all",
					honour, err, last.Checkpoint.End, last.Decision, r.Checkpoint().End)
			}
		})
	}
}

// TestEventsAgreeWithResult: on every path, the last event's checkpoint's
// End and the Run's final checkpoint's End say what the Result says.
func TestEventsAgreeWithResult(t *testing.T) {
	tests := []struct {
		name   string
		script func(n int) (*GetThingOutput, error)
		opts   []waiter.Option
		budget time.Duration
		want   string
	}{
		{"success", func(n int) (*GetThingOutput, error) { return status("success"), nil }, nil, time.Minute, "success"},
		{"failure acceptor", func(n int) (*GetThingOutput, error) { return status("failed"), nil }, nil, time.Minute, "failure"},
		{"fatal error", func(n int) (*GetThingOutput, error) { return nil, accessDenied{} }, nil, time.Minute, "failure"},
		{"timeout", func(n int) (*GetThingOutput, error) { return status("creating"), nil }, nil, time.Minute, "timeout"},
		{"transient until the deadline", func(n int) (*GetThingOutput, error) { return nil, throttled{} }, nil, time.Minute, "timeout"},
		{"retry-after past the deadline", func(n int) (*GetThingOutput, error) { return nil, throttled{after: time.Hour} }, nil, time.Minute, "timeout"},
		{"transient limit", func(n int) (*GetThingOutput, error) { return nil, throttled{} }, []waiter.Option{waiter.WithTransientLimit(2)}, time.Minute, "failure"},
		{"max polls", func(n int) (*GetThingOutput, error) { return status("creating"), nil }, []waiter.Option{waiter.WithMaxPolls(2)}, time.Minute, "max_polls"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clocktest.Run(t, func(t *testing.T) {
				rec := newRecorder(tt.script)
				r := mustNew(t, thingExists, rec.op, tt.opts...).Start(t.Context(), GetThingInput{"a"}, tt.budget)
				var last waiter.Attempt[*GetThingOutput]
				for a := range r.Events() {
					if a.Checkpoint.End != "" && last.Checkpoint.Attempts != 0 && last.Checkpoint.End != "" {
						t.Errorf("attempt %d has an outcome, and so had an earlier one", a.Checkpoint.Attempts)
					}
					last = a
				}
				_, err := r.Result()
				got := outcome(err)
				if got != tt.want || last.Checkpoint.End != got || r.Checkpoint().End != got {
					t.Errorf("Result %v (%s), last event's checkpoint %q, Run's %q; want %q everywhere", err, got, last.Checkpoint.End, r.Checkpoint().End, tt.want)
				}
			})
		})
	}
}

// outcome names a Result as the events do.
func outcome(err error) string {
	switch {
	case err == nil:
		return "success"
	case errors.Is(err, waiter.ErrTimeout):
		return "timeout"
	case errors.Is(err, waiter.ErrFailure):
		return "failure"
	case errors.Is(err, waiter.ErrMaxPolls):
		return "max_polls"
	case errors.Is(err, context.Canceled):
		return "cancelled"
	}
	return "?"
}

// TestEndedCheckpointRefusedAsEnded: the final checkpoint of a wait that
// ended (a process that crashed after its last attempt kept it) is
// refused as ended, never as damaged, also through JSON, and also in the
// form written before checkpoints recorded the end.
func TestEndedCheckpointRefusedAsEnded(t *testing.T) {
	clocktest.Run(t, func(t *testing.T) {
		w := mustNew(t, thingExists, readyAfter(2))
		r := w.Start(t.Context(), GetThingInput{"a"}, time.Minute)
		if _, err := r.Result(); err != nil {
			t.Fatal(err)
		}
		cp := r.Checkpoint()
		b, err := json.Marshal(cp)
		if err != nil {
			t.Fatal(err)
		}
		parsed, err := waiter.ParseCheckpoint(b)
		if err != nil {
			t.Fatalf("ParseCheckpoint(%s) = %v", b, err)
		}
		old := parsed
		old.End = "" // as written before State.End
		for name, s := range map[string]waiter.Checkpoint{"as kept": cp, "through JSON": parsed, "without End": old} {
			calls := 0
			op := func(ctx context.Context, in GetThingInput) (*GetThingOutput, error) {
				calls++
				return status("success"), nil
			}
			w := mustNew(t, thingExists, op)
			_, err := w.WaitFrom(t.Context(), GetThingInput{"a"}, s)
			var ce *waiter.CheckpointError
			if !errors.As(err, &ce) || ce.Problem != waiter.ProblemEnded || calls != 0 {
				t.Errorf("%s: WaitFrom = %v after %d calls; want ProblemEnded and no call", name, err, calls)
			}
			if _, err := w.StartFrom(t.Context(), GetThingInput{"a"}, s).Result(); !errors.As(err, &ce) || ce.Problem != waiter.ProblemEnded {
				t.Errorf("%s: StartFrom = %v, want ProblemEnded", name, err)
			}
		}
		if cp.End != "success" || !strings.Contains(b2s(b), `"end":"success"`) {
			t.Errorf("checkpoint %s, want end success", b)
		}
	})
}

func b2s(b []byte) string { return string(b) }
