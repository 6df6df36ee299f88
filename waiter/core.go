package waiter

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"time"

	"github.com/waitable/waitable/backoff"
	"github.com/waitable/waitable/classify"
	"github.com/waitable/waitable/internal/attemptctx"
	"github.com/waitable/waitable/internal/plural"
	"github.com/waitable/waitable/retry"
)

// The core: the rules of the Smithy waiter workflow as pure functions of
// their arguments. Judge applies the acceptors to one call; Step applies
// one attempt to a wait's Checkpoint and decides what comes next. Neither
// reads a clock, starts a goroutine, or keeps anything between calls, so
// every driver (Wait and Start in this package, a durable workflow, a
// simulator) runs the same rules, and a wait can stop after any attempt
// and go on elsewhere from its Checkpoint.

// Judgment is what the acceptors made of one call.
type Judgment struct {
	// Acceptor is the index of the acceptor that matched, or -1. Acceptors
	// are numbered in the order they are tried: WithMatch functions (or a
	// NewFunc condition), then the definition's.
	Acceptor int
	// Matcher describes the matched acceptor (`output: status
	// stringEquals "ACTIVE"`, or a WithMatch name).
	Matcher string
	// State is the matched acceptor's state or, with no match, the
	// specification's implicit one: Failure for an error, Retry otherwise.
	State classify.State
	// Message is a failure acceptor's message, if it has one.
	Message string
	// Failure is the error a NewFunc condition failed the wait with.
	Failure error
	// EvalErr reports JMESPath expressions that failed on this output.
	EvalErr error
}

// unmatched reports whether an error was returned that no acceptor
// matched: the case the retry strategy decides (see [WithRetryStrategy]).
func (j *Judgment) unmatched(err error) bool { return j.Acceptor < 0 && err != nil }

// Judge applies the waiter's acceptors, in order, to one call: its input
// and its output or error. It is safe for concurrent use.
func (w *Waiter[I, O]) Judge(in I, out O, err error) Judgment {
	if w.cond != nil {
		return w.judgeCondition(in, out, err)
	}
	for i, c := range w.custom {
		if c.match(in, out, err) {
			return Judgment{Acceptor: i, Matcher: c.name, State: c.state}
		}
	}
	m := w.set.Match(in, out, err)
	j := Judgment{Acceptor: m.Index, State: m.State, Message: m.Message, EvalErr: m.Err}
	if m.Index >= 0 {
		j.Matcher = w.descs[m.Index]
		j.Acceptor += len(w.custom)
	}
	return j
}

// decision is what a wait does after an attempt.
type decision struct {
	done      bool           // the wait ended; err is then nil for success or an *Error
	err       error          //
	state     classify.State // where the attempt left the wait
	transient bool           // an unmatched error retried as transient
	delay     time.Duration  // until the next call, when the wait goes on
}

// Begin returns the Checkpoint of a wait that starts at now and may last
// maxWait. No call is made: a driver calls the operation (see
// [Waiter.Call]) and passes the attempt to [Waiter.Step]; with
// WithInitialDelay, not before the Checkpoint's Next. seed draws the
// jitter of the delays (0: a random seed); a durable driver passes one it
// can replay.
func (w *Waiter[I, O]) Begin(
	now time.Time,
	maxWait time.Duration,
	seed uint64,
) (Checkpoint, error) {
	if maxWait <= 0 {
		return Checkpoint{}, fmt.Errorf("%w: waiter %s: maxWait %v is not positive: "+
			"the Smithy specification requires a total wait time", ErrInvalidOption, w.def.Name, maxWait)
	}
	for seed == 0 {
		seed = rand.Uint64()
	}
	s := Checkpoint{Version: checkpointVersion, Waiter: w.def.Name, Rules: w.rules, Start: now,
		Deadline: now.Add(maxWait), Seed: seed}
	if d := w.cfg.initialDelay; d > 0 {
		// The first call waits, but never past the end of the budget.
		s.Next = now.Add(min(d, maxWait-min(finalFloor, maxWait/2)))
	}
	return s, nil
}

// Step applies one attempt to the wait's Checkpoint s at time now and
// returns the attempt as the wait judged it: its State, Transient, Streak,
// NextDelay (the time until the next call) and Checkpoint (the next one),
// and, when the wait ended, its Outcome, with err nil for success or an
// [*Error]. It reads the attempt's call (Start, Latency, Err, Late), its
// Judgment, what the retry strategy and the service said of the next call
// (Retry, Quota, Refusal, MinDelay, Hint), Delay and Identity: what
// [Waiter.Call] fills in.
//
// Step is the whole workflow of the Smithy specification: the acceptors'
// verdict (first match wins; an unmatched error fails the wait unless the
// retry strategy calls it transient), the waiter's attempt limit, the
// deadline, and the delay schedule with its last-attempt rule. It is pure:
// the same arguments give the same result, and the Checkpoint given is
// not changed.
func (w *Waiter[I, O]) Step(s Checkpoint, a Attempt[O], now time.Time) (Attempt[O], error) {
	s = s.clone()
	d := w.step(&s, &a, now)
	a.judged(d, &s)
	a.Checkpoint = s.clone()
	return a, d.err
}

// judged records in a what the wait made of it (d), and the streak of s.
func (a *Attempt[O]) judged(d decision, s *Checkpoint) {
	a.State, a.Transient, a.NextDelay, a.Streak = d.state, d.transient, d.delay, s.Streak
	if d.done {
		a.Outcome = outcomeOf(d.err)
	}
}

// step is Step on a Checkpoint the driver owns, counted in place.
func (w *Waiter[I, O]) step(s *Checkpoint, a *Attempt[O], now time.Time) decision {
	var v *classify.Verdict // what the call's error says, read once
	if a.Err != nil {
		verdict := classify.Classify(a.Err)
		v = &verdict
	}
	d := w.decide(s, a, now, v)
	count(&s.Seen, seenKind(a, d.state, v))
	if e, ok := d.err.(*Error); ok {
		e.Seen = slices.Clone(s.Seen)
	}
	return d
}

// decide is Step's decision; it updates s in place.
func (w *Waiter[I, O]) decide(
	s *Checkpoint,
	a *Attempt[O],
	now time.Time,
	v *classify.Verdict,
) decision {
	s.Attempts++
	s.MaxLatency = max(s.MaxLatency, a.Latency)
	s.Next = time.Time{}
	d := decision{state: a.Judgment.State}
	if a.Late {
		d.state = classify.Retry // not judged: the resource's state is unknown
		return w.end(s, d, now, ErrTimeout, 0, a)
	}
	if a.Judgment.State != classify.Success {
		s.Streak, s.StreakStart = 0, time.Time{}
	}
	if a.Identity != "" {
		if s.Identity != "" && s.Identity != a.Identity {
			d.state = classify.Failure
			d = w.end(s, d, now, ErrFailure, FailureRecreated, a)
			d.err.(*Error).Message = fmt.Sprintf(
				"its identity %s became %s",
				s.Identity,
				a.Identity,
			)
			return d
		}
		s.Identity = a.Identity
	}
	if w.cfg.notFoundLimit > 0 {
		if !notFound(v) {
			s.NotFound = 0
		} else if s.NotFound++; s.NotFound >= w.cfg.notFoundLimit {
			d.state = classify.Failure
			d = w.end(s, d, now, ErrFailure, FailureLimit, a)
			d.err.(*Error).Message = plural.N(s.NotFound, "not-found answer") + " in a row: the resource never appeared"
			return d
		}
	}
	streak := false
	switch {
	case a.Judgment.State == classify.Success:
		s.Transient = 0
		if s.Streak == 0 {
			s.StreakStart = a.Start
		}
		s.Streak++
		if !w.stable() ||
			(s.Streak >= w.cfg.stableN && a.Start.Sub(s.StreakStart) >= w.cfg.stableFor) {
			return w.end(s, d, now, nil, 0, a)
		}
		d.state, streak = classify.Retry, true // seen, not yet long enough
	case a.Judgment.unmatched(a.Err) && w.strategy != nil:
		if !a.Retry {
			return w.end(s, d, now, ErrFailure, FailureError, a)
		}
		s.Transient++
		if w.transientLimit > 0 && s.Transient >= w.transientLimit {
			d = w.end(s, d, now, ErrFailure, FailureLimit, a)
			d.err.(*Error).Message = plural.N(
				s.Transient,
				"transient error",
			) + " in a row, the limit"
			return d
		}
		d.state, d.transient = classify.Retry, true
	case a.Judgment.State == classify.Failure:
		why := FailureAcceptor
		if a.Acceptor < 0 {
			why = FailureError
		}
		return w.end(s, d, now, ErrFailure, why, a)
	default:
		s.Transient = 0
	}
	if limit := w.maxPolls(); limit > 0 && s.Attempts >= limit {
		return w.end(s, d, now, ErrMaxPolls, 0, a)
	}
	reserve, latency := w.reserve(s.MaxLatency)
	remaining := s.Deadline.Sub(now)
	delay := w.delay(s, remaining, reserve, latency)
	if streak && delay > 0 { // confirm at MinDelay
		delay = w.schedule.DelayAfterCall(1, remaining, reserve, latency, s.Seed)
	}
	if a.Delay > 0 && delay > 0 {
		delay = min(a.Delay, remaining-reserve) // WithDelayFunc's, within the budget
	}
	if delay > 0 && a.Quota {
		// The service fails broadly: poll at half the pace, but keep the
		// final call.
		delay = min(2*delay, remaining-reserve)
	}
	if atLeast := a.MinDelay; delay > 0 && atLeast > delay {
		// Never sooner than the service or the strategy asked. A service's
		// hint that leaves no time for a call ends the wait now, not
		// later; the strategy's own backoff gives way to the final call.
		last := remaining - reserve
		switch {
		case a.Hint > last:
			d = w.end(s, d, now, ErrTimeout, 0, a)
			d.err.(*Error).Hint = a.Hint
			return d
		case atLeast > last:
			delay = last
		default:
			delay = atLeast
		}
	}
	if delay <= 0 {
		return w.end(s, d, now, ErrTimeout, 0, a)
	}
	s.Next = now.Add(delay)
	d.delay = delay
	return d
}

// delay draws the schedule's delay for the attempt just made: from the
// Checkpoint's seed, or through the Jitter given with WithJitter.
func (w *Waiter[I, O]) delay(
	s *Checkpoint,
	remaining, reserve, latency time.Duration,
) time.Duration {
	seed := s.Seed
	if w.schedule.Jitter != nil {
		seed = 0
	}
	return w.schedule.DelayAfterCall(s.Attempts, remaining, reserve, latency, seed)
}

// end returns d as the decision that ends a wait for reason (nil:
// success).
func (w *Waiter[I, O]) end(
	s *Checkpoint,
	d decision,
	now time.Time,
	reason error,
	why Failure,
	a *Attempt[O],
) decision {
	d.done = true
	if reason == nil {
		s.End = outcomeOf(nil)
		return d
	}
	e := &Error{
		Waiter:    w.def.Name,
		Reason:    reason,
		Failure:   why,
		Attempts:  s.Attempts,
		Transient: s.Transient,
		Elapsed:   now.Sub(s.Start),
		Acceptor:  -1,
		Err:       a.Err,
	}
	switch {
	case why == FailureAcceptor:
		e.Acceptor, e.Matcher, e.Message = a.Acceptor, a.Matcher, a.Message
		if a.Failure != nil {
			e.Err = a.Failure
		}
	case a.Refusal != nil:
		e.Err = a.Refusal // unwraps to the call's error
	}
	d.err = e
	s.End = outcomeOf(e)
	return d
}

// finalGrace is the least time a fixed reserve (WithFinalReserve) keeps
// for the final call, so that the call starts with a live context even
// when the reserve is 0 (the current specification's rule).
const finalGrace = time.Millisecond

// finalFloor is what the observed-latency reserve adds to the margin: the
// time a call takes beyond its latency to be started and its answer
// judged (a timer's lateness, a goroutine's scheduling).
const finalFloor = 20 * time.Millisecond

// reserve returns the time to keep for the final call, and the latency
// the last-attempt check counts for the next call. By default the reserve
// covers the longest latency observed with a margin (half as much again,
// plus finalFloor or MinDelay if shorter), so that the final call ends
// before the deadline even when calls take a little longer than before. A
// fixed reserve (WithFinalReserve) is taken as given, at most MinDelay,
// and never less than finalGrace (or MinDelay, if shorter).
func (w *Waiter[I, O]) reserve(maxLatency time.Duration) (reserve, latency time.Duration) {
	minDelay := w.schedule.MinDelay
	if minDelay <= 0 {
		minDelay = backoff.DefaultMinDelay
	}
	if w.cfg.reserve != nil {
		return max(min(*w.cfg.reserve, minDelay), min(finalGrace, minDelay)), maxLatency
	}
	return maxLatency + maxLatency/2 + min(finalFloor, minDelay), maxLatency
}

// Call makes one call of the operation with in and judges it: the
// attempt of a driver that keeps the Checkpoint itself (a durable
// workflow's activity, say) and then passes the attempt to
// [Waiter.Step]. ctx is the call's context (retry.Do inside the operation
// makes a single attempt under it). tok is the retry strategy's token of
// the current streak of transient errors (nil at its start); Call returns
// the next one, to pass to the next Call (or nil, which starts a new
// streak: the Checkpoint still counts the streak, so a driver that cannot
// keep tokens loses only the strategy's backoff growth). attempts is the
// number of calls made before this one. A panic of the operation goes
// through.
func (w *Waiter[I, O]) Call(
	ctx context.Context,
	in I,
	attempts int,
	tok retry.Token,
) (Attempt[O], retry.Token) {
	start := w.cfg.clock.Now()
	out, err := w.op(attemptctx.Mark(ctx), in)
	a := Attempt[O]{
		Number:  attempts + 1,
		Start:   start,
		Latency: w.cfg.clock.Since(start),
		Output:  out,
		Err:     err,
	}
	tok = w.assess(ctx, in, &a, tok)
	return a, tok
}

// assess fills in what the acceptors, the retry strategy and the answer
// itself say of a call that was not cut off: its Judgment, the advice for
// the next call, WithDelayFunc's delay and the resource's identity. It
// returns the strategy's token for the next call.
func (w *Waiter[I, O]) assess(
	ctx context.Context,
	in I,
	a *Attempt[O],
	tok retry.Token,
) retry.Token {
	a.Judgment = w.Judge(in, a.Output, a.Err)
	tok = w.advise(ctx, a, tok)
	if w.identity != nil && a.Err == nil {
		if v, err := w.identity.Search(a.Output); err == nil && v != nil {
			a.Identity = identityOf(v)
		}
	}
	if a.Judgment.State != classify.Retry && !(a.Judgment.unmatched(a.Err) && a.Retry) {
		return tok // a terminal answer
	}
	if a.Err == nil {
		var h time.Duration
		if w.hintFn != nil {
			h = w.hintFn(a.Output)
		} else if r, ok := any(a.Output).(interface{ RetryAfter() time.Duration }); ok {
			h = r.RetryAfter()
		}
		if h > 0 {
			a.Hint, a.MinDelay = h, max(a.MinDelay, h)
		}
	}
	if w.delayFn != nil {
		a.Delay = w.delayFn(a.Number, a.Output, a.Err)
	}
	return tok
}

// notFound reports whether an error's verdict (nil: no error) says the
// resource does not exist: an error code that says NotFound or begins
// with NoSuch, or an HTTP 404.
func notFound(v *classify.Verdict) bool {
	return v != nil &&
		(v.StatusCode == 404 || strings.Contains(v.Code, "NotFound") || strings.HasPrefix(v.Code, "NoSuch"))
}
