// Package telemetry makes waits and retries visible: an [Observer] is told
// when a wait (or a retried call) starts, when each attempt starts and
// ends, and how it ended, with times from the caller's injected clock.
//
//	w, err := waiter.New(def, op,
//		waiter.WithTracerProvider(tp), waiter.WithMeterProvider(mp), // default: OpenTelemetry's global providers
//		waiter.WithLogger(slog.Default()))                           // a record per attempt
//
// The waiter and retry packages observe through [OTel] by default, on
// OpenTelemetry's global providers: until an application installs an SDK,
// they record nothing, and a wait spends nothing on them (each wait checks,
// as it starts, whether an SDK is there); give them providers of your own (waiter.WithTracerProvider,
// waiter.WithMeterProvider), a [Logger] for one slog record per attempt,
// or any Observer, combined with [Multi].
//
// What OTel records:
//   - a span per wait, "wait <waiter>" (or "retry <strategy>"), of kind
//     internal, with the waiter's name, operation and max wait, and at the
//     end its outcome and attempts; its status is Error unless it
//     succeeded, with the error recorded;
//   - a child span "attempt" per attempt, with its number, the matched
//     acceptor, the resulting state, whether its error was treated as
//     transient, error.type, and for retries the retry-after hint and the
//     bucket's tokens; the operation's context carries it, so that spans the
//     operation starts (an SDK call) nest under it;
//   - the delay before the next attempt, as an event "delay" on the wait's
//     span (the sleep is not a span);
//   - the metrics named by the Metric constants, with low-cardinality
//     attributes only: the waiter's name, the kind, the outcome. Never a
//     resource ID.
//
// What the package deliberately does not do: it takes no Tracer or Meter,
// only providers, so that its instruments are always named after the
// package that observes and the library version; and it does not sample,
// buffer or export: that is the SDK's job.
package telemetry
