package azwait

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"sync/atomic"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/runtime"

	"github.com/waitable/waitable/classify"
)

// exchange is what the requests made under one context met: the last
// HTTP response, and whether a request got no answer.
type exchange struct {
	raw        *http.Response
	unanswered atomic.Bool
}

// oneTry turns azcore's retries off for the requests made under ctx, and
// records in x a request that got no answer: one azcore's retry policy
// would have sent again (it asks ShouldRetry about a transport's error,
// never about one it was told is not retriable, a credential's, nor once
// ctx is done).
func oneTry(ctx context.Context, x *exchange) context.Context {
	return policy.WithRetryOptions(ctx, policy.RetryOptions{MaxRetries: -1, ShouldRetry: func(resp *http.Response, err error) bool {
		if resp == nil && err != nil {
			x.unanswered.Store(true)
		}
		return false
	}})
}

// oneRequest is oneTry, capturing the last HTTP response in x.raw.
func oneRequest(ctx context.Context, x *exchange) context.Context {
	return policy.WithCaptureResponse(oneTry(ctx, x), &x.raw)
}

// errNoPoller is a resume function's nil poller with a nil error.
var errNoPoller = errors.New("the resume function returned a nil poller and a nil error")

// poll makes one poll of the operation token names. Its Status is never
// nil. An operation that failed is a Status, Done with its Err, and no
// error: the call succeeded, it is the rule ([New]'s) that fails the
// wait.
func poll[T any](ctx context.Context, resume Resume[T], token string) (*Status[T], error) {
	var x exchange
	ctx = oneRequest(ctx, &x)
	st := &Status[T]{}
	p, err := resume(ctx, token)
	switch {
	case err != nil:
		return st, tokenError(false, err)
	case p == nil:
		return st, fatalError("no poller", errNoPoller)
	case p.Done():
		// A poller built on a synchronous answer: its Poll would send no
		// request. Its answer is its result.
		return result(ctx, p, &x, st)
	}
	resp, err := p.Poll(ctx)
	if err != nil {
		return pollFailed(st, err, &x)
	}
	raw := x.raw
	if raw == nil {
		raw = resp
	}
	if raw == nil {
		return st, fatalError("no response", errors.New("the poller's Poll returned no response and no error"))
	}
	st.HTTPStatus, st.After = raw.StatusCode, retryAfter(raw.Header)
	a := readAnswer(raw)
	st.PercentComplete = a.percent
	switch {
	case !is2xx(raw) && p.Done():
		// A Location poller reads any other error status as the
		// operation's failure.
		return failed(st, runtime.NewResponseError(raw))
	case !is2xx(raw):
		// A Location poller keeps its state on a 408, 429 or 5xx and
		// returns the response as if all were well.
		return st, answerError(runtime.NewResponseError(raw).(*azcore.ResponseError))
	case a.isError():
		// A 2xx carrying an error: never the operation's end.
		return st, bodyError(raw, a.errorCode)
	case !p.Done():
		st.Status = a.status
		if st.Status == "" {
			st.Status = "InProgress" // a Location poller's 202, a fake's answer: no word of the service's
		}
		return st, nil
	}
	st.Status = a.status
	return result(ctx, p, &x, st)
}

// failed marks st as the operation's failure with the service's error:
// its status the service's word for a failure (Failed, Canceled), or
// Failed.
func failed[T any](st *Status[T], err error) (*Status[T], error) {
	if !failedWord(st.Status) {
		st.Status = "Failed" // the service's word, when it says one
	}
	st.Done, st.Err = true, err
	return st, nil
}

// result reads the result of p, which is done, into st: the final GET of
// a PUT or PATCH, if the poller makes one.
func result[T any](ctx context.Context, p *runtime.Poller[T], x *exchange, st *Status[T]) (*Status[T], error) {
	res, err := p.Result(ctx)
	if err != nil {
		var re *azcore.ResponseError
		if !errors.As(err, &re) {
			// The final GET did not happen: poll again.
			if x.unanswered.Load() {
				return st, unansweredError(err)
			}
			return st, err
		}
		if failedWord(st.Status) || is2xx(re.RawResponse) {
			return failed(st, err)
		}
		return st, answerError(re) // the final GET failed: 408, 429, 5xx or a 4xx
	}
	if !succeededWord(st.Status) {
		st.Status = "Succeeded" // a Location poller's 200, a fake's: no word of the service's
	}
	st.Done, st.Result = true, res
	return st, nil
}

// pollFailed reads a Poll that returned an error into st: x holds the
// response the pipeline saw, if any.
func pollFailed[T any](st *Status[T], err error, x *exchange) (*Status[T], error) {
	raw := x.raw
	var re *azcore.ResponseError
	if errors.As(err, &re) && re.RawResponse != nil {
		raw = re.RawResponse
	}
	if raw == nil {
		if x.unanswered.Load() {
			return st, unansweredError(err) // the poll's GET got no answer
		}
		return st, err // azcore's own error: no request was sent
	}
	a := readAnswer(raw)
	code := a.errorCode
	if re != nil && re.ErrorCode != "" {
		code = re.ErrorCode
	}
	st.Status, st.HTTPStatus, st.After, st.PercentComplete = a.status, raw.StatusCode, retryAfter(raw.Header), a.percent
	switch {
	case strings.Contains(strings.ToLower(code), "expired"):
		return st, tokenError(true, err)
	case re != nil && (is2xx(raw) || failedWord(a.status)):
		// The service's answer that the operation failed (azcore's fakes
		// return it as Poll's error).
		return failed(st, err)
	case re != nil:
		return st, answerError(re)
	case is2xx(raw) && a.isError():
		return st, bodyError(raw, code)
	case is2xx(raw) && a.status == "":
		// azcore's "the response did not contain a status": what an
		// expired status URL answers.
		return st, tokenError(true, err)
	}
	return st, err
}

// bodyError is the error of a 2xx answer whose body carries an error
// object: transient if its code is, fatal otherwise.
func bodyError(raw *http.Response, code string) error {
	re := runtime.NewResponseErrorWithErrorCode(raw, code).(*azcore.ResponseError)
	e := answerError(re)
	if transient(e) {
		return e
	}
	return fatalError("error answer", e)
}

// answer is what a poll's response body says, as ARM's long-running
// operation protocol writes it: the operation's status, its progress, and
// whether the body carries an error object (one with a code or a message)
// and its code.
type answer struct {
	status, errorCode string
	percent           float64
	hasError          bool
}

// isError reports an error answer: a body that carries an error object
// and no status azcore knows. Beside a known status (Succeeded, Failed,
// InProgress...) the status decides.
func (a answer) isError() bool {
	return a.hasError && !knownWord(a.status)
}

// readAnswer reads a poll's response body as ARM's long-running operation
// protocol defines it (azcore reads it too, but keeps what it read to
// itself): the status resource's status and percentComplete
// (Azure-AsyncOperation, Operation-Location), or the resource's
// properties.provisioningState (a resource polled itself); and the error
// object.
func readAnswer(resp *http.Response) answer {
	var a answer
	body, err := runtime.Payload(resp)
	if err != nil || len(body) == 0 {
		return a
	}
	var b struct {
		Status          json.RawMessage `json:"status"`
		PercentComplete json.RawMessage `json:"percentComplete"`
		Properties      json.RawMessage `json:"properties"`
		Error           json.RawMessage `json:"error"`
	}
	if json.Unmarshal(body, &b) != nil {
		return a
	}
	var s string
	if json.Unmarshal(b.Status, &s) == nil {
		a.status = s
	}
	var props struct {
		ProvisioningState string `json:"provisioningState"`
	}
	if a.status == "" && json.Unmarshal(b.Properties, &props) == nil {
		a.status = props.ProvisioningState
	}
	var pc float64
	if json.Unmarshal(b.PercentComplete, &pc) == nil && pc >= 0 && pc <= 100 {
		a.percent = pc
	}
	var e struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	}
	if json.Unmarshal(b.Error, &e) == nil {
		a.errorCode, a.hasError = e.Code, e.Code != "" || e.Message != ""
	}
	return a
}

// knownWord reports a status azcore knows: Succeeded, Completed, Failed,
// Canceled, Cancelled or InProgress.
func knownWord(s string) bool {
	return succeededWord(s) || failedWord(s) || strings.EqualFold(s, "InProgress")
}

// succeededWord reports a terminal success as azcore reads it.
func succeededWord(s string) bool {
	return strings.EqualFold(s, "Succeeded") || strings.EqualFold(s, "Completed")
}

// failedWord reports a terminal failure as azcore reads it.
func failedWord(s string) bool {
	return strings.EqualFold(s, "Failed") || strings.EqualFold(s, "Canceled") || strings.EqualFold(s, "Cancelled")
}

// retryAfter reads Azure's hints of when to call again: retry-after-ms,
// x-ms-retry-after-ms (milliseconds), then Retry-After (seconds, or an
// HTTP date measured from the response's Date: no clock is read here).
func retryAfter(h http.Header) time.Duration {
	d, _ := classify.RetryAfterHeader(h, time.Time{})
	return d
}
