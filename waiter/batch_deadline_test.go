package waiter_test

// One test per promise a Batch makes about deadlines, its linger and its
// goroutine, each named after the promise (see the Batch doc comment).

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/time/rate"

	"github.com/waitable/waitable/backoff"
	"github.com/waitable/waitable/classify"
	"github.com/waitable/waitable/clocktest"
	"github.com/waitable/waitable/waiter"
)

// slowAPI is a batch API whose calls take their time: a call with key k in
// it lasts latency(k) at most (the longest of its keys'), ignoring its
// context unless honour is set; key k is running from readyAt(k) on (as
// seen at the call's start). It records every call.
type slowAPI struct {
	start   time.Time
	latency func(key string) time.Duration
	readyAt func(key string) time.Duration
	honour  bool

	mu    sync.Mutex
	calls []apiCall
}

type apiCall struct {
	at   time.Duration // since start
	keys []string
}

func (a *slowAPI) describe(ctx context.Context, keys []string) (map[string]BatchInstance, error) {
	at := time.Since(a.start)
	a.mu.Lock()
	a.calls = append(a.calls, apiCall{at, slices.Clone(keys)})
	a.mu.Unlock()
	var d time.Duration
	for _, k := range keys {
		if a.latency != nil {
			d = max(d, a.latency(k))
		}
	}
	if d > 0 {
		t := time.NewTimer(d)
		defer t.Stop()
		if a.honour {
			select {
			case <-t.C:
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		} else {
			<-t.C
		}
	}
	out := map[string]BatchInstance{}
	for _, k := range keys {
		in := BatchInstance{InstanceId: k}
		in.State.Name = "pending"
		if a.readyAt != nil && at >= a.readyAt(k) {
			in.State.Name = "running"
		}
		out[k] = in
	}
	return out, nil
}

// log returns the calls made so far.
func (a *slowAPI) log() []apiCall {
	a.mu.Lock()
	defer a.mu.Unlock()
	return slices.Clone(a.calls)
}

// events reads a run's attempts as "number state outcome error".
func events(r *waiter.Run[BatchInstance]) []string {
	var ev []string
	for a := range r.Events() {
		s := fmt.Sprint(a.Checkpoint.Attempts, " ", a.Decision, " ", a.Checkpoint.End)
		if a.Err != nil {
			s += " " + a.Err.Error()
		}
		ev = append(ev, s)
	}
	return ev
}

// batchGoroutines counts the goroutines of Batches (the scheduler and
// calls in flight) in the process.
func batchGoroutines() int {
	buf := make([]byte, 1<<20)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			buf = buf[:n]
			break
		}
		buf = make([]byte, 2*len(buf))
	}
	n := 0
	for _, g := range strings.Split(string(buf), "\n\n") {
		if strings.Contains(g, "waiter.(*Batch[...]).schedule(") || strings.Contains(g, "waiter.(*Batch[...]).call(") {
			n++
		}
	}
	return n
}

// TestBatchMemberEndsAtItsDeadline: each member ends at its own deadline
// to the instant, also while a call that includes it is in flight, and
// also while it waits for a call (BatchOptions.Calls): its Result is a timeout
// and Done is closed at that instant, and the answer of its call, when it
// comes, is discarded for it.
func TestBatchMemberEndsAtItsDeadline(t *testing.T) {
	t.Run("waiting for a call", func(t *testing.T) {
		clocktest.Run(t, func(t *testing.T) {
			start := time.Now()
			api := &slowAPI{start: start, latency: func(k string) time.Duration {
				if k == "i-slow" {
					return time.Minute
				}
				return 0
			}, honour: true}
			b := newBatchOp(t, api.describe, waiter.BatchOptions[string, BatchInstance]{Size: 1, Calls: 1})
			slow := b.Add(t.Context(), "i-slow", time.Hour)
			clocktest.Settle() // i-slow's minute-long call is in flight
			short := b.Add(t.Context(), "i-1", 10*time.Second)
			<-short.Done()
			_, err := short.Result()
			var we *waiter.Error
			if got := time.Since(start); got != 10*time.Second || !errors.As(err, &we) || !errors.Is(err, waiter.ErrTimeout) || we.Attempts != 0 {
				t.Errorf("Result = %v at +%v, want a timeout after 0 attempts at +10s", err, got)
			}
			slow.Cancel()
			<-slow.Done()
			idle(t)
		})
	})
	t.Run("in a call", func(t *testing.T) {
		clocktest.Run(t, func(t *testing.T) {
			start := time.Now()
			api := &slowAPI{start: start, latency: func(string) time.Duration { return 30 * time.Second },
				readyAt: func(string) time.Duration { return 0 }}
			// The linger makes one call of both keys, at +1s.
			b := newBatchOp(t, api.describe, waiter.BatchOptions[string, BatchInstance]{Linger: time.Second})
			long := b.Add(t.Context(), "i-long", time.Hour)
			short := b.Add(t.Context(), "i-short", 10*time.Second)
			<-short.Done()
			out, err := short.Result()
			var we *waiter.Error
			if got := time.Since(start); got != 10*time.Second || !errors.As(err, &we) || !errors.Is(err, waiter.ErrTimeout) || we.Attempts != 1 {
				t.Errorf("Result = %v at +%v, want a timeout after 1 attempt at +10s", err, got)
			}
			// The call answers "running" at +31s: too late for i-short.
			if _, err := long.Result(); err != nil || time.Since(start) != 31*time.Second {
				t.Errorf("i-long: %v at +%v, want success at +31s", err, time.Since(start))
			}
			if out2, err2 := short.Result(); err2 != err || out2 != out {
				t.Errorf("the call's late answer changed i-short's result to %+v, %v", out2, err2)
			}
			if cp := short.Checkpoint(); cp.Attempts != 1 {
				t.Errorf("Checkpoint().Attempts = %d, want 1", cp.Attempts)
			}
			if calls := api.log(); len(calls) != 1 || len(calls[0].keys) != 2 {
				t.Errorf("calls %v, want 1 of both keys", calls)
			}
			idle(t)
		})
	})
}

// TestBatchCallCutOffIsTimeoutInBoth: a member whose deadline passes
// while its call is in flight reports that attempt as cut off by the
// deadline (Late, the deadline as its error, not judged), and its Result
// is the timeout: the events and the result agree.
func TestBatchCallCutOffIsTimeoutInBoth(t *testing.T) {
	clocktest.Run(t, func(t *testing.T) {
		api := &slowAPI{start: time.Now(), latency: func(string) time.Duration { return 30 * time.Second },
			readyAt: func(string) time.Duration { return 0 }}
		b := newBatchOp(t, api.describe, waiter.BatchOptions[string, BatchInstance]{Linger: time.Second}) // one call of both keys, at +1s
		long := b.Add(t.Context(), "i-long", time.Hour)
		short := b.Add(t.Context(), "i-short", 10*time.Second)
		var got []waiter.Attempt[BatchInstance]
		for a := range short.Events() {
			got = append(got, a)
		}
		_, err := short.Result()
		var we *waiter.Error
		if !errors.As(err, &we) || !errors.Is(err, waiter.ErrTimeout) {
			t.Fatalf("Result = %v, want a timeout", err)
		}
		if len(got) != 1 {
			t.Fatalf("%d events, want 1", len(got))
		}
		a := got[0]
		if !a.Late || !errors.Is(a.Err, context.DeadlineExceeded) || a.Acceptor != -1 || a.Decision != classify.Retry || a.Checkpoint.End != "timeout" ||
			a.Latency != 9*time.Second || a.Output.State.Name != "" || a.Checkpoint.Attempts != we.Attempts {
			t.Errorf("event %+v, want attempt %d cut off at the deadline, unjudged", a, we.Attempts)
		}
		if _, err := long.Result(); err != nil {
			t.Errorf("i-long: %v", err)
		}
		idle(t)
	})
}

// TestBatchCancelMidCall: a member cancelled while its call is in flight
// ends at once, its attempt cut off with the cancellation as its error;
// a call none of whose members remain has its context cancelled.
func TestBatchCancelMidCall(t *testing.T) {
	clocktest.Run(t, func(t *testing.T) {
		start := time.Now()
		api := &slowAPI{start: start, latency: func(string) time.Duration { return time.Minute }, honour: true}
		b := newBatchOp(t, api.describe, waiter.BatchOptions[string, BatchInstance]{Linger: -1})
		r1, r2 := b.Add(t.Context(), "i-1", time.Hour), b.Add(t.Context(), "i-2", time.Hour)
		clocktest.Advance(5 * time.Second)
		r1.Cancel()
		<-r1.Done()
		if ev, err := events(r1), errOf(r1); fmt.Sprint(ev) != "[1 retry cancelled context canceled]" || !errors.Is(err, context.Canceled) || time.Since(start) != 5*time.Second {
			t.Errorf("i-1: events %v, Result %v at +%v; want one cut-off attempt and context.Canceled at +5s", ev, err, time.Since(start))
		}
		r2.Cancel()
		<-r2.Done()
		clocktest.Settle()
		if n := batchGoroutines(); n != 0 || time.Since(start) != 5*time.Second {
			t.Errorf("%d goroutines of the batch at +%v once every member was cancelled, want 0 at +5s", n, time.Since(start))
			time.Sleep(time.Hour) // let them go, for the bubble to end
		}
	})
}

func errOf(r *waiter.Run[BatchInstance]) error {
	_, err := r.Result()
	return err
}

// TestBatchLingerKeepsFinalPoll: the linger never pushes a member's final
// poll past the point where a plain Waiter makes it (the reserve before the
// deadline): a lone key whose resource gets ready just for the final poll
// succeeds in a Batch as with a Waiter, with the default linger. (With a
// latency, a fixed reserve of twice the latency keeps the final call off
// the deadline's instant.)
func TestBatchLingerKeepsFinalPoll(t *testing.T) {
	for _, latency := range []time.Duration{0, 500 * time.Millisecond} {
		t.Run(fmt.Sprint("latency ", latency), func(t *testing.T) {
			clocktest.Run(t, func(t *testing.T) {
				lat := func(string) time.Duration { return latency }
				opts := []waiter.Option{waiter.WithJitter(backoff.Low)}
				if latency > 0 {
					opts = append(opts, waiter.WithFinalReserve(2*latency))
				}
				// The plain Waiter, on the same API, one key a call.
				api := &slowAPI{start: time.Now(), latency: lat, readyAt: func(string) time.Duration { return time.Hour }}
				single := func(ctx context.Context, k string) (BatchInstance, error) {
					out, err := api.describe(ctx, []string{k})
					return out[k], err
				}
				w, err := waiter.New(instanceRunning, single, opts...)
				if err != nil {
					t.Fatal(err)
				}
				if _, err := w.Wait(t.Context(), "i-1", time.Minute); !errors.Is(err, waiter.ErrTimeout) {
					t.Fatalf("Wait = %v, want a timeout", err)
				}
				calls := api.log()
				final := calls[len(calls)-1].at
				if final >= time.Minute-latency {
					t.Fatalf("the Waiter's final call at +%v, want it to end before the deadline", final)
				}
				for _, plain := range []bool{true, false} {
					api := &slowAPI{start: time.Now(), latency: lat, readyAt: func(string) time.Duration { return final }}
					if plain {
						single := func(ctx context.Context, k string) (BatchInstance, error) {
							out, err := api.describe(ctx, []string{k})
							return out[k], err
						}
						w, _ := waiter.New(instanceRunning, single, opts...)
						if _, err := w.Wait(t.Context(), "i-1", time.Minute); err != nil {
							t.Fatalf("Wait = %v, want success at the final poll (+%v)", err, final)
						}
						continue
					}
					b := newBatchOp(t, api.describe, waiter.BatchOptions[string, BatchInstance]{}, opts...) // the default linger
					_, err := b.Add(t.Context(), "i-1", time.Minute).Result()
					calls := api.log()
					last := calls[len(calls)-1].at
					if err != nil || last != final {
						t.Errorf("Batch: %v, final poll at +%v; want success at the plain Waiter's final poll, +%v", err, last, final)
					}
					idle(t)
				}
			})
		})
	}
}

// TestBatchNoCallAfterDeadline: no call is made for a member whose
// deadline has passed, also when calls wait for the poll rate limit or
// for a call slot.
func TestBatchNoCallAfterDeadline(t *testing.T) {
	for _, tc := range []struct {
		name string
		bo   waiter.BatchOptions[string, BatchInstance]
		opts []waiter.Option
	}{
		{"rate limit", waiter.BatchOptions[string, BatchInstance]{Size: 1}, []waiter.Option{waiter.WithPollRateLimit(rate.NewLimiter(2, 1))}},
		{"rate limit and linger", waiter.BatchOptions[string, BatchInstance]{Size: 3, Linger: 700 * time.Millisecond},
			[]waiter.Option{waiter.WithPollRateLimit(rate.NewLimiter(1, 1))}},
		{"one call at a time", waiter.BatchOptions[string, BatchInstance]{Size: 1, Calls: 1}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			clocktest.Run(t, func(t *testing.T) {
				start := time.Now()
				api := &slowAPI{start: start, latency: func(k string) time.Duration {
					var i int
					fmt.Sscanf(k, "i-%d", &i)
					return time.Duration(i%3) * 300 * time.Millisecond
				}}
				b := newBatchOp(t, api.describe, tc.bo, append([]waiter.Option{waiter.WithDelays(time.Second, time.Second)}, tc.opts...)...)
				deadline := map[string]time.Duration{}
				var runs []*waiter.Run[BatchInstance]
				for i := range 7 {
					k := fmt.Sprint("i-", i)
					maxWait := 20*time.Second + time.Duration(i)*1300*time.Millisecond
					deadline[k] = maxWait
					runs = append(runs, b.Add(t.Context(), k, maxWait))
				}
				for _, r := range runs {
					if _, err := r.Result(); !errors.Is(err, waiter.ErrTimeout) {
						t.Errorf("Result = %v, want a timeout", err)
					}
				}
				late := 0
				calls := api.log()
				for _, c := range calls {
					for _, k := range c.keys {
						if c.at >= deadline[k] {
							late++
							t.Logf("%s polled at +%v, its deadline +%v", k, c.at, deadline[k])
						}
					}
				}
				if late > 0 || len(calls) < 20 {
					t.Errorf("%d polls of %d calls after their key's deadline, want none", late, len(calls))
				}
				idle(t)
			})
		})
	}
}

// TestBatchGoroutineEndsWithLastMember: the Batch holds no goroutine once
// no member remains, whether they were cancelled, timed out while their
// calls lingered, or ended; a bubble that ends right after the last
// member went does not deadlock.
func TestBatchGoroutineEndsWithLastMember(t *testing.T) {
	check := func(t *testing.T, start time.Time, at time.Duration) {
		t.Helper()
		clocktest.Settle()
		if n := batchGoroutines(); n != 0 || time.Since(start) != at {
			t.Errorf("%d goroutines of the batch at +%v, want 0 at +%v", n, time.Since(start), at)
			time.Sleep(2 * time.Hour) // let them go, for the bubble to end
		}
	}
	t.Run("cancelled", func(t *testing.T) {
		clocktest.Run(t, func(t *testing.T) {
			start := time.Now()
			api := &slowAPI{start: start}
			b := newBatchOp(t, api.describe, waiter.BatchOptions[string, BatchInstance]{}, waiter.WithDelays(time.Minute, time.Minute))
			var runs []*waiter.Run[BatchInstance]
			for i := range 3 {
				runs = append(runs, b.Add(t.Context(), fmt.Sprint("i-", i), time.Hour))
			}
			clocktest.Advance(11 * time.Second) // polled once, next due at +60s
			for _, r := range runs {
				r.Cancel()
			}
			check(t, start, 11*time.Second)
		})
	})
	t.Run("cancelled by the context", func(t *testing.T) {
		clocktest.Run(t, func(t *testing.T) {
			start := time.Now()
			ctx, cancel := context.WithCancel(t.Context())
			api := &slowAPI{start: start, latency: func(string) time.Duration { return 3 * time.Second }, honour: true}
			b := newBatchOp(t, api.describe, waiter.BatchOptions[string, BatchInstance]{})
			for i := range 3 {
				b.Add(ctx, fmt.Sprint("i-", i), time.Hour)
			}
			clocktest.Advance(time.Second) // a call in flight
			cancel()
			check(t, start, time.Second)
		})
	})
	t.Run("timed out in the linger", func(t *testing.T) {
		clocktest.Run(t, func(t *testing.T) {
			start := time.Now()
			api := &slowAPI{start: start}
			b := newBatchOp(t, api.describe, waiter.BatchOptions[string, BatchInstance]{Linger: time.Minute})
			_, err := b.Add(t.Context(), "i-1", 10*time.Second).Result()
			end := time.Since(start)
			if !errors.Is(err, waiter.ErrTimeout) || end > 10*time.Second {
				t.Errorf("Result = %v at +%v, want a timeout by +10s", err, end)
			}
			check(t, start, end)
		})
	})
	t.Run("timed out waiting for a token", func(t *testing.T) {
		clocktest.Run(t, func(t *testing.T) {
			start := time.Now()
			api := &slowAPI{start: start}
			b := newBatchOp(t, api.describe, waiter.BatchOptions[string, BatchInstance]{Size: 1}, waiter.WithPollRateLimit(rate.NewLimiter(rate.Every(time.Hour), 1)))
			r1, r2 := b.Add(t.Context(), "i-1", 10*time.Second), b.Add(t.Context(), "i-2", 10*time.Second)
			for _, r := range []*waiter.Run[BatchInstance]{r1, r2} {
				if err := errOf(r); !errors.Is(err, waiter.ErrTimeout) || time.Since(start) != 10*time.Second {
					t.Errorf("Result = %v at +%v, want a timeout at +10s", err, time.Since(start))
				}
			}
			check(t, start, 10*time.Second)
		})
	})
	t.Run("ended", func(t *testing.T) {
		clocktest.Run(t, func(t *testing.T) {
			start := time.Now()
			api := &slowAPI{start: start, readyAt: func(string) time.Duration { return 5 * time.Second }}
			b := newBatchOp(t, api.describe, waiter.BatchOptions[string, BatchInstance]{Linger: -1}, waiter.WithDelays(time.Second, time.Second))
			if _, err := b.Add(t.Context(), "i-1", time.Minute).Result(); err != nil {
				t.Fatal(err)
			}
			check(t, start, 5*time.Second)
		})
	})
}

// idle checks, at the end of a bubble, that the batch left no goroutine
// behind; if it did, it lets time run so that the bubble can end.
func idle(t *testing.T) {
	t.Helper()
	clocktest.Settle()
	if n := batchGoroutines(); n != 0 {
		t.Errorf("%d goroutines of the batch left at the end", n)
		time.Sleep(2 * time.Hour)
	}
}

func newBatchOp(t *testing.T, op func(context.Context, []string) (map[string]BatchInstance, error),
	bo waiter.BatchOptions[string, BatchInstance], opts ...waiter.Option) *waiter.Batch[string, BatchInstance] {
	t.Helper()
	b, err := waiter.NewBatch(instanceRunning, op, bo, append([]waiter.Option{waiter.WithJitter(backoff.Low)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestBatchPanicReachesEachMember: a BatchOp that panics, or a WithMatch
// function that panics while judging a member, never crashes the
// process: each member of the call ends, its attempt carrying the
// *PanicError, and its Result panics with it in the caller's goroutine;
// the batch goes on for the others.
func TestBatchPanicReachesEachMember(t *testing.T) {
	clocktest.Run(t, func(t *testing.T) {
		op := func(ctx context.Context, keys []string) (map[string]BatchInstance, error) {
			panic("the API client broke")
		}
		b := newBatchOp(t, op, waiter.BatchOptions[string, BatchInstance]{Linger: time.Second})
		runs := []*waiter.Run[BatchInstance]{b.Add(t.Context(), "i-1", time.Minute), b.Add(t.Context(), "i-2", time.Minute)}
		for _, r := range runs {
			<-r.Done()
			var last waiter.Attempt[BatchInstance]
			for a := range r.Events() {
				last = a
			}
			var pe *waiter.PanicError
			if !errors.As(last.Err, &pe) || pe.Value != "the API client broke" || last.Checkpoint.End != "panic" {
				t.Errorf("last event %+v, want the panic", last)
			}
			func() {
				defer func() {
					if p, ok := recover().(*waiter.PanicError); !ok || p.Value != "the API client broke" {
						t.Errorf("Result panicked with %v, want the *PanicError", p)
					}
				}()
				r.Result()
			}()
		}
		idle(t)

		bad := waiter.WithMatch(classify.Success, "boom", func(in string, out BatchInstance, err error) bool {
			if in == "i-bad" {
				panic("a matcher broke")
			}
			return false
		})
		api := &slowAPI{start: time.Now(), readyAt: func(string) time.Duration { return 0 }}
		b = newBatchOp(t, api.describe, waiter.BatchOptions[string, BatchInstance]{}, bad)
		good, broken := b.Add(t.Context(), "i-good", time.Minute), b.Add(t.Context(), "i-bad", time.Minute)
		<-broken.Done()
		func() {
			defer func() {
				if p, ok := recover().(*waiter.PanicError); !ok || p.Value != "a matcher broke" {
					t.Errorf("Result panicked with %v, want the matcher's *PanicError", p)
				}
			}()
			broken.Result()
		}()
		if _, err := good.Result(); err != nil {
			t.Errorf("the other member: %v", err)
		}
		idle(t)
	})
}
