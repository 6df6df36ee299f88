package waiter_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/time/rate"

	"github.com/waitable/waitable/backoff"
	"github.com/waitable/waitable/classify"
	"github.com/waitable/waitable/clocktest"
	"github.com/waitable/waitable/waiter"
)

// BatchInstance is one resource of a DescribeInstances-shaped batch API.
type BatchInstance struct {
	InstanceId string
	State      struct{ Name string }
}

// instanceRunning is EC2's InstanceRunning for one instance, with the
// not-found error EC2 returns while an instance is too new to describe.
var instanceRunning = waiter.Definition{Name: "InstanceRunning", Acceptors: []classify.Acceptor{
	{State: classify.Success, Matcher: classify.OnOutput("State.Name", classify.StringEquals, "running")},
	{State: classify.Failure, Matcher: classify.OnOutput("State.Name", classify.StringEquals, "terminated")},
	{State: classify.Retry, Matcher: classify.OnErrorType("InvalidInstanceID.NotFound")},
}}

// ec2 answers DescribeInstances for many IDs: instance i is unknown before
// knownAt(i), pending until runningAt(i), then running.
type ec2 struct {
	start     time.Time
	knownAt   func(i int) time.Duration
	runningAt func(i int) time.Duration
	fail      func(call int) error
	mu        sync.Mutex
	calls     [][]string
	at        []time.Duration
}

func (e *ec2) describe(ctx context.Context, ids []string) (map[string]BatchInstance, error) {
	e.mu.Lock()
	e.calls = append(e.calls, slices.Clone(ids))
	e.at = append(e.at, time.Since(e.start))
	n := len(e.calls)
	e.mu.Unlock()
	if e.fail != nil {
		if err := e.fail(n); err != nil {
			return nil, err
		}
	}
	out := map[string]BatchInstance{}
	for _, id := range ids {
		var i int
		fmt.Sscanf(id, "i-%d", &i)
		now := time.Since(e.start)
		if now < e.knownAt(i) {
			continue
		}
		in := BatchInstance{InstanceId: id}
		in.State.Name = "pending"
		if now >= e.runningAt(i) {
			in.State.Name = "running"
		}
		out[id] = in
	}
	return out, nil
}

func newBatch(t *testing.T, e *ec2, bo waiter.BatchOptions[string, BatchInstance], opts ...waiter.Option) *waiter.Batch[string, BatchInstance] {
	t.Helper()
	b, err := waiter.NewBatch(instanceRunning, e.describe, bo, append([]waiter.Option{waiter.WithJitter(backoff.Low)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestBatchCoalesces: 250 instances, 100 IDs a call at most: every poll of
// every instance is in a call with the others due, and each instance's
// Run has its own attempts, numbered from 1; unknown IDs (missing from
// the answer) are retried as the definition says for InvalidInstanceID.NotFound.
func TestBatchCoalesces(t *testing.T) {
	clocktest.Run(t, func(t *testing.T) {
		e := &ec2{start: time.Now(), knownAt: func(i int) time.Duration { return time.Duration(i%3) * time.Second },
			runningAt: func(i int) time.Duration { return time.Duration(i%7) * time.Second }}
		b := newBatch(t, e, waiter.BatchOptions[string, BatchInstance]{Size: 100}, waiter.WithDelays(time.Second, time.Second))
		runs := map[string]*waiter.Run[BatchInstance]{}
		for i := range 250 {
			id := fmt.Sprint("i-", i)
			runs[id] = b.Add(t.Context(), id, time.Minute)
		}
		for id, r := range runs {
			var n int
			for a := range r.Events() {
				if n++; a.Checkpoint.Attempts != n {
					t.Fatalf("%s: attempt %d numbered %d", id, n, a.Checkpoint.Attempts)
				}
			}
			out, err := r.Result()
			if err != nil || out.State.Name != "running" {
				t.Fatalf("%s: %+v, %v", id, out, err)
			}
		}
		for i, c := range e.calls {
			if len(c) > 100 {
				t.Errorf("call %d had %d IDs", i, len(c))
			}
		}
		// 250 instances, running after 0 to 6s, polled every second: about
		// 7 rounds of 3 calls (100+100+50), where one call per instance
		// and round would make about a thousand. (How the first keys are
		// split depends on when the scheduler first looks: allow twice.)
		if len(e.calls) > 42 {
			t.Errorf("%d calls; want at most 42", len(e.calls))
		}
	})
}

// TestBatchFailedCall: a call that fails counts for every key in it: a
// throttling API ends each wait after WithTransientLimit's 3 in a row.
func TestBatchFailedCall(t *testing.T) {
	clocktest.Run(t, func(t *testing.T) {
		e := &ec2{start: time.Now(), knownAt: func(int) time.Duration { return 0 }, runningAt: func(int) time.Duration { return time.Hour },
			fail: func(int) error { return throttled{} }}
		b := newBatch(t, e, waiter.BatchOptions[string, BatchInstance]{}, waiter.WithTransientLimit(3))
		r1, r2 := b.Add(t.Context(), "i-1", time.Hour), b.Add(t.Context(), "i-2", time.Hour)
		for _, r := range []*waiter.Run[BatchInstance]{r1, r2} {
			_, err := r.Result()
			var we *waiter.Error
			if !errors.As(err, &we) || we.Failure != waiter.FailureTransientLimit || we.Attempts != 3 || we.Input == "" {
				t.Errorf("Result = %v, want a named FailureTransientLimit after 3 attempts", err)
			}
		}
		if len(e.calls) != 3 {
			t.Errorf("%d calls, want 3 (both keys in each)", len(e.calls))
		}
	})
}

// TestBatchAddAndCancel: keys come and go while the batch runs; a
// cancelled key is never polled again, and the batch holds no goroutine
// once no key is left (the bubble would report one otherwise).
func TestBatchAddAndCancel(t *testing.T) {
	clocktest.Run(t, func(t *testing.T) {
		e := &ec2{start: time.Now(), knownAt: func(int) time.Duration { return 0 },
			runningAt: func(i int) time.Duration { return time.Duration(i) * time.Minute }}
		b := newBatch(t, e, waiter.BatchOptions[string, BatchInstance]{}, waiter.WithDelays(time.Second, time.Second))
		slow := b.Add(t.Context(), "i-9", time.Hour)
		clocktest.Advance(10 * time.Second)
		fast := b.Add(t.Context(), "i-0", time.Hour)
		if _, err := fast.Result(); err != nil {
			t.Fatal(err)
		}
		slow.Cancel()
		if _, err := slow.Result(); !errors.Is(err, context.Canceled) {
			t.Errorf("cancelled key: %v", err)
		}
		calls := len(e.calls)
		clocktest.Advance(time.Minute)
		if len(e.calls) != calls {
			t.Errorf("%d calls after the cancel, want none", len(e.calls)-calls)
		}
	})
}

// TestBatchRateLimitAndDeadline: every call takes a token of the shared
// limit; a key never ready times out at its own deadline.
func TestBatchRateLimitAndDeadline(t *testing.T) {
	clocktest.Run(t, func(t *testing.T) {
		e := &ec2{start: time.Now(), knownAt: func(int) time.Duration { return 0 }, runningAt: func(int) time.Duration { return time.Hour }}
		b := newBatch(t, e, waiter.BatchOptions[string, BatchInstance]{Size: 1}, waiter.WithPollRateLimit(rate.NewLimiter(2, 1)), waiter.WithDelays(time.Second, time.Second))
		var runs []*waiter.Run[BatchInstance]
		for i := range 4 {
			runs = append(runs, b.Add(t.Context(), fmt.Sprint("i-", i), 20*time.Second))
		}
		for _, r := range runs {
			if _, err := r.Result(); !errors.Is(err, waiter.ErrTimeout) {
				t.Errorf("Result = %v, want a timeout", err)
			}
		}
		perSecond := map[time.Duration]int{}
		for _, at := range e.at {
			perSecond[at.Truncate(time.Second)]++
		}
		for s, n := range perSecond {
			if n > 3 { // rate 2/s, burst 1
				t.Errorf("%d calls in second %v", n, s)
			}
		}
		if len(e.at) < 30 {
			t.Errorf("%d calls in 20s, want the limit's worth (about 40)", len(e.at))
		}
	})
}

// TestBatchMissingDefault: a definition without a NotFound acceptor judges
// a missing key as error code "NotFound" (a failure, step 4);
// BatchOptions.Missing says otherwise.
func TestBatchMissingDefault(t *testing.T) {
	clocktest.Run(t, func(t *testing.T) {
		def := waiter.Definition{Name: "Running", Acceptors: instanceRunning.Acceptors[:2]}
		e := &ec2{start: time.Now(), knownAt: func(int) time.Duration { return time.Hour }, runningAt: func(int) time.Duration { return 0 }}
		b, err := waiter.NewBatch(def, e.describe, waiter.BatchOptions[string, BatchInstance]{}, waiter.WithRetryStrategy(nil))
		if err != nil {
			t.Fatal(err)
		}
		_, err = b.Add(t.Context(), "i-1", time.Minute).Result()
		var coded interface{ ErrorCode() string }
		if !errors.Is(err, waiter.ErrFailure) || !errors.As(err, &coded) || coded.ErrorCode() != "NotFound" ||
			!strings.Contains(err.Error(), "i-1 is not in the batch call's answer") {
			t.Errorf("Result = %v, want a failure on error code NotFound for i-1", err)
		}
		gone := errors.New("instance gone")
		b, err = waiter.NewBatch(def, e.describe, waiter.BatchOptions[string, BatchInstance]{Missing: func(k string) error { return gone }}, waiter.WithRetryStrategy(nil))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := b.Add(t.Context(), "i-1", time.Minute).Result(); !errors.Is(err, gone) {
			t.Errorf("Result = %v, want BatchOptions.Missing's error", err)
		}
		for _, bo := range []waiter.BatchOptions[string, BatchInstance]{{Size: -1}, {Calls: -1}} {
			if _, err := waiter.NewBatch(def, e.describe, bo); !errors.Is(err, waiter.ErrInvalidOption) {
				t.Errorf("NewBatch(%+v) = %v, want ErrInvalidOption", bo, err)
			}
		}
	})
}

// TestBatchMostOverdueFirst: when a call slot frees (BatchOptions.Calls
// 1), the next call takes the most overdue keys first, at most
// BatchOptions.Size.
func TestBatchMostOverdueFirst(t *testing.T) {
	clocktest.Run(t, func(t *testing.T) {
		start := time.Now()
		api := &slowAPI{start: start, honour: true, latency: func(k string) time.Duration {
			if k == "i-block" {
				return 10 * time.Second
			}
			return 0
		}}
		b := newBatchOp(t, api.describe, waiter.BatchOptions[string, BatchInstance]{Size: 2, Calls: 1, Linger: -1},
			waiter.WithDelays(time.Minute, time.Minute))
		runs := []*waiter.Run[BatchInstance]{b.Add(t.Context(), "i-block", time.Hour)}
		for _, k := range []string{"i-3", "i-1", "i-2"} { // due at +1s, +2s, +3s
			clocktest.Advance(time.Second)
			runs = append(runs, b.Add(t.Context(), k, time.Hour))
		}
		clocktest.Advance(7 * time.Second) // i-block's call returns at +10s
		var got []string
		for _, c := range api.log() {
			got = append(got, fmt.Sprint(c.at, c.keys))
		}
		if want := "[0s [i-block] 10s [i-3 i-1] 10s [i-2]]"; fmt.Sprint(got) != want {
			t.Errorf("calls %v, want %s", got, want)
		}
		for _, r := range runs {
			r.Cancel()
		}
		idle(t)
	})
}

// TestBatchAddReturnsTheKeysRun: adding a key already being waited for
// returns its Run, and the key is polled once a call.
func TestBatchAddReturnsTheKeysRun(t *testing.T) {
	clocktest.Run(t, func(t *testing.T) {
		api := &slowAPI{start: time.Now(), readyAt: func(string) time.Duration { return 3 * time.Second }}
		b := newBatchOp(t, api.describe, waiter.BatchOptions[string, BatchInstance]{Linger: -1}, waiter.WithDelays(time.Second, time.Second))
		r1 := b.Add(t.Context(), "i-1", time.Minute)
		if r2 := b.Add(t.Context(), "i-1", time.Hour); r2 != r1 {
			t.Errorf("Add of a key being waited for = a new Run, want its Run")
		}
		if _, err := r1.Result(); err != nil {
			t.Fatal(err)
		}
		for _, c := range api.log() {
			if len(c.keys) != 1 {
				t.Errorf("call %v, want i-1 once", c.keys)
			}
		}
		if r3 := b.Add(t.Context(), "i-1", time.Minute); r3 == r1 {
			t.Errorf("Add of a key whose wait ended = its old Run, want a new one")
		} else {
			r3.Cancel()
		}
		idle(t)
	})
}

// TestBatchCallContext: a call's context carries the first key's values
// but no key's cancellation, ends at the latest deadline of its keys, and
// is cancelled as soon as none of its keys waits for its answer.
func TestBatchCallContext(t *testing.T) {
	clocktest.Run(t, func(t *testing.T) {
		type keyValue struct{}
		start := time.Now()
		var mu sync.Mutex
		var deadline time.Time
		var value any
		var first string
		var ended time.Duration
		op := func(ctx context.Context, keys []string) (map[string]BatchInstance, error) {
			mu.Lock()
			deadline, _ = ctx.Deadline()
			value, first = ctx.Value(keyValue{}), keys[0]
			mu.Unlock()
			<-ctx.Done()
			mu.Lock()
			ended = time.Since(start)
			mu.Unlock()
			return nil, ctx.Err()
		}
		b := newBatchOp(t, op, waiter.BatchOptions[string, BatchInstance]{Linger: time.Second}) // one call of both keys, at +1s
		ctx1, cancel1 := context.WithCancel(context.WithValue(t.Context(), keyValue{}, "i-1"))
		defer cancel1()
		r1 := b.Add(ctx1, "i-1", time.Hour)
		r2 := b.Add(context.WithValue(t.Context(), keyValue{}, "i-2"), "i-2", time.Minute)
		clocktest.Advance(5 * time.Second)
		cancel1() // i-1's wait ends, the call goes on for i-2
		clocktest.Advance(5 * time.Second)
		mu.Lock()
		if !deadline.Equal(start.Add(time.Hour)) || value != first || ended != 0 {
			t.Errorf("the call's context: deadline +%v, value %v for first key %s, ended at +%v; want +1h, the first key's, not ended",
				deadline.Sub(start), value, first, ended)
		}
		mu.Unlock()
		if err := errOf(r1); !errors.Is(err, context.Canceled) {
			t.Errorf("i-1: %v, want context.Canceled", err)
		}
		r2.Cancel() // no key waits for the answer
		clocktest.Settle()
		mu.Lock()
		if ended != 10*time.Second {
			t.Errorf("the call's context ended at +%v, want +10s, when its last key left", ended)
		}
		mu.Unlock()
		idle(t)
	})
}

// TestBatchCallTakesOneToken: each call takes one token of the poll rate
// limit, also when it lingered for more keys first.
func TestBatchCallTakesOneToken(t *testing.T) {
	clocktest.Run(t, func(t *testing.T) {
		api := &slowAPI{start: time.Now()}
		lim := rate.NewLimiter(rate.Every(time.Hour), 100)
		b := newBatchOp(t, api.describe, waiter.BatchOptions[string, BatchInstance]{Linger: 300 * time.Millisecond}, waiter.WithDelays(time.Second, time.Second),
			waiter.WithPollRateLimit(lim))
		if err := errOf(b.Add(t.Context(), "i-1", 10*time.Second)); !errors.Is(err, waiter.ErrTimeout) {
			t.Fatalf("Result = %v, want a timeout", err)
		}
		calls := len(api.log())
		if used := 100 - int(lim.Tokens()); used != calls {
			t.Errorf("%d tokens for %d calls, want one a call", used, calls)
		}
		idle(t)
	})
}

// TestBatchSafeForConcurrentUse: keys added, cancelled and listed from
// many goroutines at once (run with -race) all end, and none is left.
func TestBatchSafeForConcurrentUse(t *testing.T) {
	clocktest.Run(t, func(t *testing.T) {
		api := &slowAPI{start: time.Now(), latency: func(string) time.Duration { return 100 * time.Millisecond },
			readyAt: func(k string) time.Duration { return time.Duration(len(k)) * time.Second }}
		b := newBatchOp(t, api.describe, waiter.BatchOptions[string, BatchInstance]{Size: 7}, waiter.WithDelays(time.Second, time.Second))
		var wg sync.WaitGroup
		for g := range 8 {
			wg.Go(func() {
				for i := range 40 {
					r := b.Add(t.Context(), fmt.Sprint("i-", (g*13+i)%60), time.Duration(5+i%20)*time.Second)
					if i%3 == 0 {
						r.Cancel()
					}
					if i%5 == 0 {
						time.Sleep(300 * time.Millisecond)
					}
				}
			})
		}
		wg.Wait()
		time.Sleep(time.Minute)
		idle(t) // the scheduler has ended: no key is left
	})
}

// endingCtx is a context that ends while Add looks at it: its Err is nil
// the first time it is asked, context.Canceled after.
type endingCtx struct {
	context.Context
	asked atomic.Int32
}

func (c *endingCtx) Done() <-chan struct{} {
	if c.asked.Load() == 0 {
		return make(chan struct{})
	}
	return closedDone
}

var closedDone = func() chan struct{} { c := make(chan struct{}); close(c); return c }()

func (c *endingCtx) Err() error {
	if c.asked.Add(1) == 1 {
		return nil
	}
	return context.Canceled
}

// TestBatchAddContextEndingDuringAdd: a context that ends while Add sets
// the key's wait up ends that wait, without a call.
func TestBatchAddContextEndingDuringAdd(t *testing.T) {
	clocktest.Run(t, func(t *testing.T) {
		api := &slowAPI{start: time.Now()}
		b := newBatchOp(t, api.describe, waiter.BatchOptions[string, BatchInstance]{})
		r := b.Add(&endingCtx{Context: t.Context()}, "i-1", time.Minute)
		if err := errOf(r); !errors.Is(err, context.Canceled) || len(api.log()) != 0 {
			t.Errorf("Result = %v after %d calls, want context.Canceled and no call", err, len(api.log()))
		}
		idle(t)
	})
}

// TestBatchCondition: a Batch judges each key with BatchOptions.Condition
// as NewFunc does: done ends the key's wait with success, an error of the
// condition's own ends it as a failure carrying that error, (false, nil)
// polls again until no call fits before the deadline; the definition's
// delays and MaxPolls apply, and a definition with acceptors is
// refused.
func TestBatchCondition(t *testing.T) {
	clocktest.Run(t, func(t *testing.T) {
		errDeleted := errors.New("job deleted")
		var mu sync.Mutex // up to BatchOptions.Calls calls are in flight at once
		calls := map[string]int{}
		op := func(_ context.Context, keys []string) (map[string]int, error) {
			mu.Lock()
			defer mu.Unlock()
			out := map[string]int{}
			for _, k := range keys {
				calls[k]++
				out[k] = calls[k]
			}
			return out, nil
		}
		cond := func(key string, n int, err error) (bool, error) {
			switch {
			case key == "deleted":
				return false, errDeleted
			case key == "ready":
				return n == 2, nil
			}
			return false, nil
		}
		def := waiter.Definition{Name: "JobDone", MinDelay: 2 * time.Second, MaxDelay: 2 * time.Second}
		b, err := waiter.NewBatch(def, op, waiter.BatchOptions[string, int]{Linger: -1, Condition: cond})
		if err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		deleted, ready, never := b.Add(t.Context(), "deleted", time.Minute), b.Add(t.Context(), "ready", time.Minute), b.Add(t.Context(), "never", 5*time.Second)
		var we *waiter.Error
		if _, err := deleted.Result(); !errors.As(err, &we) || !errors.Is(err, errDeleted) || we.Failure != waiter.FailureAcceptor || we.Attempts != 1 {
			t.Errorf("deleted: %v, want a failure carrying the condition's error after 1 call", err)
		}
		if n, err := ready.Result(); err != nil || n != 2 {
			t.Errorf("ready: %d, %v; want success at the 2nd call", n, err)
		}
		if _, err := never.Result(); !errors.Is(err, waiter.ErrTimeout) || time.Since(start) > 5*time.Second || time.Since(start) < 4900*time.Millisecond || calls["never"] != 3 {
			t.Errorf("never: %v after %v and %d calls, want a timeout by 5s after 3 calls, 2s apart", err, time.Since(start), calls["never"])
		}
		limited := waiter.Definition{Name: "JobDone", MaxPolls: 2}
		b2, err := waiter.NewBatch(limited, op, waiter.BatchOptions[string, int]{Linger: -1, Condition: cond}, waiter.WithDelays(time.Second, time.Second))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := b2.Add(t.Context(), "limited", time.Minute).Result(); !errors.Is(err, waiter.ErrMaxPolls) || calls["limited"] != 2 {
			t.Errorf("limited: %v after %d calls, want ErrMaxPolls after the definition's 2", err, calls["limited"])
		}
		_, err = waiter.NewBatch(instanceRunning, op, waiter.BatchOptions[string, int]{Condition: cond})
		if !errors.Is(err, waiter.ErrInvalidOption) || !strings.Contains(err.Error(), "no acceptors") {
			t.Errorf("NewBatch with acceptors and a Condition = %v, want ErrInvalidOption", err)
		}
	})
}
