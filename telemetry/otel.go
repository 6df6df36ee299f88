package telemetry

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"sync"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"
)

// The attribute keys and metric names: the package doc's table says what
// each means, and a test holds the table to these values.
const (
	attrName       = attribute.Key("waitable.name")
	attrKind       = attribute.Key("waitable.kind")
	attrOperation  = attribute.Key("waitable.operation")
	attrMaxWait    = attribute.Key("waitable.max_wait")
	attrOutcome    = attribute.Key("waitable.outcome")
	attrAttempts   = attribute.Key("waitable.attempts")
	attrAttempt    = attribute.Key("waitable.attempt")
	attrAcceptor   = attribute.Key("waitable.acceptor")
	attrState      = attribute.Key("waitable.state")
	attrTransient  = attribute.Key("waitable.transient")
	attrDelay      = attribute.Key("waitable.delay")
	attrRetryAfter = attribute.Key("waitable.retry_after")
	attrTokens     = attribute.Key("waitable.retry.tokens")
	attrErrorType  = attribute.Key("error.type")
	attrETA        = attribute.Key("waitable.eta")
	attrETA10      = attribute.Key("waitable.eta.p10")
	attrETA90      = attribute.Key("waitable.eta.p90")
	attrOverdue    = attribute.Key("waitable.overdue")

	metricWaitDuration   = "waitable.wait.duration"
	metricWaitAttempts   = "waitable.wait.attempts"
	metricAttempts       = "waitable.attempts"
	metricQuotaExhausted = "waitable.retry.quota_exhausted"
)

// otelObserver records spans and metrics through OpenTelemetry.
type otelObserver struct {
	tp          trace.TracerProvider // as given: nil is the global one
	mp          metric.MeterProvider // likewise
	tracer      trace.Tracer
	duration    metric.Float64Histogram
	attempts    metric.Int64Histogram
	perAttempt  metric.Int64Counter
	quota       metric.Int64Counter
	attrSets    sync.Map // attrKey → *nameOpts
	errorTypeFn func(error) string
}

type attrKey struct{ kind, name string }

// OTel returns an Observer that records, through OpenTelemetry, a span per
// wait (SpanKindInternal, named "wait <name>" or "retry <name>") with a
// child span per attempt, the delay before each next attempt as an event on
// the wait's span, and the metrics of the package doc's table. The tracer
// and meter are named scope (the import path of the package that observes)
// at the library's version. A nil provider means OpenTelemetry's global
// one, which costs almost nothing until an SDK is installed.
func OTel(scope string, tp trace.TracerProvider, mp metric.MeterProvider) (Observer, error) {
	given, givenMP := tp, mp
	if tp == nil {
		tp = otel.GetTracerProvider()
	}
	if mp == nil {
		mp = otel.GetMeterProvider()
	}
	meter := mp.Meter(scope, metric.WithInstrumentationVersion(version))
	o := &otelObserver{tp: given, mp: givenMP, errorTypeFn: errorType,
		tracer: tp.Tracer(scope, trace.WithInstrumentationVersion(version))}
	var err, e error
	o.duration, e = meter.Float64Histogram(metricWaitDuration, metric.WithUnit("s"),
		metric.WithDescription("Time from the start to the end of a wait or a retried call."))
	err = errors.Join(err, e)
	o.attempts, e = meter.Int64Histogram(metricWaitAttempts, metric.WithUnit("{attempt}"),
		metric.WithDescription("Attempts made by a wait or a retried call."))
	err = errors.Join(err, e)
	o.perAttempt, e = meter.Int64Counter(metricAttempts, metric.WithUnit("{attempt}"),
		metric.WithDescription("Attempts, by outcome: success, failure, retry, transient."))
	err = errors.Join(err, e)
	o.quota, e = meter.Int64Counter(metricQuotaExhausted, metric.WithUnit("{call}"),
		metric.WithDescription("Retried calls refused because the retry quota was exhausted."))
	err = errors.Join(err, e)
	if err != nil {
		return nil, fmt.Errorf("telemetry: creating instruments: %w", err)
	}
	return o, nil
}

// measureOpts are the options of a measurement with one attribute set, as
// slices built once, so that recording allocates nothing.
type measureOpts struct {
	add    []metric.AddOption
	record []metric.RecordOption
}

// nameOpts is what one (kind, name) needs, built once: its span name and
// the measurement options of every outcome.
type nameOpts struct {
	span     string
	outcomes map[string]*measureOpts // read-only once built
	quiet    *otelWait               // the metrics-only observer of every wait of this name
}

var allOutcomes = []string{
	OutcomeSuccess, OutcomeFailure, OutcomeTimeout, OutcomeMaxPolls, OutcomeMaxAttempts, OutcomeCancelled,
	OutcomeQuotaExceeded, OutcomeNotRetryable, OutcomePanic, "retry", "transient",
}

// names returns the options of a (kind, name).
func (o *otelObserver) names(kind, name string) *nameOpts {
	k := attrKey{kind: kind, name: name}
	if v, ok := o.attrSets.Load(k); ok {
		return v.(*nameOpts)
	}
	n := &nameOpts{span: kind + " " + name, outcomes: make(map[string]*measureOpts, len(allOutcomes))}
	for _, out := range allOutcomes {
		opt := metric.WithAttributeSet(attribute.NewSet(
			attrKind.String(kind), attrName.String(name), attrOutcome.String(out)))
		n.outcomes[out] = &measureOpts{add: []metric.AddOption{opt}, record: []metric.RecordOption{opt}}
	}
	n.quiet = &otelWait{o: o, w: Wait{Kind: kind, Name: name}, n: n, ctx: context.Background(), span: trace.SpanFromContext(context.Background())}
	v, _ := o.attrSets.LoadOrStore(k, n)
	return v.(*nameOpts)
}

// tracing reports whether spans can record: not while the provider is
// OpenTelemetry's global one with no SDK installed, nor a no-op provider.
// Without it a wait allocates nothing for telemetry: its metrics go to
// instruments that drop them until an SDK is installed.
func (o *otelObserver) tracing() bool {
	tp := o.tp
	if tp == nil || isGlobalDefault(tp) {
		tp = otel.GetTracerProvider() // the SDK's, once one is installed
	}
	return !isNoop(tp)
}

// metering reports whether metrics can be recorded: not while the meter
// provider is OpenTelemetry's global one with no SDK installed, nor a
// no-op provider.
func (o *otelObserver) metering() bool {
	mp := o.mp
	if mp == nil || isGlobalDefault(mp) {
		mp = otel.GetMeterProvider()
	}
	return !isNoop(mp)
}

var noopProviders sync.Map // reflect.Type → bool

// isNoop reports a provider whose spans never record: the global default
// before an SDK is installed, or the noop packages'.
func isNoop(provider any) bool {
	t := reflect.TypeOf(provider)
	if v, ok := noopProviders.Load(t); ok {
		return v.(bool)
	}
	p := pkgPath(t)
	noop := p == "go.opentelemetry.io/otel/internal/global" || p == "go.opentelemetry.io/otel/trace/noop" || p == "go.opentelemetry.io/otel/metric/noop"
	noopProviders.Store(t, noop)
	return noop
}

func isGlobalDefault(provider any) bool {
	return pkgPath(reflect.TypeOf(provider)) == "go.opentelemetry.io/otel/internal/global"
}

func pkgPath(t reflect.Type) string {
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == nil {
		return ""
	}
	return t.PkgPath()
}

// opts returns the measurement options of an outcome (built on the spot
// for an outcome outside the known set).
func (n *nameOpts) opts(kind, name, outcome string) *measureOpts {
	if m, ok := n.outcomes[outcome]; ok {
		return m
	}
	opt := metric.WithAttributeSet(attribute.NewSet(
		attrKind.String(kind), attrName.String(name), attrOutcome.String(outcome)))
	return &measureOpts{add: []metric.AddOption{opt}, record: []metric.RecordOption{opt}}
}

type otelWait struct {
	o       *otelObserver
	w       Wait
	n       *nameOpts
	ctx     context.Context
	span    trace.Span
	attempt trace.Span
	overdue bool // the wait's span says so
}

func (o *otelObserver) StartWait(ctx context.Context, w Wait, start time.Time) (context.Context, WaitObserver) {
	if !o.tracing() {
		if !o.metering() {
			return ctx, nil // no SDK installed: nothing would be recorded
		}
		return ctx, o.names(w.Kind, w.Name).quiet
	}
	n := o.names(w.Kind, w.Name)
	opts := []trace.SpanStartOption{trace.WithSpanKind(trace.SpanKindInternal), trace.WithTimestamp(start)}
	if sc, ok := ctx.Value(linkKey{}).(trace.SpanContext); ok && sc.IsValid() {
		opts = append(opts, trace.WithLinks(trace.Link{SpanContext: sc}))
	}
	ctx, span := o.tracer.Start(ctx, n.span, opts...)
	if span.IsRecording() {
		span.SetAttributes(attrKind.String(w.Kind), attrName.String(w.Name))
		if w.Operation != "" {
			span.SetAttributes(attrOperation.String(w.Operation))
		}
		if w.MaxWait > 0 {
			span.SetAttributes(attrMaxWait.Float64(w.MaxWait.Seconds()))
		}
	}
	return ctx, &otelWait{o: o, w: w, n: n, ctx: ctx, span: span}
}

// Recording reports whether the wait's span records.
func (ow *otelWait) Recording() bool { return ow.span.IsRecording() }

func (ow *otelWait) StartAttempt(ctx context.Context, n int, start time.Time) context.Context {
	if !ow.span.IsRecording() {
		return ctx
	}
	ctx, ow.attempt = ow.o.tracer.Start(ctx, "attempt", trace.WithSpanKind(trace.SpanKindInternal), trace.WithTimestamp(start),
		trace.WithAttributes(attrAttempt.Int(n)))
	return ctx
}

func (ow *otelWait) EndAttempt(ctx context.Context, a Attempt, end time.Time) {
	outcome := a.State
	if a.Transient {
		outcome = "transient"
	}
	ow.o.perAttempt.Add(ctx, 1, ow.n.opts(ow.w.Kind, ow.w.Name, outcome).add...)
	if s := ow.attempt; s != nil {
		s.SetAttributes(attrAcceptor.Int(a.Acceptor), attrState.String(a.State),
			attrTransient.Bool(a.Transient))
		if a.RetryAfter > 0 {
			s.SetAttributes(attrRetryAfter.Float64(a.RetryAfter.Seconds()))
		}
		if a.Tokens >= 0 {
			s.SetAttributes(attrTokens.Int(a.Tokens))
		}
		if a.Estimated {
			s.SetAttributes(attrETA.Float64(a.ETA.Seconds()), attrETA10.Float64(a.ETA10.Seconds()),
				attrETA90.Float64(a.ETA90.Seconds()))
		}
		if a.Overdue {
			s.SetAttributes(attrOverdue.Bool(true))
		}
		if a.Err != nil {
			s.SetAttributes(attrErrorType.String(ow.o.errorTypeFn(a.Err)))
			s.RecordError(a.Err, trace.WithTimestamp(end))
			s.SetStatus(codes.Error, a.Err.Error())
		}
		s.End(trace.WithTimestamp(end))
		ow.attempt = nil
	}
	if a.Overdue && !ow.overdue && ow.span.IsRecording() {
		ow.overdue = true
		ow.span.SetAttributes(attrOverdue.Bool(true))
	}
	if a.NextDelay > 0 && ow.span.IsRecording() {
		ow.span.AddEvent("delay", trace.WithTimestamp(end),
			trace.WithAttributes(attrAttempt.Int(a.Number),
				attrDelay.Float64(a.NextDelay.Seconds())))
	}
}

func (ow *otelWait) EndWait(o Outcome, end time.Time) {
	opts := ow.n.opts(ow.w.Kind, ow.w.Name, o.Outcome)
	ow.o.duration.Record(ow.ctx, o.Elapsed.Seconds(), opts.record...)
	ow.o.attempts.Record(ow.ctx, int64(o.Attempts), opts.record...)
	if o.Outcome == OutcomeQuotaExceeded {
		ow.o.quota.Add(ow.ctx, 1, opts.add...)
	}
	if s := ow.attempt; s != nil { // an attempt that panicked
		s.End(trace.WithTimestamp(end))
	}
	if !ow.span.IsRecording() {
		return
	}
	ow.span.SetAttributes(attrOutcome.String(o.Outcome), attrAttempts.Int(o.Attempts))
	if o.Outcome != OutcomeSuccess {
		if o.Err != nil {
			ow.span.RecordError(o.Err, trace.WithTimestamp(end))
		}
		ow.span.SetStatus(codes.Error, o.Outcome)
	}
	ow.span.End(trace.WithTimestamp(end))
}

// errorType names an error for the error.type attribute, with low
// cardinality: the ErrorCode() of the first error on its chain that has
// one (what AWS SDK errors carry), else the Go type of the innermost error
// that is not a wrapper of another.
func errorType(err error) string {
	if err == nil {
		return ""
	}
	var coded interface{ ErrorCode() string }
	if errors.As(err, &coded) {
		if c := coded.ErrorCode(); c != "" {
			return c
		}
	}
	for {
		u, ok := err.(interface{ Unwrap() error })
		if !ok || u.Unwrap() == nil {
			return fmt.Sprintf("%T", err)
		}
		err = u.Unwrap()
	}
}

// linkKey is the context key of ContextWithLink's span.
type linkKey struct{}

// ContextWithLink returns ctx carrying sc, the span of the call that
// started the operation a wait waits for (a CreateCluster's, say): the
// span of a wait started under the returned context links to it, so that
// a trace shows what the wait was for, as google-cloud-go's longrunning
// does. An invalid sc links nothing.
func ContextWithLink(ctx context.Context, sc trace.SpanContext) context.Context {
	return context.WithValue(ctx, linkKey{}, sc)
}
