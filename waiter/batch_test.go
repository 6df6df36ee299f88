package waiter_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
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

func newBatch(t *testing.T, e *ec2, opts ...waiter.Option) *waiter.Batch[string, BatchInstance] {
	t.Helper()
	b, err := waiter.NewBatch(instanceRunning, e.describe, append([]waiter.Option{waiter.WithJitter(backoff.Low)}, opts...)...)
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
		b := newBatch(t, e, waiter.WithBatchSize(100), waiter.WithDelays(time.Second, time.Second))
		runs := map[string]*waiter.Run[BatchInstance]{}
		for i := range 250 {
			id := fmt.Sprint("i-", i)
			runs[id] = b.Add(t.Context(), id, time.Minute)
		}
		for id, r := range runs {
			var n int
			for a := range r.Attempts() {
				if n++; a.Number != n {
					t.Fatalf("%s: attempt %d numbered %d", id, n, a.Number)
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
		if len(e.calls) > 42 || len(b.Pending()) != 0 {
			t.Errorf("%d calls, %d pending; want at most 42 calls and none pending", len(e.calls), len(b.Pending()))
		}
	})
}

// TestBatchFailedCall: a call that fails counts for every key in it: a
// throttling API ends each wait after WithTransientLimit's 3 in a row.
func TestBatchFailedCall(t *testing.T) {
	clocktest.Run(t, func(t *testing.T) {
		e := &ec2{start: time.Now(), knownAt: func(int) time.Duration { return 0 }, runningAt: func(int) time.Duration { return time.Hour },
			fail: func(int) error { return throttled{} }}
		b := newBatch(t, e, waiter.WithTransientLimit(3))
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
		b := newBatch(t, e, waiter.WithDelays(time.Second, time.Second))
		slow := b.Add(t.Context(), "i-9", time.Hour)
		clocktest.Advance(10 * time.Second)
		fast := b.Add(t.Context(), "i-0", time.Hour)
		if _, err := fast.Result(); err != nil {
			t.Fatal(err)
		}
		if got := b.Pending(); fmt.Sprint(got) != "[i-9]" {
			t.Errorf("Pending() = %v, want [i-9]", got)
		}
		slow.Cancel()
		if _, err := slow.Result(); !errors.Is(err, context.Canceled) {
			t.Errorf("cancelled key: %v", err)
		}
		calls := len(e.calls)
		clocktest.Advance(time.Minute)
		if len(e.calls) != calls || len(b.Pending()) != 0 {
			t.Errorf("%d calls after the cancel, %v pending", len(e.calls)-calls, b.Pending())
		}
	})
}

// TestBatchRateLimitAndDeadline: every call takes a token of the shared
// limit; a key never ready times out at its own deadline.
func TestBatchRateLimitAndDeadline(t *testing.T) {
	clocktest.Run(t, func(t *testing.T) {
		e := &ec2{start: time.Now(), knownAt: func(int) time.Duration { return 0 }, runningAt: func(int) time.Duration { return time.Hour }}
		b := newBatch(t, e, waiter.WithBatchSize(1), waiter.WithPollRateLimit(rate.NewLimiter(2, 1)), waiter.WithDelays(time.Second, time.Second))
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
// a missing key as error code "NotFound" (a failure, step 4); WithMissing
// says otherwise.
func TestBatchMissingDefault(t *testing.T) {
	clocktest.Run(t, func(t *testing.T) {
		def := waiter.Definition{Name: "Running", Acceptors: instanceRunning.Acceptors[:2]}
		e := &ec2{start: time.Now(), knownAt: func(int) time.Duration { return time.Hour }, runningAt: func(int) time.Duration { return 0 }}
		b, err := waiter.NewBatch(def, e.describe, waiter.WithRetryStrategy(nil))
		if err != nil {
			t.Fatal(err)
		}
		_, err = b.Add(t.Context(), "i-1", time.Minute).Result()
		var me *waiter.MissingError
		if !errors.Is(err, waiter.ErrFailure) || !errors.As(err, &me) || me.Code != "NotFound" || me.Key != "i-1" {
			t.Errorf("Result = %v, want a failure on a MissingError for i-1", err)
		}
		gone := errors.New("instance gone")
		b, err = waiter.NewBatch(def, e.describe, waiter.WithRetryStrategy(nil), waiter.WithMissing(func(k string) error { return gone }))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := b.Add(t.Context(), "i-1", time.Minute).Result(); !errors.Is(err, gone) {
			t.Errorf("Result = %v, want WithMissing's error", err)
		}
		if _, err := waiter.NewBatch(def, e.describe, waiter.WithMissing(func(k int) error { return gone })); !errors.Is(err, waiter.ErrInvalidOption) {
			t.Errorf("NewBatch with a WithMissing of another key type = %v", err)
		}
	})
}
