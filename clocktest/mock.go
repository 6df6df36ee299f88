package clocktest

import (
	"context"
	"sync"
	"time"

	"github.com/benbjohnson/clock"
)

// Arming records one timer armed on a [Mock]: by Timer, After, AfterFunc,
// Sleep, Ticker, Tick, WithTimeout or WithDeadline, or re-armed by
// ResetTimer.
type Arming struct {
	// Seq is the arming's position, from 1, in the order timers were armed.
	Seq int
	// Kind is the Mock method that armed it: "Timer", "After", "AfterFunc",
	// "Sleep", "Ticker", "Tick", "WithTimeout", "WithDeadline" or "Reset".
	Kind string
	// At is the mock time at which the timer was armed.
	At time.Time
	// Delay is how long after At the timer fires (a ticker's period).
	Delay time.Duration
}

// Mock is a [clock.Clock] for tests, driven by hand like [clock.Mock], that
// also tells the test when the code under test has armed a timer.
//
// A test of a polling loop on a plain clock.Mock must call Add only after
// the loop has armed its timer; Add before that moves time past a timer that
// does not exist yet, and the test hangs or fails now and then. Mock removes
// the race: [Mock.WaitArmed] blocks until the n-th timer is armed, and
// [Mock.Step] waits for the next one and moves time to its deadline.
//
// Every timer-making method of clock.Clock is counted, including the timers
// behind WithTimeout and WithDeadline, whose contexts behave like the
// standard library's (Err and context.Cause report DeadlineExceeded), and
// every re-arming through [Mock.ResetTimer]. Mock cannot see a timer being
// stopped (clock.Timer.Stop does not tell it), so it counts armings, not
// pending timers. Mock is safe for concurrent use, but like clock.Mock only one
// goroutine may move its time (Add, Set, Step). Its zero value is not usable:
// call [NewMock].
type Mock struct {
	inner *clock.Mock

	mu      sync.Mutex
	armings []Arming
	stepped int           // armings consumed by Step
	changed chan struct{} // closed and replaced at each arming
}

var _ clock.Clock = (*Mock)(nil)

// epoch is the time at which a new Mock starts.
var epoch = time.Date(2026, time.January, 1, 0, 0, 0, 0, time.UTC)

// NewMock returns a Mock whose time is 2026-01-01 00:00:00 UTC.
func NewMock() *Mock {
	inner := clock.NewMock()
	inner.Set(epoch)
	return &Mock{inner: inner, changed: make(chan struct{})}
}

// record notes one arming and wakes every waiter.
func (m *Mock) record(kind string, at time.Time, d time.Duration) {
	m.mu.Lock()
	a := Arming{Seq: len(m.armings) + 1, Kind: kind, At: at, Delay: d}
	m.armings = append(m.armings, a)
	close(m.changed)
	m.changed = make(chan struct{})
	m.mu.Unlock()
}

// Armings returns every arming so far, in order; its length is how many
// timers have been armed.
func (m *Mock) Armings() []Arming {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]Arming(nil), m.armings...)
}

// WaitArmed blocks until at least n timers have been armed and returns the
// n-th arming (n counts from 1; n < 1 is treated as 1). It waits without a
// limit: a test whose code never arms the timer is stopped by go test's
// -timeout, which names the test and prints every goroutine's stack.
func (m *Mock) WaitArmed(n int) Arming {
	n = max(n, 1)
	for {
		m.mu.Lock()
		if len(m.armings) >= n {
			a := m.armings[n-1]
			m.mu.Unlock()
			return a
		}
		changed := m.changed
		m.mu.Unlock()
		<-changed
	}
}

// Step waits for the next arming that Step has not yet consumed, moves the
// time to its deadline (never backwards), and returns it. For a loop that
// arms one timer per wait, each Step runs exactly one iteration:
//
//	go poll(ctx, m)   // arms a timer after each poll
//	m.Step()          // first wait over: the second poll runs
//	m.Step()          // second wait over: the third poll runs
//
// An arming whose timer was stopped still counts, so loops that also arm
// timers they stop (a context with a timeout per call) are better driven
// with [Mock.WaitArmed] and [Mock.Add].
func (m *Mock) Step() Arming {
	m.mu.Lock()
	m.stepped++
	n := m.stepped
	m.mu.Unlock()
	a := m.WaitArmed(n)
	if d := a.At.Add(a.Delay); d.After(m.Now()) {
		m.Set(d)
	}
	return a
}

// Add moves the time forward by d, firing the timers due on the way, as
// [clock.Mock.Add] does (including its one-millisecond pause afterwards).
func (m *Mock) Add(d time.Duration) { m.inner.Add(d) }

// Set moves the time to t, firing the timers due on the way, as
// [clock.Mock.Set] does.
func (m *Mock) Set(t time.Time) { m.inner.Set(t) }

// Now returns the mock time.
func (m *Mock) Now() time.Time { return m.inner.Now() }

// Since returns the mock time elapsed since t.
func (m *Mock) Since(t time.Time) time.Duration { return m.inner.Since(t) }

// Until returns the mock time until t.
func (m *Mock) Until(t time.Time) time.Duration { return m.inner.Until(t) }

// Timer arms a timer that fires after d of mock time.
func (m *Mock) Timer(d time.Duration) *clock.Timer {
	now := m.inner.Now()
	t := m.inner.Timer(d)
	m.record("Timer", now, d)
	return t
}

// ResetTimer re-arms t, a timer made by this Mock, to fire after d, and
// counts that as an arming of kind "Reset". benbjohnson/clock's
// Timer.Reset cannot tell its clock, so code under test re-arms through
// this method when its clock has it: the waiter and retry packages do, so
// that WaitArmed and Step see every sleep of a waiter that reuses one
// timer.
func (m *Mock) ResetTimer(t *clock.Timer, d time.Duration) bool {
	now := m.inner.Now()
	active := t.Reset(d)
	m.record("Reset", now, d)
	return active
}

// After arms a timer and returns its channel.
func (m *Mock) After(d time.Duration) <-chan time.Time {
	now := m.inner.Now()
	c := m.inner.Timer(d).C
	m.record("After", now, d)
	return c
}

// AfterFunc arms a timer that calls f in its own goroutine after d.
func (m *Mock) AfterFunc(d time.Duration, f func()) *clock.Timer {
	now := m.inner.Now()
	t := m.inner.AfterFunc(d, f)
	m.record("AfterFunc", now, d)
	return t
}

// Sleep blocks until the mock time has moved d past now. Another goroutine
// must move it.
func (m *Mock) Sleep(d time.Duration) {
	now := m.inner.Now()
	c := m.inner.Timer(d).C
	m.record("Sleep", now, d)
	<-c
}

// Ticker arms a ticker with period d.
func (m *Mock) Ticker(d time.Duration) *clock.Ticker {
	now := m.inner.Now()
	t := m.inner.Ticker(d)
	m.record("Ticker", now, d)
	return t
}

// Tick arms a ticker with period d and returns its channel.
func (m *Mock) Tick(d time.Duration) <-chan time.Time {
	now := m.inner.Now()
	c := m.inner.Ticker(d).C
	m.record("Tick", now, d)
	return c
}

// WithTimeout returns a context cancelled after d of mock time (or with its
// parent).
func (m *Mock) WithTimeout(parent context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	return m.withDeadline("WithTimeout", parent, m.inner.Now().Add(d))
}

// WithDeadline returns a context cancelled at the mock time deadline (or
// with its parent).
func (m *Mock) WithDeadline(parent context.Context, deadline time.Time) (context.Context, context.CancelFunc) {
	return m.withDeadline("WithDeadline", parent, deadline)
}

func (m *Mock) withDeadline(kind string, parent context.Context, deadline time.Time) (context.Context, context.CancelFunc) {
	if cur, ok := parent.Deadline(); ok && !cur.After(deadline) {
		return context.WithCancel(parent) // the parent ends first anyway
	}
	inner, cancel := context.WithCancelCause(parent)
	ctx := &deadlineCtx{Context: inner, deadline: deadline}
	now := m.inner.Now()
	d := deadline.Sub(now)
	if d <= 0 {
		cancel(context.DeadlineExceeded)
		return ctx, func() { cancel(context.Canceled) }
	}
	t := m.inner.AfterFunc(d, func() { cancel(context.DeadlineExceeded) })
	m.record(kind, now, d)
	return ctx, func() {
		t.Stop()
		cancel(context.Canceled)
	}
}

// deadlineCtx is a context with a deadline on mock time. It reports its
// expiry as the standard library does: Err and Cause are
// context.DeadlineExceeded. (clock.Mock's own timer context reads its error
// without a lock, which the race detector flags, so Mock does not use it.)
type deadlineCtx struct {
	context.Context // cancelled with cause DeadlineExceeded at the deadline
	deadline        time.Time
}

func (c *deadlineCtx) Deadline() (time.Time, bool) { return c.deadline, true }

func (c *deadlineCtx) Err() error {
	err := c.Context.Err()
	if err == context.Canceled && context.Cause(c.Context) == context.DeadlineExceeded {
		return context.DeadlineExceeded
	}
	return err
}
