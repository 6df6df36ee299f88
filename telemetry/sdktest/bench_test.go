package sdktest_test

import (
	"context"
	"testing"
	"time"

	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/waitable/waitable/telemetry"
	"github.com/waitable/waitable/waiter"
)

// BenchmarkPollTelemetry is a waiter run of 11 polls (1ns delays) with
// telemetry off, with the default (OpenTelemetry's global providers, no
// SDK installed), and with the SDK recording every span into memory and
// every metric into a manual reader.
func BenchmarkPollTelemetry(b *testing.B) {
	run := func(b *testing.B, opts ...waiter.Option) {
		n := 0
		op := func(context.Context, string) (Output, error) {
			if n++; n%11 != 0 {
				return Output{"CREATING"}, nil
			}
			return Output{"ACTIVE"}, nil
		}
		w, err := waiter.New(tableActive, op, append(opts, waiter.WithDelays(time.Nanosecond, time.Nanosecond))...)
		if err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		for b.Loop() {
			if _, err := w.Wait(context.Background(), "orders", time.Hour); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.Run("telemetry=off", func(b *testing.B) { run(b, waiter.WithTelemetry(telemetry.Settings{Off: true})) })
	b.Run("telemetry=global-no-sdk", func(b *testing.B) { run(b) })
	b.Run("telemetry=sdk", func(b *testing.B) {
		exp := tracetest.NewInMemoryExporter()
		tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp))
		mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewManualReader()))
		b.Cleanup(func() {
			tp.Shutdown(context.Background())
			mp.Shutdown(context.Background())
		})
		run(b, waiter.WithTelemetry(telemetry.Settings{TracerProvider: tp, MeterProvider: mp}))
		exp.Reset()
	})
}
