package waiter

import (
	"context"
	"errors"
	"reflect"
	"time"

	"github.com/waitable/waitable/classify"
	"github.com/waitable/waitable/internal/attemptctx"
	"github.com/waitable/waitable/retry"
)

// Answer is one call as [Waiter.Step] reads it: what the call returned
// and when, and what the waiter made of it ([Waiter.Call] makes the call
// and fills it in). A durable driver that carries an Answer from where
// the call ran to where the wait is decided keeps every field.
type Answer[O any] struct {
	// Start is when the call started, on the waiter's clock, and Latency
	// how long it took.
	Start   time.Time
	Latency time.Duration
	// Output and Err are what the call returned.
	Output O
	Err    error
	// Judgment is what the acceptors, the retry strategy and the answer
	// itself said of the call; its fields are the Answer's.
	Judgment
}

// Judgment is what the waiter made of one call before the wait's rules
// apply: the acceptors' verdict ([Waiter.Judge] fills in these fields
// alone) and, from [Waiter.Call], what the retry strategy and the answer
// say of the next call.
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
	// ConditionErr is the error a NewFunc condition failed the wait with.
	ConditionErr error
	// EvalErr reports JMESPath expressions that failed on this output.
	EvalErr error

	// Retry reports that the retry strategy allows an error no acceptor
	// matched to be retried (Quota: it refused only because its quota is
	// empty, which slows the polls down). Refusal is why it refused, when
	// it did: the error is then fatal.
	Retry, Quota bool
	Refusal      error
	// Backoff is the least time before the next call: the retry
	// strategy's backoff, never less than the service's hint.
	Backoff time.Duration
	// Hint is the service's hint of when to call again: a retry-after on
	// an error, or a pending answer's own (WithPollHint).
	Hint time.Duration
	// Delay is the delay WithDelayFunc chose for the next call (0: the
	// schedule's).
	Delay time.Duration
	// Identity is the resource's identity in the answer (WithIdentity),
	// "" if it has none.
	Identity string
	// Progress is the share of its work the service reports done in the
	// output (WithProgress), from 0 to 1; 0 if it reports none.
	Progress float64
}

// unmatched reports whether an error was returned that no acceptor
// matched: the case the retry strategy decides (see [WithRetryStrategy]).
func (j *Judgment) unmatched(err error) bool { return j.Acceptor < 0 && err != nil }

// Judge applies the waiter's acceptors, in order, to one call: its input
// and its output or error; and reads the output's progress
// (WithProgress) into the Judgment's Progress, as a call the waiter makes
// does. It is safe for concurrent use.
func (w *Waiter[I, O]) Judge(in I, out O, err error) Judgment {
	var j Judgment
	w.judgeTo(&j, in, out, err)
	j.Progress = w.progress(out, err)
	return j
}

// progress is WithProgress's share done of a call's output, within
// [0, 1]; 0 for none (an error, or a share that is NaN or not positive).
func (w *Waiter[I, O]) progress(out O, err error) float64 {
	if w.progressFn == nil || err != nil {
		return 0
	}
	if f := w.progressFn(out); f > 0 {
		return min(f, 1)
	}
	return 0
}

// judgeTo is Judge, into *j, a zero Judgment.
func (w *Waiter[I, O]) judgeTo(j *Judgment, in I, out O, err error) {
	j.Acceptor = -1
	if w.cond != nil {
		w.judgeCondition(j, in, out, err)
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

// judgeCondition is Judge for a NewFunc waiter.
func (w *Waiter[I, O]) judgeCondition(j *Judgment, in I, out O, err error) {
	done, failure := w.cond(in, out, err)
	j.Acceptor, j.Matcher = 0, "condition"
	switch {
	case done:
		j.State = classify.Success
	case failure == nil: // the condition's own verdict, whatever the call returned
		j.State = classify.Retry
	case failure == err: // the call's own error, left to the retry strategy
		j.Acceptor, j.Matcher, j.State = -1, "", classify.Failure
	default:
		j.State, j.ConditionErr = classify.Failure, failure
	}
}

// Call makes one call of the operation with in and judges it: the
// Answer of a driver that keeps the Checkpoint itself (a durable
// workflow's activity, say) and then passes it to [Waiter.Step]. ctx is
// the call's context (retry.Do inside the operation makes a single
// attempt under it). tok is the retry strategy's token of the current
// streak of transient errors (nil at its start); Call returns the next
// one, to pass to the next Call (or nil, which starts a new streak: the
// Checkpoint still counts the streak, so a driver that cannot keep tokens
// loses only the strategy's backoff growth). attempts is the number of
// calls made before this one. A panic of the operation goes through.
func (w *Waiter[I, O]) Call(ctx context.Context, in I, attempts int, tok retry.Token) (Answer[O], retry.Token) {
	start := w.cfg.clock.Now()
	out, err := w.op(attemptctx.Mark(ctx), in)
	a := Answer[O]{Start: start, Latency: w.cfg.clock.Since(start), Output: out, Err: err}
	tok = w.judge(ctx, in, attempts+1, &a, tok)
	return a, tok
}

// judge fills in a.Judgment, which is zero: the acceptors' verdict, the retry
// strategy's advice for an error no acceptor matched, and what the answer
// says of the next call (a poll hint, WithDelayFunc's delay, the
// resource's identity). It returns the strategy's token for the next
// call. n is the call's number.
func (w *Waiter[I, O]) judge(ctx context.Context, in I, n int, a *Answer[O], tok retry.Token) retry.Token {
	j := &a.Judgment
	w.judgeTo(j, in, a.Output, a.Err)
	tok = w.advise(ctx, a.Err, j, tok)
	j.Progress = w.progress(a.Output, a.Err)
	if w.identity != nil && a.Err == nil {
		if v, err := w.identity.Search(a.Output); err == nil && v != nil {
			j.Identity = identityOf(v)
		}
	}
	if j.State != classify.Retry && !(j.unmatched(a.Err) && j.Retry) {
		return tok // a terminal answer
	}
	if a.Err == nil {
		var h time.Duration
		if w.hintFn != nil {
			h = w.hintFn(a.Output)
		} else if w.outHints {
			if r, ok := any(a.Output).(retryAfterer); ok {
				h = r.RetryAfter()
			}
		}
		if h > 0 {
			j.Hint, j.Backoff = h, max(j.Backoff, h)
		}
	}
	if w.delayFn != nil {
		j.Delay = w.delayFn(n, a.Output, a.Err)
	}
	return tok
}

// advise consults the retry strategy for an error no acceptor matched,
// and keeps the strategy's token between the errors of a streak: a
// success returns it, any other outcome drops it. The strategy's refusal
// for its own attempt count or an empty quota is not the wait's end (see
// WithRetryStrategy): the error is retried, no sooner than the delay the
// strategy would have waited, and the next error starts a new streak of
// the strategy's. An error an acceptor judged Retry is polled again no
// sooner than its retry-after hint. It returns the token for the next
// call.
func (w *Waiter[I, O]) advise(ctx context.Context, err error, j *Judgment, tok retry.Token) retry.Token {
	s := w.strategy
	switch {
	case s == nil:
		return nil
	case !j.unmatched(err):
		if err == nil && tok != nil {
			s.RecordSuccess(tok)
		}
		if err != nil && j.State == classify.Retry {
			j.Hint = classify.Classify(err).RetryAfter
			j.Backoff = j.Hint
		}
		return nil
	}
	if tok == nil {
		tok, _ = s.AcquireInitialToken(ctx, "")
		if tok == nil {
			j.Refusal = errors.New("the retry strategy gave no token")
			return nil
		}
	}
	next, rerr := s.RefreshToken(ctx, tok, err)
	j.Hint = classify.Classify(err).RetryAfter
	switch {
	case rerr == nil:
		j.Retry, j.Backoff = true, next.Delay()
	case errors.Is(rerr, retry.ErrMaxAttempts), errors.Is(rerr, retry.ErrQuotaExceeded):
		delay := j.Hint
		var re *retry.Error
		if errors.As(rerr, &re) {
			delay = max(delay, re.Delay)
		}
		j.Retry, j.Quota, j.Backoff = true, errors.Is(rerr, retry.ErrQuotaExceeded), delay
	default:
		j.Refusal = rerr
	}
	return next
}

// retryAfterer is an output that gives its own poll hint (see
// [WithPollHint]).
type retryAfterer interface{ RetryAfter() time.Duration }

// mayHint reports whether an output of type O may be a retryAfterer.
func mayHint[O any]() bool {
	t := reflect.TypeFor[O]()
	return t.Kind() == reflect.Interface || t.Implements(reflect.TypeFor[retryAfterer]())
}
