package main

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"go.temporal.io/server/temporaltest"
	"go.uber.org/goleak"

	"github.com/waitable/waitable/temporal/internal/leaks"
	"github.com/waitable/waitable/waiter"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m, leaks.Options()...) }

// TestREADMESnippet runs the README's Temporal program against a Temporal
// server in process and a job service on loopback: done, failed, and a
// service whose Retry-After passes the wait's 10 minutes, which ends the
// wait at once with ErrTimeout and no second call.
func TestREADMESnippet(t *testing.T) {
	ts := temporaltest.NewServer(temporaltest.WithT(t))
	t.Setenv("TEMPORAL_ADDRESS", ts.GetFrontendHostPort())
	t.Setenv("TEMPORAL_NAMESPACE", ts.GetDefaultNamespace())
	for _, tc := range []struct {
		name, body, retryAfter string
		check                  func(error) bool
		message                string
	}{
		{"done", `{"State":"done"}`, "", func(err error) bool { return err == nil }, ""},
		{"failed", `{"State":"failed"}`, "", func(err error) bool { return errors.Is(err, waiter.ErrFailure) }, "failure"},
		{"retry-after past the budget", `{"State":"running"}`, "3600", func(err error) bool { return errors.Is(err, waiter.ErrTimeout) }, "is not done after 10 minutes"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var calls atomic.Int32
			job := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				calls.Add(1)
				if tc.retryAfter != "" {
					w.Header().Set("Retry-After", tc.retryAfter)
				}
				w.Write([]byte(tc.body))
			}))
			defer job.Close()
			err := run(t.Context(), job.URL)
			if !tc.check(err) {
				t.Fatalf("run: %v", err)
			}
			if err != nil && !strings.Contains(err.Error(), tc.message) {
				t.Errorf("error %q lacks %q", err, tc.message)
			}
			if n := calls.Load(); n != 1 {
				t.Errorf("%d calls, want 1", n)
			}
		})
	}
}
