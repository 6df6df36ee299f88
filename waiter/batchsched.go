package waiter

import (
	"container/heap"
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
// for every member's next poll and deadline, kept in two heaps (as
// k8s.io/client-go's workqueue keeps many delayed items on one timer).

// wake makes sure the scheduler runs, if there are members, and looks
// again. b.mu held.
func (b *Batch[K, O]) wake() {
	if !b.running {
		if len(b.members) > 0 {
			b.running = true
			go b.schedule()
		}
		return
	}
	select {
	case b.poke <- struct{}{}:
	default:
	}
}

// schedule is the scheduler: it times members out at their deadlines,
// starts calls for due members as the rate limit and the in-flight bound
// allow, and sleeps until the next of these instants or a poke. It ends
// as soon as no member is left.
func (b *Batch[K, O]) schedule() {
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
			b.running = false
			if b.token != nil {
				b.token.CancelAt(now)
				b.token = nil
			}
			b.mu.Unlock()
			b.timeOut(expired, now)
			return
		}
		batch, c, until := b.plan(now)
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
	if b.deadlines.Len() > 0 {
		until = b.deadlines.ms[0].s.Deadline
	}
	if b.due.Len() == 0 || b.inFlight >= b.calls {
		return nil, nil, until
	}
	if next := b.due.ms[0].s.Next; next.After(now) {
		return nil, nil, earliest(until, next)
	}
	if at := b.admit(now); at.After(now) {
		return nil, nil, earliest(until, at)
	}
	batch = b.take(now)
	if at := b.linger(batch); at.After(now) {
		for _, m := range batch { // not full yet: let more keys come due
			heap.Push(&b.due, m)
		}
		return nil, nil, earliest(until, at)
	}
	b.token = nil // spent on this call
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

// linger returns until when a batch that is not full may wait for more
// keys to come due: until its oldest key has waited the linger time, but
// no later than any of its keys' final call must start (its deadline less
// the waiter's reserve for the final call, see Waiter.step).
func (b *Batch[K, O]) linger(batch []*member[K, O]) time.Time {
	if len(batch) == 0 || len(batch) >= b.size || b.lingerFor <= 0 {
		return time.Time{}
	}
	at := batch[0].s.Next.Add(b.lingerFor)
	for _, m := range batch {
		reserve, _ := b.w.reserve(m.s.MaxLatency)
		at = earliest(at, m.s.Deadline.Add(-reserve))
	}
	return at
}

// expire takes out the members whose deadline has come, between calls or
// in one, and returns them for timeOut. b.mu held.
func (b *Batch[K, O]) expire(now time.Time) []*member[K, O] {
	var expired []*member[K, O]
	for b.deadlines.Len() > 0 && !now.Before(b.deadlines.ms[0].s.Deadline) {
		m := b.deadlines.ms[0]
		b.remove(m)
		expired = append(expired, m)
	}
	return expired
}

// take pops up to size due members, most overdue first. b.mu held.
func (b *Batch[K, O]) take(now time.Time) []*member[K, O] {
	var batch []*member[K, O]
	for b.due.Len() > 0 && len(batch) < b.size && !b.due.ms[0].s.Next.After(now) {
		batch = append(batch, heap.Pop(&b.due).(*member[K, O]))
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
	ctx, release := b.clk.WithDeadline(context.WithoutCancel(batch[0].spanCtx), deadline)
	c := &batchCall{start: now, ctx: ctx, release: release, live: len(batch)}
	if t := b.w.cfg.attemptTimeout; t > 0 {
		var releaseAttempt context.CancelFunc
		c.ctx, releaseAttempt = b.clk.WithTimeout(ctx, t)
		c.release = func() { releaseAttempt(); release() }
	}
	for _, m := range batch {
		m.call = c
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
	var answered, late []*member[K, O]
	b.mu.Lock()
	b.inFlight--
	for _, m := range batch {
		switch {
		case b.members[m.in] != m: // it left during the call
		case !now.Before(m.s.Deadline):
			b.remove(m)
			late = append(late, m)
		case pe != nil:
			b.remove(m)
			answered = append(answered, m)
		default:
			m.call = nil
			heap.Remove(&b.deadlines, m.dindex) // being judged
			answered = append(answered, m)
		}
	}
	b.wake()
	b.mu.Unlock()
	b.timeOut(late, now)
	for _, m := range answered {
		if pe != nil {
			b.endPanicked(m, pe, c.start, now)
			continue
		}
		b.judgeGuarded(m, outs, err, c.start, now)
	}
}

// judgeGuarded is judge, with a panic of the acceptors (a WithMatch
// function) ending that member as a panic of the operation would.
func (b *Batch[K, O]) judgeGuarded(m *member[K, O], outs map[K]O, err error, start, now time.Time) {
	defer func() {
		if p := recover(); p != nil {
			pe := &PanicError{Value: p, Stack: debug.Stack()}
			b.mu.Lock()
			b.remove(m)
			b.wake()
			b.mu.Unlock()
			b.endPanicked(m, pe, start, now)
		}
	}()
	b.judge(m, outs, err, start, now)
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
	var a Attempt[O]
	m.w.panicked(&m.s, pe, start, now, &a)
	m.endAttempt(m.ctx, &a, now)
	m.emit(&a)
	b.endMember(m, pe)
}

// judge applies one member's part of a call's answer and reschedules or
// ends it.
func (b *Batch[K, O]) judge(m *member[K, O], outs map[K]O, err error, start, now time.Time) {
	out, found := outs[m.in]
	if err == nil && !found {
		err = b.missing(m.in)
	}
	ans := Answer[O]{Start: start, Latency: now.Sub(start), Output: out, Err: err}
	_, done, err := m.apply(m.ctx, &ans, now)
	b.mu.Lock()
	if done || m.ctx.Err() != nil {
		b.remove(m)
		b.wake()
		b.mu.Unlock()
		if done { // a cancellation during the call included
			b.endMember(m, err)
		} else {
			b.endMember(m, m.interrupted())
		}
		return
	}
	if m.pokeLater {
		b.pokeNext(m)
	}
	heap.Push(&b.due, m)
	heap.Push(&b.deadlines, m)
	b.wake()
	b.mu.Unlock()
}

// memberHeap orders members by their next poll, or (byDeadline) by
// their deadline; each member keeps its place in both (index, dindex).
type memberHeap[K comparable, O any] struct {
	ms         []*member[K, O]
	byDeadline bool
}

func (h *memberHeap[K, O]) Len() int { return len(h.ms) }
func (h *memberHeap[K, O]) Less(i, j int) bool {
	if h.byDeadline {
		return h.ms[i].s.Deadline.Before(h.ms[j].s.Deadline)
	}
	return h.ms[i].s.Next.Before(h.ms[j].s.Next)
}
func (h *memberHeap[K, O]) Swap(i, j int) {
	h.ms[i], h.ms[j] = h.ms[j], h.ms[i]
	*h.slot(h.ms[i]), *h.slot(h.ms[j]) = i, j
}
func (h *memberHeap[K, O]) Push(x any) {
	m := x.(*member[K, O])
	*h.slot(m) = len(h.ms)
	h.ms = append(h.ms, m)
}
func (h *memberHeap[K, O]) Pop() any {
	m := h.ms[len(h.ms)-1]
	h.ms[len(h.ms)-1] = nil
	h.ms = h.ms[:len(h.ms)-1]
	*h.slot(m) = -1
	return m
}

// slot is where m keeps its place in this heap.
func (h *memberHeap[K, O]) slot(m *member[K, O]) *int {
	if h.byDeadline {
		return &m.dindex
	}
	return &m.index
}
