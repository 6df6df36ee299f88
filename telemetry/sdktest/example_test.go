package sdktest_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"time"

	"go.opentelemetry.io/otel/exporters/stdout/stdouttrace"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/waitable/waitable/telemetry"
	"github.com/waitable/waitable/waiter"
)

// A wait's spans, exported with OpenTelemetry's stdout exporter. The
// example prints only each span's name, parent and attribute count from
// the JSON the exporter writes; a real program would print it all. (The
// 1ms delays only keep the example fast.)
func ExampleOTel() {
	var out bytes.Buffer
	exp, _ := stdouttrace.New(stdouttrace.WithWriter(&out))
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp))

	calls := 0
	op := func(ctx context.Context, name string) (Output, error) {
		if calls++; calls < 3 {
			return Output{"CREATING"}, nil
		}
		return Output{"ACTIVE"}, nil
	}
	wt, _ := waiter.New(tableActive, op, waiter.WithTelemetry(telemetry.Settings{TracerProvider: tp}), waiter.WithDelays(time.Millisecond, time.Millisecond))
	wt.Wait(context.Background(), "orders", time.Minute)
	tp.Shutdown(context.Background())

	dec := json.NewDecoder(&out)
	for {
		var span struct {
			Name       string
			Parent     struct{ SpanID string }
			Attributes []struct{ Key string }
			Events     []struct{ Name string }
		}
		if dec.Decode(&span) != nil {
			break
		}
		parent := "caller"
		if span.Parent.SpanID != "0000000000000000" {
			parent = "wait"
		}
		fmt.Printf("%-16s parent=%-6s %d attributes, %d events\n", span.Name, parent, len(span.Attributes), len(span.Events))
	}
	// Output:
	// attempt          parent=wait   4 attributes, 0 events
	// attempt          parent=wait   4 attributes, 0 events
	// attempt          parent=wait   4 attributes, 0 events
	// wait TableActive parent=caller 6 attributes, 2 events
}

// Link a wait's span to the span of the call that started the operation
// it waits for, so that a trace shows what the wait was for.
func ExampleContextWithLink() {
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	_, create := tp.Tracer("deploy").Start(context.Background(), "CreateTable")
	create.End()

	op := func(ctx context.Context, name string) (Output, error) { return Output{"ACTIVE"}, nil }
	wt, _ := waiter.New(tableActive, op, waiter.WithTelemetry(telemetry.Settings{TracerProvider: tp}))
	wt.Wait(telemetry.ContextWithLink(context.Background(), create.SpanContext()), "orders", time.Minute)

	for _, s := range rec.Ended() {
		if len(s.Links()) > 0 {
			fmt.Println(s.Name(), "links to the CreateTable span:", s.Links()[0].SpanContext.SpanID() == create.SpanContext().SpanID())
		}
	}
	// Output:
	// wait TableActive links to the CreateTable span: true
}
