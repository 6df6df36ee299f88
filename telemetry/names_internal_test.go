package telemetry

import (
	"os"
	"strings"
	"testing"

	"go.opentelemetry.io/otel/metric"
	metricnoop "go.opentelemetry.io/otel/metric/noop"
	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/noop"
)

// TestDocTablesNameEveryKey: the package doc's tables list every
// attribute key and metric name OTel records, and nothing else.
func TestDocTablesNameEveryKey(t *testing.T) {
	doc, err := os.ReadFile("doc.go")
	if err != nil {
		t.Fatal(err)
	}
	rows := map[string]bool{}
	for _, line := range strings.Split(string(doc), "\n") {
		f := strings.Fields(strings.TrimPrefix(line, "//\t"))
		if strings.HasPrefix(line, "//\t") && len(f) > 0 &&
			(strings.HasPrefix(f[0], "waitable.") || strings.HasPrefix(f[0], "error.")) {
			rows[f[0]] = true
		}
	}
	names := map[string]bool{}
	for _, k := range []string{
		string(attrName), string(attrKind), string(attrOperation), string(attrMaxWait),
		string(attrOutcome), string(attrAttempts), string(attrAttempt), string(attrAcceptor),
		string(attrState), string(attrTransient), string(attrDelay), string(attrRetryAfter),
		string(attrTokens), string(attrErrorType), string(attrETA), string(attrETA10), string(attrETA90),
		string(attrOverdue),
		metricWaitDuration, metricWaitAttempts, metricAttempts, metricQuotaExhausted,
	} {
		names[k] = true
		if !rows[k] {
			t.Errorf("the package doc has no row for %q", k)
		}
	}
	for r := range rows {
		if !names[r] {
			t.Errorf("the package doc has a row for %q, which OTel does not record", r)
		}
	}
}

type scopeTP struct {
	noop.TracerProvider
	name, version string
}

func (p *scopeTP) Tracer(name string, opts ...trace.TracerOption) trace.Tracer {
	c := trace.NewTracerConfig(opts...)
	p.name, p.version = name, c.InstrumentationVersion()
	return p.TracerProvider.Tracer(name, opts...)
}

type scopeMP struct {
	metricnoop.MeterProvider
	name, version string
}

func (p *scopeMP) Meter(name string, opts ...metric.MeterOption) metric.Meter {
	c := metric.NewMeterConfig(opts...)
	p.name, p.version = name, c.InstrumentationVersion()
	return p.MeterProvider.Meter(name, opts...)
}

// TestOTelNamesScopeAtVersion: OTel's tracer and meter are named after
// the scope it is given, at the library's version.
func TestOTelNamesScopeAtVersion(t *testing.T) {
	tp, mp := &scopeTP{}, &scopeMP{}
	if _, err := OTel("example.com/observer", tp, mp); err != nil {
		t.Fatal(err)
	}
	if tp.name != "example.com/observer" || tp.version != version || version == "" {
		t.Errorf("tracer %q at %q, want %q at %q", tp.name, tp.version, "example.com/observer", version)
	}
	if mp.name != "example.com/observer" || mp.version != version {
		t.Errorf("meter %q at %q, want %q at %q", mp.name, mp.version, "example.com/observer", version)
	}
}
