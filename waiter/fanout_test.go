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

	"github.com/waitable/waitable/clocktest"
	"github.com/waitable/waitable/waiter"
)

// fleet simulates many resources: resource i is ready at readyAt(i), and
// "doomed" resources fail.
type fleet struct {
	start   time.Time
	readyAt func(i int) time.Duration
	doomed  func(i int) bool
	mu      sync.Mutex
	calls   []time.Duration
	active  atomic.Int32
	peak    atomic.Int32
}

func (f *fleet) op(ctx context.Context, in GetThingInput) (*GetThingOutput, error) {
	n := f.active.Add(1)
	defer f.active.Add(-1)
	for {
		p := f.peak.Load()
		if n <= p || f.peak.CompareAndSwap(p, n) {
			break
		}
	}
	var i int
	fmt.Sscan(in.Name, &i)
	now := time.Since(f.start)
	f.mu.Lock()
	f.calls = append(f.calls, now)
	f.mu.Unlock()
	switch {
	case f.doomed != nil && f.doomed(i):
		return status("failed"), nil
	case now >= f.readyAt(i):
		return status("success"), nil
	}
	return status("creating"), nil
}

func inputs(n int) []GetThingInput {
	in := make([]GetThingInput, n)
	for i := range in {
		in[i] = GetThingInput{fmt.Sprint(i)}
	}
	return in
}

func TestWaitAllCollectsInOrder(t *testing.T) {
	clocktest.Run(t, func(t *testing.T) {
		f := &fleet{start: time.Now(), readyAt: func(i int) time.Duration { return time.Duration(i) * time.Second }, doomed: func(i int) bool { return i%4 == 3 }}
		w := mustNew(t, thingExists, f.op)
		outs, err := waiter.WaitAll(t.Context(), w, inputs(8), time.Minute, waiter.GroupOptions{})
		for i, o := range outs {
			wantFail := i%4 == 3
			if (o.Err != nil) != wantFail || (wantFail && *o.Output.Status != "failed") || (!wantFail && *o.Output.Status != "success") {
				t.Errorf("outcome %d = %v, %v", i, o.Output, o.Err)
			}
		}
		if !errors.Is(err, waiter.ErrFailure) || len(err.(interface{ Unwrap() []error }).Unwrap()) != 2 {
			t.Errorf("WaitAll error = %v, want both failures joined", err)
		}
	})
}

func TestWaitAllFailFast(t *testing.T) {
	clocktest.Run(t, func(t *testing.T) {
		f := &fleet{start: time.Now(), readyAt: func(int) time.Duration { return time.Hour }, doomed: func(i int) bool { return i == 5 }}
		w := mustNew(t, thingExists, f.op)
		start := time.Now()
		outs, err := waiter.WaitAll(t.Context(), w, inputs(10), 2*time.Hour, waiter.GroupOptions{FailFast: true})
		if !errors.Is(err, waiter.ErrFailure) || time.Since(start) != 0 {
			t.Fatalf("WaitAll = %v after %v, want the failure at once", err, time.Since(start))
		}
		for i, o := range outs {
			if i != 5 && !errors.Is(o.Err, context.Canceled) {
				t.Errorf("outcome %d = %v, want cancelled", i, o.Err)
			}
		}
	})
}

// TestWaitAllPanics: an operation that panics in one wait of a WaitAll
// makes WaitAll panic with a *PanicError (its value and the stack where it
// happened) in the caller's goroutine, once every other wait has ended.
func TestWaitAllPanics(t *testing.T) {
	clocktest.Run(t, func(t *testing.T) {
		start := time.Now()
		op := func(_ context.Context, in GetThingInput) (*GetThingOutput, error) {
			if in.Name == "3" {
				panic("boom")
			}
			if time.Since(start) < 10*time.Second {
				return status("creating"), nil
			}
			return status("success"), nil
		}
		w := mustNew(t, thingExists, op)
		var got any
		func() {
			defer func() { got = recover() }()
			_, _ = waiter.WaitAll(t.Context(), w, inputs(5), time.Minute, waiter.GroupOptions{})
		}()
		pe, ok := got.(*waiter.PanicError)
		if !ok || pe.Value != "boom" || !strings.Contains(string(pe.Stack), "TestWaitAllPanics") || time.Since(start) < 10*time.Second {
			t.Errorf("WaitAll panicked with %v after %v, want a *PanicError of boom, with its stack, once the others ended (10s)", got, time.Since(start))
		}
	})
}

func TestGroupConcurrencyLimit(t *testing.T) {
	clocktest.Run(t, func(t *testing.T) {
		f := &fleet{start: time.Now(), readyAt: func(i int) time.Duration { return time.Duration(i%7) * time.Second }}
		w := mustNew(t, thingExists, f.op)
		other := mustNew(t, thingExists, f.op, waiter.WithDelays(time.Second, time.Second))
		g := waiter.NewGroup(t.Context(), waiter.GroupOptions{Concurrency: 3})
		var outs []*waiter.Run[*GetThingOutput]
		for i := range 20 {
			ww := w
			if i%2 == 0 {
				ww = other
			}
			outs = append(outs, waiter.Go(g, "", ww, GetThingInput{fmt.Sprint(i)}, time.Minute))
		}
		if err := g.Wait(); err != nil {
			t.Fatal(err)
		}
		for i, r := range outs {
			if out, err := r.Result(); err != nil || *out.Status != "success" {
				t.Errorf("wait %d: %v, %v", i, out, err)
			}
		}
		if p := f.peak.Load(); p > 3 {
			t.Errorf("%d calls at once, want at most 3", p)
		}
	})
}

// TestFanOutUnderRateLimit: 10,000 runs in virtual time share one poll
// rate limit of 50 calls per second; no second ever sees more.
func TestFanOutUnderRateLimit(t *testing.T) {
	if testing.Short() {
		t.Skip("10,000 runs")
	}
	clocktest.Run(t, func(t *testing.T) {
		const n, perSecond = 10_000, 50
		f := &fleet{start: time.Now(), readyAt: func(i int) time.Duration { return time.Duration(i%600) * time.Second }}
		lim := rate.NewLimiter(perSecond, 1)
		w := mustNew(t, thingExists, f.op, waiter.WithPollRateLimit(lim), waiter.WithDelays(5*time.Second, 60*time.Second))
		outs, err := waiter.WaitAll(t.Context(), w, inputs(n), 2*time.Hour, waiter.GroupOptions{})
		if err != nil {
			t.Fatalf("WaitAll: %v", err)
		}
		for i, o := range outs {
			if *o.Output.Status != "success" {
				t.Fatalf("run %d ended with %v", i, *o.Output.Status)
			}
		}
		perSec := map[time.Duration]int{}
		for _, c := range f.calls {
			perSec[c.Truncate(time.Second)]++
		}
		for s, c := range perSec {
			// A token bucket of rate r and burst b allows r·T + b calls in
			// any window of length T.
			if c > perSecond+1 {
				t.Errorf("%d calls in second %v, limit %d", c, s, perSecond+1)
			}
		}
		if len(f.calls) < n {
			t.Errorf("%d calls for %d resources", len(f.calls), n)
		}
		t.Logf("%d calls in %v for %d resources", len(f.calls), f.calls[len(f.calls)-1], n)
	})
}

// TestGroupNamesAndWatches: every failed wait is named in the group's
// error (by its input, or the name given), the waits still pending can be
// listed while the group runs, progress comes once per wait, and each
// wait's Run streams its attempts.
func TestGroupNamesAndWatches(t *testing.T) {
	clocktest.Run(t, func(t *testing.T) {
		f := &fleet{start: time.Now(), readyAt: func(i int) time.Duration { return time.Duration(i) * time.Second }, doomed: func(i int) bool { return i >= 6 }}
		w := mustNew(t, thingExists, f.op, waiter.WithDelays(time.Second, time.Second))
		var (
			mu       sync.Mutex // Progress is called from the waits' goroutines
			progress []string
		)
		g := waiter.NewGroup(t.Context(), waiter.GroupOptions{Progress: func(p waiter.Progress) {
			mu.Lock()
			defer mu.Unlock()
			progress = append(progress, fmt.Sprintf("%s %t %d/%d", p.Name, p.Err == nil, p.Done, p.Started))
		}})
		runs := map[string]*waiter.Run[*GetThingOutput]{}
		for i := range 10 {
			name := fmt.Sprintf("thing-%d", i)
			runs[name] = waiter.Go(g, name, w, GetThingInput{fmt.Sprint(i)}, time.Minute)
		}
		clocktest.Advance(3500 * time.Millisecond)
		mu.Lock()
		ended := progressNames(progress)
		mu.Unlock()
		slices.Sort(ended)
		if got := strings.Join(ended, " "); got != "thing-0 thing-1 thing-2 thing-3 thing-6 thing-7 thing-8 thing-9" {
			t.Errorf("ended after 3.5s: %v, want all but thing-4 and thing-5", got)
		}
		var numbers []int
		for a := range runs["thing-5"].Events() {
			numbers = append(numbers, a.Checkpoint.Attempts)
		}
		err := g.Wait()
		var ge *waiter.GroupError
		if !errors.As(err, &ge) || len(ge.Failed) != 4 || ge.Total != 10 || !errors.Is(err, waiter.ErrFailure) {
			t.Fatalf("Wait = %v, want a GroupError with 4 failures of 10", err)
		}
		var we *waiter.Error
		if !errors.As(ge.Failed[0], &we) || we.Input != "thing-6" || !strings.HasPrefix(err.Error(), "waiter: 4 of 10 waits did not succeed: thing-6: failure after 1 poll ") || !strings.HasSuffix(err.Error(), "; and 1 more") {
			t.Errorf("Wait error %q, want the first failures named, then a count", err)
		}
		if len(progress) != 10 || !slices.Contains(progress, "thing-5 true 10/10") || fmt.Sprint(numbers) != "[1 2 3 4 5 6]" {
			t.Errorf("progress %v, thing-5's attempts %v", progress, numbers)
		}
	})
}

// TestGoNamesInputs: waits are named after inputs that read well, and by
// their order otherwise.
func TestGoNamesInputs(t *testing.T) {
	clocktest.Run(t, func(t *testing.T) {
		denied := func(context.Context, string) (*GetThingOutput, error) { return nil, accessDenied{} }
		w, err := waiter.New(thingExists, func(ctx context.Context, in any) (*GetThingOutput, error) { return denied(ctx, "") })
		if err != nil {
			t.Fatal(err)
		}
		_, err = waiter.WaitAll(t.Context(), w, []any{"i-0abc", 42, &GetThingInput{"x"}}, time.Minute, waiter.GroupOptions{})
		for _, want := range []string{": i-0abc: failure", "; 42: failure", "; #3: failure"} {
			if !strings.Contains(fmt.Sprint(err), want) {
				t.Errorf("WaitAll error %q lacks %q", err, want)
			}
		}
	})
}

// progressNames returns the names of the waits in progress lines.
func progressNames(progress []string) []string {
	var names []string
	for _, p := range progress {
		names = append(names, strings.Fields(p)[0])
	}
	return names
}

// TestGroupWaitsRunUnderTheCallersContext: every wait of a WaitAll or a
// Group, however many (more than the contexts a group shares its waits
// out among), calls under the caller's context, with its values and its
// deadline, and the caller's cancellation, with its cause, ends every
// wait at once, asleep between calls.
func TestGroupWaitsRunUnderTheCallersContext(t *testing.T) {
	type key struct{}
	errStop := errors.New("the operator stopped the rollout")
	for _, api := range []string{"WaitAll", "Group"} {
		t.Run(api, func(t *testing.T) {
			clocktest.Run(t, func(t *testing.T) {
				deadline := time.Now().Add(time.Hour)
				ctx, cancelDeadline := context.WithDeadline(context.WithValue(t.Context(), key{}, "caller's"), deadline)
				defer cancelDeadline()
				ctx, cancel := context.WithCancelCause(ctx)
				var calls atomic.Int32
				w := mustNew(t, thingExists, func(ctx context.Context, in GetThingInput) (*GetThingOutput, error) {
					calls.Add(1)
					if d, ok := ctx.Deadline(); ctx.Value(key{}) != "caller's" || !ok || d.After(deadline) {
						t.Errorf("wait %s calls with value %v and deadline %v (%t); want the caller's", in.Name, ctx.Value(key{}), d, ok)
					}
					return status("pending"), nil
				})
				const n = 50
				outs := make(chan []error, 1)
				go func() {
					var errs []error
					switch api {
					case "WaitAll":
						res, _ := waiter.WaitAll(ctx, w, inputs(n), 2*time.Hour, waiter.GroupOptions{})
						for _, o := range res {
							errs = append(errs, o.Err)
						}
					case "Group":
						g := waiter.NewGroup(ctx, waiter.GroupOptions{})
						var runs []*waiter.Run[*GetThingOutput]
						for _, in := range inputs(n) {
							runs = append(runs, waiter.Go(g, "", w, in, 2*time.Hour))
						}
						g.Wait()
						for _, r := range runs {
							_, err := r.Result()
							errs = append(errs, err)
						}
					}
					outs <- errs
				}()
				clocktest.Settle() // every wait has called once and sleeps
				if got := calls.Load(); got != n {
					t.Fatalf("%d calls before the cancellation, want %d", got, n)
				}
				start := time.Now()
				cancel(errStop)
				errs := <-outs
				if time.Since(start) != 0 || calls.Load() != n {
					t.Errorf("the waits ended %v after the cancellation, with %d calls; want at once, with %d", time.Since(start), calls.Load(), n)
				}
				for i, err := range errs {
					if !errors.Is(err, errStop) || !errors.Is(err, context.Canceled) {
						t.Errorf("wait %d: %v; want the caller's cause, and context.Canceled", i, err)
					}
				}
			})
		})
	}
}

// TestGroupZeroValue: a zero Group is valid, as its doc says: its waits
// run, and Wait collects every outcome, each failure naming its wait.
func TestGroupZeroValue(t *testing.T) {
	clocktest.Run(t, func(t *testing.T) {
		f := &fleet{start: time.Now(), readyAt: func(i int) time.Duration { return time.Duration(i) * time.Second },
			doomed: func(i int) bool { return i == 2 }}
		w := mustNew(t, thingExists, f.op)
		var g waiter.Group
		var runs []*waiter.Run[*GetThingOutput]
		for _, in := range inputs(4) {
			runs = append(runs, waiter.Go(&g, "", w, in, time.Minute))
		}
		err := g.Wait()
		var ge *waiter.GroupError
		if !errors.As(err, &ge) || ge.Total != 4 || len(ge.Failed) != 1 || !strings.Contains(err.Error(), ": #3: failure") {
			t.Fatalf("zero Group's Wait = %v, want the failure of wait #3 of 4", err)
		}
		for i, r := range runs {
			if o, err := r.Result(); (err != nil) != (i == 2) || o == nil {
				t.Errorf("wait %d = %v, %v", i, o, err)
			}
		}
	})
}
