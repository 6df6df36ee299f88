package waiter

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"time"

	"github.com/waitable/waitable/backoff"
	"github.com/waitable/waitable/classify"
	"github.com/waitable/waitable/internal/plural"
	"github.com/waitable/waitable/telemetry"
)

// The core: every rule of the Smithy waiter workflow, and of what this
// package adds to it (transient errors, hints, pokes, the last attempt),
// as functions of their arguments. Judge and Call (judge.go) judge one
// call; Step applies it to a wait's Checkpoint and decides what comes
// next. None of them reads a clock or starts a goroutine, so every driver
// (Wait and Start, a Batch, a durable workflow, a simulator) runs the same
// rules, and a wait can stop after any attempt and go on elsewhere from
// its Checkpoint.

// Attempt is one call of a wait as a subscriber sees it ([Run.Events]):
// what the call returned, what the wait made of it, and what the wait does
// next. [Waiter.Step] returns one. Its Checkpoint says where the wait
// stands after it: the call's number (Checkpoint.Attempts, from 1), the
// success streak (Checkpoint.Streak) and, on the attempt that ended the
// wait, how it ended (Checkpoint.End).
type Attempt[O any] struct {
	// Answer is the call: when it started (Start, on the waiter's clock),
	// how long it took (Latency), what it returned (Output, Err), and what
	// the waiter made of it (its Judgment: Acceptor, the index of the
	// acceptor that matched or -1, its Matcher, a failure acceptor's
	// Message, the service's Hint of when to call again...). A call the
	// wait did not judge (Late, or cut off by a cancellation) has no
	// Judgment but Acceptor -1. NextDelay is never shorter than the Hint;
	// a poke ([Run.Poke]) never brings the next call before an error's
	// retry-after, and may bring forward a pending answer's hint.
	Answer[O]
	// Late reports a call that was not judged because the wait's deadline
	// cut it off: it returned after the deadline, or returned its
	// context's error once the deadline had ended it. The wait times out.
	// (A call that returns an answer at the deadline instant is judged.)
	Late bool
	// Decision is where the attempt left the wait: Success and Failure
	// end it, Retry polls again (unless time or attempts ran out). It is
	// the matched acceptor's state (Judgment.State) but for a success
	// whose streak is not long enough yet (WithStability), a transient
	// error, and a call that was not judged (Late, or cut off by a
	// cancellation): Retry, as nothing was learnt of the resource.
	Decision classify.State
	// Transient reports an error that no acceptor matched and that the
	// retry strategy allowed: it was retried instead of ending the wait
	// (Checkpoint.Transients counts such errors in a row).
	Transient bool
	// NextDelay is the wait before the next call; 0 when the wait ends.
	NextDelay time.Duration
	// Checkpoint is the wait's Checkpoint after this attempt: resume from
	// it with [Waiter.WaitFrom] or [Waiter.StartFrom].
	Checkpoint Checkpoint
}

// Begin returns the Checkpoint of a wait that starts at now and may last
// maxWait. No call is made: a driver calls the operation (see
// [Waiter.Call]) and passes its Answer to [Waiter.Step]; with
// WithInitialDelay, not before the Checkpoint's Next. seed draws the
// jitter of the delays (0: a random seed); a durable driver passes one it
// can replay.
func (w *Waiter[I, O]) Begin(now time.Time, maxWait time.Duration, seed uint64) (Checkpoint, error) {
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

// Step applies one call's Answer to the wait's Checkpoint s at time now
// (when the answer came) and returns the Attempt as the wait judged it:
// its Decision, Transient, NextDelay (the time until the next call) and
// Checkpoint (the next one, whose End says how the wait ended, if it
// did), with err nil for success or an [*Error].
//
// Step is the whole workflow of the Smithy specification: the acceptors'
// verdict (first match wins; an unmatched error fails the wait unless the
// retry strategy calls it transient), the waiter's attempt limit, the
// deadline (an answer that came after it, or a context's error at it, is
// not judged: the wait times out), and the delay schedule with its
// last-attempt rule. It is pure: the same arguments give the same result,
// and the Checkpoint given is not changed.
func (w *Waiter[I, O]) Step(s Checkpoint, ans Answer[O], now time.Time) (Attempt[O], error) {
	a := Attempt[O]{Checkpoint: s.clone()}
	var v verdict
	err := w.step(&a.Checkpoint, &ans, now, &v)
	fill(&a, &ans, &v)
	return a, err
}

// verdict is what the core made of one call beyond its Answer: the two
// make its Attempt (fill), which a driver builds only for a reader.
type verdict struct {
	number    int  // the call's, from 1
	judged    bool // false: not judged (Late, cut off, panicked); no acceptor
	late      bool
	transient bool
	state     classify.State
	nextDelay time.Duration
	outcome   string
}

// acceptor is the index of the acceptor that matched the call whose
// Judgment is j, -1 for none or a call not judged.
func (v *verdict) acceptor(j *Judgment) int {
	if !v.judged {
		return -1
	}
	return j.Acceptor
}

// fill fills in a, but for its Checkpoint: the Attempt of the call of
// ans as v says the wait judged it.
func fill[O any](a *Attempt[O], ans *Answer[O], v *verdict) {
	a.Answer = *ans
	if !v.judged {
		a.Judgment = Judgment{Acceptor: -1}
	}
	a.Late, a.Decision, a.Transient = v.late, v.state, v.transient
	a.NextDelay = v.nextDelay
}

// Estimate returns how long the wait has left after this attempt, and
// whether it is overdue, as the waits before it teach (see [History]):
// a function of the attempt's Checkpoint (its Prior), its times and its
// Judgment's Progress.
func (a *Attempt[O]) Estimate() Estimate {
	return estimate(&a.Checkpoint, a.Start, a.Start.Add(a.Latency), a.Progress)
}

// step is Step on a Checkpoint the driver owns, counted in place, into
// *v, a zero verdict.
func (w *Waiter[I, O]) step(s *Checkpoint, ans *Answer[O], now time.Time, v *verdict) error {
	v.late = late(s, ans, now)
	v.judged = !v.late
	var cv *classify.Verdict // what the call's error says, read once
	if ans.Err != nil {
		verdict := classify.Classify(ans.Err)
		cv = &verdict
	}
	err := w.decide(s, ans, v, now, cv)
	v.number = s.Attempts
	state, code := seenKind(v.state, v.late, ans.Err, cv)
	count(&s.Seen, v.acceptor(&ans.Judgment), state, code)
	if e, ok := err.(*Error); ok {
		e.Seen = slices.Clone(s.Seen)
	}
	return err
}

// late reports whether the deadline cut off a call that returned ans at
// now: it returned after the deadline, or returned its context's error at
// it (what an operation that honours its context does). An answer
// returned at the deadline instant is judged.
func late[O any](s *Checkpoint, ans *Answer[O], now time.Time) bool {
	return now.After(s.Deadline) || (!now.Before(s.Deadline) && ans.Err != nil && contextErr(ans.Err))
}

// contextErr reports whether err is a context's error: what an operation
// that honours its context returns once the context ends.
func contextErr(err error) bool {
	return errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled)
}

// decide is Step's decision: it updates s and v in place and returns the
// error that ended the wait, if it ended (see conclude).
func (w *Waiter[I, O]) decide(s *Checkpoint, ans *Answer[O], v *verdict, now time.Time, cv *classify.Verdict) error {
	s.Attempts++
	s.MaxLatency = max(s.MaxLatency, ans.Latency)
	s.Next = time.Time{}
	j := &ans.Judgment
	v.state = j.State
	if v.late {
		v.state = classify.Retry // not judged: the resource's state is unknown
		return w.conclude(s, ans, v, now, ErrTimeout, 0)
	}
	if j.State != classify.Success {
		s.Streak, s.StreakStart = 0, time.Time{}
	}
	if j.Identity != "" {
		if s.Identity != "" && s.Identity != j.Identity {
			v.state = classify.Failure
			err := w.conclude(s, ans, v, now, ErrFailure, FailureRecreated)
			err.(*Error).Message = fmt.Sprintf("its identity %s became %s", s.Identity, j.Identity)
			return err
		}
		s.Identity = j.Identity
	}
	if w.cfg.notFoundLimit > 0 {
		if !notFound(cv) {
			s.NotFound = 0
		} else if s.NotFound++; s.NotFound >= w.cfg.notFoundLimit {
			v.state = classify.Failure
			why := FailureNeverAppeared
			if found(s.Seen) {
				why = FailureDisappeared
			}
			err := w.conclude(s, ans, v, now, ErrFailure, why)
			err.(*Error).Message = plural.N(s.NotFound, "not-found answer") + " in a row: " + why.String()
			return err
		}
	}
	streak := false
	switch {
	case j.State == classify.Success:
		s.Transients = 0
		if s.Streak == 0 {
			s.StreakStart = ans.Start
		}
		s.Streak++
		if !w.stable() || (s.Streak >= w.cfg.stableN && ans.Start.Sub(s.StreakStart) >= w.cfg.stableFor) {
			return w.conclude(s, ans, v, now, nil, 0)
		}
		v.state, streak = classify.Retry, true // seen, not yet long enough
	case j.unmatched(ans.Err) && w.strategy != nil:
		if !j.Retry {
			return w.conclude(s, ans, v, now, ErrFailure, FailureError)
		}
		s.Transients++
		if w.transientLimit > 0 && s.Transients >= w.transientLimit {
			err := w.conclude(s, ans, v, now, ErrFailure, FailureTransientLimit)
			err.(*Error).Message = plural.N(s.Transients, "transient error") + " in a row, the limit"
			return err
		}
		v.state, v.transient = classify.Retry, true
	case j.State == classify.Failure:
		why := FailureAcceptor
		if j.Acceptor < 0 {
			why = FailureError
		}
		return w.conclude(s, ans, v, now, ErrFailure, why)
	default:
		s.Transients, s.Pending = 0, ans.Start.Sub(s.Start) // seen pending
	}
	if limit := w.maxPolls(); limit > 0 && s.Attempts >= limit {
		return w.conclude(s, ans, v, now, ErrMaxPolls, 0)
	}
	return w.nextCall(s, ans, v, now, streak)
}

// nextCall decides when the next call comes (v.nextDelay, s.Next), or
// ends the wait with ErrTimeout when no call fits in the time left: the
// schedule's delay with the last-attempt rule, confirmed at MinDelay in a
// streak, WithDelayFunc's delay within the budget, half the pace when the
// retry quota is empty, and never sooner than the strategy or the
// service asked.
func (w *Waiter[I, O]) nextCall(s *Checkpoint, ans *Answer[O], v *verdict, now time.Time, streak bool) error {
	j := &ans.Judgment
	reserve, latency := w.reserve(s.MaxLatency)
	remaining := s.Deadline.Sub(now)
	seed := s.Seed
	if w.schedule.Jitter != nil {
		seed = 0 // WithJitter's, not replayed
	}
	delay := w.schedule.DelayAfterCall(s.Attempts, remaining, reserve, latency, seed)
	if s.Prior != nil && s.Prior.Chance > 0 && !streak && delay > 0 {
		delay = w.learnedDelay(s, now, delay, remaining, reserve, latency)
	}
	if streak && delay > 0 { // confirm at MinDelay
		delay = w.schedule.DelayAfterCall(1, remaining, reserve, latency, s.Seed)
	}
	if j.Delay > 0 && delay > 0 {
		delay = min(j.Delay, remaining-reserve) // WithDelayFunc's, within the budget
	}
	if delay > 0 && j.Quota {
		// The service fails broadly: poll at half the pace, but keep the
		// final call.
		delay = min(2*delay, remaining-reserve)
	}
	if atLeast := j.Backoff; delay > 0 && atLeast > delay {
		// Never sooner than the service or the strategy asked. A service's
		// hint that leaves no time for a call ends the wait now, not
		// later; the strategy's own backoff gives way to the final call.
		last := remaining - reserve
		switch {
		case j.Hint > last:
			err := w.conclude(s, ans, v, now, ErrTimeout, 0)
			err.(*Error).Hint = j.Hint
			return err
		case atLeast > last:
			delay = last
		default:
			delay = atLeast
		}
	}
	if delay <= 0 {
		return w.conclude(s, ans, v, now, ErrTimeout, 0)
	}
	s.Next = now.Add(delay)
	v.nextDelay = delay
	return nil
}

// learnedDelay is the delay of a learned schedule (WithLearnedSchedule)
// after a call that returned at now: the poll that has s.Prior's chance
// of seeing the end, given the last call that saw the resource pending,
// kept within MinDelay and MaxDelay, then drawn within ±20% of that
// (still within them, so that waits started together spread), then the
// last-attempt rule; smithy (the Smithy schedule's delay) past what the
// Prior knows.
func (w *Waiter[I, O]) learnedDelay(s *Checkpoint, now time.Time, smithy, remaining, reserve, latency time.Duration) time.Duration {
	next, ok := s.Prior.dist().Next(s.Pending, s.Prior.Chance)
	if !ok {
		return smithy
	}
	gap := next - now.Sub(s.Start)
	lo, hi := w.schedule.MinDelay, w.schedule.MaxDelay
	if lo <= 0 {
		lo = backoff.DefaultMinDelay
	}
	if hi <= 0 {
		hi = backoff.DefaultMaxDelay
	}
	g := min(max(gap, lo), hi)
	from, to := max(g-g/5, lo), min(g+g/5, hi) // ±20%, within the bounds
	if w.schedule.Jitter != nil {
		gap = w.schedule.Jitter(from, to)
	} else {
		gap = from + time.Duration(rand.New(rand.NewPCG(s.Seed, uint64(s.Attempts))).Int64N(int64(to-from)+1))
	}
	return w.schedule.Within(min(max(gap, from), to), remaining, reserve, latency)
}

// conclude ends the wait at the call of ans, as v has it, for reason
// (nil: success; why refines ErrFailure): it records the end in s and v,
// and returns nil or the *Error.
func (w *Waiter[I, O]) conclude(s *Checkpoint, ans *Answer[O], v *verdict, now time.Time, reason error, why Failure) error {
	s.Next = time.Time{}
	if reason == nil {
		s.End, v.outcome = telemetry.OutcomeSuccess, telemetry.OutcomeSuccess
		return nil
	}
	j := &ans.Judgment
	e := &Error{Waiter: w.def.Name, Reason: reason, Failure: why, Attempts: s.Attempts, Transients: s.Transients,
		Elapsed: now.Sub(s.Start), Acceptor: -1, Err: ans.Err}
	switch {
	case why == FailureAcceptor:
		e.Acceptor, e.Matcher, e.Message = j.Acceptor, j.Matcher, j.Message
		if j.ConditionErr != nil {
			e.Err = j.ConditionErr
		}
	case j.Refusal != nil:
		e.Err = j.Refusal // unwraps to the call's error
	}
	s.End = outcomeOf(e)
	v.outcome = s.End
	return e
}

// interrupt applies to s, into *v, a call during which the wait's context
// ended (the caller cancelled, or a Batch member's deadline came with its
// call in flight): counted, not judged (Decision Retry), and the wait ends
// with a timeout (timedOut) or the cancellation (reason, cause). ans is
// what the call returned, or the context's error for a call still in
// flight (its Judgment is not read); last is the error the wait's Error
// carries.
func (w *Waiter[I, O]) interrupt(s *Checkpoint, ans *Answer[O], v *verdict, timedOut bool, reason, cause, last error,
	now time.Time) *Error {
	s.Attempts++
	s.MaxLatency = max(s.MaxLatency, ans.Latency)
	var e *Error
	if timedOut {
		e = w.timeoutErr(s, now, last)
	} else {
		e = w.cancelErr(reason, cause, s, now, last)
	}
	*v = verdict{number: s.Attempts, late: timedOut, state: classify.Retry, outcome: outcomeOf(e)}
	s.Next, s.End = time.Time{}, v.outcome
	var cv *classify.Verdict
	if ans.Err != nil && !timedOut {
		verdict := classify.Classify(ans.Err)
		cv = &verdict
	}
	_, code := seenKind(v.state, v.late, ans.Err, cv)
	count(&s.Seen, -1, v.outcome, code)
	return e
}

// panicked applies to s, into *ans and *v, a call that started at start
// and panicked (or whose WithMatch function did): the attempt carries the
// *PanicError, and the wait ends with it.
func (w *Waiter[I, O]) panicked(s *Checkpoint, pe *PanicError, start, now time.Time, ans *Answer[O], v *verdict) {
	s.Attempts++
	s.Next, s.End = time.Time{}, telemetry.OutcomePanic
	*ans = Answer[O]{Start: start, Latency: now.Sub(start), Err: pe}
	*v = verdict{number: s.Attempts, state: classify.Failure, outcome: telemetry.OutcomePanic}
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

// lastCall is what the poke rule needs of a wait's last call: when it
// started, and how long after that its error's retry-after hint ends (0
// if it gave none).
type lastCall struct {
	start      time.Time
	retryAfter time.Duration
}

// lastCallOf returns the lastCall of the call of ans, as v judged it.
func lastCallOf[O any](ans *Answer[O], v *verdict) lastCall {
	c := lastCall{start: ans.Start}
	if h := ans.Judgment.Hint; ans.Err != nil && v.judged && h > 0 {
		c.retryAfter = ans.Latency + h
	}
	return c
}

// pokeAt is the poke rule ([Run.Poke]): a poke at now brings the next
// call, due at due, forward to the instant it returns, if ok. That is now,
// but no sooner than a second (or MinDelay, if shorter) after the last
// call started, so that a burst of events makes one call, and never
// before the last error's retry-after ends: a throttle or a 503 is the
// service asking for time. A pending answer's own poll hint does not hold
// a poke back. ok is false when the schedule's call comes first.
func (w *Waiter[I, O]) pokeAt(last lastCall, due, now time.Time) (at time.Time, ok bool) {
	at = now
	if gap := last.start.Add(min(w.schedule.MinDelay, time.Second)); !last.start.IsZero() && gap.After(at) {
		at = gap
	}
	if ends := last.start.Add(last.retryAfter); last.retryAfter > 0 && ends.After(at) {
		at = ends
	}
	return at, at.Before(due)
}

// found reports whether the answers counted in seen include one that
// found the resource: an output, judged.
func found(seen []SeenCount) bool {
	for _, c := range seen {
		if c.Code == "" && c.State != telemetry.OutcomeTimeout {
			return true
		}
	}
	return false
}

// notFound reports whether an error's verdict (nil: no error) says the
// resource does not exist: an error code that says NotFound or begins
// with NoSuch, or an HTTP 404.
func notFound(v *classify.Verdict) bool {
	return v != nil &&
		(v.StatusCode == 404 || strings.Contains(v.Code, "NotFound") || strings.HasPrefix(v.Code, "NoSuch"))
}
