package waiter

import (
	"context"
	"runtime/debug"
	"time"

	"github.com/benbjohnson/clock"

	"github.com/waitable/waitable/internal/attemptctx"
	"github.com/waitable/waitable/internal/timers"
)

// The Batch's scheduler and calls: one goroutine, the scheduler, while the
// Batch has members, which times them out at their deadlines and starts
// the calls, each in a goroutine of its own; one timer, the scheduler's,
// for every member's next poll and deadline, kept in one heap (as
// k8s.io/client-go's workqueue keeps many delayed items on one timer).
// Members that are due wait in ready, most overdue first, for a call.

// wakeFor makes sure the scheduler runs and, if it sleeps past at (zero:
// now), wakes it to look again. b.mu held.
func (b *Batch[K, O]) wakeFor(at time.Time) {
	if !b.running {
		if len(b.members) > 0 {
			b.running = true
			go b.runScheduler()
		}
		return
	}
	if b.sleeping && (at.IsZero() || b.wakeAt.IsZero() || at.Before(b.wakeAt)) {
		b.sleeping = false
		select {
		case b.poke <- struct{}{}:
		default:
		}
	}
}

// runScheduler is the scheduler: it times members out at their deadlines,
// starts calls for due members as the rate limit and the in-flight bound
// allow, and sleeps until the next of these instants or a poke. It ends
// as soon as no member is left.
func (b *Batch[K, O]) runScheduler() {
	var t *clock.Timer
	defer func() {
		if t != nil {
			t.Stop()
		}
	}()
	sleep := func(until time.Time) {
		var fired <-chan time.Time // none: until a poke
		if !until.IsZero() {
			d := until.Sub(b.clk.Now())
			if d <= 0 {
				return
			}
			if t == nil {
				t = b.clk.Timer(d)
			} else {
				timers.Reset(b.clk, t, d)
			}
			fired = t.C
		}
		select {
		case <-fired:
		case <-b.poke:
			if t != nil {
				t.Stop()
			}
		}
	}
	for {
		b.mu.Lock()
		now := b.clk.Now()
		expired := b.expire(now)
		if len(b.members) == 0 {
			b.running, b.sleeping = false, false
			if b.token != nil {
				b.token.CancelAt(now)
				b.token = nil
			}
			b.mu.Unlock()
			b.timeOut(expired, now)
			return
		}
		batch, c, until := b.plan(now)
		b.sleeping, b.wakeAt = batch == nil, until
		b.mu.Unlock()
		b.timeOut(expired, now)
		if batch != nil {
			go b.call(batch, c)
			continue
		}
		sleep(until)
	}
}

// plan decides what the scheduler does at now: make a call with batch
// (which it starts: c, counted in flight), or sleep until the instant
// until (zero: until poked). b.mu held.
func (b *Batch[K, O]) plan(now time.Time) (batch []*member[K, O], c *batchCall, until time.Time) {
	until = b.heap.next()
	if b.nready == 0 || b.inFlight >= b.calls {
		return nil, nil, until
	}
	if at := b.admit(now); at.After(now) {
		return nil, nil, earliest(until, at)
	}
	if at := b.linger(); at.After(now) { // not full yet: let more keys come due
		return nil, nil, earliest(until, at)
	}
	b.token = nil // spent on this call
	batch = b.take()
	return batch, b.start(batch, now), time.Time{}
}

// earliest returns the earlier of a (zero: none) and b.
func earliest(a, b time.Time) time.Time {
	if a.IsZero() || b.Before(a) {
		return b
	}
	return a
}

// admit takes a token of the poll rate limit for the next call, if none is
// held, and returns when it is there. b.mu held.
func (b *Batch[K, O]) admit(now time.Time) time.Time {
	lim := b.w.cfg.limiter
	if lim == nil {
		return now
	}
	if b.token == nil { // kept while the call lingers, and until a call is made
		b.token = lim.ReserveN(now, 1)
	}
	if !b.token.OK() {
		return now
	}
	return now.Add(b.token.DelayFrom(now))
}

// linger returns until when a call that is not full may wait for more
// keys to come due: until its oldest key has waited the linger time, but
// no later than any of its keys' final call must start (b.final). Zero:
// the call goes now. b.mu held.
func (b *Batch[K, O]) linger() time.Time {
	if b.nready >= b.size || b.lingerFor <= 0 {
		return time.Time{}
	}
	for _, m := range b.ready {
		if m.state == due {
			return earliest(b.final, dueAt(m.s).Add(b.lingerFor))
		}
	}
	return time.Time{}
}

// expire makes due the members whose next poll has come, and takes out
// those whose deadline has come, between calls or in one, and returns
// them for timeOut. b.mu held.
func (b *Batch[K, O]) expire(now time.Time) []*member[K, O] {
	var expired []*member[K, O]
	for m := b.heap.reached(now); m != nil; m = b.heap.reached(now) {
		switch {
		case now.Before(m.s.Deadline):
			b.promote(now)
		case m.state == judging: // its judge ends it
			b.heap.remove(m)
			if m.stopped == nil {
				m.stopped = &stopReason{}
			}
		default:
			b.remove(m)
			expired = append(expired, m)
		}
	}
	return expired
}

// promote makes ready, most overdue first, the members whose next poll
// has come; it stops at a member whose deadline has come (expire's). b.mu
// held.
func (b *Batch[K, O]) promote(now time.Time) {
	for m := b.heap.reached(now); m != nil; m = b.heap.reached(now) {
		if m.state != waiting || !now.Before(m.s.Deadline) {
			return
		}
		b.makeDue(m)
	}
}

// take takes up to size ready members, most overdue first, for a call.
// b.mu held.
func (b *Batch[K, O]) take() []*member[K, O] {
	batch := make([]*member[K, O], 0, min(b.nready, b.size))
	i := 0
	for ; i < len(b.ready) && len(batch) < b.size; i++ {
		if m := b.ready[i]; m.state == due {
			batch = append(batch, m)
		}
	}
	clear(b.ready[:i])
	b.ready = b.ready[i:]
	b.nready -= len(batch)
	b.final = time.Time{}
	if b.nready < b.size { // the linger reads it again
		for _, m := range b.ready {
			if m.state == due {
				b.final = earliest(b.final, b.finalCall(m))
			}
		}
	}
	return batch
}

// start makes the call of batch, starting at now: its context ends at the
// latest deadline of its members, or when none waits for its answer.
// b.mu held.
func (b *Batch[K, O]) start(batch []*member[K, O], now time.Time) *batchCall {
	deadline := batch[0].s.Deadline
	for _, m := range batch[1:] {
		if m.s.Deadline.After(deadline) {
			deadline = m.s.Deadline
		}
	}
	// The call's context carries the first key's values (a trace, say) but
	// not its cancellation: cancelling one key must not fail the others.
	ctx, release := b.clk.WithDeadline(context.WithoutCancel(batch[0].span), deadline)
	c := &batchCall{start: now, ctx: ctx, release: release, live: len(batch)}
	if t := b.w.cfg.attemptTimeout; t > 0 {
		var releaseAttempt context.CancelFunc
		c.ctx, releaseAttempt = b.clk.WithTimeout(ctx, t)
		c.release = func() { releaseAttempt(); release() }
	}
	for _, m := range batch {
		m.call, m.state = c, calling
	}
	b.inFlight++
	return c
}

// call makes one batch call and applies its answer to each member still
// waiting for it. A member whose deadline came with the answer times out:
// the answer is discarded for it, as when its deadline comes first.
func (b *Batch[K, O]) call(batch []*member[K, O], c *batchCall) {
	keys := make([]K, len(batch))
	for i, m := range batch {
		keys[i] = m.in
	}
	outs, pe, err := b.invoke(c.ctx, keys)
	now := b.clk.Now()
	c.release()
	answered := batch[:0] // the members still in the Batch, judged here
	var late []*member[K, O]
	b.mu.Lock()
	b.inFlight--
	for _, m := range batch {
		switch {
		case m.state == gone: // it left during the call
		case !now.Before(m.s.Deadline):
			b.remove(m)
			late = append(late, m)
		default: // being judged: still in the heap, by its deadline
			m.call, m.state = nil, judging
			answered = append(answered, m)
		}
	}
	b.wakeFor(time.Time{}) // a call slot is free
	b.mu.Unlock()
	b.timeOut(late, now)
	judged := make([]judgment, len(answered))
	for i, m := range answered {
		if judged[i].pe = pe; pe == nil {
			judged[i] = b.judgeGuarded(m, outs, err, c.start, now)
		}
	}
	b.mu.Lock()
	for i, m := range answered {
		if j := &judged[i]; j.done || j.pe != nil || m.stopped != nil {
			b.remove(m)
			continue
		}
		if m.pokeLater {
			b.pokeNext(m)
		}
		b.place(m, now)
	}
	b.mu.Unlock()
	for i, m := range answered {
		switch j := &judged[i]; {
		case j.pe != nil:
			b.endPanicked(m, j.pe, c.start, now)
		case j.done: // a cancellation during the call included
			b.endMember(m, j.err)
		case m.stopped != nil:
			b.endMember(m, m.interruptedBy(m.stopped.reason, m.stopped.cause))
		}
	}
}

// judgment is how the answer of a call went for one member.
type judgment struct {
	done bool        // its wait ended, with err
	err  error       //
	pe   *PanicError // the call, or its acceptors, panicked
}

// judgeGuarded is judge, with a panic of the acceptors (a WithMatch
// function) ending that member as a panic of the operation would.
func (b *Batch[K, O]) judgeGuarded(m *member[K, O], outs map[K]O, err error, start, now time.Time) (j judgment) {
	defer func() {
		if p := recover(); p != nil {
			j = judgment{pe: &PanicError{Value: p, Stack: debug.Stack()}}
		}
	}()
	out, found := outs[m.in]
	if err == nil && !found {
		err = b.missing(m.in)
	}
	ans := Answer[O]{Start: start, Latency: now.Sub(start), Output: out, Err: err}
	_, j.done, j.err = m.apply(m.span, stopOf(m.cancelled()), &ans, now)
	return j
}

// cancelled returns the reason and cause of a cancellation of the
// member's caller's context, nil if it goes on: a call whose caller
// cancelled during it is counted, not judged.
func (m *member[K, O]) cancelled() (reason, cause error) {
	if err := m.span.Err(); err != nil && err != context.DeadlineExceeded {
		return err, context.Cause(m.span)
	}
	return nil, nil
}

// invoke calls the batch operation; a panic of it comes back as a
// *PanicError with its stack, for every member of the call, as a Run
// reports one.
func (b *Batch[K, O]) invoke(
	ctx context.Context,
	keys []K,
) (outs map[K]O, pe *PanicError, err error) {
	defer func() {
		if p := recover(); p != nil {
			pe = &PanicError{Value: p, Stack: debug.Stack()}
		}
	}()
	outs, err = b.op(attemptctx.Mark(ctx), keys)
	return outs, nil, err
}

// endPanicked ends a member whose call panicked: its attempt carries the
// *PanicError, and its Run's Result panics with it in the caller's
// goroutine.
func (b *Batch[K, O]) endPanicked(m *member[K, O], pe *PanicError, start, now time.Time) {
	s, p := m.next()
	var ans Answer[O]
	var v verdict
	m.w.panicked(s, pe, start, now, &ans, &v)
	m.record(m.span, &ans, &v, p, now)
	b.endMember(m, pe)
}

// dueHeap is the Batch's heap: members by the instant the scheduler must
// look at them (their next poll, or their deadline), each keeping its
// place (index). It is 4-ary, and a sift moves one hole rather than
// swapping: at a million members each level is a cache miss, in the
// slots and in the member whose index changes, and this halves the
// levels and the writes of a binary heap's swaps.
type dueHeap[K comparable, O any] struct {
	slots []slot[K, O]
}

type slot[K comparable, O any] struct {
	at time.Time
	m  *member[K, O]
}

// arity is the heap's number of children per slot.
const arity = 4

// next returns the earliest instant, zero if none.
func (h *dueHeap[K, O]) next() time.Time {
	if len(h.slots) == 0 {
		return time.Time{}
	}
	return h.slots[0].at
}

// reached returns the member of the earliest instant if now has reached
// it, else nil.
func (h *dueHeap[K, O]) reached(now time.Time) *member[K, O] {
	if len(h.slots) == 0 || h.slots[0].at.After(now) {
		return nil
	}
	return h.slots[0].m
}

// set puts m in at at, or moves it there.
func (h *dueHeap[K, O]) set(m *member[K, O], at time.Time) {
	if m.index < 0 {
		h.slots = append(h.slots, slot[K, O]{at, m})
		h.up(len(h.slots) - 1)
		return
	}
	i := m.index
	earlier := at.Before(h.slots[i].at)
	h.slots[i].at = at
	if earlier {
		h.up(i)
	} else {
		h.down(i)
	}
}

// remove takes m out.
func (h *dueHeap[K, O]) remove(m *member[K, O]) {
	i, last := m.index, len(h.slots)-1
	moved := h.slots[last]
	h.slots[last] = slot[K, O]{}
	h.slots = h.slots[:last]
	m.index = -1
	if i == last {
		return
	}
	h.slots[i] = moved
	moved.m.index = i
	if i > 0 && moved.at.Before(h.slots[(i-1)/arity].at) {
		h.up(i)
	} else {
		h.down(i)
	}
}

// up moves the slot at i toward the root until its parent is no later,
// and sets the index of every member it moves.
func (h *dueHeap[K, O]) up(i int) {
	s := h.slots
	x := s[i]
	for i > 0 {
		p := (i - 1) / arity
		if !x.at.Before(s[p].at) {
			break
		}
		s[i] = s[p]
		s[i].m.index = i
		i = p
	}
	s[i] = x
	x.m.index = i
}

// down moves the slot at i away from the root until no child is
// earlier, and sets the index of every member it moves.
func (h *dueHeap[K, O]) down(i int) {
	s := h.slots
	x := s[i]
	for {
		c := arity*i + 1
		if c >= len(s) {
			break
		}
		end := min(c+arity, len(s))
		for j := c + 1; j < end; j++ {
			if s[j].at.Before(s[c].at) {
				c = j
			}
		}
		if !s[c].at.Before(x.at) {
			break
		}
		s[i] = s[c]
		s[i].m.index = i
		i = c
	}
	s[i] = x
	x.m.index = i
}
