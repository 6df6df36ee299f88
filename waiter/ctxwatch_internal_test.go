package waiter

import (
	"context"
	"errors"
	"sync"
	"testing"
	"testing/synctest"
	"time"
)

// secondWaiter is a waiter of pendingDef with op, polling every second.
func secondWaiter(t *testing.T, op func(context.Context, int) (pendingOut, error)) *Waiter[int, pendingOut] {
	t.Helper()
	w, err := New(pendingDef, op, WithDelays(time.Second, time.Second))
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// watched reports the caller contexts the waiter watches, and how many
// waits each holds.
func (ws *ctxWatches) watched() map[context.Context]int {
	ws.mu.Lock()
	defer ws.mu.Unlock()
	out := map[context.Context]int{}
	for ctx, cw := range ws.m {
		for c := cw.head; c != nil; c = c.wnext {
			out[ctx]++
		}
	}
	return out
}

// countingCtx counts the registrations the context package makes with
// it (context.AfterFunc asks a parent with an AfterFunc method, when it
// cannot find the parent's own cancellation through Value) and their stops.
type countingCtx struct {
	context.Context
	mu                  sync.Mutex
	registered, stopped int
}

func (c *countingCtx) Value(any) any { return nil }

func (c *countingCtx) AfterFunc(f func()) func() bool {
	c.mu.Lock()
	c.registered++
	c.mu.Unlock()
	stop := context.AfterFunc(c.Context, f)
	return func() bool {
		c.mu.Lock()
		c.stopped++
		c.mu.Unlock()
		return stop()
	}
}

func (c *countingCtx) counts() (registered, stopped int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.registered, c.stopped
}

// TestWaitsUnderOneContextShareItsWatch: the waits of a Waiter under one
// caller's context are watched with one registration, which ends them
// all, each with the context's error and cause, when the context ends;
// waits under another context have their own. A watch whose last wait
// ended stays registered for the next wait under its context, until a
// watch of another context takes its place.
func TestWaitsUnderOneContextShareItsWatch(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		op := func(_ context.Context, i int) (pendingOut, error) { return pendingOut{Done: i < 0}, nil }
		w := secondWaiter(t, op)
		cause := errors.New("the deploy was rolled back")
		ctx, cancel := context.WithCancelCause(t.Context())
		otherParent, cancelOther := context.WithCancel(t.Context())
		other := &countingCtx{Context: otherParent}
		const n = 100
		runs, others := make([]*Run[pendingOut], n), make([]*Run[pendingOut], n)
		for i := range runs {
			runs[i] = w.Start(ctx, i, time.Hour)
			others[i] = w.Start(other, n+i, time.Hour)
		}
		ended := w.Start(other, -1, time.Hour) // its first answer ends it
		synctest.Wait()
		if _, err := ended.Result(); err != nil {
			t.Fatal(err)
		}
		if got := w.watches.watched(); len(got) != 2 || got[ctx] != n || got[other] != n {
			t.Fatalf("watched: %v, want %d waits under each context", got, n)
		}
		if reg, stopped := other.counts(); reg != 1 || stopped != 0 {
			t.Fatalf("%d waits under one context: %d registrations with it, %d stopped; want 1 and 0", n+1, reg, stopped)
		}
		cancel(cause)
		synctest.Wait()
		for i, r := range runs {
			if _, err := r.Result(); !errors.Is(err, context.Canceled) || !errors.Is(err, cause) {
				t.Fatalf("wait %d after its context was cancelled: %v, want context.Canceled and the cause", i, err)
			}
		}
		if got := w.watches.watched(); len(got) != 1 || got[other] != n {
			t.Fatalf("watched after one context ended: %v, want only the other's waits", got)
		}
		for _, r := range others {
			r.Cancel()
		}
		synctest.Wait()
		if got := w.watches.watched(); len(got) != 0 {
			t.Fatalf("watched after every wait ended: %v, want none", got)
		}
		if reg, stopped := other.counts(); reg != 1 || stopped != 0 {
			t.Fatalf("after its waits ended: %d registrations with the context, %d stopped; want 1 and 0 (idle)", reg, stopped)
		}
		// The next wait under it takes the idle watch again.
		again := w.Start(other, -2, time.Hour)
		synctest.Wait()
		if _, err := again.Result(); err != nil {
			t.Fatal(err)
		}
		if reg, stopped := other.counts(); reg != 1 || stopped != 0 {
			t.Fatalf("a wait after the others ended: %d registrations with the context, %d stopped; want 1 and 0", reg, stopped)
		}
		// A wait under a third context, once it ends, takes the idle place.
		third := &countingCtx{Context: otherParent}
		if _, err := w.Start(third, -3, time.Hour).Result(); err != nil {
			t.Fatal(err)
		}
		if reg, stopped := other.counts(); reg != 1 || stopped != 1 {
			t.Fatalf("after a wait under another context ended: %d registrations with the first, %d stopped; want 1 and 1", reg, stopped)
		}
		if reg, stopped := third.counts(); reg != 1 || stopped != 0 {
			t.Fatalf("the last context's watch: %d registrations, %d stopped; want 1 and 0 (idle)", reg, stopped)
		}
		cancelOther()
		synctest.Wait()
		w.watches.mu.Lock()
		idle, left := w.watches.idle, len(w.watches.m)
		w.watches.mu.Unlock()
		if idle != nil || left != 0 {
			t.Fatalf("after the idle watch's context ended: idle %v, %d watches; want none", idle, left)
		}
	})
}

// TestWatchEndsManyWaits: a context under which more waits run than one
// goroutine ends (fireBatch) ends them all, in batches.
func TestWatchEndsManyWaits(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		op := func(context.Context, int) (pendingOut, error) { return pendingOut{}, nil }
		w := secondWaiter(t, op)
		ctx, cancel := context.WithCancelCause(t.Context())
		runs := make([]*Run[pendingOut], 2*fireBatch+1)
		for i := range runs {
			runs[i] = w.Start(ctx, i, time.Hour)
		}
		synctest.Wait()
		if got := w.watches.watched(); got[ctx] != len(runs) {
			t.Fatalf("watched: %d waits, want %d", got[ctx], len(runs))
		}
		cause := errors.New("shutting down")
		cancel(cause)
		for i, r := range runs {
			if _, err := r.Result(); !errors.Is(err, cause) {
				t.Fatalf("wait %d: %v, want the cause", i, err)
			}
		}
	})
}

// valueCtx is a context whose type cannot be a map key.
type valueCtx struct {
	context.Context
	tags []string
}

// TestWaitUnderAContextThatIsNotComparable: a caller's context that
// cannot be a map key (its type is not comparable, or it holds one whose
// type is not) is watched on its own, and still ends the wait.
func TestWaitUnderAContextThatIsNotComparable(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		op := func(context.Context, int) (pendingOut, error) { return pendingOut{}, nil }
		w := secondWaiter(t, op)
		parent, cancel := context.WithCancel(t.Context())
		ctx := valueCtx{parent, []string{"a"}}
		// A comparable type that holds a context whose type is not.
		wrapped := struct{ context.Context }{ctx}
		r1, r2 := w.Start(ctx, 1, time.Hour), w.Start(wrapped, 2, time.Hour)
		synctest.Wait()
		if got := w.watches.watched(); len(got) != 0 {
			t.Fatalf("watched: %v, want no shared watch", got)
		}
		cancel()
		for _, r := range []*Run[pendingOut]{r1, r2} {
			if _, err := r.Result(); !errors.Is(err, context.Canceled) {
				t.Fatalf("after its context was cancelled: %v, want context.Canceled", err)
			}
		}
	})
}

// TestWatchUnderChurn: waits start, end on their own and are cancelled
// under one context while it is cancelled; every wait ends, and no watch
// is left.
func TestWatchUnderChurn(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		op := func(_ context.Context, i int) (pendingOut, error) { return pendingOut{Done: i%3 == 0}, nil }
		w := secondWaiter(t, op)
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		var wg sync.WaitGroup
		runs := make([][]*Run[pendingOut], 4)
		for g := range runs {
			wg.Go(func() {
				for i := range 200 {
					r := w.Start(ctx, g*1000+i, time.Hour)
					if i%3 == 1 {
						r.Cancel()
					}
					if i == 100 && g == 0 {
						cancel()
					}
					runs[g] = append(runs[g], r)
				}
			})
		}
		wg.Wait()
		for _, rs := range runs {
			for _, r := range rs {
				<-r.Done()
			}
		}
		if got := w.watches.watched(); len(got) != 0 {
			t.Fatalf("watched after every wait ended: %v, want none", got)
		}
	})
}
