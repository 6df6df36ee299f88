package retry

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/benbjohnson/clock"

	"github.com/waitable/waitable/backoff"
	"github.com/waitable/waitable/classify"
	"github.com/waitable/waitable/telemetry"
)

// The defaults of [NewStandard], today's AWS standard retry behaviour:
// each is stated in the doc of the option that sets it.
const (
	defaultMaxAttempts    = 3
	defaultBaseDelay      = 50 * time.Millisecond
	defaultThrottleDelay  = time.Second
	defaultMaxBackoff     = 20 * time.Second
	defaultBucketCapacity = 500
	defaultRetryCost      = 14
	defaultThrottleCost   = 5
)

// Standard is the AWS SDKs' standard retry strategy: a maximum number of
// attempts, exponential backoff with full jitter (a longer base for
// throttles), and a token bucket that every retry pays into, so that a
// client stops retrying when the service is failing broadly.
//
// For each failed attempt, RefreshToken refuses a retry, in this order,
// when the token is not one of its own or already spent (an [*Error] that
// says "invalid retry token"), when the error is not safe to retry
// (ErrNotRetryable: classify says no, or maybe and the context is not
// marked idempotent with [WithIdempotent]), when the attempts are used up
// (ErrMaxAttempts), or when the bucket cannot pay (ErrQuotaExceeded).
// Otherwise the next token's delay is the backoff for the attempt, raised
// to the error's retry-after hint when there is one: never sooner than the
// service asked, as the Smithy retry guide says. AWS's SDKs bound the
// hint to the backoff plus 5s since their 2026 retry behaviour;
// [WithRetryAfterClamp] gives that rule. A refusal for the attempts or the quota says in
// its Delay what that delay would have been. Success refunds what the
// token paid (1 when it paid nothing).
//
// A Standard is safe for concurrent use. Build it with [NewStandard].
type Standard struct {
	cfg     standardConfig
	buckets sync.Map // scope → *TokenBucket (scope "" is cfg.bucket)
}

type standardConfig struct {
	maxAttempts     int
	attemptsSet     bool // WithMaxAttempts was given
	backoffSet      bool // WithBackoff was given
	service         string
	longPoll        bool
	backoff         backoff.Policy
	throttleBackoff backoff.Policy
	jitter          backoff.Jitter
	maxBackoff      time.Duration
	bucket          *TokenBucket
	retryCost       int
	throttleCost    int
	timeoutCost     int           // 0: same as retryCost
	fixedRefund     int           // 0: refund what the token paid (1 if nothing)
	retryAfterClamp time.Duration // 0: hints are never cut
	classifier      func(error) classify.Verdict
	clock           clock.Clock
	telemetry       telemetry.Settings
	observer        telemetry.Observer
	errs            []error
}

// Option configures a [Standard] or [Adaptive] strategy.
type Option func(*standardConfig)

// WithMaxAttempts sets how many attempts one call may make, the first
// included (default 3; 1 means no retry): the AWS SDKs' max_attempts. It
// must be at least 1. It counts the attempts of one call, not the polls of
// a wait: a waiter's poll limit is waiter.WithMaxPolls, and a waiter that
// retries transient errors through this strategy polls on past this count
// (see waiter.WithRetryStrategy).
func WithMaxAttempts(n int) Option {
	return func(c *standardConfig) {
		if n < 1 {
			c.errs = append(c.errs, fmt.Errorf("max attempts %d is less than 1", n))
		}
		c.maxAttempts, c.attemptsSet = n, true
	}
}

// WithBackoff sets the backoff policy for ordinary retries (default
// backoff.Exponential(50ms, 20s)).
func WithBackoff(p backoff.Policy) Option {
	return func(c *standardConfig) { c.backoff, c.backoffSet = p, true }
}

// WithService applies the retry defaults AWS publishes for a service (its
// SDK ID, as "DynamoDB" or "dynamodb"), as of the AWS SDKs' 2026 retry
// behavior: DynamoDB and DynamoDB Streams retry transient errors from a
// 25ms base, 4 attempts in all; other services keep the defaults (50ms, 3
// attempts). WithMaxAttempts and WithBackoff still take precedence.
func WithService(sdkID string) Option {
	return func(c *standardConfig) { c.service = sdkID }
}

// serviceDefaults are the services whose defaults differ.
var serviceDefaults = map[string]struct {
	base     time.Duration
	attempts int
}{
	"dynamodb":        {25 * time.Millisecond, 4},
	"dynamodbstreams": {25 * time.Millisecond, 4},
}

// WithLongPoll marks calls that wait on the server (SQS ReceiveMessage,
// Step Functions GetActivityTask): when the retry quota is empty, Do
// waits the ordinary backoff delay (after a throttle too, as AWS's SDKs
// do) before returning the error, instead of returning at once, so that a
// loop of long polls does not spin against a failing service.
func WithLongPoll() Option {
	return func(c *standardConfig) { c.longPoll = true }
}

// WithThrottleBackoff sets the backoff policy for retries after a throttle
// (default backoff.Exponential(1s, 20s)).
func WithThrottleBackoff(p backoff.Policy) Option {
	return func(c *standardConfig) { c.throttleBackoff = p }
}

// WithJitter sets the Jitter of both backoff policies (default
// backoff.Uniform). Tests pass backoff.High for exact delays.
func WithJitter(j backoff.Jitter) Option {
	return func(c *standardConfig) { c.jitter = j }
}

// WithMaxBackoff caps every backoff delay (default 20s), the retry-after
// hint excepted.
func WithMaxBackoff(d time.Duration) Option {
	return func(c *standardConfig) {
		if d <= 0 {
			c.errs = append(c.errs, fmt.Errorf("max backoff %v is not positive", d))
		}
		c.maxBackoff = d
	}
}

// WithTokenBucket sets the bucket retries pay from (default: a bucket of
// 500 tokens of the strategy's own). Pass the same bucket to every strategy
// of one client. Tokens acquired in a scope other than "" (the scope of
// AcquireInitialToken) pay from a bucket of the same capacity per scope.
func WithTokenBucket(b *TokenBucket) Option {
	return func(c *standardConfig) {
		if b == nil {
			c.errs = append(c.errs, errors.New("token bucket is nil"))
		}
		c.bucket = b
	}
}

// WithCosts sets what a retry takes from the bucket: after an ordinary
// error, after a throttle, and after a timeout (0: as an ordinary error).
// Defaults: 14, 5 and 0.
func WithCosts(retry, throttle, timeout int) Option {
	return func(c *standardConfig) {
		if retry < 0 || throttle < 0 || timeout < 0 {
			c.errs = append(c.errs, fmt.Errorf("retry costs %d, %d, %d: none may be negative", retry, throttle, timeout))
		}
		c.retryCost, c.throttleCost, c.timeoutCost = retry, throttle, timeout
	}
}

// WithLegacyCosts uses the numbers of the Smithy retry guide's example (and
// of the AWS SDKs before 2024): a retry costs 5, a timeout 10, a throttle
// 5, and every success refunds 1.
func WithLegacyCosts() Option {
	return func(c *standardConfig) {
		c.retryCost, c.throttleCost, c.timeoutCost, c.fixedRefund = 5, 5, 10, 1
	}
}

// WithRetryAfterClamp bounds the service's retry-after hints (Retry-After,
// x-amz-retry-after) as AWS's SDKs do since their 2026 retry behaviour
// (aws-sdk-go-v2 v1.48.0 and later): a hint counts at least the backoff
// and at most the backoff plus margin, which is 5s in AWS's SDKs. By
// default a hint is never cut: a retry never comes sooner than the
// service asked, as the Smithy retry guide says ("it is information
// directly from the service"); a service that asks for an hour is waited
// on for an hour. Clamp hints to behave as AWS's SDKs do, or for a service
// known to overstate them. margin must be positive.
func WithRetryAfterClamp(margin time.Duration) Option {
	return func(c *standardConfig) {
		if margin <= 0 {
			c.errs = append(c.errs, fmt.Errorf("retry-after clamp %v is not positive", margin))
		}
		c.retryAfterClamp = margin
	}
}

// WithClassifier replaces [classify.Classify] as the reader of errors.
func WithClassifier(f func(error) classify.Verdict) Option {
	return func(c *standardConfig) {
		if f == nil {
			c.errs = append(c.errs, errors.New("classifier is nil"))
		}
		c.classifier = f
	}
}

// WithClock sets the clock [Do] waits on (default clock.New()).
func WithClock(clk clock.Clock) Option {
	return func(c *standardConfig) {
		if clk == nil {
			c.errs = append(c.errs, errors.New("clock is nil"))
		}
		c.clock = clk
	}
}

// WithTelemetry sets how [Do] observes its calls with the strategy. The
// zero Settings is the default: OpenTelemetry spans (a span per call, a
// child per attempt) and metrics on the global providers, which record
// nothing until an application installs an SDK. Settings name providers of
// your own, a slog.Logger (a record per attempt at Debug, one per outcome
// at Info, Warn when the call failed), observers of your own, or Off for no
// spans and metrics; package [telemetry] lists the names recorded. Their
// Scope is ignored: the tracer and meter are named after package retry.
func WithTelemetry(t telemetry.Settings) Option {
	return func(c *standardConfig) { c.telemetry = t }
}

// ErrInvalidOption is matched by errors.Is for the error of a constructor
// given a bad option.
var ErrInvalidOption = errors.New("retry: invalid option")

func newConfig(opts []Option) (standardConfig, error) {
	c := standardConfig{
		maxAttempts:     defaultMaxAttempts,
		backoff:         backoff.Exponential(defaultBaseDelay, defaultMaxBackoff),
		throttleBackoff: backoff.Exponential(defaultThrottleDelay, defaultMaxBackoff),
		maxBackoff:      defaultMaxBackoff,
		retryCost:       defaultRetryCost,
		throttleCost:    defaultThrottleCost,
		classifier:      classify.Classify,
		clock:           clock.New(),
	}
	for i, o := range opts {
		if o == nil {
			c.errs = append(c.errs, fmt.Errorf("option %d of %d is nil", i+1, len(opts)))
			continue
		}
		o(&c)
	}
	if d, ok := serviceDefaults[strings.ToLower(strings.ReplaceAll(c.service, " ", ""))]; ok {
		if !c.attemptsSet {
			c.maxAttempts = d.attempts
		}
		if !c.backoffSet {
			c.backoff = backoff.Exponential(d.base, c.maxBackoff)
		}
	}
	for _, p := range []backoff.Policy{c.backoff, c.throttleBackoff} {
		if err := p.Validate(); err != nil {
			c.errs = append(c.errs, err)
		}
	}
	if c.bucket == nil && c.errs == nil {
		c.bucket = NewTokenBucket(defaultBucketCapacity)
	}
	c.telemetry.Scope = "github.com/waitable/waitable/retry"
	obs, err := c.telemetry.Observer()
	if err != nil {
		c.errs = append(c.errs, err)
	}
	c.observer = obs
	c.backoff = c.backoff.WithJitter(c.jitter)
	c.throttleBackoff = c.throttleBackoff.WithJitter(c.jitter)
	if len(c.errs) > 0 {
		return c, fmt.Errorf("%w: %w", ErrInvalidOption, errors.Join(c.errs...))
	}
	return c, nil
}

// NewStandard returns the standard strategy with the given options. Every
// number is an option, whose doc states its default; with none it is
// today's AWS standard retry behaviour: 3 attempts, full jitter from 50ms
// (1s after a throttle) up to 20s, a bucket of 500 tokens, a retry costing
// 14 (5 after a throttle). It returns an error matching [ErrInvalidOption]
// for a bad option.
func NewStandard(opts ...Option) (*Standard, error) {
	cfg, err := newConfig(opts)
	if err != nil {
		return nil, err
	}
	return &Standard{cfg: cfg}, nil
}

// waitClock returns the clock [Do] waits on.
func (s *Standard) waitClock() clock.Clock { return s.cfg.clock }

// observer returns what observes [Do]'s calls with this strategy (nil
// when telemetry is off and nothing else observes).
func (s *Standard) observer() telemetry.Observer { return s.cfg.observer }

// Bucket returns the token bucket of a scope ("" is the default bucket).
func (s *Standard) Bucket(scope string) *TokenBucket {
	if scope == "" {
		return s.cfg.bucket
	}
	if b, ok := s.buckets.Load(scope); ok {
		return b.(*TokenBucket)
	}
	b, _ := s.buckets.LoadOrStore(scope, NewTokenBucket(s.cfg.bucket.capacity))
	return b.(*TokenBucket)
}

// state is what a token carries, as a value: Do keeps it on its stack
// when its strategy is a *Standard, and a token wraps it for callers of
// the Strategy methods.
type state struct {
	bucket *TokenBucket
	count  int
	delay  time.Duration
	cost   int // what the retry that made this state paid
}

// token is the Standard strategy's Token.
type token struct {
	owner *Standard
	state
	spent atomic.Bool
	rest  []token // the call's next tokens, allocated together
}

// tokenChunk is how many tokens a call allocates at once: most calls
// make few attempts, and one allocation serves several.
const tokenChunk = 4

// newToken returns a fresh token from rest, or from a new chunk.
func (s *Standard) newToken(rest []token) *token {
	if len(rest) == 0 {
		rest = make([]token, tokenChunk)
	}
	t := &rest[0]
	t.rest = rest[1:]
	return t
}

func (t *token) RetryCount() int      { return t.count }
func (t *token) Delay() time.Duration { return t.delay }

// initial returns the state of a call's first attempt in scope.
func (s *Standard) initial(scope string) state {
	return state{bucket: s.Bucket(scope)}
}

// AcquireInitialToken returns the token for a call's first attempt. It
// never fails and never delays.
func (s *Standard) AcquireInitialToken(ctx context.Context, scope string) (Token, error) {
	t := s.newToken(nil)
	t.owner, t.state = s, s.initial(scope)
	return t, nil
}

// own returns t as this strategy's unspent token, spending it.
func (s *Standard) own(t Token) (*token, bool) {
	tk, ok := t.(*token)
	if !ok || tk == nil || tk.owner != s || !tk.spent.CompareAndSwap(false, true) {
		return nil, false
	}
	return tk, true
}

// RefreshToken decides whether the call may be retried after err; see
// [Standard].
func (s *Standard) RefreshToken(ctx context.Context, t Token, err error) (Token, error) {
	return s.refreshToken(ctx, t, err, nil)
}

// refreshToken is RefreshToken with the error's verdict, when the caller
// has it already.
func (s *Standard) refreshToken(ctx context.Context, t Token, err error, v *classify.Verdict) (Token, error) {
	tk, ok := s.own(t)
	if !ok {
		attempts := 1
		if t != nil {
			attempts = t.RetryCount() + 1
		}
		return nil, &Error{Reason: errInvalidToken, Attempts: attempts, Err: err}
	}
	st, rerr := s.next(ctx, tk.state, err, v)
	if rerr != nil {
		return nil, rerr
	}
	next := s.newToken(tk.rest)
	next.owner, next.state = s, st
	return next, nil
}

// next is RefreshToken for the state of an unspent token: the state of
// the next attempt, or the *Error that refuses it. v is err's verdict
// when the caller has it already.
func (s *Standard) next(ctx context.Context, cur state, err error, v *classify.Verdict) (state, error) {
	attempts := cur.count + 1
	if err == nil {
		return state{}, &Error{Reason: fmt.Errorf("%w: RefreshToken called without an error", errInvalidToken),
			Attempts: attempts}
	}
	if v == nil {
		verdict := s.cfg.classifier(err)
		v = &verdict
	}
	next, reason := s.refresh(ctx, cur, v)
	if reason != nil {
		e := &Error{Reason: reason, Attempts: attempts, Verdict: *v, Err: err}
		if reason != ErrNotRetryable {
			e.Delay = next.delay
			if s.cfg.longPoll && reason == ErrQuotaExceeded { // wait before giving up
				e.Backoff = next.delay
			}
		}
		return state{}, e
	}
	return next, nil
}

// refresh computes the next state, or the reason there is none. A
// refusal for the attempts or the quota returns, with the reason, a state
// that carries only the delay the retry would have waited.
func (s *Standard) refresh(ctx context.Context, cur state, v *classify.Verdict) (state, error) {
	if !v.Retryable(v.Safety == classify.SafetyMaybe && Idempotent(ctx)) {
		return state{}, ErrNotRetryable
	}
	cost, policy := s.cfg.retryCost, s.cfg.backoff
	switch {
	case v.Throttle:
		cost, policy = s.cfg.throttleCost, s.cfg.throttleBackoff
	case v.Timeout && s.cfg.timeoutCost > 0:
		cost = s.cfg.timeoutCost
	}
	delay := min(policy.Delay(cur.count+1, cur.delay), s.cfg.maxBackoff)
	hint := v.RetryAfter
	if s.cfg.retryAfterClamp > 0 {
		hint = min(hint, delay+s.cfg.retryAfterClamp)
	}
	delay = max(delay, hint) // never sooner than the service asked
	if cur.count+1 >= s.cfg.maxAttempts {
		return state{delay: delay}, ErrMaxAttempts
	}
	if !cur.bucket.take(cost) {
		// The wait of a long poll that gives up (see WithLongPoll) is the
		// ordinary backoff, after a throttle too, as AWS's SDKs wait.
		wait := min(s.cfg.backoff.Delay(cur.count+1, cur.delay), s.cfg.maxBackoff)
		return state{delay: max(wait, hint)}, ErrQuotaExceeded
	}
	return state{bucket: cur.bucket, count: cur.count + 1, delay: delay, cost: cost}, nil
}

// RecordSuccess refunds the bucket: what the token's retry paid, or 1 when
// it paid nothing (a fixed 1 with [WithLegacyCosts]). A token that is not
// this strategy's, or was spent, refunds nothing.
func (s *Standard) RecordSuccess(t Token) {
	tk, ok := s.own(t)
	if !ok {
		return
	}
	s.succeeded(tk.state)
}

// succeeded is RecordSuccess for the state of an unspent token.
func (s *Standard) succeeded(st state) {
	refund := st.cost
	if s.cfg.fixedRefund > 0 || refund == 0 {
		refund = max(s.cfg.fixedRefund, 1)
	}
	st.bucket.give(refund)
}
