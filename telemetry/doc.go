// Package telemetry makes waits and retries visible: an [Observer] is told
// when a wait (or a retried call) starts, when each attempt starts and
// ends, and how it ended, with times from the caller's injected clock.
//
//	s, err := retry.NewStandard(retry.WithTelemetry(telemetry.Settings{
//		TracerProvider: tp, MeterProvider: mp, // nil: OpenTelemetry's global providers
//		Logger:         slog.Default(),        // a record per attempt
//	}))
//
// The waiter and retry packages observe through [OTel] by default, on
// OpenTelemetry's global providers: until an application installs an SDK,
// they record nothing, and a wait spends nothing on them (each wait checks,
// as it starts, whether an SDK is there). Their WithTelemetry option takes
// [Settings]: providers of your own, a [Logger] for one slog record per
// attempt, observers of your own (any Observer; [Multi] combines them), or
// no spans and metrics at all.
//
// What OTel records:
//   - a span per wait, "wait <waiter>" (or "retry <strategy>"), of kind
//     internal; its status is Error unless it succeeded, with the error
//     recorded;
//   - a child span "attempt" per attempt; the operation's context carries
//     it, so that spans the operation starts (an SDK call) nest under it;
//     an attempt that failed has status Error, with the error recorded;
//   - the delay before the next attempt, as an event "delay" on the wait's
//     span (the sleep is not a span);
//   - the four metrics below, with low-cardinality attributes only:
//     waitable.name, waitable.kind, waitable.outcome. Never a resource ID.
//
// # Attributes
//
// On the wait's span (wait), the attempt's span (attempt) and the delay
// event (delay); times are in seconds:
//
//	key                    type    on              value
//	waitable.kind          string  wait, metrics   "wait" (a waiter's run), "retry" (retry.Do)
//	waitable.name          string  wait, metrics   the waiter's name, or the retry strategy's
//	waitable.operation     string  wait            the operation polled, if known
//	waitable.max_wait      float   wait            the caller's wait time (waits only)
//	waitable.outcome       string  wait, metrics   how it ended: one of the Outcome constants
//	waitable.attempts      int     wait            the attempts made, set at the end
//	waitable.attempt       int     attempt, delay  the attempt's number (1 is the first call)
//	waitable.acceptor      int     attempt         the matched acceptor's index, -1 if none
//	waitable.state         string  attempt         "success", "failure" or "retry"
//	waitable.transient     bool    attempt         whether its error was retried as transient
//	waitable.retry_after   float   attempt         the error's retry-after hint (retries, if any)
//	waitable.retry.tokens  int     attempt         the retry bucket's tokens after it (retries)
//	error.type             string  attempt         the error's code, else its Go type
//	waitable.delay         float   delay           the wait before the next attempt
//	waitable.eta           float   attempt         the median of the time the wait has left, if estimated
//	waitable.eta.p10       float   attempt         its 10th percentile
//	waitable.eta.p90       float   attempt         its 90th percentile
//	waitable.overdue       bool    wait, attempt   true once the wait has run longer than 95% of those before it
//
// # Metrics
//
// Every metric has the attributes waitable.name, waitable.kind and
// waitable.outcome: for waitable.attempts the attempt's state, or
// "transient" for an error retried as transient; for the others how the
// wait or retried call ended.
//
//	name                            instrument         unit       what
//	waitable.wait.duration          float64 histogram  s          a wait's time, start to end
//	waitable.wait.attempts          int64 histogram    {attempt}  a wait's attempts
//	waitable.attempts               int64 counter      {attempt}  attempts
//	waitable.retry.quota_exhausted  int64 counter      {call}     calls refused for an empty quota
//
// (A retried call counts as a wait here.)
//
// What the package deliberately does not do: it takes no Tracer or Meter,
// only providers, so that its instruments are always named after the
// package that observes and the library version; and it does not sample,
// buffer or export: that is the SDK's job.
package telemetry
