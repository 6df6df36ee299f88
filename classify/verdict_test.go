package classify_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"syscall"
	"testing"
	"time"

	"github.com/waitable/waitable/classify"
)

// httpError looks like aws-sdk-go-v2's response error: a status, a code.
type httpError struct {
	status int
	code   string
}

func (e *httpError) Error() string       { return fmt.Sprintf("http %d %s", e.status, e.code) }
func (e *httpError) HTTPStatusCode() int { return e.status }
func (e *httpError) ErrorCode() string   { return e.code }

type retryInfo struct {
	safety   classify.Safety
	throttle bool
	after    time.Duration
}

func (e *retryInfo) Error() string                { return "retry info" }
func (e *retryInfo) RetrySafety() classify.Safety { return e.safety }
func (e *retryInfo) Throttle() bool               { return e.throttle }
func (e *retryInfo) RetryAfter() time.Duration    { return e.after }
func (e *retryInfo) Fault() classify.Fault        { return classify.FaultServer }

type smithyFault int

func (f smithyFault) String() string { return [...]string{"unknown", "server", "client"}[f] }

type smithyAPIError struct{ fault smithyFault }

func (e *smithyAPIError) Error() string           { return "api" }
func (e *smithyAPIError) ErrorFault() smithyFault { return e.fault }
func (e *smithyAPIError) ErrorCode() string       { return "ValidationException" }

type retryableErr struct{ ok bool }

func (e *retryableErr) Error() string        { return "retryable?" }
func (e *retryableErr) RetryableError() bool { return e.ok }

type netTimeout struct{}

func (netTimeout) Error() string   { return "i/o timeout" }
func (netTimeout) Timeout() bool   { return true }
func (netTimeout) Temporary() bool { return true }

func TestClassify(t *testing.T) {
	tests := []struct {
		name string
		err  error
		want classify.Verdict
	}{
		{"nil", nil, classify.Verdict{}},
		{"plain error", errors.New("boom"), classify.Verdict{Safety: classify.SafetyMaybe, Reason: "no retry information"}},
		{"throttling code", &httpError{400, "ThrottlingException"}, classify.Verdict{Safety: classify.SafetyYes, Throttle: true, Fault: classify.FaultClient, Code: "ThrottlingException", StatusCode: 400, Reason: "throttled"}},
		{"429", &httpError{429, ""}, classify.Verdict{Safety: classify.SafetyYes, Throttle: true, Fault: classify.FaultClient, StatusCode: 429, Reason: "throttled"}},
		{"503 wrapped", fmt.Errorf("op: %w", &httpError{503, "ServiceUnavailable"}), classify.Verdict{Safety: classify.SafetyYes, Fault: classify.FaultServer, Code: "ServiceUnavailable", StatusCode: 503, Reason: "server fault"}},
		{"504 timeout", &httpError{504, ""}, classify.Verdict{Safety: classify.SafetyYes, Timeout: true, Fault: classify.FaultServer, StatusCode: 504, Reason: "timed out"}},
		{"400 client fault", &httpError{400, "ValidationException"}, classify.Verdict{Safety: classify.SafetyNo, Fault: classify.FaultClient, Code: "ValidationException", StatusCode: 400, Reason: "client fault"}},
		{"attempt deadline", fmt.Errorf("call: %w", context.DeadlineExceeded), classify.Verdict{Safety: classify.SafetyYes, Timeout: true, Reason: "timed out"}},
		{"cancelled", fmt.Errorf("call: %w", context.Canceled), classify.Verdict{Safety: classify.SafetyNo, Reason: "cancelled"}},
		{"net timeout", &net.OpError{Op: "read", Err: netTimeout{}}, classify.Verdict{Safety: classify.SafetyYes, Timeout: true, Reason: "timed out"}},
		{"connection reset", &net.OpError{Op: "read", Err: syscall.ECONNRESET}, classify.Verdict{Safety: classify.SafetyYes, Reason: "connection error"}},
		{"unexpected EOF", fmt.Errorf("body: %w", io.ErrUnexpectedEOF), classify.Verdict{Safety: classify.SafetyYes, Reason: "connection error"}},
		{"explicit safety", &retryInfo{safety: classify.SafetyNo, throttle: true, after: 3 * time.Second}, classify.Verdict{Safety: classify.SafetyNo, Throttle: true, RetryAfter: 3 * time.Second, Fault: classify.FaultServer, Reason: "*classify_test.retryInfo says no"}},
		{"smithy-go fault", &smithyAPIError{fault: 2}, classify.Verdict{Safety: classify.SafetyNo, Fault: classify.FaultClient, Code: "ValidationException", Reason: "client fault"}},
		{"smithy-go retryable", &retryableErr{true}, classify.Verdict{Safety: classify.SafetyYes, Reason: "*classify_test.retryableErr says retryable true"}},
		{"joined: outermost wins", errors.Join(&retryableErr{false}, &retryInfo{safety: classify.SafetyYes}), classify.Verdict{Safety: classify.SafetyNo, Fault: classify.FaultServer, Reason: "*classify_test.retryableErr says retryable false"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := classify.Classify(tt.err); got != tt.want {
				t.Errorf("Classify(%v) =\n%+v, want\n%+v", tt.err, got, tt.want)
			}
		})
	}
}

func TestVerdictRetryable(t *testing.T) {
	for _, tt := range []struct {
		s          classify.Safety
		idempotent bool
		want       bool
	}{
		{classify.SafetyYes, false, true},
		{classify.SafetyNo, true, false},
		{classify.SafetyMaybe, true, true},
		{classify.SafetyMaybe, false, false},
	} {
		if got := (classify.Verdict{Safety: tt.s}).Retryable(tt.idempotent); got != tt.want {
			t.Errorf("Verdict{Safety: %v}.Retryable(%v) = %v, want %v", tt.s, tt.idempotent, got, tt.want)
		}
	}
}

func TestRetryAfterHeader(t *testing.T) {
	now := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		name, key, value string
		want             time.Duration
		ok               bool
	}{
		{"seconds", "Retry-After", "30", 30 * time.Second, true},
		{"zero", "Retry-After", "0", 0, true},
		{"an HTTP date", "Retry-After", now.Add(90 * time.Second).Format(http.TimeFormat), 90 * time.Second, true},
		{"a date in the past", "Retry-After", now.Add(-time.Minute).Format(http.TimeFormat), 0, false},
		{"negative", "Retry-After", "-5", 0, false},
		{"garbage", "Retry-After", "soon", 0, false},
		{"x-amz-retry-after in ms", "X-Amz-Retry-After", "1500", 1500 * time.Millisecond, true},
		{"retry-after-ms", "Retry-After-Ms", "41000", 41 * time.Second, true},
		{"x-ms-retry-after-ms", "X-Ms-Retry-After-Ms", "33000", 33 * time.Second, true},
		{"none", "X-Other", "1", 0, false},
	}
	for _, tt := range tests {
		h := http.Header{}
		h.Set(tt.key, tt.value)
		if got, ok := classify.RetryAfterHeader(h, now); got != tt.want || ok != tt.ok {
			t.Errorf("%s: RetryAfterHeader(%s: %s) = %v, %t; want %v, %t", tt.name, tt.key, tt.value, got, ok, tt.want, tt.ok)
		}
	}
}

// TestRetryAfterDateIsReadAgainstTheResponsesDate: an HTTP date is
// measured from the response's Date, written on the service's clock, not
// from the caller's now, which may be a virtual clock's or off from the
// service's by hours; with no Date, from now; with neither, not at all.
func TestRetryAfterDateIsReadAgainstTheResponsesDate(t *testing.T) {
	server := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	ours := time.Date(1970, 1, 1, 0, 0, 0, 0, time.UTC) // a virtual clock's
	date := func(at time.Time) string { return at.Format(http.TimeFormat) }
	for _, tt := range []struct {
		name   string
		header http.Header
		now    time.Time
		want   time.Duration
		ok     bool
	}{
		{"a Date, our clock far off", http.Header{"Date": {date(server)}, "Retry-After": {date(server.Add(40 * time.Second))}}, ours, 40 * time.Second, true},
		{"a Date, no clock of ours", http.Header{"Date": {date(server)}, "Retry-After": {date(server.Add(40 * time.Second))}}, time.Time{}, 40 * time.Second, true},
		{"a Date after the hint", http.Header{"Date": {date(server)}, "Retry-After": {date(server.Add(-time.Second))}}, time.Time{}, 0, false},
		{"no Date: now", http.Header{"Retry-After": {date(server.Add(40 * time.Second))}}, server, 40 * time.Second, true},
		{"no Date, no clock", http.Header{"Retry-After": {date(server.Add(40 * time.Second))}}, time.Time{}, 0, false},
		{"a Date that does not parse: now", http.Header{"Date": {"yesterday"}, "Retry-After": {date(server.Add(40 * time.Second))}}, server, 40 * time.Second, true},
		{"seconds need no Date", http.Header{"Retry-After": {"40"}}, time.Time{}, 40 * time.Second, true},
	} {
		if got, ok := classify.RetryAfterHeader(tt.header, tt.now); got != tt.want || ok != tt.ok {
			t.Errorf("%s: RetryAfterHeader(%v, %v) = %v, %t; want %v, %t", tt.name, tt.header, tt.now, got, ok, tt.want, tt.ok)
		}
	}
}

// FuzzRetryAfterHeader: whatever the headers say, a hint is never
// negative, and no hint is 0.
func FuzzRetryAfterHeader(f *testing.F) {
	f.Add("Retry-After", "30", "")
	f.Add("Retry-After", "Mon, 23 Nov 2026 12:00:40 GMT", "Mon, 23 Nov 2026 12:00:00 GMT")
	f.Add("Retry-After-Ms", "-1", "")
	f.Add("X-Amz-Retry-After", "99999999999999999999", "")
	f.Fuzz(func(t *testing.T, key, value, date string) {
		h := http.Header{}
		h.Set(key, value)
		if date != "" {
			h.Set("Date", date)
		}
		d, ok := classify.RetryAfterHeader(h, time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC))
		if d < 0 || !ok && d != 0 {
			t.Errorf("RetryAfterHeader(%v) = %v, %t", h, d, ok)
		}
	})
}
