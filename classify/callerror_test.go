package classify_test

import (
	"errors"
	"fmt"
	"io"
	"testing"
	"time"

	"github.com/waitable/waitable/classify"
)

// TestCallErrorFacts: Classify reads each fact a CallError states; a zero
// field states nothing, and the chain under it and Classify's own rules
// decide; the outermost error that states a fact decides it.
func TestCallErrorFacts(t *testing.T) {
	for _, tt := range []struct {
		name string
		err  error
		want classify.Verdict
	}{
		{"a code", &classify.CallError{Code: "ThrottlingException"},
			classify.Verdict{Safety: classify.SafetyYes, Throttle: true, Code: "ThrottlingException", Reason: "throttled"}},
		{"a status", &classify.CallError{StatusCode: 503},
			classify.Verdict{Safety: classify.SafetyYes, Fault: classify.FaultServer, StatusCode: 503, Reason: "server fault"}},
		{"a 404", &classify.CallError{StatusCode: 404, Code: "NotFound"},
			classify.Verdict{Safety: classify.SafetyNo, Fault: classify.FaultClient, StatusCode: 404, Code: "NotFound", Reason: "client fault"}},
		{"a retry-after", &classify.CallError{StatusCode: 429, RetryAfter: 40 * time.Second},
			classify.Verdict{Safety: classify.SafetyYes, Throttle: true, Fault: classify.FaultClient, StatusCode: 429, RetryAfter: 40 * time.Second, Reason: "throttled"}},
		{"a throttle with no code", &classify.CallError{Throttle: true},
			classify.Verdict{Safety: classify.SafetyYes, Throttle: true, Reason: "throttled"}},
		{"a timeout: a 408", &classify.CallError{StatusCode: 408, Timeout: true},
			classify.Verdict{Safety: classify.SafetyYes, Timeout: true, Fault: classify.FaultClient, StatusCode: 408, Reason: "timed out"}},
		{"safety said", &classify.CallError{Safety: classify.SafetyNo, StatusCode: 503},
			classify.Verdict{Safety: classify.SafetyNo, Fault: classify.FaultServer, StatusCode: 503, Reason: "*classify.CallError says no"}},
		{"zero facts: the chain decides", &classify.CallError{Err: &httpError{429, "Throttling"}},
			classify.Verdict{Safety: classify.SafetyYes, Throttle: true, Fault: classify.FaultClient, StatusCode: 429, Code: "Throttling", Reason: "throttled"}},
		{"zero facts over nothing", &classify.CallError{Err: errors.New("mystery")},
			classify.Verdict{Safety: classify.SafetyMaybe, Reason: "no retry information"}},
		{"the outer says, the inner is overruled", &classify.CallError{Safety: classify.SafetyNo, Err: &retryInfo{safety: classify.SafetyYes, after: time.Second}},
			classify.Verdict{Safety: classify.SafetyNo, RetryAfter: time.Second, Fault: classify.FaultServer, Reason: "*classify.CallError says no"}},
		{"the outer says nothing, the inner says", fmt.Errorf("poll: %w", &classify.CallError{Err: &classify.CallError{Safety: classify.SafetyYes, Code: "Busy", StatusCode: 409}}),
			classify.Verdict{Safety: classify.SafetyYes, Fault: classify.FaultClient, Code: "Busy", StatusCode: 409, Reason: "*classify.CallError says yes"}},
		{"a wrapped connection error", &classify.CallError{Err: io.ErrUnexpectedEOF},
			classify.Verdict{Safety: classify.SafetyYes, Reason: "connection error"}},
	} {
		if got := classify.Classify(tt.err); got != tt.want {
			t.Errorf("%s: Classify(%v) = %+v, want %+v", tt.name, tt.err, got, tt.want)
		}
	}
}

// TestCallErrorIsItsErr: errors.Is and errors.As see through a CallError
// to its Err; its message is Err's, or its facts with no Err.
func TestCallErrorIsItsErr(t *testing.T) {
	inner := &httpError{503, "ServiceUnavailable"}
	err := fmt.Errorf("poll: %w", &classify.CallError{Err: inner, RetryAfter: time.Second})
	var he *httpError
	if !errors.As(err, &he) || he != inner || !errors.Is(err, inner) {
		t.Errorf("errors.As(%v, *httpError) = %v, want the inner error", err, he)
	}
	for _, tt := range []struct {
		err  *classify.CallError
		want string
	}{
		{&classify.CallError{Err: inner}, "http 503 ServiceUnavailable"},
		{&classify.CallError{Code: "Throttling", StatusCode: 429}, "classify: call failed: Throttling (HTTP 429)"},
		{&classify.CallError{StatusCode: 503}, "classify: call failed: (HTTP 503)"},
		{&classify.CallError{}, "classify: call failed"},
	} {
		if got := tt.err.Error(); got != tt.want {
			t.Errorf("%#v.Error() = %q, want %q", tt.err, got, tt.want)
		}
	}
}

// TestCallErrorIsMatched: an errorType acceptor matches a CallError's
// Code, a status matcher its StatusCode; a CallError that states no
// status lets an error it wraps give one.
func TestCallErrorIsMatched(t *testing.T) {
	set, err := classify.Compile[any, any]([]classify.Acceptor{
		{State: classify.Retry, Matcher: classify.OnErrorType("com.amazonaws.ec2#InvalidInstanceID.NotFound")},
		{State: classify.Failure, Matcher: classify.OnHTTPStatus(404)},
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		err   error
		index int
	}{
		{&classify.CallError{Code: "InvalidInstanceID.NotFound", StatusCode: 400}, 0},
		{fmt.Errorf("get: %w", &classify.CallError{StatusCode: 404}), 1},
		{&classify.CallError{RetryAfter: time.Second, Err: &httpError{404, "Gone"}}, 1},
		{&classify.CallError{Code: "Other", StatusCode: 409}, -1},
	} {
		if m := set.Match(nil, nil, tt.err); m.Index != tt.index {
			t.Errorf("Match(%v) = %+v, want acceptor %d", tt.err, m, tt.index)
		}
	}
}
