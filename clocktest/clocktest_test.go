package clocktest_test

import (
	"context"
	"errors"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/benbjohnson/clock"
	"go.uber.org/goleak"

	"github.com/waitable/waitable/clocktest"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// poll is the small waiting loop these tests drive: it calls ready every
// interval until ready says yes or ctx ends, and returns the clock times at
// which it called.
func poll(ctx context.Context, clk clock.Clock, interval time.Duration, ready func(now time.Time) bool) ([]time.Time, error) {
	var polls []time.Time
	for {
		now := clk.Now()
		polls = append(polls, now)
		if ready(now) {
			return polls, nil
		}
		t := clk.Timer(interval)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return polls, ctx.Err()
		}
	}
}

func offsets(start time.Time, times []time.Time) []time.Duration {
	var out []time.Duration
	for _, t := range times {
		out = append(out, t.Sub(start))
	}
	return out
}

var wantOffsets = []time.Duration{0, 3 * time.Second, 6 * time.Second, 9 * time.Second, 12 * time.Second}

// TestPollerMock drives the poller with Mock.Step: each Step waits until the
// poller has armed its timer, so the test never moves time too early. Run it
// with -count=1000 -race to see that it never flakes.
func TestPollerMock(t *testing.T) {
	m := clocktest.NewMock()
	start := m.Now()
	type result struct {
		polls []time.Time
		err   error
	}
	done := make(chan result, 1)
	go func() {
		polls, err := poll(t.Context(), m, 3*time.Second, func(now time.Time) bool { return now.Sub(start) >= 10*time.Second })
		done <- result{polls, err}
	}()
	for i := range 4 {
		a := m.Step()
		if a.Seq != i+1 || a.Kind != "Timer" || a.Delay != 3*time.Second {
			t.Fatalf("Step() = %+v, want arming %d of a 3s Timer", a, i+1)
		}
	}
	r := <-done
	if r.err != nil {
		t.Fatal(r.err)
	}
	if got := offsets(start, r.polls); !slices.Equal(got, wantOffsets) {
		t.Errorf("polls at %v, want %v", got, wantOffsets)
	}
	if got := len(m.Armings()); got != 4 {
		t.Errorf("len(Armings()) = %d, want 4", got)
	}
}

// TestPollerSynctest drives the same poller in a synctest bubble with the
// real clock: no stepping at all, and the elapsed time is exact.
func TestPollerSynctest(t *testing.T) {
	clocktest.Run(t, func(t *testing.T) {
		start := time.Now()
		polls, err := poll(t.Context(), clocktest.Clock(), 3*time.Second, func(now time.Time) bool { return now.Sub(start) >= 10*time.Second })
		if err != nil {
			t.Fatal(err)
		}
		if got := offsets(start, polls); !slices.Equal(got, wantOffsets) {
			t.Errorf("polls at %v, want %v", got, wantOffsets)
		}
		if got := time.Since(start); got != 12*time.Second {
			t.Errorf("elapsed %v, want exactly 12s", got)
		}
	})
}

// TestAdvance moves a bubble's time by hand while the poller runs in the
// background, and cancels it mid-wait.
func TestAdvance(t *testing.T) {
	clocktest.Run(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		start := time.Now()
		// Advance gives no happens-before edge from the test to the
		// goroutines its timers wake, so state they share is atomic.
		var count atomic.Int32
		done := make(chan error, 1)
		go func() {
			_, err := poll(ctx, clocktest.Clock(), 3*time.Second, func(time.Time) bool { count.Add(1); return false })
			done <- err
		}()
		clocktest.Settle()
		if n := count.Load(); n != 1 {
			t.Fatalf("after Settle: %d polls, want 1", n)
		}
		clocktest.Advance(7 * time.Second) // polls at 3s and 6s
		if n := count.Load(); n != 3 {
			t.Fatalf("after Advance(7s): %d polls, want 3", n)
		}
		if got := time.Since(start); got != 7*time.Second {
			t.Fatalf("after Advance(7s): %v elapsed", got)
		}
		clocktest.Advance(0)
		cancel()
		if err := <-done; !errors.Is(err, context.Canceled) {
			t.Fatalf("poll after cancel = %v, want context.Canceled", err)
		}
		if n := count.Load(); n != 3 {
			t.Fatalf("after cancel: %d polls, want 3", n)
		}
	})
}

// TestMockWithTimeout drives a loop that gives each call a deadline
// (WithTimeout arms and then stops a timer per call): WaitArmed and Add
// drive it without races.
func TestMockWithTimeout(t *testing.T) {
	m := clocktest.NewMock()
	done := make(chan time.Duration, 1)
	go func() {
		ctx, cancel := m.WithTimeout(t.Context(), 5*time.Second) // arming 1
		defer cancel()
		m.Sleep(2 * time.Second) // arming 2: the first call takes 2s
		select {                 // arming 3: the second call hangs
		case <-m.After(time.Hour):
		case <-ctx.Done(): // ... until the deadline ends it
		}
		done <- m.Since(epoch)
	}()
	if a := m.WaitArmed(2); a.Kind != "Sleep" || a.Delay != 2*time.Second {
		t.Fatalf("WaitArmed(2) = %+v, want a 2s Sleep", a)
	}
	m.Add(2 * time.Second)
	if a := m.WaitArmed(3); a.Kind != "After" || !a.At.Add(a.Delay).Equal(epoch.Add(time.Hour+2*time.Second)) {
		t.Fatalf("WaitArmed(3) = %+v, want an After due at 1h2s", a)
	}
	m.Add(3 * time.Second)
	if got := <-done; got != 5*time.Second {
		t.Fatalf("the hung call ended at %v, want at the 5s deadline", got)
	}
	kinds := []string{}
	for _, a := range m.Armings() {
		kinds = append(kinds, a.Kind)
	}
	if want := []string{"WithTimeout", "Sleep", "After"}; !slices.Equal(kinds, want) {
		t.Errorf("Armings() kinds = %v, want %v", kinds, want)
	}
}

// TestMockCounts checks which calls count as armings.
func TestMockCounts(t *testing.T) {
	m := clocktest.NewMock()
	parent, cancelParent := m.WithTimeout(context.Background(), time.Second) // counts
	defer cancelParent()
	_, c1 := m.WithTimeout(parent, time.Hour) // parent is sooner: no timer
	defer c1()
	_, c2 := m.WithDeadline(context.Background(), m.Now().Add(-time.Second)) // already past: no timer
	defer c2()
	fired := make(chan struct{})
	m.AfterFunc(time.Second, func() { close(fired) }) // counts
	tk := m.Ticker(time.Second)                       // counts
	tk.Stop()
	m.Tick(time.Minute) // counts
	tm := m.Timer(time.Second)
	tm.Stop() // counts though stopped

	var kinds []string
	for _, a := range m.Armings() {
		kinds = append(kinds, a.Kind)
	}
	if want := []string{"WithTimeout", "AfterFunc", "Ticker", "Tick", "Timer"}; !slices.Equal(kinds, want) {
		t.Errorf("Armings() kinds = %v, want %v", kinds, want)
	}
	m.Add(time.Second)
	<-fired
	<-parent.Done()
}

// TestWaitArmedBelowOne: WaitArmed treats n < 1 as 1.
func TestWaitArmedBelowOne(t *testing.T) {
	m := clocktest.NewMock()
	m.Timer(time.Second)
	m.Timer(time.Minute)
	for _, n := range []int{0, -1} {
		if a := m.WaitArmed(n); a.Seq != 1 || a.Delay != time.Second {
			t.Errorf("WaitArmed(%d) = %+v, want the first arming", n, a)
		}
	}
}

func TestNewMockStartsAtEpoch(t *testing.T) {
	m := clocktest.NewMock()
	if !m.Now().Equal(epoch) {
		t.Errorf("NewMock().Now() = %v, want %v", m.Now(), epoch)
	}
	m.Add(time.Minute)
	if got := m.Since(epoch); got != time.Minute {
		t.Errorf("Since(Epoch) = %v after Add(1m)", got)
	}
	if got := m.Until(epoch.Add(time.Hour)); got != 59*time.Minute {
		t.Errorf("Until(Epoch+1h) = %v after Add(1m)", got)
	}
}

// TestMockDeadlineContext: the contexts of WithTimeout and WithDeadline end
// like the standard library's, and their cancel functions stop their timers.
func TestMockDeadlineContext(t *testing.T) {
	m := clocktest.NewMock()
	ctx, cancel := m.WithTimeout(context.Background(), time.Second)
	defer cancel()
	if d, ok := ctx.Deadline(); !ok || !d.Equal(epoch.Add(time.Second)) {
		t.Errorf("Deadline() = %v, %v, want Epoch+1s", d, ok)
	}
	if ctx.Err() != nil {
		t.Fatalf("Err() before the deadline = %v", ctx.Err())
	}
	m.Add(time.Second)
	<-ctx.Done()
	if !errors.Is(ctx.Err(), context.DeadlineExceeded) || context.Cause(ctx) != context.DeadlineExceeded {
		t.Errorf("after the deadline Err() = %v, Cause = %v, want DeadlineExceeded", ctx.Err(), context.Cause(ctx))
	}

	ctx2, cancel2 := m.WithDeadline(context.Background(), m.Now().Add(time.Minute))
	cancel2()
	if ctx2.Err() != context.Canceled {
		t.Errorf("after cancel Err() = %v, want Canceled", ctx2.Err())
	}
	m.Add(time.Minute)
	if ctx2.Err() != context.Canceled {
		t.Errorf("a cancelled context turned into %v at its deadline", ctx2.Err())
	}

	ctx3, cancel3 := m.WithDeadline(context.Background(), m.Now())
	defer cancel3()
	if ctx3.Err() != context.DeadlineExceeded {
		t.Errorf("a deadline already reached: Err() = %v, want DeadlineExceeded", ctx3.Err())
	}
}

// epoch is when a new clocktest.Mock starts.
var epoch = time.Date(2026, time.January, 1, 0, 0, 0, 0, time.UTC)
