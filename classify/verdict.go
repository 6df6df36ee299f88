package classify

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"reflect"
	"sync"
	"syscall"
	"time"
)

// Safety says whether a failed call may be retried (RetrySafety in the
// Smithy retry guide).
type Safety uint8

const (
	// SafetyMaybe: not enough is known to tell; retry only an idempotent
	// operation. It is the zero value.
	SafetyMaybe Safety = iota
	// SafetyYes: a retry is safe (it does not mean one will happen).
	SafetyYes
	// SafetyNo: a retry must not be made.
	SafetyNo
)

// String returns "maybe", "yes" or "no".
func (s Safety) String() string {
	switch s {
	case SafetyMaybe:
		return "maybe"
	case SafetyYes:
		return "yes"
	case SafetyNo:
		return "no"
	}
	return fmt.Sprintf("Safety(%d)", uint8(s))
}

// Fault says whose fault an error is.
type Fault uint8

// The faults. FaultUnknown is the zero value.
const (
	FaultUnknown Fault = iota
	FaultClient        // the request was wrong: retrying it as is will not help
	FaultServer        // the service failed
)

// String returns "unknown", "client" or "server".
func (f Fault) String() string {
	switch f {
	case FaultClient:
		return "client"
	case FaultServer:
		return "server"
	}
	return "unknown"
}

// Verdict is what [Classify] makes of an error: everything a retry strategy
// needs to decide.
type Verdict struct {
	Safety     Safety
	Throttle   bool          // the service asked the caller to slow down
	Timeout    bool          // the call ran out of time
	Fault      Fault         // whose fault
	RetryAfter time.Duration // the service's hint, 0 if none
	Code       string        // the error code, if the error has one
	StatusCode int           // the HTTP status, if the error has one
	Reason     string        // a short explanation of Safety, for logs and events
}

// Retryable reports whether the verdict allows a retry: yes for SafetyYes,
// no for SafetyNo, and for SafetyMaybe only if the operation is idempotent.
func (v Verdict) Retryable(idempotent bool) bool {
	switch v.Safety {
	case SafetyYes:
		return true
	case SafetyMaybe:
		return idempotent
	}
	return false
}

// Error-chain interfaces that Classify reads. Any error on the chain may
// implement them; the outermost one that does wins.
type (
	retrySafetyError interface{ RetrySafety() Safety }
	retryableError   interface{ RetryableError() bool } // smithy-go, aws-sdk-go-v2
	throttleError    interface{ Throttle() bool }
	timeoutError     interface{ Timeout() bool } // net.Error
	retryAfterError  interface{ RetryAfter() time.Duration }
	faultError       interface{ Fault() Fault }
	codeError        interface{ ErrorCode() string }
	statusError      interface{ HTTPStatusCode() int }
)

// Throttling error codes that AWS services return (the AWS SDKs' standard
// list).
var throttleCodes = map[string]bool{
	"Throttling": true, "ThrottlingException": true, "ThrottledException": true,
	"RequestThrottledException": true, "TooManyRequestsException": true,
	"ProvisionedThroughputExceededException": true, "TransactionInProgressException": true,
	"RequestLimitExceeded": true, "BandwidthLimitExceeded": true, "LimitExceededException": true,
	"RequestThrottled": true, "SlowDown": true, "PriorRequestNotComplete": true,
	"EC2ThrottledException": true,
}

// Transient error codes (the AWS SDKs' standard list).
var transientCodes = map[string]bool{
	"RequestTimeout": true, "RequestTimeoutException": true, "InternalError": true,
	"InternalServerError": true, "InternalFailure": true, "ServiceUnavailable": true,
}

// Classify reads an error and returns a [Verdict]. It looks along the whole
// error chain (Unwrap, including joined errors) for the facts of a
// [*CallError] (those it states: a zero field says nothing) and for these
// methods, the outermost error that states a fact deciding it:
//
//	RetrySafety() classify.Safety     Safety, as the error says
//	RetryableError() bool             Safety yes or no (smithy-go's interface)
//	Throttle() bool                   Throttle
//	Timeout() bool                    Timeout (net.Error has it)
//	RetryAfter() time.Duration        RetryAfter
//	Fault() classify.Fault            Fault (also smithy-go's ErrorFault())
//	ErrorCode() string                Code
//	HTTPStatusCode() int              StatusCode
//
// Then it fills in what well-known errors and codes imply: the common
// throttling codes and status 429 are throttles; context.DeadlineExceeded
// (the attempt's own deadline) is a timeout; status 5xx and the transient
// codes are server faults, and other 4xx client faults.
//
// Safety, unless the error said it: context.Canceled is no; a throttle, a
// timeout, a server fault, a transient code, a refused, reset or broken
// connection and an unexpected EOF are yes (the AWS SDKs retry all of
// these); any other client fault is no; anything else is maybe. A nil error
// gives the zero Verdict.
func Classify(err error) Verdict {
	var v Verdict
	if err == nil {
		return v
	}
	var (
		safety, fault                       = SafetyMaybe, FaultUnknown
		hasSafety, hasThrottle, hasTimeout  bool
		hasFault, throttleFlag, timeoutFlag bool
	)
	walkErrors(err, func(e error) bool {
		if c, ok := e.(*CallError); ok && c != nil {
			if c.Safety != SafetyMaybe && !hasSafety {
				safety, hasSafety = c.Safety, true
				v.Reason = fmt.Sprintf("%T says %v", e, safety)
			}
			if c.Throttle && !hasThrottle {
				throttleFlag, hasThrottle = true, true
			}
			if c.Timeout && !hasTimeout {
				timeoutFlag, hasTimeout = true, true
			}
			if c.RetryAfter > 0 && v.RetryAfter == 0 {
				v.RetryAfter = c.RetryAfter
			}
		}
		if x, ok := e.(retrySafetyError); ok && !hasSafety {
			safety, hasSafety = x.RetrySafety(), true
			v.Reason = fmt.Sprintf("%T says %v", e, safety)
		}
		if x, ok := e.(retryableError); ok && !hasSafety {
			safety, hasSafety = SafetyNo, true
			if x.RetryableError() {
				safety = SafetyYes
			}
			v.Reason = fmt.Sprintf("%T says retryable %t", e, safety == SafetyYes)
		}
		if x, ok := e.(throttleError); ok && !hasThrottle {
			throttleFlag, hasThrottle = x.Throttle(), true
		}
		if x, ok := e.(timeoutError); ok && !hasTimeout {
			timeoutFlag, hasTimeout = x.Timeout(), true
		}
		if x, ok := e.(retryAfterError); ok && v.RetryAfter == 0 {
			v.RetryAfter = max(x.RetryAfter(), 0)
		}
		if !hasFault {
			fault, hasFault = faultOf(e)
		}
		if x, ok := e.(codeError); ok && v.Code == "" {
			v.Code = x.ErrorCode()
		}
		if x, ok := e.(statusError); ok && v.StatusCode == 0 {
			v.StatusCode = x.HTTPStatusCode()
		}
		return false // visit the whole chain
	})

	v.Throttle = throttleCodes[v.Code] || v.StatusCode == 429
	if hasThrottle {
		v.Throttle = throttleFlag
	}
	v.Timeout = errors.Is(err, context.DeadlineExceeded) || v.StatusCode == 504 || timeoutFlag
	switch {
	case hasFault:
		v.Fault = fault
	case v.StatusCode >= 500 || transientCodes[v.Code]:
		v.Fault = FaultServer
	case v.StatusCode >= 400:
		v.Fault = FaultClient
	}

	if hasSafety {
		v.Safety = safety
		return v
	}
	v.Safety, v.Reason = SafetyYes, ""
	switch {
	case errors.Is(err, context.Canceled):
		v.Safety, v.Reason = SafetyNo, "cancelled"
	case v.Throttle:
		v.Reason = "throttled"
	case v.Timeout:
		v.Reason = "timed out"
	case v.Fault == FaultServer:
		v.Reason = "server fault"
	case connectionError(err):
		v.Reason = "connection error"
	case v.Fault == FaultClient:
		v.Safety, v.Reason = SafetyNo, "client fault"
	default:
		v.Safety, v.Reason = SafetyMaybe, "no retry information"
	}
	return v
}

// faultOf reads Fault() classify.Fault, or smithy-go's ErrorFault(), whose
// result type (smithy.ErrorFault) prints as "client" or "server". Whether
// a type has ErrorFault is looked up once per type.
func faultOf(e error) (Fault, bool) {
	if x, ok := e.(faultError); ok {
		return x.Fault(), true
	}
	t := reflect.TypeOf(e)
	m, ok := errorFaultMethods.Load(t)
	if !ok {
		method, found := t.MethodByName("ErrorFault")
		if !found || method.Type.NumIn() != 1 || method.Type.NumOut() != 1 || !method.Type.Out(0).Implements(stringerType) {
			method = reflect.Method{}
		}
		m, _ = errorFaultMethods.LoadOrStore(t, method)
	}
	method := m.(reflect.Method)
	if !method.Func.IsValid() {
		return 0, false
	}
	switch method.Func.Call([]reflect.Value{reflect.ValueOf(e)})[0].Interface().(fmt.Stringer).String() {
	case "client":
		return FaultClient, true
	case "server":
		return FaultServer, true
	}
	return 0, false
}

var (
	errorFaultMethods sync.Map // reflect.Type → reflect.Method (zero: none)
	stringerType      = reflect.TypeFor[fmt.Stringer]()
)

// connectionError reports a connection that was refused, reset or broken,
// or a response cut short: the call may be retried.
func connectionError(err error) bool {
	return walkErrors(err, func(e error) bool {
		switch e := e.(type) {
		case *net.OpError:
			return true
		case syscall.Errno:
			return e == syscall.ECONNREFUSED || e == syscall.ECONNRESET || e == syscall.EPIPE
		}
		return e == io.ErrUnexpectedEOF || e == io.EOF
	})
}
