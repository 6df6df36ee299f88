package telemetry

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"
)

// version is the library version the tracers and meters are named with.
const version = "0.1.0"

// Wait describes a wait, or a retried call, as it starts.
type Wait struct {
	// Kind is "wait" for a waiter's run, "retry" for retry.Do.
	Kind string
	// Name is the waiter's name (for a retried call, the strategy's).
	Name string
	// Operation is the operation polled or retried, if known.
	Operation string
	// MaxWait is the caller's wait time (0 for a retried call).
	MaxWait time.Duration
}

// Attempt describes one attempt as it ends: the same data a waiter's
// events carry, without the output.
type Attempt struct {
	Number  int
	Start   time.Time
	Latency time.Duration
	Err     error
	// Acceptor is the matched acceptor's index, or -1.
	Acceptor int
	// State is "success", "failure" or "retry".
	State string
	// Transient reports an error retried as transient.
	Transient bool
	// NextDelay is the wait before the next attempt, 0 if none.
	NextDelay time.Duration
	// RetryAfter is the error's retry-after hint (retries only).
	RetryAfter time.Duration
	// Tokens is the retry bucket's level after the attempt, or -1.
	Tokens int
	// Estimated reports that the wait could estimate the time it has left
	// after the attempt, from the waits before it: ETA is the median of
	// that time, ETA10 and ETA90 its 10th and 90th percentiles.
	Estimated         bool
	ETA, ETA10, ETA90 time.Duration
	// Overdue reports a wait that has run longer than 95% of the waits
	// before it.
	Overdue bool
}

// The outcomes of a wait or a retried call, as metrics and spans name them.
const (
	OutcomeSuccess = "success"
	OutcomeFailure = "failure"
	OutcomeTimeout = "timeout"
	// OutcomeMaxPolls: a wait made as many polls as its limit allows
	// (waiter.ErrMaxPolls).
	OutcomeMaxPolls = "max_polls"
	// OutcomeMaxAttempts: a retried call made as many attempts as its
	// strategy allows (retry.ErrMaxAttempts).
	OutcomeMaxAttempts   = "max_attempts"
	OutcomeCancelled     = "cancelled"
	OutcomeQuotaExceeded = "quota_exceeded"
	OutcomeNotRetryable  = "not_retryable"
	OutcomePanic         = "panic"
)

// Outcome describes how a wait or a retried call ended.
type Outcome struct {
	// Outcome is one of the Outcome constants.
	Outcome  string
	Attempts int
	Elapsed  time.Duration
	Err      error
}

// Observer watches waits and retried calls: spans, metrics, logs, or your
// own. The waiter and retry packages call it; times come from their
// injected clock. Implementations are safe for concurrent use.
type Observer interface {
	// StartWait is called as a wait starts. The context it returns is the
	// wait's: attempts start from it. It may return a nil WaitObserver when
	// it has nothing to record for this wait (OpenTelemetry with no SDK
	// installed): the wait's other calls are then skipped.
	StartWait(ctx context.Context, w Wait, start time.Time) (context.Context, WaitObserver)
}

// WaitObserver watches one wait. Its methods are called from the wait's
// goroutine, in order: StartAttempt and EndAttempt for each attempt, then
// EndWait once.
type WaitObserver interface {
	// Recording reports whether the observer uses the times and details
	// of attempts; when it does not, callers may pass zero times and skip
	// the work of details it would ignore (counts are still wanted).
	Recording() bool
	// StartAttempt is called before an attempt; the context it returns is
	// the attempt's, passed to the operation (so that spans the operation
	// starts nest under the attempt's).
	StartAttempt(ctx context.Context, number int, start time.Time) context.Context
	// EndAttempt is called with the attempt's context once the attempt is
	// judged.
	EndAttempt(ctx context.Context, a Attempt, end time.Time)
	// EndWait is called once, as the wait ends.
	EndWait(o Outcome, end time.Time)
}

// Multi returns an Observer that calls each of observers in turn (nil ones
// are skipped).
func Multi(observers ...Observer) Observer {
	var obs []Observer
	for _, o := range observers {
		if o != nil {
			obs = append(obs, o)
		}
	}
	switch len(obs) {
	case 0:
		return nil
	case 1:
		return obs[0]
	}
	return multi(obs)
}

// Settings say how a package that observes (waiter, retry) records its
// waits: its users give them to its WithTelemetry option. The zero value
// is the default: [OTel] on OpenTelemetry's global providers, no logging.
type Settings struct {
	// Scope names the tracer and meter: the observing package's import
	// path. The observing package sets it; its users leave it empty.
	Scope          string
	TracerProvider trace.TracerProvider // nil: the OpenTelemetry global
	MeterProvider  metric.MeterProvider // nil: the OpenTelemetry global
	Logger         *slog.Logger         // nil: no logging; else a [Logger] on it
	Off            bool                 // no OTel spans and metrics (Logger and Extra still observe)
	Extra          []Observer           // observers of the user's own
}

// Observer builds the observer the settings ask for: [OTel] (unless Off),
// the extra observers, then a [Logger]. It returns nil when nothing
// observes.
func (s Settings) Observer() (Observer, error) {
	var obs []Observer
	if !s.Off {
		o, err := OTel(s.Scope, s.TracerProvider, s.MeterProvider)
		if err != nil {
			return nil, err
		}
		obs = append(obs, o)
	}
	obs = append(obs, s.Extra...)
	if s.Logger != nil {
		obs = append(obs, Logger(s.Logger))
	}
	return Multi(obs...), nil
}

type multi []Observer

func (m multi) StartWait(ctx context.Context, w Wait, start time.Time) (context.Context, WaitObserver) {
	ws := make(multiWait, 0, len(m))
	for _, o := range m {
		var wo WaitObserver
		if ctx, wo = o.StartWait(ctx, w, start); wo != nil {
			ws = append(ws, wo)
		}
	}
	if len(ws) == 0 {
		return ctx, nil
	}
	return ctx, ws
}

type multiWait []WaitObserver

func (m multiWait) Recording() bool {
	for _, w := range m {
		if w.Recording() {
			return true
		}
	}
	return false
}

func (m multiWait) StartAttempt(ctx context.Context, n int, start time.Time) context.Context {
	for _, w := range m {
		ctx = w.StartAttempt(ctx, n, start)
	}
	return ctx
}

func (m multiWait) EndAttempt(ctx context.Context, a Attempt, end time.Time) {
	for _, w := range m {
		w.EndAttempt(ctx, a, end)
	}
}

func (m multiWait) EndWait(o Outcome, end time.Time) {
	for _, w := range m {
		w.EndWait(o, end)
	}
}

// Logger returns an Observer that writes one record per attempt at Debug
// and one per outcome at Info (Warn for a failure, timeout or exhaustion),
// with structured fields.
func Logger(l *slog.Logger) Observer { return logObserver{l} }

type logObserver struct{ l *slog.Logger }

type logWait struct {
	l *slog.Logger
	w Wait
}

func (o logObserver) StartWait(ctx context.Context, w Wait, start time.Time) (context.Context, WaitObserver) {
	return ctx, &logWait{l: o.l, w: w}
}

func (lw *logWait) Recording() bool { return lw.l.Enabled(context.Background(), slog.LevelDebug) }

func (lw *logWait) StartAttempt(ctx context.Context, n int, start time.Time) context.Context {
	return ctx
}

func (lw *logWait) EndAttempt(ctx context.Context, a Attempt, end time.Time) {
	if !lw.l.Enabled(ctx, slog.LevelDebug) {
		return
	}
	attrs := []slog.Attr{
		slog.String("kind", lw.w.Kind), slog.String("name", lw.w.Name),
		slog.Int("attempt", a.Number), slog.Duration("latency", a.Latency),
		slog.String("state", a.State), slog.Int("acceptor", a.Acceptor),
		slog.Duration("next_delay", a.NextDelay),
	}
	if a.Err != nil {
		attrs = append(attrs, slog.String("error", a.Err.Error()), slog.Bool("transient", a.Transient))
	}
	if a.Estimated {
		attrs = append(attrs, slog.Duration("eta", a.ETA), slog.Duration("eta_p10", a.ETA10), slog.Duration("eta_p90", a.ETA90))
	}
	if a.Overdue {
		attrs = append(attrs, slog.Bool("overdue", true))
	}
	lw.l.LogAttrs(ctx, slog.LevelDebug, "attempt", attrs...)
}

func (lw *logWait) EndWait(o Outcome, end time.Time) {
	level := slog.LevelInfo
	if o.Outcome != OutcomeSuccess {
		level = slog.LevelWarn
	}
	attrs := []slog.Attr{
		slog.String("kind", lw.w.Kind), slog.String("name", lw.w.Name), slog.String("outcome", o.Outcome),
		slog.Int("attempts", o.Attempts), slog.Duration("elapsed", o.Elapsed),
	}
	if o.Err != nil {
		attrs = append(attrs, slog.String("error", o.Err.Error()))
	}
	lw.l.LogAttrs(context.Background(), level, lw.w.Kind+" ended", attrs...)
}

// ObserverPanic is what a waiter reports when an observer panicked: the
// value and the observer's stack. The waiter drops that observer for the
// rest of the wait; the wait itself goes on. The waiter hands it to
// OpenTelemetry's error handler (otel.Handle, which logs it unless an
// application installed its own).
type ObserverPanic struct {
	Value any
	Stack []byte
}

// Error describes the panic.
func (p *ObserverPanic) Error() string {
	return fmt.Sprintf("telemetry: an observer panicked (it is dropped for the rest of the wait): %v\n\n%s", p.Value, p.Stack)
}
