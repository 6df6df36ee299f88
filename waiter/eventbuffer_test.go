package waiter_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/waitable/waitable/clocktest"
	"github.com/waitable/waitable/waiter"
)

// numbers reads a Run's events to the end, with a pause after each, and
// returns their attempt numbers.
func numbers[O any](r *waiter.Run[O], pause time.Duration) []int {
	var got []int
	for a := range r.Events() {
		got = append(got, a.Checkpoint.Attempts)
		time.Sleep(pause)
	}
	return got
}

// TestEventBufferZero: a Run of a waiter made WithEventBuffer(0) keeps no
// attempt nobody has read (Missed counts them) and still publishes its
// Checkpoint; a reader waiting on Events gets every attempt made while it
// waits, and a slow one misses those made while it was busy.
func TestEventBufferZero(t *testing.T) {
	clocktest.Run(t, func(t *testing.T) {
		w := mustNew(t, thingExists, readyAfter(10), waiter.WithDelays(time.Second, time.Second), waiter.WithEventBuffer(0))
		r := w.Start(t.Context(), GetThingInput{"a"}, time.Hour)
		clocktest.Advance(3500 * time.Millisecond) // attempts 1 to 4, nobody reading
		if n, missed := r.Checkpoint().Attempts, r.Missed(); n != 4 || missed != 4 {
			t.Fatalf("after 4 attempts: Checkpoint().Attempts %d, Missed %d; want 4 and 4", n, missed)
		}
		if got, want := numbers(r, 0), []int{5, 6, 7, 8, 9, 10}; !slices.Equal(got, want) {
			t.Errorf("a waiting reader got attempts %v, want %v", got, want)
		}
		if _, err := r.Result(); err != nil || r.Missed() != 4 {
			t.Errorf("Result error %v, Missed %d; want success and 4", err, r.Missed())
		}

		w = mustNew(t, thingExists, readyAfter(10), waiter.WithDelays(time.Second, time.Second), waiter.WithEventBuffer(0))
		slow := w.Start(t.Context(), GetThingInput{"b"}, time.Hour)
		clocktest.Advance(500 * time.Millisecond)   // attempt 1, unread
		got := numbers(slow, 1500*time.Millisecond) // busy past the next attempt each time
		if want := []int{2, 4, 6, 8, 10}; !slices.Equal(got, want) {
			t.Errorf("a reader busy 1.5s after each attempt got %v, want %v", got, want)
		}
		if slow.Missed() != 5 {
			t.Errorf("Missed = %d, want 5 (attempts 1, 3, 5, 7 and 9)", slow.Missed())
		}
	})
}

// TestEventBufferN: with WithEventBuffer(2), a reader that comes after 4
// attempts gets the last 2 of them, then every one after; the 2 dropped
// are counted.
func TestEventBufferN(t *testing.T) {
	clocktest.Run(t, func(t *testing.T) {
		w := mustNew(t, thingExists, readyAfter(6), waiter.WithDelays(time.Second, time.Second), waiter.WithEventBuffer(2))
		r := w.Start(t.Context(), GetThingInput{"a"}, time.Hour)
		clocktest.Advance(3500 * time.Millisecond)
		if got, want := numbers(r, 0), []int{3, 4, 5, 6}; !slices.Equal(got, want) {
			t.Errorf("got attempts %v, want %v", got, want)
		}
		if r.Missed() != 2 {
			t.Errorf("Missed = %d, want 2", r.Missed())
		}
	})
}

// TestEventBufferBatchAndGroup: a Batch's keys and a Group's runs keep
// what the waiter's WithEventBuffer says.
func TestEventBufferBatchAndGroup(t *testing.T) {
	clocktest.Run(t, func(t *testing.T) {
		e := &ec2{start: time.Now(), knownAt: func(int) time.Duration { return 0 },
			runningAt: func(i int) time.Duration { return time.Duration(i) * time.Minute }}
		b := newBatch(t, e, waiter.BatchOptions[string, BatchInstance]{},
			waiter.WithDelays(time.Second, time.Second), waiter.WithEventBuffer(0))
		key := b.Add(t.Context(), "i-1", time.Hour)

		g := waiter.NewGroup(t.Context(), waiter.GroupOptions{})
		w := mustNew(t, thingExists, readyAfter(100), waiter.WithDelays(time.Second, time.Second), waiter.WithEventBuffer(1))
		member := waiter.Go(g, "a", w, GetThingInput{"a"}, time.Hour)

		clocktest.Advance(3500 * time.Millisecond)
		if n, missed := key.Checkpoint().Attempts, key.Missed(); n < 3 || missed != n {
			t.Errorf("batch key after 3.5s of 1s polls: Checkpoint().Attempts %d, Missed %d; want 3 or more, all missed", n, missed)
		}
		if missed := member.Missed(); missed != 3 {
			t.Errorf("group run after 4 polls keeping 1: Missed %d, want 3", missed)
		}
		member.Cancel()
		if got := numbers(member, 0); !slices.Equal(got, []int{4}) {
			t.Errorf("group run's events: %v, want [4]", got)
		}
		if err := g.Wait(); !errors.Is(err, context.Canceled) {
			t.Errorf("Group.Wait = %v, want the cancelled run's error", err)
		}
		if _, err := key.Result(); err != nil {
			t.Errorf("batch key: %v", err)
		}
	})
}

// TestEventBufferInvalid: a negative buffer, or one too large to be
// meant, is refused by New, naming the option and the value.
func TestEventBufferInvalid(t *testing.T) {
	for _, n := range []int{-1, 4097} {
		_, err := waiter.New(thingExists, readyAfter(1), waiter.WithEventBuffer(n))
		if !errors.Is(err, waiter.ErrInvalidOption) || !strings.Contains(err.Error(), "WithEventBuffer(") {
			t.Errorf("WithEventBuffer(%d): New error %v, want ErrInvalidOption naming the option", n, err)
		}
	}
}

// TestEventBufferZeroTakesPokes: a Run that keeps no attempt still takes
// a poke, which brings its next call forward.
func TestEventBufferZeroTakesPokes(t *testing.T) {
	clocktest.Run(t, func(t *testing.T) {
		w := mustNew(t, thingExists, readyAfter(2), waiter.WithDelays(time.Hour, time.Hour), waiter.WithEventBuffer(0))
		r := w.Start(t.Context(), GetThingInput{"a"}, 2*time.Hour)
		clocktest.Advance(time.Minute)
		r.Poke()
		clocktest.Settle()
		if _, err := r.Result(); err != nil || r.Checkpoint().Attempts != 2 || r.Missed() != 2 {
			t.Errorf("after a poke: Result error %v, %d attempts, %d missed; want success, 2 and 2", err, r.Checkpoint().Attempts, r.Missed())
		}
		if elapsed := r.Checkpoint().Start.Add(time.Minute); !time.Now().Equal(elapsed) {
			t.Errorf("the poked call came at %v, want a minute in (at the poke)", time.Since(r.Checkpoint().Start))
		}

		// A Batch key: the poke changes a copy of its Checkpoint, of which
		// the next poll steps a copy that the Run then reads.
		e := &ec2{start: time.Now(), knownAt: func(int) time.Duration { return 0 },
			runningAt: func(i int) time.Duration { return time.Duration(i) * time.Minute }}
		b := newBatch(t, e, waiter.BatchOptions[string, BatchInstance]{Linger: -1},
			waiter.WithDelays(time.Hour, time.Hour), waiter.WithEventBuffer(0))
		key := b.Add(t.Context(), "i-2", 2*time.Hour)
		clocktest.Advance(time.Minute)
		key.Poke() // pending still: the Run reads the poked poll's Checkpoint
		clocktest.Settle()
		if cp := key.Checkpoint(); cp.Attempts != 2 || total(cp.Seen) != 2 || !cp.Next.After(time.Now()) {
			t.Errorf("after a poked poll: %d attempts, Seen counts %d, next at %v; want 2, 2, later", cp.Attempts, total(cp.Seen), cp.Next)
		}
		clocktest.Advance(time.Minute)
		key.Poke()
		if _, err := key.Result(); err != nil || time.Since(e.start) != 2*time.Minute {
			t.Fatalf("poked batch key: %v after %v, want success at the second poke", err, time.Since(e.start))
		}
		if cp := key.Checkpoint(); cp.Attempts != 3 || total(cp.Seen) != 3 || key.Missed() != 3 {
			t.Errorf("poked batch key: %d attempts, Seen counts %d, Missed %d; want 3, 3, 3", cp.Attempts, total(cp.Seen), key.Missed())
		}
	})
}

// TestEventBufferZeroPanicInStep: a WithJitter function that panics
// while the wait steps its Checkpoint, in a Run that keeps no attempt
// (or the default 16), ends the wait with a *PanicError, leaves the Run
// usable (its Checkpoint, Missed and Result do not block) and its final
// Checkpoint what the default buffer's Run has: the attempt that
// panicked counted once.
func TestEventBufferZeroPanicInStep(t *testing.T) {
	final := map[int]waiter.Checkpoint{}
	for _, buffer := range []int{16, 0} {
		clocktest.Run(t, func(t *testing.T) {
			jitter := waiter.WithJitter(func(lo, hi time.Duration) time.Duration { panic(boom{7}) })
			w := mustNew(t, thingExists, readyAfter(5), jitter, waiter.WithEventBuffer(buffer))
			r := w.Start(t.Context(), GetThingInput{"a"}, time.Hour)
			<-r.Done()
			final[buffer] = r.Checkpoint()
			if buffer == 0 && r.Missed() != final[0].Attempts {
				t.Errorf("Missed %d, want every attempt (%d)", r.Missed(), final[0].Attempts)
			}
			defer func() {
				p, ok := recover().(*waiter.PanicError)
				if !ok || p.Value != (boom{7}) || !strings.Contains(string(p.Stack), "TestEventBufferZeroPanicInStep") {
					t.Errorf("buffer %d: recovered %v, want the jitter function's panic, with its frame", buffer, p)
				}
			}()
			r.Result()
			t.Errorf("buffer %d: Result returned instead of panicking", buffer)
		})
	}
	a, b := final[16], final[0]
	if a.End != "panic" || a.Attempts != b.Attempts || a.End != b.End || !slices.Equal(a.Seen, b.Seen) {
		t.Errorf("final Checkpoints differ: buffer 16 %d attempts, end %q, seen %v; buffer 0 %d, %q, %v",
			a.Attempts, a.End, a.Seen, b.Attempts, b.End, b.Seen)
	}
}
