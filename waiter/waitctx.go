package waiter

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/waitable/waitable/internal/attemptctx"
)

// waitCtx is the context of a wait's calls: it ends at the wait's
// deadline, when the caller's context ends, or when the wait is
// cancelled, and it marks the calls as a waiter's attempts (so that
// retry.Do inside them makes one attempt). It is one small object per
// wait, with no goroutine of its own. Start's driver ends it at the
// deadline with the timer it keeps anyway. Wait's, on the real clock,
// lets it keep its own deadline timer, armed only when a call asks for
// Done (or derives a context from it): a call that never watches its
// context costs no timer, and Err reads the clock instead. Contexts
// derived from it (an operation's WithTimeout) register through its
// AfterFunc method, as the context package allows, so they cost no
// goroutine either.
type waitCtx struct {
	parent   context.Context
	deadline time.Time
	ended    atomic.Bool
	lazy     bool        // the deadline is this context's own, on the real clock (see above)
	listed   bool        // in its watch's list (guarded by the watches' mutex)
	timer    *time.Timer // the lazy deadline's, once armed (guarded by mu)

	mu    sync.Mutex
	done  chan struct{} // made on first Done
	err   error
	cause error
	fns   map[*afterFn]struct{}
	onEnd func() // the driver's, called once, in the goroutine that ends the context

	// watch ends the context when the caller's does (nil: the caller's
	// never ends); the context is in its list, linked by wprev and wnext,
	// while listed.
	watch        *ctxWatch
	wprev, wnext *waitCtx

	// sleeper is the timer a Wait sleeps on between calls: end resets it
	// to fire at once (and sets poked), so that the Wait, which receives
	// from its timer alone, wakes when the context ends. Guarded by mu.
	sleeper *time.Timer
	poked   bool
}

type afterFn struct{ f func() }

// closedChan is the Done channel of a context that ended before anyone
// asked for it.
var closedChan = func() chan struct{} { c := make(chan struct{}); close(c); return c }()

// newWaitCtx returns the calls' context for a wait under parent that must
// end at deadline; onEnd (if not nil) runs once when it ends, for any
// reason. With lazy, the context ends itself at the deadline, on the real
// clock (see waitCtx); otherwise the driver ends it. The context ends when
// caller ends (the caller's context, from which parent derives, with the
// same Done), watched in ws with the other waits under caller.
func newWaitCtx(parent context.Context, deadline time.Time, onEnd func(), lazy bool, ws *ctxWatches, caller context.Context) *waitCtx {
	c := &waitCtx{parent: parent, deadline: deadline, onEnd: onEnd, lazy: lazy}
	if caller.Done() != nil {
		if err := caller.Err(); err != nil {
			c.end(err, context.Cause(caller))
		} else {
			ws.add(caller, c) // if caller ends meanwhile, its watch ends c
		}
	}
	return c
}

func (c *waitCtx) Deadline() (time.Time, bool) { return c.deadline, true }

func (c *waitCtx) Done() <-chan struct{} {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.done == nil {
		if c.err != nil {
			return closedChan
		}
		c.done = make(chan struct{})
		c.armLocked()
	}
	return c.done
}

// armLocked arms a lazy deadline's timer, once; c.mu is held.
func (c *waitCtx) armLocked() {
	if c.lazy && c.timer == nil {
		c.timer = time.AfterFunc(time.Until(c.deadline), c.expire)
	}
}

// expire ends the context at its deadline.
func (c *waitCtx) expire() { c.end(context.DeadlineExceeded, nil) }

func (c *waitCtx) Err() error {
	if !c.ended.Load() {
		if !c.lazy || time.Now().Before(c.deadline) {
			return nil
		}
		c.expire() // past a deadline that no timer watches
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

func (c *waitCtx) Value(key any) any {
	switch {
	case attemptctx.IsKey(key):
		return true
	case key == cancelCtxKey:
		// The context package finds a parent's own cancellation with this
		// key (context.Cause, and the parents of derived contexts); it must
		// not find the caller's, which has not ended when this one has.
		return nil
	}
	return c.parent.Value(key)
}

// cancelCtxKey is the context package's key for a context's cancellation
// state, read once from the key context.Cause asks a context for.
var cancelCtxKey = func() (key any) {
	context.Cause(keyProbe{func(k any) { key = k }})
	return key
}()

type keyProbe struct{ saw func(any) }

func (keyProbe) Deadline() (time.Time, bool) { return time.Time{}, false }
func (keyProbe) Done() <-chan struct{}       { return nil }
func (keyProbe) Err() error                  { return nil }
func (p keyProbe) Value(key any) any         { p.saw(key); return nil }

// AfterFunc arranges for f to run in its own goroutine once the context
// ends, as context.AfterFunc does; the context package uses it for the
// contexts derived from this one.
func (c *waitCtx) AfterFunc(f func()) (stop func() bool) {
	a := &afterFn{f: f}
	c.mu.Lock()
	if c.err != nil {
		c.mu.Unlock()
		go f()
		return func() bool { return false }
	}
	if c.fns == nil {
		c.fns = map[*afterFn]struct{}{}
	}
	c.armLocked()
	c.fns[a] = struct{}{}
	c.mu.Unlock()
	return func() bool {
		c.mu.Lock()
		defer c.mu.Unlock()
		_, ok := c.fns[a]
		delete(c.fns, a)
		return ok
	}
}

// end ends the context with err (context.Canceled or DeadlineExceeded)
// and its cause; the first end wins. It reports whether it ended it.
func (c *waitCtx) end(err, cause error) bool {
	c.mu.Lock()
	if c.err != nil {
		c.mu.Unlock()
		return false
	}
	if cause == nil {
		cause = err
	}
	c.err, c.cause = err, cause
	c.ended.Store(true)
	if c.done != nil {
		close(c.done)
	}
	if c.sleeper != nil {
		c.sleeper.Reset(0) // under mu: the Wait gives its timer up only under mu (see unsleep)
		c.sleeper, c.poked = nil, true
	}
	fns, onEnd, timer := c.fns, c.onEnd, c.timer
	c.fns = nil
	c.mu.Unlock()
	if timer != nil {
		timer.Stop()
	}
	for a := range fns {
		go a.f()
	}
	if c.watch != nil {
		c.watch.remove(c)
	}
	if onEnd != nil {
		onEnd()
	}
	return true
}

// release ends the context, quietly, when the wait is over: calls still
// running see it cancelled, and the parent no longer holds it.
func (c *waitCtx) release() {
	c.mu.Lock()
	c.onEnd, c.sleeper = nil, nil
	c.mu.Unlock()
	c.end(context.Canceled, nil)
}

// sleepOn has the context's end reset t to fire at once (see sleeper).
// It reports false if the context has already ended.
func (c *waitCtx) sleepOn(t *time.Timer) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.err != nil {
		return false
	}
	c.sleeper = t
	return true
}

// unsleep takes the sleeper back: the context's end no longer resets it.
// It reports whether the end did (the timer may then hold a value).
func (c *waitCtx) unsleep() (poked bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.sleeper = nil
	return c.poked
}

// Cause returns why the context ended (nil while it has not).
func (c *waitCtx) Cause() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.cause
}
