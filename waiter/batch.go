package waiter

import (
	"container/heap"
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/benbjohnson/clock"

	"github.com/waitable/waitable/internal/attemptctx"
	"github.com/waitable/waitable/internal/timers"
)

// BatchOp polls many resources in one call, as APIs that take many
// identifiers do (EC2's DescribeInstances, ECS's DescribeServices,
// DynamoDB's BatchGetItem, Kubernetes' list calls): it returns the output
// of each key it found. A key missing from the map was not found; an
// error fails the call for every key in it.
type BatchOp[K comparable, O any] func(ctx context.Context, keys []K) (map[K]O, error)

// Batch waits for many resources with one waiter's rules, polling them
// together: each key added gets a [Run] of its own, with its own schedule,
// deadline, events, checkpoint and result, judged by the acceptors on its
// own output (the value the batch call returned for it); the Batch
// coalesces the keys whose next poll is due, most overdue first, into
// calls of at most WithBatchSize keys (a batch not full waits up to
// WithBatchLinger for more keys to come due), each call taking one token
// of the poll rate limit (WithPollRateLimit). So a budget of 50 calls a second
// polls up to 50 times the batch size of resources a second.
//
// A key missing from a call's answer is judged as an error: by default one
// whose error code is that of the definition's first errorType acceptor
// naming a "NotFound" error (so a definition that retries on
// InvalidInstanceID.NotFound keeps polling), or "NotFound"; WithMissing
// gives your own. A failed call is an error for every key in it, counting
// toward each one's transient-error streak. A call's context ends at the
// latest deadline of its keys; a key whose deadline passed during the call
// times out.
//
// Keys can be added and their runs cancelled at any time. The Batch holds
// one goroutine while it has keys, none otherwise. A Batch is safe for
// concurrent use.
type Batch[K comparable, O any] struct {
	w       *Waiter[K, O]
	op      BatchOp[K, O]
	clk     clock.Clock
	size    int
	calls   int // calls in flight at most
	missing func(K) error

	mu       sync.Mutex
	members  map[K]*member[K, O]
	due      memberHeap[K, O] // members between calls, by next poll
	inFlight int
	running  bool          // the scheduler goroutine exists
	poke     chan struct{} // wakes the scheduler
}

// member is one key's wait in a Batch.
type member[K comparable, O any] struct {
	driver[K, O]
	r      *Run[O]
	index  int // in the due heap, -1 when not in it
	unhook func() bool
}

// NewBatch returns a Batch that waits with def's rules and polls with op.
// The options are those of [New]; WithBatchSize, WithBatchCalls and
// WithMissing apply to batches only.
func NewBatch[K comparable, O any](def Definition, op BatchOp[K, O], opts ...Option) (*Batch[K, O], error) {
	w, err := New(def, notCalledDirectly[K, O], opts...)
	if err != nil {
		return nil, err
	}
	return newBatch(w, op)
}

// NewBatchFunc is [NewBatch] with a Go condition for each resource's
// output instead of a Definition (see [NewFunc]).
func NewBatchFunc[K comparable, O any](name string, op BatchOp[K, O], cond Condition[K, O], opts ...Option) (*Batch[K, O], error) {
	w, err := NewFunc(name, notCalledDirectly[K, O], cond, opts...)
	if err != nil {
		return nil, err
	}
	return newBatch(w, op)
}

// notCalledDirectly is a batch waiter's operation: the Batch calls the
// BatchOp instead.
func notCalledDirectly[K, O any](context.Context, K) (O, error) {
	var zero O
	return zero, errors.New("waiter: a Batch's waiter is driven by its BatchOp")
}

func newBatch[K comparable, O any](w *Waiter[K, O], op BatchOp[K, O]) (*Batch[K, O], error) {
	b := &Batch[K, O]{w: w, op: op, clk: w.cfg.clock, size: w.cfg.batchSize, calls: w.cfg.batchCalls,
		members: map[K]*member[K, O]{}, poke: make(chan struct{}, 1)}
	var errs []error
	if op == nil {
		errs = append(errs, fmt.Errorf("%w: waiter %s: the batch operation is nil", ErrInvalidOption, w.def.Name))
	}
	switch f := w.cfg.missing.(type) {
	case nil:
		code := notFoundCode(w.def)
		b.missing = func(k K) error { return &MissingError{Key: fmt.Sprint(k), Code: code} }
	case func(K) error:
		b.missing = f
	default:
		errs = append(errs, fmt.Errorf("%w: waiter %s: WithMissing is for %s, not func(%v) error", ErrInvalidOption, w.def.Name, reflect.TypeOf(f), reflect.TypeFor[K]()))
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return b, nil
}

// notFoundCode is the error code a definition retries or fails on when a
// resource is not found: its first errorType acceptor naming a NotFound
// error, or "NotFound".
func notFoundCode(def Definition) string {
	for _, a := range def.Acceptors {
		if t := a.Matcher.ErrorType; strings.Contains(strings.ToLower(t), "notfound") {
			return shapeName(t)
		}
	}
	return "NotFound"
}

// MissingError is how a Batch judges a key missing from a call's answer,
// unless WithMissing says otherwise.
type MissingError struct {
	Key  string // the key, as text
	Code string // the error code acceptors match with errorType
}

func (e *MissingError) Error() string {
	return fmt.Sprintf("waiter: %s is not in the batch call's answer (%s)", e.Key, e.Code)
}

// ErrorCode returns Code, which errorType acceptors match.
func (e *MissingError) ErrorCode() string { return e.Code }

// Add starts waiting at most maxWait for key and returns its Run
// (cancelling ctx, or the Run, ends that wait). Adding a key that is
// already being waited for returns its Run.
func (b *Batch[K, O]) Add(ctx context.Context, key K, maxWait time.Duration) *Run[O] {
	b.mu.Lock()
	if m, ok := b.members[key]; ok {
		b.mu.Unlock()
		return m.r
	}
	r := &Run[O]{done: make(chan struct{})}
	r.ev.size = b.w.cfg.eventBuffer
	m := &member[K, O]{r: r, index: -1}
	m.name = fmt.Sprint(key)
	if err := m.init(b.w, ctx, key, maxWait, nil); err != nil {
		b.mu.Unlock()
		r.finish(m.last, err, m.s)
		return r
	}
	m.ctx = newWaitCtx(m.spanCtx, m.s.Deadline, func() { b.cancelled(m) })
	r.c, r.cp = m, m.s
	m.s.Next = m.s.Start // due now
	b.members[key] = m
	heap.Push(&b.due, m)
	b.wake()
	b.mu.Unlock()
	return r
}

// cancel is Run.Cancel's for a member.
func (m *member[K, O]) cancel() { m.ctx.end(context.Canceled, nil) }

// cancelled ends a member whose context ended (deadline excepted: the
// scheduler times members out itself). A member in a call is left to
// the call's end.
func (b *Batch[K, O]) cancelled(m *member[K, O]) {
	b.mu.Lock()
	if b.members[m.in] != m || m.index < 0 {
		b.mu.Unlock()
		return
	}
	heap.Remove(&b.due, m.index)
	delete(b.members, m.in)
	b.mu.Unlock()
	b.end(m, m.stopped())
}

// end finishes a member's Run.
func (b *Batch[K, O]) end(m *member[K, O], err error) {
	m.end(err)
	m.r.finish(m.last, err, m.s)
}

// Pending returns the keys being waited for.
func (b *Batch[K, O]) Pending() []K {
	b.mu.Lock()
	defer b.mu.Unlock()
	keys := make([]K, 0, len(b.members))
	for k := range b.members {
		keys = append(keys, k)
	}
	return keys
}

// wake makes sure the scheduler runs and looks again. b.mu held.
func (b *Batch[K, O]) wake() {
	if !b.running {
		b.running = true
		go b.schedule()
		return
	}
	select {
	case b.poke <- struct{}{}:
	default:
	}
}

// schedule is the scheduler: it starts calls for due members as the rate
// limit and the in-flight bound allow, and sleeps until the next is due.
// It ends when no member is left.
func (b *Batch[K, O]) schedule() {
	var t *clock.Timer
	defer func() {
		if t != nil {
			t.Stop()
		}
	}()
	sleep := func(d time.Duration) {
		if t == nil {
			t = b.clk.Timer(d)
		} else {
			timers.Reset(b.clk, t, d)
		}
		select {
		case <-t.C:
		case <-b.poke:
			t.Stop()
		}
	}
	for {
		b.mu.Lock()
		if len(b.members) == 0 {
			b.running = false
			b.mu.Unlock()
			return
		}
		now := b.clk.Now()
		b.expire(now)
		if b.due.Len() == 0 || b.inFlight >= b.calls {
			b.mu.Unlock()
			sleep(time.Hour) // a call's end, or an Add, pokes
			continue
		}
		if next := b.due[0].s.Next; next.After(now) {
			b.mu.Unlock()
			sleep(next.Sub(now))
			continue
		}
		b.mu.Unlock()
		if wait := b.admit(now); wait > 0 {
			for at := now.Add(wait); b.clk.Now().Before(at); {
				sleep(at.Sub(b.clk.Now())) // an Add may wake it early: the token is not there yet
			}
		}
		b.mu.Lock()
		now = b.clk.Now()
		batch := b.take(now)
		if wait := b.linger(batch, now); wait > 0 {
			for _, m := range batch { // not full yet: let more keys come due
				heap.Push(&b.due, m)
			}
			b.mu.Unlock()
			sleep(wait)
			continue
		}
		if len(batch) > 0 {
			b.inFlight++
			go b.call(batch)
		}
		b.mu.Unlock()
	}
}

// linger returns how long a batch that is not full may wait for more
// keys to come due: until its oldest key has waited the linger time.
func (b *Batch[K, O]) linger(batch []*member[K, O], now time.Time) time.Duration {
	if len(batch) == 0 || len(batch) >= b.size {
		return 0
	}
	return batch[0].s.Next.Add(b.w.cfg.batchLinger).Sub(now)
}

// expire times out the members between calls whose deadline has passed.
// b.mu held.
func (b *Batch[K, O]) expire(now time.Time) {
	for _, m := range slices.Clone(b.due) {
		if !now.Before(m.s.Deadline) {
			heap.Remove(&b.due, m.index)
			delete(b.members, m.in)
			go b.end(m, b.w.timedOut(m.s, now, m.lastErr))
		}
	}
}

// admit waits for a token of the poll rate limit: the time to wait.
func (b *Batch[K, O]) admit(now time.Time) time.Duration {
	lim := b.w.cfg.limiter
	if lim == nil || lim.AllowN(now, 1) {
		return 0
	}
	return lim.ReserveN(now, 1).DelayFrom(now)
}

// take pops up to size due members, most overdue first. b.mu held.
func (b *Batch[K, O]) take(now time.Time) []*member[K, O] {
	var batch []*member[K, O]
	for b.due.Len() > 0 && len(batch) < b.size && !b.due[0].s.Next.After(now) {
		batch = append(batch, heap.Pop(&b.due).(*member[K, O]))
	}
	return batch
}

// call makes one batch call and applies its answer to each member.
func (b *Batch[K, O]) call(batch []*member[K, O]) {
	keys := make([]K, len(batch))
	deadline := batch[0].s.Deadline
	for i, m := range batch {
		keys[i] = m.in
		if m.s.Deadline.After(deadline) {
			deadline = m.s.Deadline
		}
	}
	// The call's context carries the first key's values (a trace, say) but
	// not its cancellation: cancelling one key must not fail the others.
	ctx, stop := b.clk.WithDeadline(context.WithoutCancel(batch[0].spanCtx), deadline)
	if t := b.w.cfg.attemptTimeout; t > 0 {
		ctx, stop = b.clk.WithTimeout(ctx, t)
	}
	start := b.clk.Now()
	outs, err := b.op(attemptctx.Mark(ctx), keys)
	latency := b.clk.Since(start)
	stop()
	now := start.Add(latency)
	for _, m := range batch {
		b.judge(m, outs, err, start, latency, now)
	}
	b.mu.Lock()
	b.inFlight--
	b.wake()
	b.mu.Unlock()
}

// judge applies one member's part of a call's answer and reschedules or
// ends it.
func (b *Batch[K, O]) judge(m *member[K, O], outs map[K]O, err error, start time.Time, latency time.Duration, now time.Time) {
	out, found := outs[m.in]
	if err == nil && !found {
		err = b.missing(m.in)
	}
	if !now.Before(m.s.Deadline) {
		m.ctx.end(context.DeadlineExceeded, nil)
	}
	c := call{number: m.s.Attempts + 1, start: start, actx: m.ctx}
	var o Poll
	dec, cancelled := m.complete(&c, out, err, latency, &o)
	var a Attempt[O]
	m.event(&c, out, &o, &dec, &a)
	m.r.record(&a)
	b.mu.Lock()
	switch {
	case cancelled || dec.Done || m.ctx.ended.Load():
		delete(b.members, m.in)
		b.mu.Unlock()
		switch {
		case cancelled:
			b.end(m, m.w.cancelled(m.ctx.Err(), m.ctx.Cause(), m.s, now, m.lastErr))
		case dec.Done:
			b.end(m, dec.Err)
		default:
			b.end(m, m.stopped())
		}
	default:
		heap.Push(&b.due, m)
		b.mu.Unlock()
	}
}

// memberHeap orders members by their next poll.
type memberHeap[K comparable, O any] []*member[K, O]

func (h memberHeap[K, O]) Len() int           { return len(h) }
func (h memberHeap[K, O]) Less(i, j int) bool { return h[i].s.Next.Before(h[j].s.Next) }
func (h memberHeap[K, O]) Swap(i, j int) {
	h[i], h[j] = h[j], h[i]
	h[i].index, h[j].index = i, j
}
func (h *memberHeap[K, O]) Push(x any) {
	m := x.(*member[K, O])
	m.index = len(*h)
	*h = append(*h, m)
}
func (h *memberHeap[K, O]) Pop() any {
	old := *h
	m := old[len(old)-1]
	old[len(old)-1] = nil
	*h = old[:len(old)-1]
	m.index = -1
	return m
}
