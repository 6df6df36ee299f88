package waiter

import (
	"bytes"
	"context"
	"runtime"
	"strconv"
	"sync"
	"time"

	"github.com/benbjohnson/clock"

	"github.com/waitable/waitable/internal/timers"
)

// The waits of one Waiter that sleep until the same instant (started
// together, polled on a schedule without jitter) share one timer: those of
// one Group (or WaitAll), and those started on their own in one synctest
// bubble, or in none. The first to park there leads: it arms its own timer.
// The others follow and arm nothing. When the leader's timer fires, its
// goroutine starts each follower's next step in a goroutine of its own,
// then makes its own.
//
// Why: the runtime runs every due timer in one pass of its scheduler that
// a garbage collection cannot interrupt, and a timer made by AfterFunc
// creates its goroutine there. A million waits whose timers fell on one
// instant made that pass create a million goroutines, and a collection
// that began meanwhile waited seconds for it to end. Shared, the pass
// creates one goroutine per instant and the rest are created by an
// ordinary goroutine, which a collection can stop; the runtime's timer
// heap holds one timer per instant, not one per wait.
//
// A follower's step runs in a goroutine its leader starts, so leader and
// follower must belong to the same synctest bubble, if any: a Waiter may
// be shared by tests that run in parallel, each in a bubble whose virtual
// clock starts at the same instant, and a goroutine of one bubble that
// touches another's timers is a fatal error. So a Group's waits share
// with the waits of their Group (keyed by its context, made in the
// caller's bubble); other waits share with the waits of their bubble (or
// of none, outside bubbles), which the goroutine that starts them tells
// (see currentBubble), whatever their contexts. A context cannot be the
// key: one made outside the bubbles may be used inside several of them.
// Only the real clock shares, so that a test clock (clocktest.Mock) sees
// one arming per parked wait, as its users count them.

// wakeGroups is a Waiter's: the latest wait to park as a leader, which
// waits with its key (ctx and bubble) parking at the same instant follow.
type wakeGroups[I, O any] struct {
	mu     sync.Mutex
	lead   *runner[I, O] // nil: none to follow
	ctx    context.Context
	bubble uint64
	at     time.Time
}

// wakeGroup is a leader's followers: made when the first one joins.
type wakeGroup[I, O any] struct {
	at        time.Time
	followers []*runner[I, O]
}

// newWakeGroups returns the coalescing of a waiter on clk: nil unless clk
// is the real clock.
func newWakeGroups[I, O any](clk clock.Clock) *wakeGroups[I, O] {
	if !timers.IsReal(clk) {
		return nil
	}
	return &wakeGroups[I, O]{}
}

// join makes rn, parked until at, follow the latest leader if that leader
// parked until the same instant with the same key (its Group's context,
// or its bubble), and reports true; otherwise rn leads and join reports
// false: the caller arms rn's own timer.
func (w *wakeGroups[I, O]) join(rn *runner[I, O], at time.Time) bool {
	ctx := rn.shareCtx()
	w.mu.Lock()
	defer w.mu.Unlock()
	if l := w.lead; l != nil && l != rn && w.ctx == ctx && w.bubble == rn.bubble && w.at.Equal(at) {
		if l.leads == nil {
			l.leads = &wakeGroup[I, O]{at: at}
		}
		l.leads.followers = append(l.leads.followers, rn)
		return true
	}
	w.lead, w.ctx, w.bubble, w.at = rn, ctx, rn.bubble, at
	return false
}

// fire is rn's when its own timer has woken it: if it leads followers, it
// starts their steps.
func (w *wakeGroups[I, O]) fire(rn *runner[I, O]) {
	w.mu.Lock()
	if w.lead == rn {
		w.lead, w.ctx = nil, nil
	}
	g := rn.leads
	rn.leads = nil
	w.mu.Unlock()
	if g != nil {
		wakeAll(g.followers, g.at)
	}
}

// wakeAll starts the steps of the parked waits of fs. A long list is
// split between goroutines, so that the steps' goroutines are created on
// every processor, each with the stacks that its processor's exited steps
// left, not all on one that must then take stacks from the runtime's
// shared pool.
func wakeAll[I, O any](fs []*runner[I, O], at time.Time) {
	for len(fs) > wakeSplit {
		half := len(fs) / 2
		go wakeAll(fs[half:], at)
		fs = fs[:half]
	}
	for _, f := range fs {
		// A follower poked meanwhile has left its group (and may be
		// parked until another instant): it is not woken.
		if f.parkedFor.Load() == at.UnixNano() && f.phase.CompareAndSwap(phaseParked, phaseBusy) {
			go f.step()
		}
	}
}

// wakeSplit is the longest list of followers one goroutine starts.
const wakeSplit = 256

// resign is rn's when its wait ends: if it leads followers whose instant
// has not come, the first of them still parked leads in its place, its
// timer armed for what remains until the instant.
func (w *wakeGroups[I, O]) resign(rn *runner[I, O], now time.Time) {
	w.mu.Lock()
	defer w.mu.Unlock()
	latest := w.lead == rn
	if latest {
		w.lead, w.ctx = nil, nil
	}
	g := rn.leads
	rn.leads = nil
	if g == nil {
		return
	}
	for i, f := range g.followers {
		if f.phase.Load() != phaseParked {
			continue
		}
		f.arm(g.at.Sub(now))
		f.leads, g.followers = g, g.followers[i+1:]
		if latest { // waits parking there now follow f (whose key is rn's)
			w.lead = f
		}
		return
	}
}

// leave takes a poked wait out of the sharing: a leader hands its
// followers on, as when it ends; a follower stays on its leader's list,
// but is woken from it no more (wakeAll checks the instant it parked
// for).
func (w *wakeGroups[I, O]) leave(rn *runner[I, O], now time.Time) {
	rn.parkedFor.Store(0)
	w.resign(rn, now)
}

// shareCtx is the context that keys rn's sharing with its bubble: its
// Group's, or nil for a wait started on its own.
func (rn *runner[I, O]) shareCtx() context.Context {
	if rn.r.onEnd != nil {
		return rn.parent
	}
	return nil
}

// currentBubble returns the number of the synctest bubble of the calling
// goroutine, 0 if it is in none, and whether it could tell. Time in a
// bubble has no monotonic clock reading, so the real clock's does tell
// the common case at once; in a bubble the number is read from the
// header of the goroutine's traceback ("goroutine 7 [running, synctest
// bubble 2]:"). A header without it reports false: such a wait shares
// nothing.
func currentBubble() (uint64, bool) {
	if monotonic(time.Now()) {
		return 0, true
	}
	var buf [128]byte
	h := buf[:runtime.Stack(buf[:], false)]
	if i := bytes.IndexByte(h, '\n'); i >= 0 {
		h = h[:i]
	}
	const mark = ", synctest bubble "
	i := bytes.Index(h, []byte(mark))
	if i < 0 {
		return 0, false
	}
	h = h[i+len(mark):]
	if j := bytes.IndexByte(h, ']'); j >= 0 {
		h = h[:j]
	}
	id, err := strconv.ParseUint(string(h), 10, 64)
	return id, err == nil && id != 0
}

// monotonic reports whether t has a monotonic clock reading: a time read
// from the real clock outside synctest bubbles (their time has none), not
// one decoded from a saved State.
func monotonic(t time.Time) bool { return t != t.Round(0) }
