package awswait

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"reflect"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awsmiddleware "github.com/aws/aws-sdk-go-v2/aws/middleware"
	"github.com/aws/smithy-go/middleware"
	smithyhttp "github.com/aws/smithy-go/transport/http"

	"github.com/waitable/waitable/classify"
)

// Method is an aws-sdk-go-v2 operation method, such as
// (*dynamodb.Client).DescribeTable: the input, the output, and the
// per-call options of the service's client.
type Method[In, Out, Options any] func(context.Context, *In, ...func(*Options)) (*Out, error)

// Op adapts an operation method of an aws-sdk-go-v2 client into a waiter's
// operation. Each call of it makes exactly one HTTP request: the client's
// retryer is replaced, for these calls only, by one that never retries,
// because a waiter's schedule and retry strategy decide when to call again
// (retrying inside each poll would multiply the requests of a throttled
// service). The calls carry the user-agent feature the SDK's generated
// waiters add, and an error response's Retry-After (seconds, or an HTTP
// date measured from the response's Date) or x-amz-retry-after
// (milliseconds) header is on the error, a *classify.CallError wrapping
// the SDK's: the next poll comes no sooner.
//
// optFns are applied to every call before those changes. Op fails if
// Options is not an aws-sdk-go-v2 client's Options (a struct with a
// Retryer and APIOptions).
func Op[In, Out, Options any](method Method[In, Out, Options], optFns ...func(*Options)) (func(context.Context, *In) (*Out, error), error) {
	if method == nil {
		return nil, errors.New("awswait: the operation method is nil")
	}
	set, err := waiterOptions[Options]()
	if err != nil {
		return nil, err
	}
	fns := append(append(make([]func(*Options), 0, len(optFns)+1), optFns...), set)
	return func(ctx context.Context, in *In) (*Out, error) {
		out, err := method(ctx, in, fns...)
		if err != nil {
			err = withRetryAfter(err)
		}
		return out, err
	}, nil
}

var (
	retryerType    = reflect.TypeFor[aws.Retryer]()
	apiOptionsType = reflect.TypeFor[[]func(*middleware.Stack) error]()
)

// waiterOptions returns the per-call option that turns a client's retries
// off and marks the call as a waiter's, for the service's Options type.
// It checks the shape of Options once and sets the two fields through
// reflection on each call, which costs nothing next to the HTTP request.
func waiterOptions[Options any]() (func(*Options), error) {
	t := reflect.TypeFor[Options]()
	if t.Kind() != reflect.Struct {
		return nil, fmt.Errorf("awswait: %v is not an aws-sdk-go-v2 client's Options struct", t)
	}
	retryer, ok1 := directField(t, "Retryer", retryerType)
	api, ok2 := directField(t, "APIOptions", apiOptionsType)
	if !ok1 || !ok2 {
		return nil, fmt.Errorf("awswait: %v has no Retryer aws.Retryer and APIOptions "+
			"[]func(*middleware.Stack) error fields: is it an aws-sdk-go-v2 client's Options?", t)
	}
	return func(o *Options) {
		v := reflect.ValueOf(o).Elem()
		*v.Field(retryer).Addr().Interface().(*aws.Retryer) = aws.NopRetryer{}
		opts := v.Field(api).Addr().Interface().(*[]func(*middleware.Stack) error)
		*opts = append(*opts, addWaiterUserAgent)
	}, nil
}

// directField returns the index of t's exported field name of type typ,
// declared in t itself (not promoted from an embedded struct, which may
// sit behind a nil pointer).
func directField(t reflect.Type, name string, typ reflect.Type) (int, bool) {
	f, ok := t.FieldByName(name)
	if !ok || !f.IsExported() || f.Type != typ || len(f.Index) != 1 {
		return 0, false
	}
	return f.Index[0], true
}

// addWaiterUserAgent adds the waiter feature to the request's user agent,
// as the SDK's generated waiters do.
func addWaiterUserAgent(stack *middleware.Stack) error {
	id := (*awsmiddleware.RequestUserAgent)(nil).ID()
	mw, ok := stack.Build.Get(id)
	if !ok {
		mw = awsmiddleware.NewRequestUserAgent()
		if err := stack.Build.Add(mw, middleware.After); err != nil {
			return err
		}
	}
	ua, ok := mw.(*awsmiddleware.RequestUserAgent)
	if !ok {
		return fmt.Errorf("awswait: the %s middleware is a %T", id, mw)
	}
	ua.AddUserAgentFeature(awsmiddleware.UserAgentFeatureWaiter)
	return nil
}

// withRetryAfter returns err with the response's retry-after hint, if it
// has one, as a *classify.CallError that wraps it.
func withRetryAfter(err error) error {
	var re *smithyhttp.ResponseError
	if !errors.As(err, &re) || re.Response == nil {
		return err
	}
	if d, ok := retryAfter(re.Response.Header); ok {
		return &classify.CallError{Err: err, RetryAfter: d}
	}
	return err
}

// retryAfter reads a response's Retry-After (seconds or an HTTP date,
// measured from the response's Date) or x-amz-retry-after.
func retryAfter(h http.Header) (time.Duration, bool) {
	return classify.RetryAfterHeader(h, time.Time{}) // no clock here: a date is read against the response's Date
}

// pollHint returns a reader of a pending answer's own hint of when to
// poll again: the Retry-After (or x-amz-retry-after) header of the HTTP
// response, which the SDK keeps in the output's ResultMetadata. It is nil
// for an output with no ResultMetadata middleware.Metadata field: such an
// output gives no hint, and the waiter's schedule alone decides.
func pollHint[Out any]() func(*Out) time.Duration {
	t := reflect.TypeFor[Out]()
	if t.Kind() != reflect.Struct {
		return nil
	}
	i, ok := directField(t, "ResultMetadata", metadataType)
	if !ok {
		return nil
	}
	return func(out *Out) time.Duration {
		if out == nil {
			return 0
		}
		md := reflect.ValueOf(out).Elem().Field(i).Interface().(middleware.Metadata)
		r, ok := awsmiddleware.GetRawResponse(md).(*smithyhttp.Response)
		if !ok || r == nil || r.Response == nil {
			return 0
		}
		d, _ := retryAfter(r.Header)
		return d
	}
}
