package waiter

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/benbjohnson/clock"
	"golang.org/x/time/rate"

	"github.com/waitable/waitable/telemetry"
)

// Batch waits for many resources with one waiter's rules, polling them
// together: each key added gets a [Run] of its own, with its own schedule,
// deadline, events, checkpoint and result, judged by the acceptors on its
// own output (the value the batch call returned for it); the Batch
// coalesces the keys whose next poll is due, most overdue first, into
// calls of at most [BatchOptions].Size keys, at most BatchOptions.Calls of
// them in flight, each call taking one token of the poll rate limit
// (WithPollRateLimit). So a budget of 50 calls a second polls up to 50
// times the batch size of resources a second. A call that is not full
// waits up to BatchOptions.Linger for more keys to come due, but the
// linger never pushes a key's final poll past the instant a plain
// [Waiter] would make it: its deadline less the waiter's reserve for the
// final call.
//
// A key missing from a call's answer is judged as an error: by default one
// whose error code (its ErrorCode method) is that of the definition's
// first errorType acceptor naming a "NotFound" error (so a definition that
// retries on InvalidInstanceID.NotFound keeps polling), or "NotFound";
// BatchOptions.Missing gives your own. A failed call is an error for every key in it, counting
// toward each one's transient errors, retried until each key's deadline
// as for a single wait.
//
// Each key's wait ends at its own deadline, to the instant, also while it
// waits for a call or while a call that includes it is in flight (the
// call serves other keys, so a Batch does not wait for it): its Result is
// then a timeout, and the attempt in flight is reported as a call the
// deadline cut off (Late, the deadline as its error, not judged); the
// call's answer, coming at the deadline or later, is discarded for that
// key. No call is made for a key whose deadline has passed. A call's
// context carries the first key's values but none of the keys'
// cancellations (cancelling one key fails no other); it ends at the latest
// deadline of its keys, or as soon as none of them waits for its answer.
//
// Keys can be added and their runs cancelled at any time; cancelling a
// key's Run (or its context) ends its wait at once, also with a call in
// flight, whose attempt is then reported with the cancellation as its
// error, not judged. A batch operation (or a WithMatch function) that
// panics ends each key it concerns as a Run's panicking operation does: the attempt
// carries a *PanicError, and Result panics with it. The Batch holds one
// goroutine while it has keys, plus one per call in flight until the call
// returns, and none otherwise. A Batch is safe for concurrent use.
//
// Use a Batch rather than a [Group] when the API takes many identifiers in
// one call, or for thousands of resources: one goroutine and one timer
// serve them all, and the calls are fewer.
type Batch[K comparable, O any] struct {
	w         *Waiter[K, O]
	op        func(ctx context.Context, keys []K) (map[K]O, error)
	clk       clock.Clock
	size      int
	calls     int // calls in flight at most
	lingerFor time.Duration
	missing   func(K) error

	mu       sync.Mutex
	members  map[K]*member[K, O]
	heap     dueHeap[K, O]   // members between calls by next poll, and members due or in a call by deadline
	ready    []*member[K, O] // members due, most overdue first (and some gone: see nready)
	nready   int             // the members of ready that are still ready
	final    time.Time       // the earliest instant a ready member's final call must start, or earlier
	inFlight int
	token    *rate.Reservation // a token of the poll rate limit, held for the next call
	running  bool              // the scheduler goroutine exists
	sleeping bool              // it sleeps until wakeAt (zero: until poked)
	wakeAt   time.Time
	poke     chan struct{} // wakes the scheduler
}

// member is one key's wait in a Batch: a place in the Batch's heap,
// its Checkpoint and its Run; no goroutine, timer or context of its own.
// Its state says where it is; it is in members until its wait ends.
type member[K comparable, O any] struct {
	driver[K, O]
	b     *Batch[K, O]
	state memberState
	// pokeLater is a poke that came during its call. (Its lastCall is
	// written by its judge, while no poke reads it, before the judge puts
	// it back in the heap.)
	pokeLater bool
	index     int         // in the heap, -1 when not in it
	call      *batchCall  // the call in flight that includes it (kept once it left the Batch mid-call)
	unwatch   func() bool // stops watching the caller's context (nil: it never ends)
	// stopped is why a member being judged was withdrawn: its judge ends
	// it so.
	stopped *stopReason
}

// memberState is where a member is.
type memberState uint8

const (
	waiting memberState = iota // in the heap by its next poll (or its deadline, if earlier)
	due                        // in ready, and in the heap by its deadline
	calling                    // in a call in flight, and in the heap by its deadline
	judging                    // its call's goroutine applies the answer: in neither
	gone                       // its wait has ended, or is ending
)

// stopReason is why a member's wait was cut short: reason nil for its
// deadline, else the cancellation's error and cause.
type stopReason struct{ reason, cause error }

// batchCall is one call in flight.
type batchCall struct {
	start   time.Time
	ctx     context.Context
	release context.CancelFunc
	live    int // its members still waiting for its answer
}

// BatchOptions are what a [Batch] adds to a waiter's options. The zero
// value takes every default.
type BatchOptions[K comparable, O any] struct {
	// Size is the most keys one call takes (0: 100): what the API accepts
	// (EC2's DescribeInstances takes up to 1,000 instance IDs, ECS's
	// DescribeServices 10).
	Size int
	// Calls is how many calls may be in flight at once (0: 4); the poll
	// rate limit spaces them.
	Calls int
	// Linger is how long a call that is not full waits for more keys to
	// come due: fuller calls, fewer of them, for at most that much more
	// delay. 0 means a quarter of MinDelay; a negative Linger, none.
	Linger time.Duration
	// Missing returns the error a key missing from a call's answer is
	// judged by: the error the single-resource call would have returned
	// (an API error whose ErrorCode the definition's errorType acceptors
	// know). Nil gives the default (see [Batch]).
	Missing func(key K) error
	// Condition, if set, judges each key's call as [NewFunc]'s condition
	// does, in place of acceptors (the Definition then has none; its name,
	// delays and MaxPolls apply): done ends the key's wait with success, an
	// error of the condition's own ends it as a failure with that error,
	// (false, nil) polls again, and the call's own error returned
	// unchanged goes to the retry strategy.
	Condition func(key K, out O, err error) (done bool, failure error)
}

// NewBatch returns a Batch that waits with def's rules and polls with op.
// op polls many resources in one call, as APIs that take many identifiers
// do (EC2's DescribeInstances, ECS's DescribeServices, DynamoDB's
// BatchGetItem, Kubernetes' list calls): it returns the output of each key
// it found. A key missing from the map was not found; an error fails the
// call for every key in it. The options are those of [New]. To judge
// each key's output in Go rather than with acceptors, give
// BatchOptions.Condition (as NewFunc's condition), or [WithMatch]
// functions with a Definition that has no acceptors.
func NewBatch[K comparable, O any](
	def Definition,
	op func(ctx context.Context, keys []K) (map[K]O, error),
	bo BatchOptions[K, O],
	opts ...Option,
) (*Batch[K, O], error) {
	if bo.Condition == nil {
		w, err := New(def, notCalledDirectly[K, O], opts...)
		if err != nil {
			return nil, err
		}
		return newBatch(w, op, bo)
	}
	if len(def.Acceptors) > 0 {
		return nil, fmt.Errorf("%w: waiter %s: BatchOptions.Condition judges each key, "+
			"so the definition must have no acceptors, but it has %d", ErrInvalidOption, def.Name, len(def.Acceptors))
	}
	if def.MinDelay > 0 || def.MaxDelay > 0 { // the definition's delays, which NewFunc does not read
		s := def.Schedule()
		opts = append([]Option{WithDelays(s.MinDelay, s.MaxDelay)}, opts...)
	}
	w, err := NewFunc(def.Name, notCalledDirectly[K, O], bo.Condition, opts...)
	if err != nil {
		return nil, err
	}
	w.def = def
	w.rules = w.fingerprint()
	return newBatch(w, op, bo)
}

// notCalledDirectly is a batch waiter's operation: the Batch calls the
// batch operation instead.
func notCalledDirectly[K, O any](context.Context, K) (O, error) {
	var zero O
	return zero, errors.New("waiter: a Batch's waiter is driven by its batch operation")
}

func newBatch[K comparable, O any](w *Waiter[K, O], op func(context.Context, []K) (map[K]O, error),
	bo BatchOptions[K, O]) (*Batch[K, O], error) {
	b := &Batch[K, O]{
		w:         w,
		op:        op,
		clk:       w.cfg.clock,
		size:      bo.Size,
		calls:     bo.Calls,
		lingerFor: bo.Linger,
		missing:   bo.Missing,
		members:   map[K]*member[K, O]{},
		poke:      make(chan struct{}, 1),
	}
	var errs []error
	if op == nil {
		errs = append(
			errs,
			fmt.Errorf("%w: waiter %s: the batch operation is nil", ErrInvalidOption, w.def.Name),
		)
	}
	if bo.Size < 0 || bo.Calls < 0 {
		errs = append(errs, fmt.Errorf("%w: waiter %s: BatchOptions{Size: %d, Calls: %d}: negative",
			ErrInvalidOption, w.def.Name, bo.Size, bo.Calls))
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	if b.size == 0 {
		b.size = 100
	}
	if b.calls == 0 {
		b.calls = 4
	}
	if b.lingerFor == 0 {
		b.lingerFor = w.schedule.MinDelay / 4
	}
	if b.missing == nil {
		code := notFoundCode(w.def)
		b.missing = func(k K) error { return &missingError{key: fmt.Sprint(k), code: code} }
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

// missingError is how a Batch judges a key missing from a call's answer,
// unless BatchOptions.Missing says otherwise.
type missingError struct {
	key  string // the key, as text
	code string // the error code acceptors match with errorType
}

func (e *missingError) Error() string {
	return fmt.Sprintf("waiter: %s is not in the batch call's answer (%s)", e.key, e.code)
}

// ErrorCode returns the code, which errorType acceptors match.
func (e *missingError) ErrorCode() string { return e.code }

// Add starts waiting at most maxWait for key and returns its Run
// (cancelling ctx, or the Run, ends that wait). Adding a key that is
// already being waited for returns its Run.
func (b *Batch[K, O]) Add(ctx context.Context, key K, maxWait time.Duration) *Run[O] {
	prior := b.w.Learn(ctx, key) // before the Batch's lock: a History may take its time
	b.mu.Lock()
	if m, ok := b.members[key]; ok {
		b.mu.Unlock()
		return m.r
	}
	r := newRun[O](b.w.cfg.events, nil)
	m := &member[K, O]{b: b, index: -1}
	if err := m.init(b.w, ctx, key, maxWait, nil, true, prior); err != nil {
		b.mu.Unlock()
		m.name = fmt.Sprint(key)
		r.finish(m.last, err, m.s)
		return r
	}
	m.r, r.ctl = r, m
	r.begin(m.s)
	b.members[key] = m
	now := b.clk.Now()
	b.promote(now)
	b.place(m, now)
	b.mu.Unlock()
	if ctx.Done() != nil {
		// The caller's context can end the wait. A member sleeps in the
		// heap, not in a goroutine of its own (one scheduler cannot select
		// on every member's context), so the context's end withdraws it,
		// as Run.Cancel does: the callback ends the wait, never polls.
		unwatch := context.AfterFunc(ctx, func() { b.withdraw(m, ctx.Err(), context.Cause(ctx)) })
		b.mu.Lock()
		if m.state == gone {
			unwatch()
		} else {
			m.unwatch = unwatch
		}
		b.mu.Unlock()
	}
	return r
}

// place puts a member between calls in the heap: due now, or at its
// next poll (or its deadline, if that comes first). b.mu held.
func (b *Batch[K, O]) place(m *member[K, O], now time.Time) {
	if m.s.Next.After(now) {
		at := earliest(m.s.Deadline, m.s.Next)
		m.state = waiting
		b.heap.set(m, at)
		b.wakeFor(at)
		return
	}
	b.makeDue(m)
}

// makeDue puts m, whose next poll has come, in ready for the next call.
// b.mu held.
func (b *Batch[K, O]) makeDue(m *member[K, O]) {
	m.state = due
	b.heap.set(m, m.s.Deadline)
	b.ready = append(b.ready, m)
	if b.nready++; b.nready == 1 {
		b.final = time.Time{}
		b.wakeFor(dueAt(m.s).Add(max(b.lingerFor, 0)))
	}
	if at := b.finalCall(m); b.final.IsZero() || at.Before(b.final) {
		b.final = at
		b.wakeFor(at)
	}
	if b.nready == b.size {
		b.wakeFor(time.Time{})
	}
}

// dueAt is when the next call of a wait at s is due: Next, or its start
// before the first call.
func dueAt(s *Checkpoint) time.Time {
	if s.Next.IsZero() {
		return s.Start
	}
	return s.Next
}

// finalCall is the latest instant m's final call may start: its deadline
// less the waiter's reserve for the final call (see Waiter.step).
func (b *Batch[K, O]) finalCall(m *member[K, O]) time.Time {
	reserve, _ := b.w.reserve(m.s.MaxLatency)
	return m.s.Deadline.Add(-reserve)
}

// cancel is Run.Cancel's for a member.
func (m *member[K, O]) cancel() { m.b.withdraw(m, context.Canceled, context.Canceled) }

// poke is Run.Poke's for a member: between calls, its next poll comes
// now, or at the end of the poke gap, in the next call that has room.
func (m *member[K, O]) poke() {
	b := m.b
	b.mu.Lock()
	defer b.mu.Unlock()
	switch m.state {
	case calling, judging: // when its call returns
		m.pokeLater = true
	case waiting:
		b.pokeNext(m)
		b.place(m, b.clk.Now())
	}
}

// pokeNext brings m's next poll forward as the core's poke rule says.
// b.mu is held.
func (b *Batch[K, O]) pokeNext(m *member[K, O]) {
	m.pokeLater = false
	if at, ok := b.w.pokeAt(m.lastCall, m.s.Next, b.clk.Now()); ok {
		// The Run has the member's Checkpoint: a copy changes. (It shares
		// its Seen counts, which the next attempt clones: see next.)
		c := *m.s
		c.Next = at
		m.s = &c
	}
}

// withdraw ends a member whose context ended or whose Run was cancelled,
// with reason and cause: at once, also with its call in flight. A member
// being judged is left to its judge, which ends it so.
func (b *Batch[K, O]) withdraw(m *member[K, O], reason, cause error) {
	b.mu.Lock()
	switch m.state {
	case gone:
		b.mu.Unlock()
		return
	case judging:
		if m.stopped == nil {
			m.stopped = &stopReason{reason, cause}
		}
		b.mu.Unlock()
		return
	}
	b.remove(m)
	b.mu.Unlock()
	b.cutOff(m, b.clk.Now(), &stopReason{reason, cause})
}

// remove takes a member out of the Batch: out of members, the heap,
// ready and its call (whose context ends when no member waits for its
// answer any more). b.mu held.
func (b *Batch[K, O]) remove(m *member[K, O]) {
	delete(b.members, m.in)
	if m.index >= 0 {
		b.heap.remove(m)
	}
	if m.state == due {
		b.nready-- // left in ready, skipped when taken
	}
	m.state = gone
	if c := m.call; c != nil {
		if c.live--; c.live == 0 {
			c.release()
		}
	}
	if b.running && len(b.members) == 0 {
		b.wakeFor(time.Time{}) // to end
	}
}

// cutOff ends the wait of a member taken out of the Batch (remove), for
// stop: between calls, with its error; with its call in flight, also
// reporting that call, cut off and not judged.
func (b *Batch[K, O]) cutOff(m *member[K, O], now time.Time, stop *stopReason) {
	c := m.call
	if c == nil {
		b.endMember(m, m.interruptedBy(stop.reason, stop.cause))
		return
	}
	cause := stop.cause
	if stop.reason == nil {
		cause = context.DeadlineExceeded
	}
	ans := Answer[O]{Start: c.start, Latency: now.Sub(c.start), Err: cause}
	s, p := m.next()
	var v verdict
	err := m.w.interrupt(s, &ans, &v, stop.reason == nil, stop.reason, stop.cause, m.lastErr, now)
	m.record(m.span, &ans, &v, p, now)
	b.endMember(m, err)
}

// timeOut ends the members whose deadline came (expire took them out).
func (b *Batch[K, O]) timeOut(ms []*member[K, O], now time.Time) {
	for _, m := range ms {
		b.cutOff(m, now, &stopReason{})
	}
}

// endMember ends a member's wait and finishes its Run: in a goroutine of
// its own when WithOnGiveUp's hook is to run, so that the hook never
// holds up the scheduler (nor the other members).
func (b *Batch[K, O]) endMember(m *member[K, O], err error) {
	b.mu.Lock()
	unwatch := m.unwatch
	m.unwatch = nil
	b.mu.Unlock()
	if unwatch != nil {
		unwatch()
	}
	finish := func() {
		m.name = fmt.Sprint(m.in)
		m.end(err)
		m.r.finish(m.last, err, m.s)
	}
	if o := outcomeOf(err); b.w.giveUp != nil &&
		(o == telemetry.OutcomeTimeout || o == telemetry.OutcomeCancelled) {
		go finish()
		return
	}
	finish()
}
