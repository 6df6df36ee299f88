package waiter

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"reflect"
	"time"

	"github.com/benbjohnson/clock"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"
	"golang.org/x/time/rate"

	"github.com/waitable/waitable/backoff"
	"github.com/waitable/waitable/classify"
	"github.com/waitable/waitable/retry"
	"github.com/waitable/waitable/telemetry"
)

// Waiter polls one operation until its resource reaches a terminal state,
// as a [Definition] says. Build it with [New]; run it with [Waiter.Start]
// or [Waiter.Wait]. A Waiter is safe for concurrent use by any number of
// runs.
type Waiter[I, O any] struct {
	def      Definition
	op       func(context.Context, I) (O, error)
	set      *classify.Set[I, O]
	custom   []customMatch[I, O]
	schedule backoff.WaiterSchedule
	cfg      config
	obs      telemetry.Observer // nil: nothing observes
	descs    []string           // each compiled acceptor's Matcher.String(), built once
}

// customMatch is an acceptor written as a Go function.
type customMatch[I, O any] struct {
	state classify.State
	name  string
	match func(in I, out O, err error) bool
}

type config struct {
	clock          clock.Clock
	jitter         backoff.Jitter
	minDelay       time.Duration
	maxDelay       time.Duration
	reserve        *time.Duration
	maxAttempts    *int
	attemptTimeout time.Duration
	strategy       retry.Strategy
	strategySet    bool
	acceptors      []classify.Acceptor
	matches        []matchOption
	limiter        *rate.Limiter
	tracerProvider trace.TracerProvider
	meterProvider  metric.MeterProvider
	logger         *slog.Logger
	observers      []telemetry.Observer
	noTelemetry    bool
	errs           []error
}

type matchOption struct {
	state classify.State
	name  string
	fn    any // func(I, O, error) bool, checked by New
}

// Option configures a [Waiter].
type Option func(*config)

// WithClock sets the clock every delay, deadline and elapsed time goes
// through (default clock.New()). Tests pass a clocktest.Mock, or run in a
// clocktest.Run bubble with the default.
func WithClock(c clock.Clock) Option {
	return func(cfg *config) {
		if c == nil {
			cfg.errs = append(cfg.errs, errors.New("WithClock: clock is nil"))
		}
		cfg.clock = c
	}
}

// WithJitter sets how delays are drawn from their range (default
// backoff.Uniform); tests pass backoff.Midpoint, backoff.Low or
// backoff.High for exact times.
func WithJitter(j backoff.Jitter) Option {
	return func(cfg *config) { cfg.jitter = j }
}

// WithDelays overrides the definition's MinDelay and MaxDelay. Any positive
// durations are allowed, sub-second ones too (useful in tests and for fast
// resources); min must not exceed max.
func WithDelays(minDelay, maxDelay time.Duration) Option {
	return func(cfg *config) {
		if minDelay <= 0 || maxDelay <= 0 || minDelay > maxDelay {
			cfg.errs = append(cfg.errs, fmt.Errorf("WithDelays(%v, %v): want 0 < min <= max", minDelay, maxDelay))
		}
		cfg.minDelay, cfg.maxDelay = minDelay, maxDelay
	}
}

// WithFinalReserve fixes the time kept for the final call (see
// backoff.WaiterSchedule.Delay): 0 is the current Smithy specification
// (the last call starts at the deadline's edge), MinDelay the rule as first
// published. By default the waiter reserves the longest call latency it has
// observed in the run (at most MinDelay), so that the final call finishes
// just before the deadline instead of being cut off by it. Whatever the
// reserve, the final call starts at least 1ms (or MinDelay, if shorter)
// before the deadline, so that its context is still live.
func WithFinalReserve(d time.Duration) Option {
	return func(cfg *config) {
		if d < 0 {
			cfg.errs = append(cfg.errs, fmt.Errorf("WithFinalReserve(%v): negative", d))
		}
		cfg.reserve = &d
	}
}

// WithMaxAttempts limits the number of calls per run (default: the
// definition's MaxAttempts; 0 means no limit but the wait time).
func WithMaxAttempts(n int) Option {
	return func(cfg *config) {
		if n < 0 {
			cfg.errs = append(cfg.errs, fmt.Errorf("WithMaxAttempts(%d): negative", n))
		}
		cfg.maxAttempts = &n
	}
}

// WithAttemptTimeout gives each call its own deadline (it never outlives
// the run's). A call cut off by it is an error like any other: matched by
// the acceptors, or retried as transient (it is a timeout).
func WithAttemptTimeout(d time.Duration) Option {
	return func(cfg *config) {
		if d <= 0 {
			cfg.errs = append(cfg.errs, fmt.Errorf("WithAttemptTimeout(%v): not positive", d))
		}
		cfg.attemptTimeout = d
	}
}

// WithRetryStrategy sets the strategy that decides whether an error no
// acceptor matched is transient (retried on the waiter's schedule, never
// sooner than the error's retry-after) or terminal. The default is
// retry.NewStandard() on the waiter's clock: throttles, timeouts and server
// faults are retried, up to its attempts in a row (3). An empty token
// bucket does not end a run: the waiter's schedule already spaces its
// calls, so it keeps polling while it has time. nil gives the
// specification's letter: every unmatched error is terminal.
func WithRetryStrategy(s retry.Strategy) Option {
	return func(cfg *config) { cfg.strategy, cfg.strategySet = s, true }
}

// WithAcceptors adds acceptors tried before the definition's, in order.
func WithAcceptors(acceptors ...classify.Acceptor) Option {
	return func(cfg *config) { cfg.acceptors = append(cfg.acceptors, acceptors...) }
}

// WithMatch adds an acceptor written in Go, tried before every acceptor of
// the definition (and of WithAcceptors), in the order given. name
// describes it in events and errors. I and O must be the Waiter's types:
// [New] rejects a WithMatch of other types.
func WithMatch[I, O any](state classify.State, name string, match func(in I, out O, err error) bool) Option {
	return func(cfg *config) {
		if match == nil {
			cfg.errs = append(cfg.errs, fmt.Errorf("WithMatch(%q): function is nil", name))
			return
		}
		if !state.Terminal() && state != classify.Retry {
			cfg.errs = append(cfg.errs, fmt.Errorf("WithMatch(%q): %v is not a state", name, state))
		}
		cfg.matches = append(cfg.matches, matchOption{state: state, name: name, fn: match})
	}
}

// WithPollRateLimit makes every call of every run wait for a token from
// lim, on the waiter's clock: share one limiter between the waiters that
// poll one API, and thousands of runs stay under its limit together.
func WithPollRateLimit(lim *rate.Limiter) Option {
	return func(cfg *config) {
		if lim == nil {
			cfg.errs = append(cfg.errs, errors.New("WithPollRateLimit: limiter is nil"))
		}
		cfg.limiter = lim
	}
}

// WithTracerProvider sets where the waiter's spans go (default: the
// OpenTelemetry global provider). See package telemetry for the spans.
func WithTracerProvider(tp trace.TracerProvider) Option {
	return func(cfg *config) { cfg.tracerProvider = tp }
}

// WithMeterProvider sets where the waiter's metrics go (default: the
// OpenTelemetry global provider). See package telemetry for the metrics.
func WithMeterProvider(mp metric.MeterProvider) Option {
	return func(cfg *config) { cfg.meterProvider = mp }
}

// WithLogger logs each attempt at Debug and each outcome at Info (Warn when
// the wait did not succeed) to l. Without it nothing is logged.
func WithLogger(l *slog.Logger) Option {
	return func(cfg *config) { cfg.logger = l }
}

// WithObserver adds an observer of every run (see package telemetry).
func WithObserver(o telemetry.Observer) Option {
	return func(cfg *config) {
		if o == nil {
			cfg.errs = append(cfg.errs, errors.New("WithObserver: observer is nil"))
		}
		cfg.observers = append(cfg.observers, o)
	}
}

// WithoutTelemetry turns off the default OpenTelemetry spans and metrics
// (a logger or observers given with WithLogger and WithObserver still
// observe).
func WithoutTelemetry() Option {
	return func(cfg *config) { cfg.noTelemetry = true }
}

// ErrInvalidOption is matched by errors.Is for the error [New] returns for
// a bad option or a nil operation.
var ErrInvalidOption = errors.New("waiter: invalid option")

// New builds a Waiter for def that calls op. It validates def (see
// [Definition.Validate]), compiles every acceptor's JMESPath once and
// checks its paths against the Go types I and O, applies the options, and
// returns every problem at once. It rejects a nil op.
func New[I, O any](def Definition, op func(context.Context, I) (O, error), opts ...Option) (*Waiter[I, O], error) {
	cfg := config{clock: clock.New()}
	for _, o := range opts {
		o(&cfg)
	}
	var errs []error
	if op == nil {
		errs = append(errs, fmt.Errorf("%w: waiter %s: the operation is nil", ErrInvalidOption, def.Name))
	}
	for _, e := range cfg.errs {
		errs = append(errs, fmt.Errorf("%w: waiter %s: %w", ErrInvalidOption, def.Name, e))
	}
	if err := def.Validate(); err != nil {
		errs = append(errs, err)
	}
	for _, e := range classify.Validate(cfg.acceptors) {
		errs = append(errs, fmt.Errorf("%w: waiter %s: WithAcceptors: %w", ErrInvalidOption, def.Name, e))
	}
	w := &Waiter[I, O]{def: def, op: op, cfg: cfg}
	if len(errs) == 0 {
		// Everything is valid on its own: what remains are the paths
		// checked against I and O.
		extra := len(cfg.acceptors)
		set, err := classify.Compile[I, O](append(append([]classify.Acceptor(nil), cfg.acceptors...), def.Acceptors...))
		for _, e := range unjoin(err) {
			var ae *classify.AcceptorError
			switch {
			case !errors.As(e, &ae):
				errs = append(errs, e)
			case ae.Index < extra:
				errs = append(errs, fmt.Errorf("%w: waiter %s: WithAcceptors: %w", ErrInvalidOption, def.Name, e))
			default:
				errs = append(errs, &DefinitionError{Waiter: def.Name, Acceptor: ae.Index - extra, Rule: ae.Rule, Err: ae.Err})
			}
		}
		w.set = set
		for i := 0; set != nil && i < set.Len(); i++ {
			w.descs = append(w.descs, set.Acceptor(i).Matcher.String())
		}
	}
	for _, m := range cfg.matches {
		fn, ok := m.fn.(func(I, O, error) bool)
		if !ok {
			errs = append(errs, fmt.Errorf("%w: waiter %s: WithMatch(%q) is for %s, not func(%v, %v, error) bool",
				ErrInvalidOption, def.Name, m.name, reflect.TypeOf(m.fn), reflect.TypeFor[I](), reflect.TypeFor[O]()))
			continue
		}
		w.custom = append(w.custom, customMatch[I, O]{state: m.state, name: m.name, match: fn})
	}
	w.schedule = def.Schedule()
	if cfg.minDelay > 0 {
		w.schedule.MinDelay, w.schedule.MaxDelay = cfg.minDelay, cfg.maxDelay
	}
	w.schedule.Jitter = cfg.jitter
	if !cfg.strategySet {
		s, err := retry.NewStandard(retry.WithClock(cfg.clock))
		if err != nil {
			errs = append(errs, err)
		}
		w.cfg.strategy = s
	}
	obs, err := telemetry.Settings{
		Scope: "github.com/waitable/waitable/waiter", TracerProvider: cfg.tracerProvider, MeterProvider: cfg.meterProvider,
		Logger: cfg.logger, Off: cfg.noTelemetry, Extra: cfg.observers,
	}.Observer()
	if err != nil {
		errs = append(errs, err)
	}
	w.obs = obs
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return w, nil
}

// Definition returns the definition the waiter runs.
func (w *Waiter[I, O]) Definition() Definition { return w.def }

// Schedule returns the delay schedule the waiter uses (the definition's,
// or the WithDelays override).
func (w *Waiter[I, O]) Schedule() backoff.WaiterSchedule { return w.schedule }

// Wait is Start followed by Result: it blocks until the run ends and
// returns the last output observed and the run's error (see [Run.Result]).
func (w *Waiter[I, O]) Wait(ctx context.Context, in I, maxWait time.Duration) (O, error) {
	return w.Start(ctx, in, maxWait).Result()
}

// maxAttempts returns the attempt limit of a run (0: none).
func (w *Waiter[I, O]) maxAttempts() int {
	if w.cfg.maxAttempts != nil {
		return *w.cfg.maxAttempts
	}
	return w.def.MaxAttempts
}

// match applies the custom matchers, then the compiled acceptors.
func (w *Waiter[I, O]) match(in I, out O, err error) (classify.Match, string) {
	for i, c := range w.custom {
		if c.match(in, out, err) {
			return classify.Match{Index: i, State: c.state}, c.name
		}
	}
	m := w.set.Match(in, out, err)
	if m.Index < 0 {
		return m, ""
	}
	desc := w.descs[m.Index]
	m.Index += len(w.custom)
	return m, desc
}

// unjoin returns the errors joined in err (err itself if it is not a join).
func unjoin(err error) []error {
	if err == nil {
		return nil
	}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		return j.Unwrap()
	}
	return []error{err}
}
