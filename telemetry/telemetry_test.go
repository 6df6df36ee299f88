package telemetry_test

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"

	"go.opentelemetry.io/otel"
	metricnoop "go.opentelemetry.io/otel/metric/noop"
	"go.opentelemetry.io/otel/trace/noop"
	"go.uber.org/goleak"

	"github.com/waitable/waitable/backoff"
	"github.com/waitable/waitable/classify"
	"github.com/waitable/waitable/clocktest"
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

// script: CREATING, a throttle, ACTIVE; each call takes 100ms.
func scriptedOp() func(context.Context, string) (Output, error) {
	n := 0
	return func(ctx context.Context, name string) (Output, error) {
		time.Sleep(100 * time.Millisecond)
		switch n++; n {
		case 1:
			return Output{"CREATING"}, nil
		case 2:
			return Output{}, throttled{}
		}
		return Output{"ACTIVE"}, nil
	}
}

// TestLogger: one Debug record per attempt, one Info per outcome.
func TestLogger(t *testing.T) {
	clocktest.Run(t, func(t *testing.T) {
		var buf bytes.Buffer
		l := slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug, ReplaceAttr: func(groups []string, a slog.Attr) slog.Attr {
			if a.Key == slog.TimeKey {
				return slog.Attr{}
			}
			return a
		}}))
		w, _ := waiter.New(tableActive, scriptedOp(), waiter.WithTelemetry(telemetry.Settings{Logger: l, Off: true}), waiter.WithJitter(backoff.Low))
		w.Wait(t.Context(), "orders", time.Minute)
		lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
		if len(lines) != 4 || !strings.HasPrefix(lines[0], "level=DEBUG msg=attempt kind=wait name=TableActive attempt=1") ||
			!strings.Contains(lines[1], "error=\"rate exceeded\" transient=true") ||
			!strings.HasPrefix(lines[3], "level=INFO msg=\"wait ended\" kind=wait name=TableActive outcome=success attempts=3 elapsed=4.3s") {
			t.Errorf("log:\n%s", buf.String())
		}
	})
}

// TestNothingToRecord: OpenTelemetry's global providers with no SDK
// installed, or no-op providers, record nothing, so a wait observes
// nothing: StartWait returns no WaitObserver.
func TestNothingToRecord(t *testing.T) {
	for _, tt := range []struct {
		name string
		o    func() (telemetry.Observer, error)
	}{
		{"global, no SDK", func() (telemetry.Observer, error) { return telemetry.OTel("test", nil, nil) }},
		{"no-op providers", func() (telemetry.Observer, error) {
			return telemetry.OTel("test", noop.NewTracerProvider(), metricnoop.NewMeterProvider())
		}},
		{"the global ones, given", func() (telemetry.Observer, error) {
			return telemetry.OTel("test", otel.GetTracerProvider(), otel.GetMeterProvider())
		}},
	} {
		o, err := tt.o()
		if err != nil {
			t.Fatal(err)
		}
		if _, wo := o.StartWait(context.Background(), telemetry.Wait{Kind: "wait", Name: "X"}, time.Now()); wo != nil {
			t.Errorf("%s: StartWait returned a WaitObserver %T, want none", tt.name, wo)
		}
	}
}
