package waiter_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/waitable/waitable/backoff"
	"github.com/waitable/waitable/classify"
	"github.com/waitable/waitable/clocktest"
	"github.com/waitable/waitable/retry"
	"github.com/waitable/waitable/waiter"
)

// service is a resource ready at its 7th call, whoever makes it: the
// process before a restart or the one after.
type service struct{ calls atomic.Int32 }

func (s *service) op(ctx context.Context, in GetThingInput) (*GetThingOutput, error) {
	if s.calls.Add(1) < 7 {
		return status("creating"), nil
	}
	return status("success"), nil
}

// TestResumeAfterRestart: a wait checkpointed after its 3rd attempt, then
// dropped (the process died); a new Waiter built from the same definition
// resumes from the saved JSON: attempt numbering, the deadline and the
// schedule go on where they were, and the wait succeeds at the 7th call.
func TestResumeAfterRestart(t *testing.T) {
	for _, how := range []string{"StartFrom", "WaitFrom"} {
		t.Run(how, func(t *testing.T) {
			clocktest.Run(t, func(t *testing.T) {
				svc := &service{}
				start := time.Now()
				first := mustNew(t, thingExists, svc.op)
				ctx, crash := context.WithCancel(t.Context())
				defer crash()
				r := first.Start(ctx, GetThingInput{"a"}, time.Hour)
				var saved []byte
				for a := range r.Events() {
					if a.Checkpoint.Attempts == 3 {
						b, err := json.Marshal(a.Checkpoint)
						if err != nil {
							t.Fatal(err)
						}
						saved = b
						crash()
					}
				}
				r.Result()

				clocktest.Advance(time.Second) // the restart takes a second
				var cp waiter.Checkpoint
				if err := json.Unmarshal(saved, &cp); err != nil {
					t.Fatal(err)
				}
				second := mustNew(t, thingExists, svc.op) // a new process: a new Waiter
				var numbers []int
				var err error
				switch how {
				case "StartFrom":
					r2 := second.StartFrom(t.Context(), GetThingInput{"a"}, cp)
					for a := range r2.Events() {
						numbers = append(numbers, a.Checkpoint.Attempts)
						if a.Checkpoint.Attempts == 4 && !a.Start.Equal(cp.Next) {
							t.Errorf("attempt 4 at %v, want when the checkpoint said: %v", a.Start, cp.Next)
						}
						if a.Checkpoint.Deadline != cp.Deadline {
							t.Errorf("attempt %d's deadline %v, want %v", a.Checkpoint.Attempts, a.Checkpoint.Deadline, cp.Deadline)
						}
					}
					_, err = r2.Result()
				case "WaitFrom":
					_, err = second.WaitFrom(t.Context(), GetThingInput{"a"}, cp)
					numbers = []int{4, 5, 6, 7}
				}
				if err != nil || fmt.Sprint(numbers) != "[4 5 6 7]" || svc.calls.Load() != 7 {
					t.Errorf("resumed: %v, attempts %v, %d calls; want success at attempts 4 to 7", err, numbers, svc.calls.Load())
				}
				if !cp.Deadline.Equal(start.Add(time.Hour)) {
					t.Errorf("checkpoint deadline %v, want %v", cp.Deadline, start.Add(time.Hour))
				}
			})
		})
	}
}

// TestWaitFromReplaysSchedule: with the default jitter, a resumed wait makes
// the delays the original would have made, because they are drawn from
// the seed in the Checkpoint.
func TestWaitFromReplaysSchedule(t *testing.T) {
	clocktest.Run(t, func(t *testing.T) {
		w := mustNew(t, thingExists, readyAfter(9))
		r := w.Start(t.Context(), GetThingInput{"a"}, time.Hour)
		var delays []time.Duration
		var cp waiter.Checkpoint
		for a := range r.Events() {
			delays = append(delays, a.NextDelay)
			if a.Checkpoint.Attempts == 2 {
				cp = a.Checkpoint
			}
		}
		w2 := mustNew(t, thingExists, readyAfter(7)) // 7 more calls: attempts 3 to 9
		r2 := w2.StartFrom(t.Context(), GetThingInput{"a"}, cp)
		var replayed []time.Duration
		for a := range r2.Events() {
			replayed = append(replayed, a.NextDelay)
		}
		if fmt.Sprint(replayed) != fmt.Sprint(delays[2:]) {
			t.Errorf("resumed delays %v, want the original's %v", replayed, delays[2:])
		}
	})
}

// TestCheckpointRefused: checkpoints of another waiter, of other rules, of
// another version, or damaged are refused, each saying which.
func TestCheckpointRefused(t *testing.T) {
	{
		w := mustNew(t, thingExists, readyAfter(5))
		cp, err := w.Begin(time.Now(), time.Hour, 1)
		if err != nil {
			t.Fatal(err)
		}
		good, _ := json.Marshal(cp)
		other := thingExists
		other.Name = "ThingGone"
		slower := mustNew(t, thingExists, readyAfter(5), waiter.WithDelays(5*sec, 10*sec))
		tests := []struct {
			name string
			w    *waiter.Waiter[GetThingInput, *GetThingOutput]
			json []byte
			want waiter.Problem
		}{
			{"another waiter", mustNew(t, other, readyAfter(5)), good, waiter.ProblemMismatch},
			{"other rules", slower, good, waiter.ProblemMismatch},
			{"another version", w, bytes.Replace(good, []byte(`"version":1`), []byte(`"version":2`), 1), waiter.ProblemMismatch},
			{"damaged", w, bytes.Replace(good, []byte(`"attempts":0`), []byte(`"attempts":9`), 1), waiter.ProblemCorrupt},
			{"truncated", w, good[:len(good)/2], waiter.ProblemCorrupt},
			{"not a checkpoint", w, []byte(`{"hello":"world"}`), waiter.ProblemCorrupt},
			{"empty object", w, []byte(`{}`), waiter.ProblemCorrupt},
			{"null", w, []byte(`null`), waiter.ProblemCorrupt},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				s, err := waiter.ParseCheckpoint(tt.json)
				ctx := context.Background()
				if err == nil {
					_, err = tt.w.WaitFrom(ctx, GetThingInput{"a"}, s)
				}
				var ce *waiter.CheckpointError
				if !errors.As(err, &ce) || ce.Problem != tt.want || !errors.Is(err, waiter.ErrCheckpoint) {
					t.Errorf("resume = %v, want a CheckpointError with problem %q", err, tt.want)
				}
				if tt.w != w {
					if _, err := tt.w.StartFrom(ctx, GetThingInput{"a"}, cp).Result(); !errors.Is(err, waiter.ErrCheckpoint) {
						t.Errorf("StartFrom = %v, want ErrCheckpoint", err)
					}
				}
			})
		}
	}
}

// TestEmptyCheckpoint: the zero Checkpoint, and the JSON of none ({}, null),
// are refused as ProblemCorrupt saying the checkpoint is empty, not as a
// version problem; a Checkpoint with a version but nothing else is not empty.
func TestEmptyCheckpoint(t *testing.T) {
	w := mustNew(t, thingExists, readyAfter(1))
	ctx := context.Background()
	isEmpty := func(t *testing.T, how string, err error) {
		t.Helper()
		var ce *waiter.CheckpointError
		if !errors.As(err, &ce) || ce.Problem != waiter.ProblemCorrupt || !errors.Is(err, waiter.ErrCheckpoint) ||
			!strings.Contains(err.Error(), "empty checkpoint") || strings.Contains(err.Error(), "version") {
			t.Errorf("%s = %v, want a ProblemCorrupt CheckpointError saying the checkpoint is empty", how, err)
		}
	}
	_, err := w.WaitFrom(ctx, GetThingInput{"a"}, waiter.Checkpoint{})
	isEmpty(t, "WaitFrom(Checkpoint{})", err)
	_, err = w.StartFrom(ctx, GetThingInput{"a"}, waiter.Checkpoint{}).Result()
	isEmpty(t, "StartFrom(Checkpoint{})", err)
	for _, data := range []string{`{}`, ` { } `, `null`} {
		_, err := waiter.ParseCheckpoint([]byte(data))
		isEmpty(t, fmt.Sprintf("ParseCheckpoint(%s)", data), err)
		var s waiter.Checkpoint
		isEmpty(t, fmt.Sprintf("json.Unmarshal(%s)", data), json.Unmarshal([]byte(data), &s))
	}
	for _, data := range []string{`{"hello":"world"}`, `{"version":1}`} {
		_, err := waiter.ParseCheckpoint([]byte(data))
		var ce *waiter.CheckpointError
		if !errors.As(err, &ce) || ce.Problem != waiter.ProblemCorrupt || strings.Contains(err.Error(), "empty") {
			t.Errorf("ParseCheckpoint(%s) = %v, want ProblemCorrupt, not empty", data, err)
		}
	}
	_, err = w.WaitFrom(ctx, GetThingInput{"a"}, waiter.Checkpoint{Version: 2})
	if ce := (*waiter.CheckpointError)(nil); !errors.As(err, &ce) || ce.Problem != waiter.ProblemMismatch {
		t.Errorf("WaitFrom(Checkpoint{Version: 2}) = %v, want ProblemVersion", err)
	}
}

// TestStepIsPure: the same Checkpoint, Answer and time give the same result, and
// the result does not depend on any clock.
func TestStepIsPure(t *testing.T) {
	w := mustNew(t, thingExists, readyAfter(1))
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	s, err := w.Begin(now, time.Hour, 7)
	if err != nil {
		t.Fatal(err)
	}
	p := waiter.Answer[*GetThingOutput]{Start: now, Latency: 100 * time.Millisecond, Judgment: w.Judge(GetThingInput{"a"}, status("creating"), nil)}
	a1, err1 := w.Step(s, p, now.Add(100*time.Millisecond))
	a2, err2 := w.Step(s, p, now.Add(100*time.Millisecond))
	if !reflect.DeepEqual(a1, a2) || err1 != nil || err2 != nil || a1.Checkpoint.End != "" || a1.NextDelay != 2*sec ||
		a1.Checkpoint.Attempts != 1 || s.Attempts != 0 {
		t.Errorf("Step twice = %+v, %v and %+v, %v", a1, err1, a2, err2)
	}
}

// TestStep checks the core's decisions one by one.
func TestStep(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	w := mustNew(t, thingExists, readyAfter(1), waiter.WithJitter(backoff.Low), waiter.WithMaxPolls(5), waiter.WithTransientLimit(3))
	begin := func() waiter.Checkpoint { s, _ := w.Begin(now, time.Minute, 1); return s }
	judge := func(out *GetThingOutput, err error) waiter.Judgment { return w.Judge(GetThingInput{"a"}, out, err) }
	// transient is a throttle the retry strategy allows, after backoff (a
	// hint of the service's, if hint), with an empty quota if quota.
	transient := func(backoff, hint time.Duration, quota bool) waiter.Judgment {
		j := judge(nil, throttled{})
		j.Retry, j.Backoff, j.Hint, j.Quota = true, backoff, hint, quota
		return j
	}
	refused := judge(nil, accessDenied{})
	refused.Refusal = errors.New("no")
	tests := []struct {
		name    string
		s       waiter.Checkpoint
		poll    waiter.Answer[*GetThingOutput]
		at      time.Duration
		done    bool
		reason  error
		failure waiter.Failure
		delay   time.Duration
	}{
		{"success", begin(), waiter.Answer[*GetThingOutput]{Judgment: judge(status("success"), nil)}, 0, true, nil, 0, 0},
		{"failure acceptor", begin(), waiter.Answer[*GetThingOutput]{Judgment: judge(status("failed"), nil)}, 0, true, waiter.ErrFailure, waiter.FailureAcceptor, 0},
		{"retry", begin(), waiter.Answer[*GetThingOutput]{Judgment: judge(status("creating"), nil)}, 0, false, nil, 0, 2 * sec},
		{"unmatched error refused", begin(), waiter.Answer[*GetThingOutput]{Err: accessDenied{}, Judgment: refused}, 0, true, waiter.ErrFailure, waiter.FailureError, 0},
		{"transient, not sooner than asked", begin(), waiter.Answer[*GetThingOutput]{Err: throttled{}, Judgment: transient(9*sec, 0, false)}, 0, false, nil, 0, 9 * sec},
		{"transient at the limit", func() waiter.Checkpoint { s := begin(); s.Attempts, s.Transients = 2, 2; return s }(), waiter.Answer[*GetThingOutput]{Err: throttled{}, Judgment: transient(0, 0, true)}, 0, true, waiter.ErrFailure, waiter.FailureTransientLimit, 0},
		{"max polls", func() waiter.Checkpoint { s := begin(); s.Attempts = 4; return s }(), waiter.Answer[*GetThingOutput]{Judgment: judge(status("creating"), nil)}, 0, true, waiter.ErrMaxPolls, 0, 0},
		{"late", begin(), waiter.Answer[*GetThingOutput]{Err: context.DeadlineExceeded, Judgment: transient(0, 0, false)}, time.Minute, true, waiter.ErrTimeout, 0, 0},
		{"late: an answer after the deadline", begin(), waiter.Answer[*GetThingOutput]{Judgment: judge(status("success"), nil)}, time.Minute + 1, true, waiter.ErrTimeout, 0, 0},
		{"success at the deadline", begin(), waiter.Answer[*GetThingOutput]{Judgment: judge(status("success"), nil)}, time.Minute, true, nil, 0, 0},
		{"retry at the deadline", begin(), waiter.Answer[*GetThingOutput]{Judgment: judge(status("creating"), nil)}, time.Minute, true, waiter.ErrTimeout, 0, 0},
		{"last attempt", begin(), waiter.Answer[*GetThingOutput]{Judgment: judge(status("creating"), nil)}, 57 * sec, false, nil, 0, 3*sec - 20*time.Millisecond},
		{"last attempt counts the latency", begin(), waiter.Answer[*GetThingOutput]{Latency: 1500 * time.Millisecond, Judgment: judge(status("creating"), nil)}, 55 * sec, false, nil, 0, 5*sec - 2270*time.Millisecond},
		{"transient past the strategy's attempts", func() waiter.Checkpoint { s := begin(); s.Attempts, s.Transients = 1, 1; return s }(), waiter.Answer[*GetThingOutput]{Err: throttled{}, Judgment: transient(4*sec, 0, false)}, 0, false, nil, 0, 4 * sec},
		{"retry-after past the deadline", begin(), waiter.Answer[*GetThingOutput]{Err: throttled{}, Judgment: transient(time.Hour, time.Hour, false)}, 0, true, waiter.ErrTimeout, 0, 0},
		{"the strategy's backoff gives way to the final call", func() waiter.Checkpoint { s := begin(); s.Attempts, s.Transients = 1, 1; return s }(), waiter.Answer[*GetThingOutput]{Err: throttled{}, Judgment: transient(20*sec, 0, false)}, 50 * sec, false, nil, 0, 10*sec - 20*time.Millisecond},
		{"empty quota halves the pace", begin(), waiter.Answer[*GetThingOutput]{Err: throttled{}, Judgment: transient(0, 0, true)}, 0, false, nil, 0, 4 * sec},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, err := w.Step(tt.s, tt.poll, now.Add(tt.at))
			s, done := a.Checkpoint, a.Checkpoint.End != ""
			var we *waiter.Error
			errors.As(err, &we)
			switch {
			case done != tt.done, tt.reason == nil && err != nil, tt.reason != nil && !errors.Is(err, tt.reason):
				t.Errorf("Step = done %t, %v; want done %t, %v", done, err, tt.done, tt.reason)
			case tt.failure != 0 && (we == nil || we.Failure != tt.failure):
				t.Errorf("Step error %v, want failure %v", err, tt.failure)
			case a.NextDelay != tt.delay || (!done && !s.Next.Equal(now.Add(tt.at+tt.delay))):
				t.Errorf("Step delay %v, next %v; want %v", a.NextDelay, s.Next, tt.delay)
			case s.Attempts != tt.s.Attempts+1:
				t.Errorf("Step attempts %d, want %d", s.Attempts, tt.s.Attempts+1)
			}
		})
	}
}

// TestNewFunc: a waiter from Go alone, with sub-second delays: done ends
// it, an error of the condition's own fails it, and the call's own error
// returned unchanged goes to the retry strategy.
func TestNewFunc(t *testing.T) {
	{
		errDeleted := errors.New("cluster deleted")
		cond := func(in string, out *GetThingOutput, err error) (bool, error) {
			switch {
			case err != nil:
				return false, err
			case *out.Status == "gone":
				return false, errDeleted
			}
			return *out.Status == "ready", nil
		}
		script := func(steps ...any) func(context.Context, string) (*GetThingOutput, error) {
			n := 0
			return func(context.Context, string) (*GetThingOutput, error) {
				s := steps[min(n, len(steps)-1)]
				n++
				if err, ok := s.(error); ok {
					return nil, err
				}
				return status(s.(string)), nil
			}
		}
		for _, tt := range []struct {
			name    string
			op      func(context.Context, string) (*GetThingOutput, error)
			want    error
			elapsed time.Duration
		}{
			{"ready", script("creating", "creating", "ready"), nil, 400 * time.Millisecond},
			{"gone", script("creating", "gone"), errDeleted, 200 * time.Millisecond},
			{"throttled, then ready", script(throttled{}, "ready"), nil, 200 * time.Millisecond},
			{"access denied", script(accessDenied{}), accessDenied{}, 0},
		} {
			t.Run(tt.name, func(t *testing.T) {
				clocktest.Run(t, func(t *testing.T) {
					strategy, err := retry.NewStandard(retry.WithJitter(backoff.Low)) // retries at once; the waiter's 200ms stand
					if err != nil {
						t.Fatal(err)
					}
					w, err := waiter.NewFunc("ClusterReady", tt.op, cond, waiter.WithDelays(200*time.Millisecond, time.Second), waiter.WithJitter(backoff.Low), waiter.WithRetryStrategy(strategy))
					if err != nil {
						t.Fatal(err)
					}
					start := time.Now()
					_, err = w.Wait(t.Context(), "demo", time.Minute)
					if (tt.want == nil) != (err == nil) || (tt.want != nil && !errors.Is(err, tt.want)) || time.Since(start) != tt.elapsed {
						t.Errorf("Wait = %v after %v, want %v after %v", err, time.Since(start), tt.want, tt.elapsed)
					}
				})
			})
		}
		if _, err := waiter.NewFunc[string, *GetThingOutput]("", nil, nil); !errors.Is(err, waiter.ErrInvalidOption) || !strings.Contains(err.Error(), "name is empty") || !strings.Contains(err.Error(), "condition is nil") {
			t.Errorf("NewFunc with nothing = %v", err)
		}
	}
}

// TestWithMatchOnEmptyDefinition: a Definition with no acceptors of its
// own is fine when WithMatch gives the success acceptor.
func TestWithMatchOnEmptyDefinition(t *testing.T) {
	w, err := waiter.New(waiter.Definition{Name: "Ready"}, readyAfter(1),
		waiter.WithMatch(classify.Success, "ready", func(_ GetThingInput, out *GetThingOutput, err error) bool {
			return err == nil && *out.Status == "success"
		}))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Wait(context.Background(), GetThingInput{"a"}, time.Minute); err != nil {
		t.Error(err)
	}
}

// TestSubSecondDefinition: the one-second minimum for definitions names
// the ways to poll faster from Go.
func TestSubSecondDefinition(t *testing.T) {
	def := thingExists
	def.MinDelay = 200 * time.Millisecond
	err := def.Validate()
	if !errors.Is(err, waiter.ErrInvalidDefinition) || !strings.Contains(err.Error(), "WithDelays") || !strings.Contains(err.Error(), "NewFunc") {
		t.Errorf("Validate = %v, want an error naming WithDelays and NewFunc", err)
	}
}

// TestDrivingTheCore: a driver of its own (as a durable workflow is) made
// of Begin, Call and Step, with its Checkpoint round-tripped through JSON after
// every attempt, reaches the outcomes Wait reaches, after as many calls.
func TestDrivingTheCore(t *testing.T) {
	scripts := map[string]func(n int) (*GetThingOutput, error){
		"success at 4": func(n int) (*GetThingOutput, error) {
			return status(map[bool]string{true: "success", false: "creating"}[n >= 4]), nil
		},
		"failure at 3": func(n int) (*GetThingOutput, error) {
			return status(map[bool]string{true: "failed", false: "creating"}[n >= 3]), nil
		},
		"throttled":     func(n int) (*GetThingOutput, error) { return nil, throttled{} },
		"access denied": func(n int) (*GetThingOutput, error) { return nil, accessDenied{} },
		"never ready":   func(n int) (*GetThingOutput, error) { return status("creating"), nil },
		"not found, then": func(n int) (*GetThingOutput, error) {
			if n < 3 {
				return nil, notFound{}
			}
			return status("success"), nil
		},
	}
	for name, script := range scripts {
		t.Run(name, func(t *testing.T) {
			clocktest.Run(t, func(t *testing.T) {
				rec := newRecorder(script)
				w := mustNew(t, thingExists, rec.op, waiter.WithJitter(backoff.Midpoint))
				_, want := w.Wait(t.Context(), GetThingInput{"a"}, 2*time.Minute)
				wantCalls := len(rec.times())

				rec2 := newRecorder(script)
				w2 := mustNew(t, thingExists, rec2.op, waiter.WithJitter(backoff.Midpoint))
				s, err := w2.Begin(time.Now(), 2*time.Minute, 1)
				if err != nil {
					t.Fatal(err)
				}
				var tok retry.Token
				var got error
				for {
					var ans waiter.Answer[*GetThingOutput]
					ans, tok = w2.Call(t.Context(), GetThingInput{"a"}, s.Attempts, tok)
					a, err := w2.Step(s, ans, time.Now())
					got = err
					b, _ := json.Marshal(a.Checkpoint) // as a durable driver keeps it
					if s, err = waiter.ParseCheckpoint(b); err != nil {
						t.Fatal(err)
					}
					if a.Checkpoint.End != "" {
						break
					}
					time.Sleep(a.NextDelay)
				}
				if fmt.Sprint(got) != fmt.Sprint(want) || len(rec2.times()) != wantCalls {
					t.Errorf("core driver: %v after %d calls; Wait: %v after %d", got, len(rec2.times()), want, wantCalls)
				}
			})
		})
	}
}
