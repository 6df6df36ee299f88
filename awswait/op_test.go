package awswait_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/smithy-go/middleware"
	smithyhttp "github.com/aws/smithy-go/transport/http"

	"github.com/waitable/waitable/awswait"
	"github.com/waitable/waitable/classify"
	"github.com/waitable/waitable/waiter"
)

// sdkOptions has the two fields of an SDK client's Options that Op sets.
type sdkOptions struct {
	Retryer    aws.Retryer
	APIOptions []func(*middleware.Stack) error
}

// TestOpRejectsNonSDKOptions: Op needs an SDK client's Options, a struct
// with its own Retryer and APIOptions fields of the SDK's types; any other
// shape is an error saying so, never a panic at the call.
func TestOpRejectsNonSDKOptions(t *testing.T) {
	type region struct{ Region string }
	type wrongRetryer struct {
		Retryer    any
		APIOptions []func(*middleware.Stack) error
	}
	type promoted struct { // the fields behind a pointer that may be nil
		*sdkOptions
	}
	for name, err := range map[string]error{
		"region":       opErr[region](),
		"wrongRetryer": opErr[wrongRetryer](),
		"promoted":     opErr[promoted](),
		"pointer":      opErr[*sdkOptions](),
	} {
		if err == nil || !strings.Contains(err.Error(), "aws-sdk-go-v2 client's Options") {
			t.Errorf("Op(%s) = %v, want an error saying it needs an SDK client's Options", name, err)
		}
	}
	if _, err := awswait.Op[struct{}, struct{}, sdkOptions](nil); err == nil {
		t.Error("Op(nil) accepted")
	}
}

// opErr returns the error of Op for a method whose options are O.
func opErr[O any]() error {
	method := func(context.Context, *struct{}, ...func(*O)) (*struct{}, error) { return nil, nil }
	_, err := awswait.Op(method)
	return err
}

// retryer stands for a client's own retryer.
type retryer struct{ aws.NopRetryer }

// TestOpPerCallOptions: each call through Op gets the caller's options,
// then a retryer that never retries and the user-agent feature of the
// SDK's waiters (m/...B...), as the SDK's client would build its request.
func TestOpPerCallOptions(t *testing.T) {
	var got sdkOptions
	method := func(_ context.Context, _ *struct{}, optFns ...func(*sdkOptions)) (*struct{}, error) {
		got = sdkOptions{Retryer: retryer{}} // the client's own
		for _, f := range optFns {
			f(&got)
		}
		return &struct{}{}, nil
	}
	var callerRan bool
	op, err := awswait.Op(method, func(o *sdkOptions) {
		o.APIOptions = append(o.APIOptions, func(*middleware.Stack) error { callerRan = true; return nil })
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := op(t.Context(), &struct{}{}); err != nil {
		t.Fatal(err)
	}
	if _, ok := got.Retryer.(aws.NopRetryer); !ok {
		t.Errorf("the call's Retryer is %T, want aws.NopRetryer", got.Retryer)
	}
	if len(got.APIOptions) != 2 {
		t.Fatalf("the call has %d APIOptions, want the caller's and Op's", len(got.APIOptions))
	}
	// Build a request through a stack with the call's APIOptions.
	stack := middleware.NewStack("DescribeCluster", smithyhttp.NewStackRequest)
	for _, f := range got.APIOptions {
		if err := f(stack); err != nil {
			t.Fatal(err)
		}
	}
	var ua string
	h := middleware.DecorateHandler(middleware.HandlerFunc(func(_ context.Context, in any) (any, middleware.Metadata, error) {
		ua = in.(*smithyhttp.Request).Header.Get("User-Agent")
		return nil, middleware.Metadata{}, nil
	}), stack)
	if _, _, err := h.Handle(t.Context(), struct{}{}); err != nil {
		t.Fatal(err)
	}
	if !callerRan {
		t.Error("the caller's APIOptions did not run")
	}
	if i := strings.Index(ua, "m/"); i < 0 || !strings.Contains(strings.Fields(ua[i:])[0], "B") {
		t.Errorf("User-Agent %q lacks the waiter feature (m/...B...)", ua)
	}
}

// TestOpRetryAfter: an error response's x-amz-retry-after (milliseconds)
// or Retry-After (seconds) is on the error Op returns, a
// *classify.CallError's RetryAfter; the error is still the response's.
func TestOpRetryAfter(t *testing.T) {
	for _, tt := range []struct {
		header, value string
		want          time.Duration
	}{
		{"x-amz-retry-after", "7000", 7 * time.Second},
		{"Retry-After", "3", 3 * time.Second},
		{"", "", 0},
	} {
		resp := &http.Response{StatusCode: http.StatusTooManyRequests, Header: http.Header{}}
		if tt.header != "" {
			resp.Header.Set(tt.header, tt.value)
		}
		throttle := &smithyhttp.ResponseError{Response: &smithyhttp.Response{Response: resp}, Err: errors.New("ThrottlingException")}
		method := func(context.Context, *struct{}, ...func(*sdkOptions)) (*struct{}, error) { return nil, throttle }
		op, err := awswait.Op(method)
		if err != nil {
			t.Fatal(err)
		}
		_, err = op(t.Context(), &struct{}{})
		var re *smithyhttp.ResponseError
		if !errors.As(err, &re) || re != throttle {
			t.Errorf("%s: the error %v is not the response's", tt.header, err)
		}
		var hint *classify.CallError
		switch {
		case tt.want == 0 && errors.As(err, &hint):
			t.Errorf("no header: the error says RetryAfter %v", hint.RetryAfter)
		case tt.want != 0 && (!errors.As(err, &hint) || hint.RetryAfter != tt.want):
			t.Errorf("%s: %s: the error's RetryAfter is not %v", tt.header, tt.value, tt.want)
		}
	}
}

// TestOpRetryAfterDate: an error response's Retry-After that is an HTTP
// date 40s after the response's Date makes the waiter's next call come
// 40s later, whether the service's clock agrees with the waiter's (a
// synctest bubble's) or is an hour ahead of it: the date is read on the
// clock that wrote it, not against the wall clock of the process.
func TestOpRetryAfterDate(t *testing.T) {
	for _, skew := range []time.Duration{0, time.Hour} {
		t.Run(fmt.Sprint("service clock ahead by ", skew), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				var calls []time.Time
				method := func(context.Context, *struct{}, ...func(*sdkOptions)) (*struct{}, error) {
					calls = append(calls, time.Now())
					if len(calls) > 1 {
						return &struct{}{}, nil
					}
					service := time.Now().Add(skew)
					resp := &http.Response{StatusCode: http.StatusServiceUnavailable, Header: http.Header{
						"Date":        {service.Format(http.TimeFormat)},
						"Retry-After": {service.Add(40 * time.Second).Format(http.TimeFormat)},
					}}
					return nil, &smithyhttp.ResponseError{Response: &smithyhttp.Response{Response: resp}, Err: errors.New("ServiceUnavailable")}
				}
				op, err := awswait.Op(method)
				if err != nil {
					t.Fatal(err)
				}
				w, err := waiter.NewFunc("Up", op, func(_ *struct{}, out *struct{}, err error) (bool, error) { return err == nil, nil })
				if err != nil {
					t.Fatal(err)
				}
				if _, err := w.Wait(t.Context(), &struct{}{}, 10*time.Minute); err != nil {
					t.Fatalf("Wait = %v, want success after the 503", err)
				}
				if len(calls) != 2 || calls[1].Sub(calls[0]) != 40*time.Second {
					t.Fatalf("calls at %v, want two, 40s apart", calls)
				}
			})
		})
	}
}
