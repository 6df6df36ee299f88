package waiter

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/benbjohnson/clock"
	"golang.org/x/time/rate"

	"github.com/waitable/waitable/backoff"
	"github.com/waitable/waitable/classify"
	"github.com/waitable/waitable/retry"
	"github.com/waitable/waitable/telemetry"
)

type config struct {
	clock          clock.Clock
	jitter         backoff.Jitter
	minDelay       time.Duration
	maxDelay       time.Duration
	reserve        *time.Duration
	maxPolls       *int
	attemptTimeout time.Duration
	strategy       retry.Strategy
	strategySet    bool
	transientLimit int
	stableN        int
	stableFor      time.Duration
	notFoundLimit  int
	identity       string
	initialDelay   time.Duration
	giveUp         any // func(context.Context, I, error), checked by New
	giveUpTimeout  time.Duration
	matches        []matchOption
	delayFn        any // func(int, O, error) time.Duration, checked by New
	hintFn         any // func(O) time.Duration, checked by New
	limiter        *rate.Limiter
	telemetry      telemetry.Settings
	events         int // unread attempts a Run keeps (WithEventBuffer)
	history        History
	historySet     bool
	keyFn          any // func(I) string, checked by New
	progressFn     any // func(O) float64, checked by New
	learned        bool
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

// WithJitter sets how delays are drawn from their range; tests pass
// backoff.Midpoint, backoff.Low or backoff.High for exact times. By default
// each wait draws its jitter uniformly from a seed kept in its [Checkpoint], so
// that a wait resumed from a checkpoint makes the delays it would have
// made; a Jitter given here is called instead, and is not replayed.
func WithJitter(j backoff.Jitter) Option {
	return func(cfg *config) { cfg.jitter = j }
}

// WithDelays overrides the definition's MinDelay and MaxDelay. Any positive
// durations are allowed, sub-second ones too (useful in tests and for fast
// resources, where the specification's one-second minimum for models does
// not apply); min must not exceed max.
func WithDelays(minDelay, maxDelay time.Duration) Option {
	return func(cfg *config) {
		if minDelay <= 0 || maxDelay <= 0 || minDelay > maxDelay {
			cfg.errs = append(
				cfg.errs,
				fmt.Errorf("WithDelays(%v, %v): want 0 < min <= max", minDelay, maxDelay),
			)
		}
		cfg.minDelay, cfg.maxDelay = minDelay, maxDelay
	}
}

// WithFinalReserve fixes the time kept for the final call (see
// backoff.WaiterSchedule.Delay): 0 is the current Smithy specification
// (the last call starts at the deadline's edge), MinDelay the rule as first
// published; more than MinDelay counts as MinDelay. By default the waiter
// reserves the longest call latency it has observed in the wait, half as
// much again, and 20ms (or MinDelay, if shorter), so that the final call
// ends before the deadline instead of being cut off by it. Whatever the
// reserve, the final call starts at least 1ms (or MinDelay, if shorter)
// before the deadline, so that its context is still live, and the
// last-attempt check counts the latency observed: a final call is made
// whenever the time left leaves room for one.
func WithFinalReserve(d time.Duration) Option {
	return func(cfg *config) {
		if d < 0 {
			cfg.errs = append(cfg.errs, fmt.Errorf("WithFinalReserve(%v): negative", d))
		}
		cfg.reserve = &d
	}
}

// WithMaxPolls limits the number of polls (calls of the operation) of a
// wait, the first included and those after a transient error too
// (default: the definition's MaxPolls; 0 means no limit but the wait
// time). A wait that makes them all without reaching a terminal state ends
// with [ErrMaxPolls]. It is not retry.WithMaxAttempts, which counts the
// attempts of one call and does not end a wait (see [WithRetryStrategy]).
func WithMaxPolls(n int) Option {
	return func(cfg *config) {
		if n < 0 {
			cfg.errs = append(cfg.errs, fmt.Errorf("WithMaxPolls(%d): negative", n))
		}
		cfg.maxPolls = &n
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

// WithRetryStrategy sets the strategy that tells transient errors from
// fatal ones, for the errors no acceptor matched. The default is
// retry.NewStandard() on the waiter's clock: throttles, timeouts, server
// faults (5xx), refused connections and whatever else it calls retryable
// are transient; an error it does not (AccessDenied, a validation error)
// is fatal and ends the wait at once with [ErrFailure].
//
// The caller's budget rules the wait: a transient error is retried on the
// waiter's schedule, never sooner than the strategy's delay (for the
// standard strategy, never sooner than the service's Retry-After or
// x-amz-retry-after), for as long as the wait's time lasts. The
// strategy's own attempt count (3 for the standard strategy) counts the
// retries of one call, not of a wait: it does not end the wait, nor does
// an empty retry quota, which halves the pace of the polls instead. A
// wait that meets only transient errors until its deadline ends with
// [ErrTimeout], whose chain holds the last error. A service's retry-after
// that would put the next call past the deadline (an hour, with a minute
// left) ends the wait at once with ErrTimeout, saying so (Error.Hint),
// rather than call after the deadline; the strategy's own backoff, when
// longer than the time left, gives way to the final call. To end a wait
// after n transient errors in a row, use [WithTransientLimit].
//
// nil gives the specification's letter: every error no acceptor matched
// is fatal.
func WithRetryStrategy(s retry.Strategy) Option {
	return func(cfg *config) { cfg.strategy, cfg.strategySet = s, true }
}

// WithTransientLimit ends a wait with [ErrFailure] (Error.Failure is
// FailureTransientLimit) when n errors in a row were retried as transient,
// whatever the retry strategy's quota. n must be at least 1. By default
// there is no limit: transient errors are retried until the wait's
// deadline.
func WithTransientLimit(n int) Option {
	return func(cfg *config) {
		if n < 1 {
			cfg.errs = append(cfg.errs, fmt.Errorf("WithTransientLimit(%d): at least 1", n))
		}
		cfg.transientLimit = n
	}
}

// WithMatch adds an acceptor written in Go, tried before every acceptor of
// the definition, in the order given. name
// describes it in events and errors. I and O must be the Waiter's types:
// [New] rejects a WithMatch of other types. A WithMatch with state
// Success counts as the success acceptor the specification requires, so
// a Definition with no acceptors of its own is fine with one.
func WithMatch[I, O any](
	state classify.State,
	name string,
	match func(in I, out O, err error) bool,
) Option {
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

// WithStability makes success stick, for eventually consistent APIs (IAM,
// Route 53, DNS): a wait succeeds only when the success acceptor has
// matched n times in a row and the first of those matches was at least
// over before the last (0: no duration). Any other answer breaks the
// streak. Between the matches of a streak the waiter polls at MinDelay,
// within the budget. Each attempt's Checkpoint keeps the streak
// (Checkpoint.Streak), so a resumed wait goes on with it. n must be at least 1 and over not negative; WithStability(1,
// 0) is the default.
func WithStability(n int, over time.Duration) Option {
	return func(cfg *config) {
		if n < 1 || over < 0 {
			cfg.errs = append(
				cfg.errs,
				fmt.Errorf("WithStability(%d, %v): want n >= 1 and over >= 0", n, over),
			)
		}
		cfg.stableN, cfg.stableFor = n, over
	}
}

// WithNotFoundLimit ends a wait for a resource to appear with
// [ErrFailure] (Error.Failure is FailureNeverAppeared) after n not-found
// answers in a row: an error whose code says NotFound (NotFound,
// ResourceNotFoundException, InvalidInstanceID.NotFound), begins with
// NoSuch (NoSuchBucket), or whose HTTP status is 404, whatever the
// acceptors make of it (FailureDisappeared, if an answer before them
// found the resource). Any other answer breaks the run. For creates that
// may never have happened (terraform's NotFoundChecks); pair it with
// WithStability to ask for the resource found n times in a row. n must be
// at least 1; by default there is no such limit.
func WithNotFoundLimit(n int) Option {
	return func(cfg *config) {
		if n < 1 {
			cfg.errs = append(cfg.errs, fmt.Errorf("WithNotFoundLimit(%d): at least 1", n))
		}
		cfg.notFoundLimit = n
	}
}

// WithIdentity names what identifies the resource in an output (an ARN,
// a UID, a creation time): a JMESPath expression, checked against the
// output type at [New], which must give a string, a number or a timestamp
// (a time.Time, compared as an instant). When its value changes between
// two answers, the
// resource was deleted and created again under the same name, and the
// wait ends with [ErrFailure] (Error.Failure is FailureRecreated), as
// kubectl wait does when a UID changes. An answer without it (an error,
// or a null value) changes nothing.
func WithIdentity(path string) Option {
	return func(cfg *config) {
		if path == "" {
			cfg.errs = append(cfg.errs, errors.New("WithIdentity: the path is empty"))
		}
		cfg.identity = path
	}
}

// WithOnGiveUp calls f when a wait ends because its time ran out or it was
// cancelled, so that it can cancel the remote operation the wait was for
// (a long-running operation's Cancel, a stack's DeleteStack), as
// google-cloud-go's longrunning does. f gets a context of its own, not
// cancelled with the wait's, that ends after timeout (0: 10s), the wait's
// input and its error. The wait's end (Wait's return, a Run's Done) waits
// for f. A panic in f is reported as an observer's is and goes no
// further. I must be the Waiter's input type.
func WithOnGiveUp[I any](
	f func(ctx context.Context, in I, err error),
	timeout time.Duration,
) Option {
	return func(cfg *config) {
		switch {
		case f == nil:
			cfg.errs = append(cfg.errs, errors.New("WithOnGiveUp: function is nil"))
			return
		case timeout < 0:
			cfg.errs = append(cfg.errs, fmt.Errorf("WithOnGiveUp: timeout %v is negative", timeout))
		case timeout == 0:
			timeout = 10 * time.Second
		}
		cfg.giveUp, cfg.giveUpTimeout = f, timeout
	}
}

// WithInitialDelay makes a wait's first call come d after it starts
// (never past the end of its budget), for a resource just created, which
// is rarely ready at once, or a wait that events wake ([Run.Poke] brings
// the first call forward as it does any other). d must not be negative.
func WithInitialDelay(d time.Duration) Option {
	return func(cfg *config) {
		if d < 0 {
			cfg.errs = append(cfg.errs, fmt.Errorf("WithInitialDelay(%v): negative", d))
		}
		cfg.initialDelay = d
	}
}

// WithDelayFunc sets the delay before the next call from the call just
// made: f gets the attempt's number (from 1), its output and its error,
// and returns the delay; 0 or less leaves it to the schedule. Whatever f
// returns, the next call comes no sooner than the service's hint (see
// [WithPollHint]) or the retry strategy's delay, and within the budget: a
// delay that would leave no room for the call is shortened to the final
// call's. f is called after each answer the acceptors judged retry (or
// none matched and the call was polled again) and after each error
// retried as transient; it is not called for the successes of a
// [WithStability] streak, whose confirmations come at MinDelay. O must be
// the Waiter's output type: [New] rejects a WithDelayFunc of another. Delays
// drawn by f are not replayed from a checkpoint unless f is a function of
// its arguments alone.
func WithDelayFunc[O any](f func(attempt int, out O, err error) time.Duration) Option {
	return func(cfg *config) {
		if f == nil {
			cfg.errs = append(cfg.errs, errors.New("WithDelayFunc: function is nil"))
			return
		}
		cfg.delayFn = f
	}
}

// WithPollHint sets how the waiter reads a pending answer's own hint of
// when to poll again (an HTTP 202's Retry-After, a long-running
// operation's poll interval): f returns it, 0 for none. The next call then
// comes no sooner than the hint, unless a poke ([Run.Poke]) brings it
// forward: the event is news the hint could not know. A hint past the
// deadline ends the wait at once with [ErrTimeout] saying so, as a
// retry-after on an error does. By default, an output with a
// RetryAfter() time.Duration method gives its hint. O must be the
// Waiter's output type.
func WithPollHint[O any](f func(out O) time.Duration) Option {
	return func(cfg *config) {
		if f == nil {
			cfg.errs = append(cfg.errs, errors.New("WithPollHint: function is nil"))
			return
		}
		cfg.hintFn = f
	}
}

// WithPollRateLimit makes every call of every wait take a token from lim
// first, waiting for it on the waiter's clock: share one limiter between
// the waiters that poll one API, and thousands of waits stay under its
// limit together. A wait whose next token would come after its deadline
// times out at once. The limiter must allow at least one call (a burst of
// at least 1, or an infinite limit).
func WithPollRateLimit(lim *rate.Limiter) Option {
	return func(cfg *config) {
		switch {
		case lim == nil:
			cfg.errs = append(cfg.errs, errors.New("WithPollRateLimit: limiter is nil"))
		case lim.Limit() != rate.Inf && lim.Burst() < 1:
			cfg.errs = append(
				cfg.errs,
				fmt.Errorf(
					"WithPollRateLimit: burst %d allows no call: it must be at least 1",
					lim.Burst(),
				),
			)
		}
		cfg.limiter = lim
	}
}

// maxEventBuffer is the most unread attempts WithEventBuffer lets a Run
// keep: more is a mistake (each is an Attempt, with its output).
const maxEventBuffer = 4096

// WithEventBuffer sets how many attempts each [Run] of the waiter keeps
// until they are read from [Run.Events]: the Runs of Start and StartFrom,
// of a Group's Go and of a Batch's Add (default 16, at most 4096). With 0
// a Run keeps none: a reader waiting on Events gets each attempt made
// while it waits, and [Run.Missed] counts the others. Code that starts
// many long waits and reads only their results (a Batch of thousands of
// keys, a Run per resource in a service) keeps no attempt with 0; with
// the default, a Run that has polled 16 times holds 16 attempts, with
// their outputs, for as long as the caller holds the Run. Each Run still
// publishes its latest Checkpoint and takes pokes.
func WithEventBuffer(n int) Option {
	return func(cfg *config) {
		if n < 0 || n > maxEventBuffer {
			cfg.errs = append(cfg.errs, fmt.Errorf("WithEventBuffer(%d): not between 0 and %d", n, maxEventBuffer))
		}
		cfg.events = n
	}
}

// WithTelemetry sets how the waiter's waits are observed (see package
// telemetry): OpenTelemetry spans and metrics on the providers it names
// (the zero Settings: OpenTelemetry's global providers, the default), a
// slog.Logger that logs each attempt at Debug and each outcome at Info
// (Warn when the wait did not succeed), further Observers, or nothing
// (Off). An observer that panics is dropped for the rest of the wait, and
// the panic is reported to OpenTelemetry's error handler (otel.Handle); it
// never reaches the wait or the process.
func WithTelemetry(t telemetry.Settings) Option {
	return func(cfg *config) { cfg.telemetry = t }
}

// WithHistory sets where the waiter keeps the durations of its past
// waits, from which each wait estimates the time it has left
// ([Attempt.Estimate]) and, with [WithLearnedSchedule], places its polls
// (see [History]). By default a Waiter keeps its own in memory
// ([NewMemoryHistory]); nil keeps none: no estimate, no learning.
func WithHistory(h History) Option {
	return func(cfg *config) { cfg.history, cfg.historySet = h, true }
}

// WithHistoryKey sets the key under which a wait of in learns from, and
// adds to, the waiter's History, beside the waiter's name: what makes
// waits alike (a region, an instance class, a workload's namespace and
// name). By default every wait of the waiter shares the key "". I must be
// the Waiter's input type.
func WithHistoryKey[I any](key func(in I) string) Option {
	return func(cfg *config) {
		if key == nil {
			cfg.errs = append(cfg.errs, errors.New("WithHistoryKey: function is nil"))
			return
		}
		cfg.keyFn = key
	}
}

// WithProgress reads the share of its work that the service reports done
// in an output (Google's progress percent over 100, a rollout's ready
// replicas over its desired ones, Azure's percentComplete over 100): a
// fraction from 0 to 1, or a negative one when the output says none. The
// estimate of the time left ([Attempt.Estimate]) is then the share not done
// of a whole wait's duration, as the history knows it. O must be the
// Waiter's output type.
func WithProgress[O any](f func(out O) float64) Option {
	return func(cfg *config) {
		if f == nil {
			cfg.errs = append(cfg.errs, errors.New("WithProgress: function is nil"))
			return
		}
		cfg.progressFn = f
	}
}

// WithLearnedSchedule places the polls of each wait where its history
// ([History]) says the end is likely, in place of the Smithy
// specification's delay algorithm (a documented departure from it, as
// WithInitialDelay is): each delay is chosen so that every poll has about
// the same chance (8%) of being the one that sees the end (Munford and
// Shahani's rule, on the distribution of the past waits' durations),
// kept within the waiter's MinDelay and MaxDelay, so that a service that
// became faster is seen at most MaxDelay late, and drawn within ±20%
// (still within them) so that waits started together do not poll
// together. Past what the history
// knows, and with fewer than MinHistory past waits, the delays are the
// Smithy schedule's, exactly. What the wait learnt is frozen in its
// Checkpoint as it begins (Checkpoint.Prior), so a resumed or replayed
// wait makes the same delays. The budget's rules do not change: the final
// call before the deadline, a Retry-After never undercut, pokes,
// WithDelayFunc's delays, the confirmations of WithStability at MinDelay.
func WithLearnedSchedule() Option {
	return func(cfg *config) { cfg.learned = true }
}
