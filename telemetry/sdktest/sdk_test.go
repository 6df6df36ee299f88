package sdktest_test

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"testing"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/noop"
	"go.uber.org/goleak"

	"github.com/waitable/waitable/backoff"
	"github.com/waitable/waitable/classify"
	"github.com/waitable/waitable/clocktest"
	"github.com/waitable/waitable/retry"
	"github.com/waitable/waitable/telemetry"
	"github.com/waitable/waitable/waiter"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

type Output struct{ Status string }

type throttled struct{}

func (throttled) Error() string     { return "rate exceeded" }
func (throttled) ErrorCode() string { return "ThrottlingException" }

var tableActive = waiter.Definition{
	Name:      "TableActive",
	Operation: waiter.Operation{ID: "com.example#DescribeTable"},
	Acceptors: []classify.Acceptor{{State: classify.Success, Matcher: classify.OnOutput("Status", classify.StringEquals, "ACTIVE")}},
}

// script: CREATING, a throttle, ACTIVE; each call takes 100ms and starts a
// span of its own under the attempt's.
func scriptedOp(tp trace.TracerProvider) func(context.Context, string) (Output, error) {
	var mu sync.Mutex
	n := 0
	return func(ctx context.Context, name string) (Output, error) {
		_, span := tp.Tracer("sdk").Start(ctx, "DescribeTable")
		defer span.End()
		time.Sleep(100 * time.Millisecond)
		mu.Lock()
		defer mu.Unlock()
		switch n++; n {
		case 1:
			return Output{"CREATING"}, nil
		case 2:
			return Output{}, throttled{}
		}
		return Output{"ACTIVE"}, nil
	}
}

// The attribute keys of the telemetry package doc's table.
const (
	keyKind      = attribute.Key("waitable.kind")
	keyName      = attribute.Key("waitable.name")
	keyOperation = attribute.Key("waitable.operation")
	keyMaxWait   = attribute.Key("waitable.max_wait")
	keyOutcome   = attribute.Key("waitable.outcome")
	keyAttempts  = attribute.Key("waitable.attempts")
	keyAttempt   = attribute.Key("waitable.attempt")
	keyAcceptor  = attribute.Key("waitable.acceptor")
	keyState     = attribute.Key("waitable.state")
	keyTransient = attribute.Key("waitable.transient")
	keyDelay     = attribute.Key("waitable.delay")
	keyTokens    = attribute.Key("waitable.retry.tokens")
	keyErrorType = attribute.Key("error.type")
)

func attrs(kvs []attribute.KeyValue) map[attribute.Key]attribute.Value {
	m := map[attribute.Key]attribute.Value{}
	for _, kv := range kvs {
		m[kv.Key] = kv.Value
	}
	return m
}

// TestWaitSpansAndMetrics checks the exact span tree, attributes, virtual
// durations and metric points of one wait.
func TestWaitSpansAndMetrics(t *testing.T) {
	clocktest.Run(t, func(t *testing.T) {
		rec := tracetest.NewSpanRecorder()
		tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
		reader := sdkmetric.NewManualReader()
		mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
		defer tp.Shutdown(context.Background())
		defer mp.Shutdown(context.Background())

		w, err := waiter.New(tableActive, scriptedOp(tp), waiter.WithTelemetry(telemetry.Settings{TracerProvider: tp, MeterProvider: mp}), waiter.WithJitter(backoff.Low))
		if err != nil {
			t.Fatal(err)
		}
		ctx, parent := tp.Tracer("caller").Start(t.Context(), "deploy")
		start := time.Now()
		if _, err := w.Wait(ctx, "orders", time.Minute); err != nil {
			t.Fatal(err)
		}
		parent.End()

		spans := rec.Ended()
		byName := map[string][]sdktrace.ReadOnlySpan{}
		for _, s := range spans {
			byName[s.Name()] = append(byName[s.Name()], s)
		}
		if len(byName["wait TableActive"]) != 1 || len(byName["attempt"]) != 3 || len(byName["DescribeTable"]) != 3 {
			t.Fatalf("spans: %d wait, %d attempt, %d operation; want 1, 3, 3", len(byName["wait TableActive"]), len(byName["attempt"]), len(byName["DescribeTable"]))
		}
		wait := byName["wait TableActive"][0]
		if wait.Parent().SpanID() != parent.SpanContext().SpanID() || wait.SpanKind() != trace.SpanKindInternal {
			t.Errorf("the wait span's parent is %v (kind %v), want the caller's span", wait.Parent().SpanID(), wait.SpanKind())
		}
		// Calls at 0, 2.1s, 4.2s, each 100ms: the wait ends at 4.3s.
		if d := wait.EndTime().Sub(wait.StartTime()); d != 4300*time.Millisecond || !wait.StartTime().Equal(start) {
			t.Errorf("wait span lasts %v from %v, want 4.3s from the start", d, wait.StartTime())
		}
		wa := attrs(wait.Attributes())
		if wa[keyKind].AsString() != "wait" || wa[keyName].AsString() != "TableActive" ||
			wa[keyOperation].AsString() != "com.example#DescribeTable" || wa[keyMaxWait].AsFloat64() != 60 ||
			wa[keyOutcome].AsString() != "success" || wa[keyAttempts].AsInt64() != 3 {
			t.Errorf("wait span attributes %v", wait.Attributes())
		}
		if wait.Status().Code == codes.Error {
			t.Errorf("wait span status %v for a success", wait.Status())
		}
		if ev := wait.Events(); len(ev) != 2 || ev[0].Name != "delay" || attrs(ev[0].Attributes)[keyDelay].AsFloat64() != 2 {
			t.Errorf("wait span events %+v, want 2 delays of 2s", ev)
		}
		for i, a := range byName["attempt"] {
			if a.Parent().SpanID() != wait.SpanContext().SpanID() {
				t.Errorf("attempt %d is not a child of the wait", i+1)
			}
			if d := a.EndTime().Sub(a.StartTime()); d != 100*time.Millisecond {
				t.Errorf("attempt %d lasts %v, want 100ms", i+1, d)
			}
			op := byName["DescribeTable"][i]
			if op.Parent().SpanID() != a.SpanContext().SpanID() {
				t.Errorf("the operation's span %d is not a child of its attempt's", i+1)
			}
		}
		second := attrs(byName["attempt"][1].Attributes())
		if second[keyAttempt].AsInt64() != 2 || !second[keyTransient].AsBool() || second[keyErrorType].AsString() != "ThrottlingException" ||
			second[keyState].AsString() != "retry" || second[keyAcceptor].AsInt64() != -1 || byName["attempt"][1].Status().Code != codes.Error {
			t.Errorf("attempt 2 attributes %v, status %v", byName["attempt"][1].Attributes(), byName["attempt"][1].Status())
		}
		third := attrs(byName["attempt"][2].Attributes())
		if third[keyState].AsString() != "success" || third[keyAcceptor].AsInt64() != 0 {
			t.Errorf("attempt 3 attributes %v", byName["attempt"][2].Attributes())
		}

		var rm metricdata.ResourceMetrics
		if err := reader.Collect(context.Background(), &rm); err != nil {
			t.Fatal(err)
		}
		got := map[string]string{}
		for _, sm := range rm.ScopeMetrics {
			if sm.Scope.Name != "github.com/waitable/waitable/waiter" || sm.Scope.Version == "" ||
				sm.Scope.Version != wait.InstrumentationScope().Version {
				t.Errorf("metrics' scope %+v, want the waiter's at the version of its spans' scope %+v",
					sm.Scope, wait.InstrumentationScope())
			}
			for _, m := range sm.Metrics {
				switch d := m.Data.(type) {
				case metricdata.Sum[int64]:
					for _, p := range d.DataPoints {
						o, _ := p.Attributes.Value(keyOutcome)
						got[m.Name+"/"+o.AsString()] = fmtInt(p.Value)
					}
				case metricdata.Histogram[float64]:
					for _, p := range d.DataPoints {
						got[m.Name] = fmtInt(int64(p.Count)) + " " + fmtFloat(p.Sum)
					}
				case metricdata.Histogram[int64]:
					for _, p := range d.DataPoints {
						got[m.Name] = fmtInt(int64(p.Count)) + " " + fmtInt(p.Sum)
					}
				}
			}
		}
		want := map[string]string{
			"waitable.attempts/retry": "1", "waitable.attempts/transient": "1", "waitable.attempts/success": "1",
			"waitable.wait.duration": "1 4.3", "waitable.wait.attempts": "1 3",
		}
		for k, v := range want {
			if got[k] != v {
				t.Errorf("metric %s = %q, want %q (all: %v)", k, got[k], v, got)
			}
		}
	})
}

func fmtInt(v int64) string     { return strconv.FormatInt(v, 10) }
func fmtFloat(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

// TestRetrySpans: retry.Do records a span per call and one per attempt,
// with the bucket's tokens, on a tracer named after package retry whatever
// Scope the Settings say.
func TestRetrySpans(t *testing.T) {
	clocktest.Run(t, func(t *testing.T) {
		rec := tracetest.NewSpanRecorder()
		tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
		defer tp.Shutdown(context.Background())
		s, _ := retry.NewStandard(retry.WithTelemetry(telemetry.Settings{TracerProvider: tp, Scope: "ignored"}),
			retry.WithClock(clocktest.Clock()), retry.WithJitter(backoff.High))
		calls := 0
		_, err := retry.Do(t.Context(), s, func(ctx context.Context) (int, error) {
			if calls++; calls == 1 {
				return 0, throttled{}
			}
			return 1, nil
		})
		if err != nil {
			t.Fatal(err)
		}
		spans := rec.Ended()
		if len(spans) != 3 || spans[2].Name() != "retry standard" {
			t.Fatalf("%d spans, last %q", len(spans), spans[len(spans)-1].Name())
		}
		first := attrs(spans[0].Attributes())
		if first[keyTokens].AsInt64() != 495 || !first[keyTransient].AsBool() {
			t.Errorf("attempt 1 attributes %v", spans[0].Attributes())
		}
		if d := spans[2].EndTime().Sub(spans[2].StartTime()); d != time.Second {
			t.Errorf("retry span lasts %v, want the 1s throttle backoff", d)
		}
		call := attrs(spans[2].Attributes())
		if call[keyKind].AsString() != "retry" || call[keyName].AsString() != "standard" ||
			call[keyOutcome].AsString() != "success" || call[keyAttempts].AsInt64() != 2 {
			t.Errorf("retry span attributes %v", spans[2].Attributes())
		}
		if scope := spans[2].InstrumentationScope().Name; scope != "github.com/waitable/waitable/retry" {
			t.Errorf("retry span's scope %q, want package retry's", scope)
		}
	})
}

// TestRetryTelemetryOff: with Off, retry.Do records no span, even on a
// provider of one's own.
func TestRetryTelemetryOff(t *testing.T) {
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	defer tp.Shutdown(context.Background())
	s, _ := retry.NewStandard(retry.WithTelemetry(telemetry.Settings{TracerProvider: tp, Off: true}))
	retry.Do(context.Background(), s, func(context.Context) (int, error) { return 1, nil })
	if n := len(rec.Ended()); n != 0 {
		t.Errorf("%d spans recorded with telemetry off, want none", n)
	}
}

// TestRetryQuotaMetric: a retried call refused for an empty retry quota
// counts in waitable.retry.quota_exhausted, by outcome.
func TestRetryQuotaMetric(t *testing.T) {
	reader := sdkmetric.NewManualReader()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	defer mp.Shutdown(context.Background())
	s, _ := retry.NewStandard(retry.WithTelemetry(telemetry.Settings{MeterProvider: mp}),
		retry.WithTokenBucket(retry.NewTokenBucket(0)))
	_, err := retry.Do(context.Background(), s, func(context.Context) (int, error) { return 0, throttled{} })
	if !errors.Is(err, retry.ErrQuotaExceeded) {
		t.Fatalf("Do = %v, want ErrQuotaExceeded", err)
	}
	var rm metricdata.ResourceMetrics
	if err := reader.Collect(context.Background(), &rm); err != nil {
		t.Fatal(err)
	}
	got := ""
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			if sum, ok := m.Data.(metricdata.Sum[int64]); ok && m.Name == "waitable.retry.quota_exhausted" {
				for _, p := range sum.DataPoints {
					o, _ := p.Attributes.Value(keyOutcome)
					k, _ := p.Attributes.Value(keyKind)
					got += fmt.Sprintf("%s/%s=%d ", k.AsString(), o.AsString(), p.Value)
				}
			}
		}
	}
	if got != "retry/quota_exceeded=1 " {
		t.Errorf("waitable.retry.quota_exhausted: %q, want one retry call with outcome quota_exceeded", got)
	}
}

// TestSDKInstalledLater: a waiter built with the global providers before
// an application installs the SDK records spans once it is installed.
// (The global provider can be set once per process: this test is the only
// one here that sets it.)
func TestSDKInstalledLater(t *testing.T) {
	clocktest.Run(t, func(t *testing.T) {
		w, err := waiter.New(tableActive, scriptedOp(noop.NewTracerProvider()), waiter.WithJitter(backoff.Low))
		if err != nil {
			t.Fatal(err)
		}
		rec := tracetest.NewSpanRecorder()
		tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
		defer tp.Shutdown(context.Background())
		otel.SetTracerProvider(tp)
		if _, err := w.Wait(t.Context(), "orders", time.Minute); err != nil {
			t.Fatal(err)
		}
		if n := len(rec.Ended()); n != 4 { // three attempts, one wait
			t.Errorf("%d spans recorded, want 4", n)
		}
	})
}

// TestWaitLinksToTheStartingCall: a wait started under
// telemetry.ContextWithLink links its span to the span of the call that
// started the operation.
func TestWaitLinksToTheStartingCall(t *testing.T) {
	clocktest.Run(t, func(t *testing.T) {
		rec := tracetest.NewSpanRecorder()
		tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
		defer tp.Shutdown(context.Background())
		_, create := tp.Tracer("caller").Start(t.Context(), "CreateTable")
		create.End()
		w, err := waiter.New(tableActive, scriptedOp(tp), waiter.WithTelemetry(telemetry.Settings{TracerProvider: tp}), waiter.WithJitter(backoff.Low))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Wait(telemetry.ContextWithLink(t.Context(), create.SpanContext()), "orders", time.Minute); err != nil {
			t.Fatal(err)
		}
		for _, s := range rec.Ended() {
			if s.Name() != "wait TableActive" {
				continue
			}
			if l := s.Links(); len(l) != 1 || l[0].SpanContext.SpanID() != create.SpanContext().SpanID() {
				t.Errorf("the wait span's links %v, want the CreateTable span", l)
			}
			return
		}
		t.Error("no wait span")
	})
}

// TestWaitSpansCarryTheEstimate: once a waiter has waited four times,
// each attempt's span says the estimate of the time left
// (waitable.eta, .p10, .p90, in seconds, in order), and a wait slower than
// every one before it says it is overdue, on its attempt and its own span.
func TestWaitSpansCarryTheEstimate(t *testing.T) {
	clocktest.Run(t, func(t *testing.T) {
		rec := tracetest.NewSpanRecorder()
		tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
		defer tp.Shutdown(context.Background())
		var readyAt time.Time
		op := func(context.Context, string) (Output, error) {
			if time.Now().Before(readyAt) {
				return Output{"CREATING"}, nil
			}
			return Output{"ACTIVE"}, nil
		}
		w, err := waiter.New(tableActive, op, waiter.WithTelemetry(telemetry.Settings{TracerProvider: tp, Off: false}),
			waiter.WithDelays(time.Second, 4*time.Second), waiter.WithJitter(backoff.Low))
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range []time.Duration{10, 11, 10, 12, 30} {
			readyAt = time.Now().Add(d * time.Second)
			if _, err := w.Wait(t.Context(), "orders", time.Minute); err != nil {
				t.Fatal(err)
			}
		}
		var waits []sdktrace.ReadOnlySpan
		var last, cur []map[attribute.Key]attribute.Value // the last wait's attempts; those of the wait that ends next
		for _, s := range rec.Ended() {
			switch s.Name() {
			case "wait TableActive": // it ends after its attempts
				waits, last, cur = append(waits, s), cur, nil
			case "attempt":
				cur = append(cur, attrs(s.Attributes()))
			}
		}
		eta, overdue := 0, 0
		for _, a := range last {
			if v, ok := a[attribute.Key("waitable.eta")]; ok {
				eta++
				p10, p90 := a[attribute.Key("waitable.eta.p10")].AsFloat64(), a[attribute.Key("waitable.eta.p90")].AsFloat64()
				if !(p10 <= v.AsFloat64() && v.AsFloat64() <= p90) {
					t.Errorf("an attempt's estimate p10 %v, p50 %v, p90 %v: out of order", p10, v.AsFloat64(), p90)
				}
			}
			if a[attribute.Key("waitable.overdue")].AsBool() {
				overdue++
			}
		}
		if eta == 0 || overdue == 0 || !attrs(waits[len(waits)-1].Attributes())[attribute.Key("waitable.overdue")].AsBool() {
			t.Errorf("the fifth wait's attempts: %d with an estimate, %d overdue, its span overdue %v; want some of each",
				eta, overdue, attrs(waits[len(waits)-1].Attributes())[attribute.Key("waitable.overdue")].AsBool())
		}
	})
}
