package waiter

import (
	"context"
	"fmt"
	"math/rand/v2"
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
// one judged call to a wait's State and decides what comes next. Neither
// reads a clock, starts a goroutine, or keeps anything between calls, so
// every driver (Wait and Start in this package, a durable workflow, a
// simulator) runs the same rules, and a wait can stop after any attempt
// and go on elsewhere from its State.

// Judgment is what the acceptors made of one call.
type Judgment struct {
	// Acceptor is the index of the acceptor that matched, or -1. Acceptors
	// are numbered in the order they are tried: WithMatch functions (or a
	// NewFunc condition), then WithAcceptors, then the definition's.
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

// Unmatched reports whether an error was returned that no acceptor
// matched: the case the retry strategy decides (see [WithRetryStrategy]).
func (j Judgment) Unmatched(err error) bool { return j.Acceptor < 0 && err != nil }

// Judge applies the waiter's acceptors, in order, to one call: its input
// and its output or error. It is safe for concurrent use.
func (w *Waiter[I, O]) Judge(in I, out O, err error) Judgment {
	var j Judgment
	w.judge(in, out, err, &j)
	return j
}

// judge is Judge into *j, which is zero: the drivers' way, into the
// Poll they build (no copy of the Judgment).
func (w *Waiter[I, O]) judge(in I, out O, err error, j *Judgment) {
	if w.cond != nil {
		*j = w.judgeCondition(in, out, err)
		return
	}
	for i, c := range w.custom {
		if c.match(in, out, err) {
			j.Acceptor, j.Matcher, j.State = i, c.name, c.state
			return
		}
	}
	m := w.set.Match(in, out, err)
	j.Acceptor, j.State, j.Message, j.EvalErr = m.Index, m.State, m.Message, m.Err
	if m.Index >= 0 {
		j.Matcher = w.descs[m.Index]
		j.Acceptor += len(w.custom)
	}
}

// RetryAdvice is what the retry strategy said about an error no acceptor
// matched, and what the service asked of the next call.
type RetryAdvice struct {
	// Retry reports that the error may be retried: the strategy allowed
	// it, or refused only for its own attempt count or because its quota
	// was empty (Quota). Neither ends a wait: the strategy counts the
	// retries of one call, and the waiter's schedule already spaces its
	// calls.
	Retry, Quota bool
	// Refusal is why the strategy refused, when Retry is false: the error
	// is fatal.
	Refusal error
	// MinDelay is the least time before the next call: the strategy's
	// delay, never less than the service's retry-after hint.
	MinDelay time.Duration
	// Hint is the service's hint of when to call again: a retry-after
	// (Retry-After, x-amz-retry-after) on the call's error, or a pending
	// answer's own (WithPollHint); 0 if none.
	Hint time.Duration
}

// Poll is one call of the operation as [Waiter.Step] takes it: when it
// ran, how long, its error, and what the acceptors and the retry strategy
// made of it.
type Poll struct {
	// Start is when the call started and Latency how long it took.
	Start   time.Time
	Latency time.Duration
	// Err is the call's error (nil if it succeeded).
	Err error
	// Late reports a call cut off by the wait's deadline: it returned
	// after the deadline, or returned its context's error once the
	// deadline had ended it. It is not judged, and the wait times out. (A
	// call that returns an answer at the deadline instant is judged.)
	Late bool
	// Judgment is what the acceptors made of the call ([Waiter.Judge]).
	Judgment
	// Advice is the retry strategy's answer for an unmatched error, and
	// the service's hint of when to call again (on an error, or on a
	// pending answer: see WithPollHint).
	Advice RetryAdvice
	// Delay is the delay WithDelayFunc chose for the next call (0: the
	// schedule's).
	Delay time.Duration
	// Identity is the resource's identity in the answer (WithIdentity),
	// "" if it has none.
	Identity string
}

// Decision is what a wait does after an attempt.
type Decision struct {
	// Done reports that the wait ended; Err is then nil for success or
	// an [*Error].
	Done bool
	Err  error
	// State is where the attempt left the wait: Success and Failure end
	// it, Retry polls again (or ends it, if time or attempts ran out).
	State classify.State
	// Transient reports an unmatched error retried as transient.
	Transient bool
	// Delay is the time until the next call when the wait goes on.
	Delay time.Duration
}

// Begin returns the State of a wait that starts at now and may last
// maxWait. No call is made: a driver calls the operation, judges it, and
// passes the outcome to [Waiter.Step]; with WithInitialDelay, not before
// the State's Next. seed draws the jitter of the
// delays (0: a random seed); a durable driver passes one it can replay.
func (w *Waiter[I, O]) Begin(now time.Time, maxWait time.Duration, seed uint64) (State, error) {
	if maxWait <= 0 {
		return State{}, fmt.Errorf("%w: waiter %s: maxWait %v is not positive: the Smithy specification requires a total wait time", ErrInvalidOption, w.def.Name, maxWait)
	}
	for seed == 0 {
		seed = rand.Uint64()
	}
	s := State{Version: StateVersion, Waiter: w.def.Name, Rules: w.rules, Start: now, Deadline: now.Add(maxWait), Seed: seed}
	if d := w.cfg.initialDelay; d > 0 {
		// The first call waits, but never past the end of the budget.
		s.Next = now.Add(min(d, maxWait-min(finalFloor, maxWait/2)))
	}
	return s, nil
}

// Step applies one call (a [Poll]) to the wait's State at time now and
// returns the next State and what to do: end the wait, or call again after
// Decision.Delay. It is the whole workflow of the Smithy specification:
// the acceptors' verdict (first match wins; an unmatched error fails the
// wait unless the retry strategy calls it transient), the waiter's attempt
// limit, the deadline, and the delay schedule with its last-attempt rule.
// It is pure: the same arguments give the same result.
func (w *Waiter[I, O]) Step(s State, o Poll, now time.Time) (State, Decision) {
	s = s.snapshot() // the caller's Seen stays as it was
	var d Decision
	w.step(&s, &o, instant{at: now}, &d, true)
	return s, d
}

// step is Step on the State in place (the drivers' way: no copies), the
// answer counted in s.Seen, the Decision written to *d, which is zero.
// With due false, s.Next is left zero: Wait sleeps Decision.Delay and
// shows its State to no one before it ends, and the time.Time.Add that
// the due time costs is a tenth of what the rest of a step does.
func (w *Waiter[I, O]) step(s *State, o *Poll, now instant, d *Decision, due bool) {
	var v *classify.Verdict // what the call's error says, read once
	if o.Err != nil {
		verdict := classify.Classify(o.Err)
		v = &verdict
	}
	w.decide(s, o, now, v, d, due)
	if !s.Seen.again(o, d.State) {
		s.Seen = s.Seen.add(seenKind(o, d.State, v))
	}
	if e, ok := d.Err.(*Error); ok {
		e.Seen = s.Seen
	}
}

// decide is step's decision, written to *d (s.Next only if due).
func (w *Waiter[I, O]) decide(s *State, o *Poll, now instant, v *classify.Verdict, d *Decision, due bool) {
	s.Attempts++
	s.MaxLatency = max(s.MaxLatency, o.Latency)
	s.Next = time.Time{}
	d.State = o.State
	if o.Late {
		d.State = classify.Retry // not judged: the resource's state is unknown
		w.end(s, d, now, ErrTimeout, 0, o)
		return
	}
	if o.State != classify.Success {
		s.Streak, s.StreakStart = 0, time.Time{}
	}
	if o.Identity != "" {
		if s.Identity != "" && s.Identity != o.Identity {
			d.State = classify.Failure
			w.end(s, d, now, ErrFailure, FailureRecreated, o)
			d.Err.(*Error).Message = fmt.Sprintf("its identity %s became %s", s.Identity, o.Identity)
			return
		}
		s.Identity = o.Identity
	}
	if w.cfg.notFoundLimit > 0 {
		if !notFound(v) {
			s.NotFound = 0
		} else if s.NotFound++; s.NotFound >= w.cfg.notFoundLimit {
			d.State = classify.Failure
			w.end(s, d, now, ErrFailure, FailureNeverAppeared, o)
			d.Err.(*Error).Message = plural.N(s.NotFound, "not-found answer") + " in a row"
			return
		}
	}
	streak := false
	switch {
	case o.State == classify.Success:
		s.Transient = 0
		if s.Streak == 0 {
			s.StreakStart = o.Start
		}
		s.Streak++
		if !w.stable() || (s.Streak >= w.cfg.stableN && o.Start.Sub(s.StreakStart) >= w.cfg.stableFor) {
			w.end(s, d, now, nil, 0, o)
			return
		}
		d.State, streak = classify.Retry, true // seen, not yet long enough
	case o.Unmatched(o.Err) && w.strategy != nil:
		if !o.Advice.Retry {
			w.end(s, d, now, ErrFailure, FailureError, o)
			return
		}
		s.Transient++
		if w.transientLimit > 0 && s.Transient >= w.transientLimit {
			w.end(s, d, now, ErrFailure, FailureTransientLimit, o)
			return
		}
		d.State, d.Transient = classify.Retry, true
	case o.State == classify.Failure:
		why := FailureAcceptor
		if o.Acceptor < 0 {
			why = FailureError
		}
		w.end(s, d, now, ErrFailure, why, o)
		return
	default:
		s.Transient = 0
	}
	if limit := w.maxPolls(); limit > 0 && s.Attempts >= limit {
		w.end(s, d, now, ErrMaxPolls, 0, o)
		return
	}
	reserve, latency := w.reserve(s.MaxLatency)
	remaining := now.until(s.Deadline)
	delay := w.delay(s, remaining, reserve, latency)
	if streak && delay > 0 { // confirm at MinDelay
		delay = w.schedule.DelayAfterCall(1, remaining, reserve, latency, s.Seed)
	}
	if o.Delay > 0 && delay > 0 {
		delay = min(o.Delay, remaining-reserve) // WithDelayFunc's, within the budget
	}
	if delay > 0 && o.Advice.Quota {
		// The service fails broadly: poll at half the pace, but keep the
		// final call.
		delay = min(2*delay, remaining-reserve)
	}
	if atLeast := o.Advice.MinDelay; delay > 0 && atLeast > delay {
		// Never sooner than the service or the strategy asked. A service's
		// hint that leaves no time for a call ends the wait now, not
		// later; the strategy's own backoff gives way to the final call.
		last := remaining - reserve
		switch {
		case o.Advice.Hint > last:
			w.end(s, d, now, ErrTimeout, 0, o)
			d.Err.(*Error).NextDelay, d.Err.(*Error).Hint = o.Advice.Hint, o.Advice.Hint
			return
		case atLeast > last:
			delay = last
		default:
			delay = atLeast
		}
	}
	if delay <= 0 {
		w.end(s, d, now, ErrTimeout, 0, o)
		return
	}
	if due {
		s.Next = now.add(delay)
	}
	d.Delay = delay
}

// delay draws the schedule's delay for the attempt just made: from the
// State's seed, or through the Jitter given with WithJitter.
func (w *Waiter[I, O]) delay(s *State, remaining, reserve, latency time.Duration) time.Duration {
	seed := s.Seed
	if w.schedule.Jitter != nil {
		seed = 0
	}
	return w.schedule.DelayAfterCall(s.Attempts, remaining, reserve, latency, seed)
}

// end makes *d the Decision that ends a wait.
func (w *Waiter[I, O]) end(s *State, d *Decision, now instant, reason error, why Failure, o *Poll) {
	d.Done = true
	if reason == nil {
		s.End = outcomeOf(nil)
		return
	}
	e := &Error{Waiter: w.def.Name, Reason: reason, Failure: why, Attempts: s.Attempts, Transient: s.Transient,
		Elapsed: now.since(s.Start), Acceptor: -1, Err: o.Err}
	switch {
	case why == FailureAcceptor:
		e.Acceptor, e.Matcher, e.Message = o.Acceptor, o.Matcher, o.Message
		if o.Failure != nil {
			e.Err = o.Failure
		}
	case o.Advice.Refusal != nil:
		e.Err = o.Advice.Refusal // unwraps to the call's error
	}
	d.Err = e
	s.End = outcomeOf(e)
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
// attempt of a driver that keeps the State itself (a durable workflow's
// activity, say) and then passes the Poll to [Waiter.Step]. ctx is the
// call's context (retry.Do inside the operation makes a single attempt
// under it). tok is the retry strategy's token of the current streak of
// transient errors (nil at its start); Call returns the next one, to pass
// to the next Call (or nil, which starts a new streak: the State still
// counts the streak, so a driver that cannot keep tokens loses only the
// strategy's backoff growth). A panic of the operation goes through.
func (w *Waiter[I, O]) Call(ctx context.Context, in I, tok retry.Token) (O, Poll, retry.Token) {
	clk := w.cfg.clock
	start := clk.Now()
	out, err := w.op(attemptctx.Mark(ctx), in)
	p := Poll{Start: start, Latency: clk.Since(start), Err: err, Judgment: w.Judge(in, out, err)}
	d := driver[I, O]{w: w, tok: tok}
	d.advise(ctx, &p)
	w.read(out, &p, 0)
	return out, p, d.tok
}

// read takes from a call what its answer says of the next one: a pending
// answer's poll hint (WithPollHint, or an output's RetryAfter method),
// and WithDelayFunc's delay. attempts is the number of calls before this
// one.
func (w *Waiter[I, O]) read(out O, o *Poll, attempts int) {
	if w.identity != nil && o.Err == nil {
		if v, err := w.identity.Search(out); err == nil && v != nil {
			o.Identity = fmt.Sprint(v)
		}
	}
	if o.State != classify.Retry && !(o.Unmatched(o.Err) && o.Advice.Retry) {
		return // a terminal answer
	}
	if o.Err == nil {
		var h time.Duration
		if w.hintFn != nil {
			h = w.hintFn(out)
		} else if !w.noRetryAfter {
			if r, ok := any(out).(interface{ RetryAfter() time.Duration }); ok {
				h = r.RetryAfter()
			}
		}
		if h > 0 {
			o.Advice.Hint, o.Advice.MinDelay = h, max(o.Advice.MinDelay, h)
		}
	}
	if w.delayFn != nil {
		o.Delay = w.delayFn(attempts+1, out, o.Err)
	}
}

// notFound reports whether an error's verdict (nil: no error) says the
// resource does not exist: an error code that says NotFound or begins
// with NoSuch, or an HTTP 404.
func notFound(v *classify.Verdict) bool {
	return v != nil && (v.StatusCode == 404 || strings.Contains(v.Code, "NotFound") || strings.HasPrefix(v.Code, "NoSuch"))
}

// Replayable reports whether the waiter's decisions are a function of
// Step's arguments alone: true unless WithJitter gave it a jitter of its
// own, which draws from outside the State. A durable driver that replays
// a wait's history (a Temporal workflow) needs a replayable waiter.
func (w *Waiter[I, O]) Replayable() bool { return w.schedule.Jitter == nil }
