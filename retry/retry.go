package retry

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/benbjohnson/clock"

	"github.com/waitable/waitable/classify"
	"github.com/waitable/waitable/internal/attemptctx"
	"github.com/waitable/waitable/internal/plural"
	"github.com/waitable/waitable/internal/timers"
	"github.com/waitable/waitable/telemetry"
)

// Token carries the state of one call across its attempts (RetryToken
// in the Smithy retry guide). A token is used once: passed to RefreshToken or
// RecordSuccess, it is spent.
type Token interface {
	// RetryCount is the number of attempts made so far minus the first.
	RetryCount() int
	// Delay is how long to wait before the next attempt.
	Delay() time.Duration
}

// Strategy decides whether and when a failed call is retried
// (RetryStrategy in the Smithy retry guide). Implementations are safe for concurrent use: one strategy
// serves every call of a client.
type Strategy interface {
	// AcquireInitialToken is called before the first attempt. scope
	// separates quotas (for example one per endpoint); "" is the default.
	// The first attempt is made even if it fails.
	AcquireInitialToken(ctx context.Context, scope string) (Token, error)
	// RefreshToken is called after a failed attempt with the spent token
	// and the attempt's error. It returns the token for the next attempt,
	// or an error that unwraps to err and, when the strategy refuses a
	// retry, matches ErrMaxAttempts, ErrQuotaExceeded or ErrNotRetryable.
	// (Given a token that is not its own, or was spent, a strategy of this
	// package returns an [*Error] that says "invalid retry token": a bug of
	// the caller's, not an outcome to branch on.)
	RefreshToken(ctx context.Context, t Token, err error) (Token, error)
	// RecordSuccess is called after a successful attempt with its token.
	RecordSuccess(t Token)
}

// The reasons a strategy refuses a retry; an [*Error] matches one of them
// with errors.Is.
var (
	// ErrMaxAttempts: the call has made as many attempts as it may.
	ErrMaxAttempts = errors.New("max attempts reached")
	// ErrQuotaExceeded: the token bucket cannot pay for another retry.
	ErrQuotaExceeded = errors.New("retry quota exceeded")
	// ErrNotRetryable: the error is not safe to retry.
	ErrNotRetryable = errors.New("error not retryable")
)

// errInvalidToken is the reason of a refusal for a token that is not the
// strategy's, or was spent.
var errInvalidToken = errors.New("invalid retry token")

// Error is what a retried call returns when it gives up: why, after how
// many attempts, and the operation's last error, to which it unwraps. Is
// matches the reason (one of the sentinels above, or the context's cause
// when the call was cancelled).
type Error struct {
	// Reason is ErrMaxAttempts, ErrQuotaExceeded, ErrNotRetryable, or the
	// context's cause (or, for a misused token, "invalid retry token").
	Reason error
	// Attempts is the number of attempts made.
	Attempts int
	// Verdict is what classify made of the last error (zero if not
	// classified).
	Verdict classify.Verdict
	// Err is the operation's last error.
	Err error
	// Backoff is how long a long-polling call (WithLongPoll) refused for
	// an empty quota waits before the error is returned; Do waits it.
	Backoff time.Duration
	// Delay is the delay the refused retry would have waited (the
	// backoff, raised to the service's retry-after hint), when the
	// strategy refused for the attempts or the quota, or when Do gave up
	// because it would pass the context's deadline; 0 if unknown. A
	// waiter, which keeps polling through such refusals, waits at least
	// this long.
	Delay time.Duration
}

// Error returns "retry: <reason> after <n> attempts (<why>): <last
// error>"; why is said for an error that was not retryable.
func (e *Error) Error() string {
	s := fmt.Sprintf("retry: %v after %s", e.Reason, plural.N(e.Attempts, "attempt"))
	if why := e.why(); why != "" {
		s += " (" + why + ")"
	}
	if e.Err != nil {
		s += ": " + e.Err.Error()
	}
	return s
}

// why explains a refusal for an error that was not retryable, or a
// retry that would have come after the context's deadline.
func (e *Error) why() string {
	if e.Reason == context.DeadlineExceeded && e.Delay > 0 {
		if e.Verdict.RetryAfter > 0 && e.Verdict.RetryAfter >= e.Delay {
			return fmt.Sprintf("the service said to retry after %v, past the context's deadline", e.Verdict.RetryAfter)
		}
		return fmt.Sprintf("the next attempt was due in %v, past the context's deadline", e.Delay)
	}
	if !errors.Is(e.Reason, ErrNotRetryable) {
		return ""
	}
	switch v := e.Verdict; {
	case v.Safety == classify.SafetyMaybe:
		return "the error says nothing of whether a retry is safe, and the call is not marked idempotent (retry.WithIdempotent(ctx) allows retrying it)"
	case v.Reason == "client fault":
		return "a client fault: the request is wrong as it is"
	case v.Reason == "cancelled":
		return "the context was cancelled"
	case v.Reason != "":
		return "the error says it is not retryable: " + v.Reason
	}
	return ""
}

// Is reports whether target is the reason: errors.Is(err, ErrMaxAttempts),
// errors.Is(err, context.Canceled).
func (e *Error) Is(target error) bool { return errors.Is(e.Reason, target) }

// Unwrap returns the operation's last error.
func (e *Error) Unwrap() error { return e.Err }

// Do calls fn until it succeeds or s refuses a retry, waiting each token's
// delay. The first attempt is made even if s cannot give an initial token;
// then no retry follows.
//
// A retry never comes sooner than the token's delay, which for the
// standard strategy is never sooner than the service's retry-after hint.
// If that delay would end after ctx's deadline, Do does not wait for
// nothing: it returns at once with an [*Error] that matches
// context.DeadlineExceeded and says the delay (and the hint).
//
// If ctx ends during a wait, Do returns at once with an [*Error] that
// matches the context's cause and unwraps to the last operation error. fn
// gets ctx itself, so a cancelled ctx also ends an attempt in flight; its
// error then goes to the strategy like any other (and is not retried:
// classify says context.Canceled is not safe).
//
// Inside a waiter's operation, Do makes exactly one attempt: the waiter's
// schedule replaces the retry loop, so that retries do not multiply.
//
// Do waits on the clock of s ([WithClock]) and observes the call as its
// [WithTelemetry] says; a strategy of your own gets both from a [Standard]
// or [Adaptive] it embeds, else it waits on clock.New() and is observed on
// OpenTelemetry's global providers. Do takes its tokens in the default
// scope, "": for a quota of its own (one per endpoint, say), give a call a
// strategy, or a [TokenBucket], of its own.
//
// Do returns fn's value with its last error.
func Do[T any](ctx context.Context, s Strategy, fn func(context.Context) (T, error)) (T, error) {
	if attemptctx.Marked(ctx) {
		return fn(ctx)
	}
	c, ok := start(ctx, s)
	if !ok {
		return fn(ctx) // the first attempt is always made
	}
	clk := clockOf(s)
	o := observe(ctx, s, clk)
	var last T
	var lastErr error
	w := newWaiter(clk) // one timer, made on first use, re-armed for each delay
	defer w.stop()
	for attempt := 1; ; attempt++ {
		if d := c.delay(); d > 0 {
			if err := w.sleep(o.ctx, d); err != nil {
				err := &Error{Reason: err, Attempts: attempt - 1, Err: lastErr}
				o.end(attempt-1, err)
				return last, err
			}
		}
		actx := o.startAttempt(attempt)
		v, err := fn(actx)
		if err == nil {
			c.succeeded()
			o.endAttempt(actx, attempt, nil, nil, 0)
			o.end(attempt, nil)
			return v, nil
		}
		if rerr := c.refresh(ctx, err); rerr != nil {
			o.endAttempt(actx, attempt, err, rerr, 0)
			var re *Error
			if errors.As(rerr, &re) && re.Backoff > 0 {
				w.sleep(o.ctx, re.Backoff) // a long poll: back off before giving up
			}
			o.end(attempt, rerr)
			return v, rerr
		}
		if d := c.delay(); d > 0 && pastDeadline(ctx, d) {
			err := &Error{Reason: context.DeadlineExceeded, Attempts: attempt, Verdict: classify.Classify(err), Err: err, Delay: d}
			o.endAttempt(actx, attempt, err.Err, err, 0)
			o.end(attempt, err)
			return v, err
		}
		o.endAttempt(actx, attempt, err, nil, c.delay())
		last, lastErr = v, err
	}
}

// call is the strategy's side of one call of Do: its token, or, when the
// strategy is a *Standard, the token's state as a value (the token never
// leaves Do, so it need not be allocated, spent or checked).
type call struct {
	std *Standard
	st  state
	s   Strategy
	tok Token
}

// start acquires the call's initial token; false if s gives none.
func start(ctx context.Context, s Strategy) (call, bool) {
	if std, ok := s.(*Standard); ok && std != nil {
		return call{std: std, st: std.initial("")}, true
	}
	tok, err := s.AcquireInitialToken(ctx, "")
	if err != nil {
		return call{}, false
	}
	return call{s: s, tok: tok}, true
}

// delay is how long to wait before the next attempt.
func (c *call) delay() time.Duration {
	if c.std != nil {
		return c.st.delay
	}
	return c.tok.Delay()
}

// refresh moves to the next attempt's token after a failed attempt, or
// returns the strategy's refusal.
func (c *call) refresh(ctx context.Context, err error) error {
	if c.std != nil {
		st, rerr := c.std.next(ctx, c.st, err, nil)
		if rerr != nil {
			return rerr
		}
		c.st = st
		return nil
	}
	next, rerr := c.s.RefreshToken(ctx, c.tok, err)
	if rerr != nil {
		return rerr
	}
	c.tok = next
	return nil
}

// succeeded records the attempt's success with the strategy.
func (c *call) succeeded() {
	if c.std != nil {
		c.std.succeeded(c.st)
		return
	}
	c.s.RecordSuccess(c.tok)
}

// pastDeadline reports whether a wait of d from now ends after ctx's
// deadline.
func pastDeadline(ctx context.Context, d time.Duration) bool {
	dl, ok := ctx.Deadline()
	return ok && time.Until(dl) < d
}

// waiter waits a call's delays on one timer, made on first use and
// re-armed after: a *time.Timer when the clock is the real one, else a
// timer of the clock (re-armed through timers.Reset, so that a test clock
// sees every arming).
type waiter struct {
	clk clock.Clock // nil: the real clock
	rt  *time.Timer
	ct  *clock.Timer
}

func newWaiter(clk clock.Clock) waiter {
	if timers.IsReal(clk) { // the runtime's: its waits go to a *time.Timer without the wrapper
		return waiter{}
	}
	return waiter{clk: clk}
}

// sleep waits d, or until ctx ends (returning its cause).
func (w *waiter) sleep(ctx context.Context, d time.Duration) error {
	var c <-chan time.Time
	switch {
	case w.clk != nil && w.ct == nil:
		w.ct = w.clk.Timer(d)
		c = w.ct.C
	case w.clk != nil:
		timers.Reset(w.clk, w.ct, d)
		c = w.ct.C
	case w.rt == nil:
		w.rt = time.NewTimer(d)
		c = w.rt.C
	default:
		w.rt.Reset(d)
		c = w.rt.C
	}
	done := ctx.Done()
	if done == nil { // a context that never ends: a plain receive, cheaper than a select
		<-c
		return nil
	}
	select {
	case <-c:
		return nil
	case <-done:
		w.stop()
		return context.Cause(ctx)
	}
}

// stop stops the timer, if there is one.
func (w *waiter) stop() {
	if w.rt != nil {
		w.rt.Stop()
	}
	if w.ct != nil {
		w.ct.Stop()
	}
}

// clocked is implemented by the strategies of this package, and so by any
// strategy that embeds one: they carry an injected clock.
type clocked interface{ waitClock() clock.Clock }

func clockOf(s Strategy) clock.Clock {
	if c, ok := s.(clocked); ok && c.waitClock() != nil {
		return c.waitClock()
	}
	return clock.New()
}

// observed is implemented by the strategies of this package, and so by
// any strategy that embeds one: they carry an observer.
type observed interface{ observer() telemetry.Observer }

// defaultObserver observes calls with strategies of other packages: OTel
// on the global providers.
var defaultObserver = sync.OnceValue(func() telemetry.Observer {
	o, err := telemetry.OTel("github.com/waitable/waitable/retry", nil, nil)
	if err != nil {
		return nil
	}
	return o
})

// observation is one call's observer, or nothing.
type observation struct {
	ctx    context.Context
	w      telemetry.WaitObserver
	clk    clock.Clock
	start  time.Time
	s      Strategy
	detail bool // the observer records details: times, retry-after, tokens
}

func observe(ctx context.Context, s Strategy, clk clock.Clock) observation {
	obs := defaultObserver()
	name := "strategy"
	switch st := s.(type) {
	case *Standard:
		obs, name = st.observer(), "standard"
	case *Adaptive:
		obs, name = st.observer(), "adaptive"
	case observed:
		obs = st.observer()
	}
	o := observation{ctx: ctx, clk: clk, s: s}
	if obs != nil {
		o.start = clk.Now()
		o.ctx, o.w = obs.StartWait(ctx, telemetry.Wait{Kind: "retry", Name: name}, o.start)
		o.detail = o.w != nil && o.w.Recording()
	}
	return o
}

// now returns the clock's time when the observer wants times.
func (o *observation) now() time.Time {
	if !o.detail {
		return time.Time{}
	}
	return o.clk.Now()
}

func (o *observation) startAttempt(n int) context.Context {
	if o.w == nil {
		return o.ctx
	}
	return o.w.StartAttempt(o.ctx, n, o.now())
}

func (o *observation) endAttempt(ctx context.Context, n int, err, refused error, next time.Duration) {
	if o.w == nil {
		return
	}
	a := telemetry.Attempt{Number: n, Err: err, Acceptor: -1, State: "success", NextDelay: next, Tokens: -1}
	switch {
	case err == nil:
	case refused != nil:
		a.State = "failure"
	default:
		a.State, a.Transient = "retry", true
	}
	if o.detail {
		if err != nil {
			a.RetryAfter = classify.Classify(err).RetryAfter
		}
		if b, ok := o.s.(interface{ Bucket(string) *TokenBucket }); ok {
			a.Tokens = b.Bucket("").Available()
		}
	}
	o.w.EndAttempt(ctx, a, o.now())
}

func (o *observation) end(attempts int, err error) {
	if o.w == nil {
		return
	}
	end := o.clk.Now()
	out := telemetry.Outcome{Outcome: telemetry.OutcomeSuccess, Attempts: attempts, Elapsed: end.Sub(o.start), Err: err}
	switch {
	case err == nil:
	case errors.Is(err, ErrMaxAttempts):
		out.Outcome = telemetry.OutcomeMaxAttempts
	case errors.Is(err, ErrQuotaExceeded):
		out.Outcome = telemetry.OutcomeQuotaExceeded
	case errors.Is(err, ErrNotRetryable), errors.Is(err, errInvalidToken):
		out.Outcome = telemetry.OutcomeNotRetryable
	default:
		out.Outcome = telemetry.OutcomeCancelled
	}
	o.w.EndWait(out, end)
}

type idempotentKey struct{}

// WithIdempotent returns a context that tells strategies the operation is
// idempotent: errors whose retry safety is unknown ([classify.SafetyMaybe])
// may then be retried.
func WithIdempotent(ctx context.Context) context.Context {
	return context.WithValue(ctx, idempotentKey{}, true)
}

// Idempotent reports whether ctx was marked by [WithIdempotent].
func Idempotent(ctx context.Context) bool {
	v, _ := ctx.Value(idempotentKey{}).(bool)
	return v
}
