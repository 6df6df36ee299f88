package retry_test

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/waitable/waitable/backoff"
	"github.com/waitable/waitable/clocktest"
	"github.com/waitable/waitable/retry"
	"github.com/waitable/waitable/telemetry"
)

// recorder is an observer of one's own: it writes down what it is told.
type recorder struct{ log []string }

func (r *recorder) StartWait(ctx context.Context, w telemetry.Wait, _ time.Time,
) (context.Context, telemetry.WaitObserver) {
	r.log = append(r.log, "start "+w.Kind+" "+w.Name)
	return ctx, r
}
func (r *recorder) Recording() bool { return false }
func (r *recorder) StartAttempt(ctx context.Context, n int, _ time.Time) context.Context {
	return ctx
}
func (r *recorder) EndAttempt(_ context.Context, a telemetry.Attempt, _ time.Time) {
	r.log = append(r.log, fmt.Sprintf("attempt %d %s transient=%t next=%v",
		a.Number, a.State, a.Transient, a.NextDelay))
}
func (r *recorder) EndWait(o telemetry.Outcome, _ time.Time) {
	r.log = append(r.log, fmt.Sprintf("end %s after %d", o.Outcome, o.Attempts))
}

// TestWithTelemetry: Do tells the observers of the Settings and their
// Logger about each call, with OpenTelemetry's spans and metrics Off.
func TestWithTelemetry(t *testing.T) {
	clocktest.Run(t, func(t *testing.T) {
		var buf bytes.Buffer
		l := slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug,
			ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
				if a.Key == slog.TimeKey {
					return slog.Attr{}
				}
				return a
			}}))
		rec := &recorder{}
		settings := telemetry.Settings{Off: true, Logger: l, Extra: []telemetry.Observer{rec}}
		s, err := retry.NewStandard(retry.WithClock(clocktest.Clock()), retry.WithJitter(backoff.High),
			retry.WithTelemetry(settings))
		if err != nil {
			t.Fatal(err)
		}
		calls := 0
		if _, err := retry.Do(t.Context(), s, func(context.Context) (int, error) {
			if calls++; calls == 1 {
				return 0, transient{}
			}
			return 1, nil
		}); err != nil {
			t.Fatal(err)
		}
		want := []string{"start retry standard", "attempt 1 retry transient=true next=50ms",
			"attempt 2 success transient=false next=0s", "end success after 2"}
		if fmt.Sprint(rec.log) != fmt.Sprint(want) {
			t.Errorf("the observer saw %q, want %q", rec.log, want)
		}
		lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
		if len(lines) != 3 ||
			!strings.HasPrefix(lines[0], "level=DEBUG msg=attempt kind=retry name=standard attempt=1") ||
			!strings.HasPrefix(lines[2], `level=INFO msg="retry ended" kind=retry name=standard outcome=success`) {
			t.Errorf("log:\n%s", buf.String())
		}
	})
}
