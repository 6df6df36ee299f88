// Command tracing shows the OpenTelemetry spans of one wait: the wait's
// span, a child per attempt, and under each attempt the span the operation
// itself starts (as an SDK call would). It prints the span tree, and with
// -json the stdout exporter's full output.
//
//	go run ./examples/tracing
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"go.opentelemetry.io/otel/exporters/stdout/stdouttrace"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"

	"github.com/waitable/waitable/classify"
	"github.com/waitable/waitable/telemetry"
	"github.com/waitable/waitable/waiter"
)

type DescribeStreamOutput struct{ StreamStatus string }

var streamActive = waiter.Definition{
	Name:      "StreamActive",
	Operation: waiter.Operation{ID: "com.amazonaws.kinesis#DescribeStream"},
	Acceptors: []classify.Acceptor{{State: classify.Success, Matcher: classify.OnOutput("StreamStatus", classify.StringEquals, "ACTIVE")}},
}

func main() {
	raw := flag.Bool("json", false, "print the stdout exporter's JSON")
	flag.Parse()
	if err := run(context.Background(), os.Stdout, *raw); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

type span struct {
	Name        string
	SpanContext struct{ SpanID string }
	Parent      struct{ SpanID string }
	StartTime   time.Time
	EndTime     time.Time
	Attributes  []struct {
		Key   string
		Value struct{ Value any }
	}
	Events []struct{ Name string }
}

func run(ctx context.Context, out io.Writer, raw bool) error {
	var buf bytes.Buffer
	exp, err := stdouttrace.New(stdouttrace.WithWriter(&buf))
	if err != nil {
		return err
	}
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp))
	calls := 0
	describe := func(ctx context.Context, name string) (DescribeStreamOutput, error) {
		_, s := tp.Tracer("kinesis-client").Start(ctx, "Kinesis.DescribeStream", trace.WithSpanKind(trace.SpanKindClient))
		defer s.End()
		time.Sleep(20 * time.Millisecond)
		if calls++; calls < 3 {
			return DescribeStreamOutput{"CREATING"}, nil
		}
		return DescribeStreamOutput{"ACTIVE"}, nil
	}
	w, err := waiter.New(streamActive, describe, waiter.WithTelemetry(telemetry.Settings{TracerProvider: tp}), waiter.WithDelays(50*time.Millisecond, 100*time.Millisecond))
	if err != nil {
		return err
	}
	ctx, root := tp.Tracer("app").Start(ctx, "create-stream")
	_, werr := w.Wait(ctx, "orders", time.Minute)
	root.End()
	if err := tp.Shutdown(context.Background()); err != nil {
		return err
	}
	if werr != nil {
		return werr
	}
	if raw {
		_, err := io.Copy(out, &buf)
		return err
	}
	var spans []span
	for dec := json.NewDecoder(&buf); ; {
		var s span
		if dec.Decode(&s) != nil {
			break
		}
		spans = append(spans, s)
	}
	var print func(parent string, depth int)
	print = func(parent string, depth int) {
		for _, s := range spans {
			if s.Parent.SpanID != parent {
				continue
			}
			var attrs []string
			for _, a := range s.Attributes {
				attrs = append(attrs, fmt.Sprintf("%s=%v", a.Key, a.Value.Value))
			}
			extra := ""
			if len(s.Events) > 0 {
				extra = " +" + delayEvents(len(s.Events))
			}
			fmt.Fprintf(out, "%s%s (%v)%s %s\n", strings.Repeat("  ", depth), s.Name, s.EndTime.Sub(s.StartTime).Round(10*time.Millisecond), extra, strings.Join(attrs, " "))
			print(s.SpanContext.SpanID, depth+1)
		}
	}
	print("0000000000000000", 0)
	return nil
}

// delayEvents counts a span's delay events: "1 delay event", "2 delay
// events".
func delayEvents(n int) string {
	if n == 1 {
		return "1 delay event"
	}
	return fmt.Sprintf("%d delay events", n)
}
