package classify

import (
	"fmt"
	"strings"
	"time"
)

// CallError is a failed call's facts, as the service's answer gave them:
// its code, its HTTP status, its hint of when to call again, whether it
// was a throttle or a timeout, and whether the call may be made again. It
// is the one value through which an adapter of a vendor's SDK (awswait,
// azwait, gcpwait, tfwait) or an operation of your own tells [Classify],
// and so the retry strategies and the waiters, what an error means:
//
//	return out, &classify.CallError{Err: err, StatusCode: resp.StatusCode, RetryAfter: after}
//
// Every fact is optional: a zero field says nothing, and Classify reads
// the rest of the chain (Err and what it wraps) and its own rules for it
// (a 429 is a throttle, a 5xx a server fault...). A fact of a CallError
// wins over those of the errors it wraps, as the outermost error does for
// every fact Classify reads. errors.Is and errors.As see through it to
// Err, the vendor's own error, whose type the caller may look for.
//
// ErrorCode and HTTPStatusCode give Code and StatusCode to code that reads
// those methods (aws-sdk-go-v2's errors have them): an errorType acceptor
// matches Code, a status matcher StatusCode, and package telemetry names
// the error by its Code.
type CallError struct {
	// Err is the vendor's error, or an error of the adapter's that says
	// what went wrong; nil when the facts are all there is.
	Err error
	// Code is the service's error code (ThrottlingException, NotFound,
	// InternalServerError), "" for none.
	Code string
	// StatusCode is the HTTP status of the service's answer, 0 for none.
	StatusCode int
	// RetryAfter is the service's hint of when to call again, 0 for none:
	// the next call comes no sooner. [RetryAfterHeader] reads it from an
	// HTTP response, in each form a cloud sends it.
	RetryAfter time.Duration
	// Throttle says the service asked the caller to slow down. False
	// leaves it to the code and the status (a 429 is a throttle).
	Throttle bool
	// Timeout says the call ran out of time (a 408, a deadline of the
	// service's). False leaves it to the chain (a 504,
	// context.DeadlineExceeded).
	Timeout bool
	// Safety says whether the call may be made again. SafetyMaybe, the
	// zero value, leaves it to Classify's rules.
	Safety Safety
}

// Error returns Err's message or, with no Err, the facts:
// "classify: call failed: ThrottlingException (HTTP 429)".
func (e *CallError) Error() string {
	if e.Err != nil {
		return e.Err.Error()
	}
	var facts []string
	if e.Code != "" {
		facts = append(facts, e.Code)
	}
	if e.StatusCode != 0 {
		facts = append(facts, fmt.Sprintf("(HTTP %d)", e.StatusCode))
	}
	if len(facts) == 0 {
		return "classify: call failed"
	}
	return "classify: call failed: " + strings.Join(facts, " ")
}

// Unwrap returns Err.
func (e *CallError) Unwrap() error { return e.Err }

// ErrorCode returns Code.
func (e *CallError) ErrorCode() string { return e.Code }

// HTTPStatusCode returns StatusCode.
func (e *CallError) HTTPStatusCode() int { return e.StatusCode }
