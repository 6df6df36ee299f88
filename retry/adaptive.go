package retry

import (
	"context"
	"math"
	"sync"
	"sync/atomic"
	"time"

	"github.com/benbjohnson/clock"

	"github.com/waitable/waitable/telemetry"
)

// Adaptive is the AWS SDKs' adaptive retry mode: the [Standard] strategy
// plus a client-side limit on the send rate that reacts to throttling, so
// that many goroutines sharing one client stop hammering a throttled
// service.
//
// The limit is off until the first throttle. From then on every attempt
// takes one unit of send capacity from a bucket refilled at the fill rate;
// when the bucket is empty the attempt's token carries the wait until a
// unit is available (Do sleeps it on the injected clock). After every
// response the fill rate follows CUBIC congestion control (the constants
// and formulas of the AWS SDKs):
//
//	measured rate  m: requests per half-second bucket, smoothed
//	               m = 0.8·current + 0.2·m
//	on a throttle: last max   W = m (or min(m, fill rate) once enabled)
//	               fill rate  r = 0.7·W                       (β = 0.7)
//	otherwise:     K = cbrt(W·(1-β)/0.4)                       (C = 0.4)
//	               r = 0.4·(t - t_throttle - K)³ + W           (cubic growth)
//	then:          r = max(min(r, 2·m), 0.5), capacity = max(r, 1)
//
// so the rate falls by 30% at each throttle and grows back along a cubic
// curve, never more than twice what the client has been sending. An
// Adaptive is safe for concurrent use. Build it with [NewAdaptive].
type Adaptive struct {
	std *Standard
	mu  sync.Mutex
	rl  rateLimiter
}

// NewAdaptive returns the adaptive strategy; the options are those of
// [NewStandard].
func NewAdaptive(opts ...Option) (*Adaptive, error) {
	std, err := NewStandard(opts...)
	if err != nil {
		return nil, err
	}
	a := &Adaptive{std: std}
	a.rl.init(std.cfg.clock.Now())
	return a, nil
}

// waitClock returns the clock [Do] waits on.
func (a *Adaptive) waitClock() clock.Clock { return a.std.cfg.clock }

// observer returns what observes [Do]'s calls with this strategy.
func (a *Adaptive) observer() telemetry.Observer { return a.std.cfg.observer }

// RateState is a snapshot of the adaptive send-rate limiter.
type RateState struct {
	Enabled      bool    // false until the first throttle
	FillRate     float64 // send capacity added per second
	Capacity     float64 // send capacity available now
	MaxCapacity  float64
	MeasuredRate float64 // the client's smoothed send rate, per second
	LastMaxRate  float64 // W: the rate at the last throttle
}

// Rate returns the limiter's state now.
func (a *Adaptive) Rate() RateState {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.rl.refill(a.rl.seconds(a.std.cfg.clock.Now()))
	return a.rl.state
}

// adaptiveToken wraps the standard token with the wait for send capacity.
type adaptiveToken struct {
	inner Token
	delay time.Duration
	spent atomic.Bool
}

func (t *adaptiveToken) RetryCount() int      { return t.inner.RetryCount() }
func (t *adaptiveToken) Delay() time.Duration { return t.delay }

// AcquireInitialToken returns the first attempt's token, delayed until the
// send rate allows the attempt.
func (a *Adaptive) AcquireInitialToken(ctx context.Context, scope string) (Token, error) {
	inner, err := a.std.AcquireInitialToken(ctx, scope)
	if err != nil {
		return nil, err
	}
	return &adaptiveToken{inner: inner, delay: a.acquire(0)}, nil
}

// RefreshToken updates the send rate with the response, then decides as
// the standard strategy does; the next token waits for the longer of the
// backoff and the send capacity.
func (a *Adaptive) RefreshToken(ctx context.Context, t Token, err error) (Token, error) {
	at, ok := t.(*adaptiveToken)
	if !ok || at == nil || !at.spent.CompareAndSwap(false, true) {
		attempts := 1
		if t != nil {
			attempts = t.RetryCount() + 1
		}
		return nil, &Error{Reason: errInvalidToken, Attempts: attempts, Err: err}
	}
	v := a.std.cfg.classifier(err)
	a.update(v.Throttle)
	next, rerr := a.std.refreshToken(ctx, at.inner, err, &v)
	if rerr != nil {
		return nil, rerr
	}
	return &adaptiveToken{inner: next, delay: a.acquire(next.Delay())}, nil
}

// RecordSuccess updates the send rate with a successful response and
// refunds the bucket as the standard strategy does (a token that is not
// this strategy's, or was spent, does neither).
func (a *Adaptive) RecordSuccess(t Token) {
	at, ok := t.(*adaptiveToken)
	if !ok || at == nil || !at.spent.CompareAndSwap(false, true) {
		return
	}
	a.update(false)
	a.std.RecordSuccess(at.inner)
}

// acquire takes one unit of send capacity and returns how long the caller
// must wait for it: at least backoff.
func (a *Adaptive) acquire(backoffDelay time.Duration) time.Duration {
	a.mu.Lock()
	wait := a.rl.acquire(a.rl.seconds(a.std.cfg.clock.Now()), 1)
	a.mu.Unlock()
	return max(backoffDelay, time.Duration(wait*float64(time.Second)))
}

func (a *Adaptive) update(throttle bool) {
	a.mu.Lock()
	a.rl.update(a.rl.seconds(a.std.cfg.clock.Now()), throttle)
	a.mu.Unlock()
}

// CUBIC constants of the AWS SDKs' adaptive mode.
const (
	cubicSmooth   = 0.8
	cubicBeta     = 0.7
	cubicScale    = 0.4
	minFillRate   = 0.5
	minCapacity   = 1.0
	rateBucketLen = 0.5 // seconds per bucket of the measured rate
)

// rateLimiter is the adaptive send-rate state. Times are seconds since
// epoch (the limiter's creation). It is not safe for concurrent use: the
// Adaptive holds its lock.
type rateLimiter struct {
	epoch         time.Time
	state         RateState
	lastRefill    float64
	refilled      bool
	lastBucket    float64
	requests      int
	lastThrottleT float64
	window        float64 // K
}

func (r *rateLimiter) init(now time.Time) {
	r.epoch = now
	r.state.FillRate = minFillRate
	r.state.MaxCapacity = minCapacity
}

func (r *rateLimiter) seconds(t time.Time) float64 { return t.Sub(r.epoch).Seconds() }

// refill adds the capacity earned since the last refill.
func (r *rateLimiter) refill(t float64) {
	if !r.refilled {
		r.lastRefill, r.refilled = t, true
		return
	}
	if t <= r.lastRefill {
		return
	}
	r.state.Capacity = math.Min(r.state.MaxCapacity, r.state.Capacity+(t-r.lastRefill)*r.state.FillRate)
	r.lastRefill = t
}

// acquire takes amount of capacity at time t and returns the wait in
// seconds until it is there (0 while the limiter is off). Capacity may go
// negative: it is reserved for a caller that waits.
func (r *rateLimiter) acquire(t, amount float64) float64 {
	if !r.state.Enabled {
		return 0
	}
	r.refill(t)
	r.state.Capacity -= amount
	if r.state.Capacity >= 0 {
		return 0
	}
	return -r.state.Capacity / r.state.FillRate
}

// update records one response at time t and adjusts the fill rate.
func (r *rateLimiter) update(t float64, throttle bool) {
	r.measure(t)
	var rate float64
	if throttle {
		use := r.state.MeasuredRate
		if r.state.Enabled {
			use = math.Min(use, r.state.FillRate)
		}
		r.state.LastMaxRate = use
		r.window = math.Cbrt(use * (1 - cubicBeta) / cubicScale)
		r.lastThrottleT = t
		rate = use * cubicBeta
		r.state.Enabled = true
	} else {
		r.window = math.Cbrt(r.state.LastMaxRate * (1 - cubicBeta) / cubicScale)
		dt := t - r.lastThrottleT - r.window
		rate = cubicScale*dt*dt*dt + r.state.LastMaxRate
	}
	rate = math.Min(rate, 2*r.state.MeasuredRate)
	r.refill(t)
	r.state.FillRate = math.Max(rate, minFillRate)
	r.state.MaxCapacity = math.Max(rate, minCapacity)
	r.state.Capacity = math.Min(r.state.Capacity, r.state.MaxCapacity)
}

// measure counts a request in its half-second bucket and, when a bucket
// closes, folds its rate into the smoothed measured rate.
func (r *rateLimiter) measure(t float64) {
	bucket := math.Floor(t/rateBucketLen) * rateBucketLen
	r.requests++
	if bucket > r.lastBucket {
		current := float64(r.requests) / (bucket - r.lastBucket)
		r.state.MeasuredRate = current*cubicSmooth + r.state.MeasuredRate*(1-cubicSmooth)
		r.requests = 0
		r.lastBucket = bucket
	}
}
