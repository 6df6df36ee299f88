package bench

import (
	"bytes"
	"errors"
	"net"
	"net/http"
	"net/url"
	"strings"
	"syscall"
	"testing"
	"testing/synctest"
	"time"

	"github.com/waitable/waitable/classify"
)

// TestOutage runs the outage row at the report's size (small by default,
// full with -report): every client makes its waits and a share between
// 0% and 100% of them succeeds; the k8s poll and the hand-written loop,
// which take an error for "not yet", succeed every time, and so does
// Waitable, whose transient errors never end a wait while its budget
// lasts.
func TestOutage(t *testing.T) {
	o := QuickReport()
	if *reportFull {
		o = FullReport(false)
	}
	var stats []OutageStats
	for _, c := range OutageClients {
		st := RunOutage(t, c, o.OutageN, outageBudget, 1)
		stats = append(stats, st)
		if st.Waits != o.OutageN || st.Succeeded < 0 || st.Succeeded > st.Waits || st.Share() < 0 || st.Share() > 100 || st.Calls < st.Waits {
			t.Errorf("RunOutage(%q, %d) = %v, want %d waits, a share in [0, 100] and a call per wait at least", c, o.OutageN, st, o.OutageN)
		}
		if (c == "waitable" || c == "hand-written loop" || c == "k8s wait.PollUntilContextTimeout") && st.Succeeded != st.Waits {
			t.Errorf("RunOutage(%q, %d) = %v, want every wait to succeed", c, o.OutageN, st)
		}
	}
	var buf bytes.Buffer
	writeOutage(&buf, o.OutageN, stats)
	for _, c := range OutageClients {
		if !strings.Contains(buf.String(), "| "+c+" | ") {
			t.Errorf("the outage table has no row for %s:\n%s", c, buf.String())
		}
	}
	t.Log("\n" + buf.String())
}

// TestOutageDeterministic: the same seeds give the same numbers (the AWS
// SDK's jitter is crypto-random, so it is left out).
func TestOutageDeterministic(t *testing.T) {
	for _, c := range []string{"waitable", "k8s wait.PollUntilContextTimeout", "hand-written loop"} {
		a, b := RunOutage(t, c, 5, outageBudget, 3), RunOutage(t, c, 5, outageBudget, 3)
		if a != b {
			t.Errorf("%s: %v, then %v", c, a, b)
		}
	}
}

// TestOutageService checks the service at the edges of its phases, through
// a real *http.Client: a refused connection is the error net/http gives
// (a *url.Error around a *net.OpError around ECONNREFUSED), which
// classify.Classify retries as a connection error; 503 from 10% of the
// budget; ready from 20%.
func TestOutageService(t *testing.T) {
	const budget = 100 * time.Second
	for _, tt := range []struct {
		at     time.Duration
		status int // 0: refused
	}{
		{0, 0},
		{10*time.Second - time.Nanosecond, 0},
		{10 * time.Second, http.StatusServiceUnavailable},
		{20*time.Second - time.Nanosecond, http.StatusServiceUnavailable},
		{20 * time.Second, http.StatusOK},
		{budget, http.StatusOK},
	} {
		t.Run(tt.at.String(), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				svc := &outage{start: time.Now(), budget: budget, ready: healthOK}
				time.Sleep(tt.at)
				req, _ := http.NewRequestWithContext(t.Context(), http.MethodGet, outageHealth, nil)
				resp, err := (&http.Client{Transport: svc}).Do(req)
				if tt.status != 0 {
					if err != nil || resp.StatusCode != tt.status {
						t.Fatalf("Do at %v = %v, %v; want status %d", tt.at, resp, err, tt.status)
					}
					resp.Body.Close()
					return
				}
				var ue *url.Error
				var oe *net.OpError
				if !errors.As(err, &ue) || !errors.As(err, &oe) || oe.Op != "dial" || !errors.Is(err, syscall.ECONNREFUSED) {
					t.Fatalf("Do at %v = %v, %v; want a *url.Error around a dial *net.OpError around ECONNREFUSED", tt.at, resp, err)
				}
				if want := `Get "http://127.0.0.1:8080/healthz": dial tcp 127.0.0.1:8080: connect: connection refused`; err.Error() != want {
					t.Errorf("Do at %v: error %q, want %q", tt.at, err, want)
				}
				if v := classify.Classify(err); v.Safety != classify.SafetyYes || v.Reason != "connection error" {
					t.Errorf("Classify(%v) = %+v, want a retryable connection error", err, v)
				}
			})
		})
	}
}
