package waiter_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/waitable/waitable/waiter"
)

// On the real clock, out of a synctest bubble, a Wait sleeps between calls
// on its timer alone: when the caller's context ends, the calls' context
// ends and resets that timer to fire at once. These tests run outside a
// bubble, with delays of an hour that only a cancellation cuts short; a
// Wait that missed its cancellation would hold the test until go test's
// -timeout.

// sleepersParked waits (yielding, never sleeping) until n goroutines are
// blocked in a Wait's sleep, or until done is closed (false). It reports
// an error if one of them selects between channels there instead of
// receiving from its timer alone.
func sleepersParked(n int, done <-chan struct{}) (bool, error) {
	buf := make([]byte, 1<<20)
	for {
		select {
		case <-done:
			return false, nil
		default:
		}
		all := buf[:runtime.Stack(buf, true)]
		parked := 0
		for _, g := range bytes.Split(all, []byte("\n\n")) {
			if !bytes.Contains(g, []byte(").sleepReal(")) {
				continue
			}
			if bytes.Contains(g, []byte(" [select")) {
				return false, fmt.Errorf("a Wait out of a bubble selects in its sleep; want it to receive from its timer alone:\n%s", g)
			}
			if bytes.Contains(g, []byte(" [chan receive")) {
				parked++
			}
		}
		if parked >= n {
			return true, nil
		}
		runtime.Gosched()
	}
}

// TestCancelWakesRealSleep: Waits asleep on the real clock under one
// caller's context, alone or many, end when it is cancelled, each with the
// context's error and cause and no call after the first.
func TestCancelWakesRealSleep(t *testing.T) {
	for _, n := range []int{1, 1, 50} {
		cause := errors.New("the operator pressed ^C")
		ctx, cancel := context.WithCancelCause(context.Background())
		var calls atomic.Int32
		op := func(context.Context, GetThingInput) (*GetThingOutput, error) {
			calls.Add(1)
			return status("pending"), nil
		}
		w := mustNew(t, thingExists, op, waiter.WithDelays(time.Hour, time.Hour))
		errs, ended := make(chan error, n), make(chan struct{})
		var once sync.Once
		for range n {
			go func() {
				_, err := w.Wait(ctx, GetThingInput{"a"}, 2*time.Hour)
				errs <- err
				once.Do(func() { close(ended) })
			}()
		}
		if parked, err := sleepersParked(n, ended); !parked {
			cancel(nil)
			if err == nil {
				err = fmt.Errorf("%d waits: one ended before the cancellation: %v", n, <-errs)
			}
			t.Fatal(err)
		}
		cancel(cause)
		for range n {
			if err := <-errs; !errors.Is(err, context.Canceled) || !errors.Is(err, cause) {
				t.Fatalf("%d waits: wait = %v; want context.Canceled with its cause", n, err)
			}
		}
		if got := calls.Load(); got != int32(n) {
			t.Errorf("%d waits made %d calls; want one each", n, got)
		}
	}
}

// TestCancelledSleepsTimerNotReused: a Wait cancelled during a call, after
// its first sleep, has its timer reset by the cancellation; that timer is
// not handed to the next Wait, whose first sleep lasts its whole delay.
// With GODEBUG asynctimerchan=1 (timer channels with a buffer, whose
// value a reset does not clear), a reused timer would wake that Wait at
// once: the test runs again in a process of its own with that setting.
func TestCancelledSleepsTimerNotReused(t *testing.T) {
	const child = "WAITABLE_TEST_ASYNCTIMERCHAN"
	if os.Getenv(child) == "" {
		cmd := exec.Command(os.Args[0], "-test.run=^TestCancelledSleepsTimerNotReused$", "-test.count=1")
		cmd.Env = append(os.Environ(), "GODEBUG=asynctimerchan=1", child+"=1")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("with GODEBUG=asynctimerchan=1: %v\n%s", err, out)
		}
	}
	for range 5 {
		// The first wait: its second call cancels the caller's context
		// and returns once the calls' context has ended.
		ctx, cancel := context.WithCancel(context.Background())
		calls := 0
		op := func(cctx context.Context, in GetThingInput) (*GetThingOutput, error) {
			if calls++; calls == 2 {
				cancel()
				<-cctx.Done()
			}
			return status("pending"), nil
		}
		w := mustNew(t, thingExists, op, waiter.WithDelays(time.Nanosecond, time.Nanosecond))
		if _, err := w.Wait(ctx, GetThingInput{"a"}, time.Hour); !errors.Is(err, context.Canceled) || calls != 2 {
			t.Fatalf("first wait = %v after %d calls; want context.Canceled after 2", err, calls)
		}

		// The next wait, in the same goroutine: one call, then an hour's
		// sleep, which only the test's cancellation ends.
		ctx2, cancel2 := context.WithCancel(context.Background())
		var mu sync.Mutex
		calls2 := 0
		op2 := func(context.Context, GetThingInput) (*GetThingOutput, error) {
			mu.Lock()
			defer mu.Unlock()
			if calls2++; calls2 > 1 {
				cancel2() // woken early: end the wait, and the test fails below
			}
			return status("pending"), nil
		}
		w2 := mustNew(t, thingExists, op2, waiter.WithDelays(time.Hour, time.Hour))
		ended, parkErr := make(chan struct{}), make(chan error, 1)
		go func() {
			_, err := sleepersParked(1, ended)
			parkErr <- err
			cancel2()
		}()
		_, err := w2.Wait(ctx2, GetThingInput{"a"}, 2*time.Hour)
		close(ended)
		if err := <-parkErr; err != nil {
			t.Fatal(err)
		}
		mu.Lock()
		got := calls2
		mu.Unlock()
		if !errors.Is(err, context.Canceled) || got != 1 {
			t.Fatalf("next wait = %v after %d calls; want context.Canceled after 1: its sleep ended early", err, got)
		}
	}
}
