package azwait

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/runtime"

	"github.com/waitable/waitable/classify"
)

// oneRequest turns azcore's retries off for calls under ctx, and captures
// the last HTTP response in *raw.
func oneRequest(ctx context.Context, raw **http.Response) context.Context {
	return policy.WithCaptureResponse(policy.WithRetryOptions(ctx, policy.RetryOptions{MaxRetries: -1}), raw)
}

// poll makes one poll of the operation token names.
func poll[T any](ctx context.Context, resume Resume[T], token string) (*Status[T], error) {
	var raw *http.Response
	ctx = oneRequest(ctx, &raw)
	p, err := resume(ctx, token)
	if err != nil {
		return nil, &TokenError{Err: err}
	}
	if _, err := p.Poll(ctx); err != nil {
		return pollFailed[T](err, raw)
	}
	st := &Status[T]{HTTPStatus: raw.StatusCode, After: retryAfter(raw.Header)}
	a := readAnswer(raw)
	switch {
	case !is2xx(raw) && p.Done():
		// A Location poller reads any other error status as the
		// operation's failure.
		st.Done, st.Status = true, "Failed"
		return st, &fatalError{what: "operation Failed", err: runtime.NewResponseError(raw)}
	case !is2xx(raw):
		// A Location poller keeps its state on a 408, 429 or 5xx and
		// returns the response as if all were well.
		return st, newAnswerError(runtime.NewResponseError(raw).(*azcore.ResponseError))
	case a.errorCode != "" && !failedWord(a.status):
		// A 2xx carrying an error: never the operation's end.
		return st, bodyError(raw, a.errorCode)
	case !p.Done():
		st.Status = tokenState(p)
		return st, nil
	}
	st.Done, st.Status = true, a.status
	res, err := p.Result(ctx)
	if err != nil {
		var re *azcore.ResponseError
		if !errors.As(err, &re) {
			st.Done = false // the final GET did not happen: poll again
			return st, err
		}
		if failedWord(st.Status) || is2xx(re.RawResponse) {
			if st.Status == "" {
				st.Status = "Failed"
			}
			return st, &fatalError{what: "operation " + st.Status, err: err}
		}
		st.Done = false // the final GET failed: 408, 429, 5xx or a 4xx
		return st, newAnswerError(re)
	}
	if st.Status == "" || failedWord(st.Status) {
		st.Status = "Succeeded"
	}
	st.Result = res
	return st, nil
}

// pollFailed reads a Poll that returned an error: raw is the response
// the pipeline saw, if any.
func pollFailed[T any](err error, raw *http.Response) (*Status[T], error) {
	var re *azcore.ResponseError
	if errors.As(err, &re) && re.RawResponse != nil {
		raw = re.RawResponse
	}
	if raw == nil {
		return nil, err // no answer: a transport error, or azcore's own
	}
	a := readAnswer(raw)
	code := a.errorCode
	if re != nil && re.ErrorCode != "" {
		code = re.ErrorCode
	}
	st := &Status[T]{Status: a.status, HTTPStatus: raw.StatusCode, After: retryAfter(raw.Header)}
	switch {
	case strings.Contains(strings.ToLower(code), "expired"):
		return st, &TokenError{Expired: true, Err: err}
	case re != nil && (is2xx(raw) || failedWord(a.status)):
		// The service's answer that the operation failed (azcore's fakes
		// return it as Poll's error).
		st.Done = true
		if !failedWord(st.Status) {
			st.Status = "Failed"
		}
		return st, &fatalError{what: "operation " + st.Status, err: err}
	case re != nil:
		return st, newAnswerError(re)
	case is2xx(raw) && code != "":
		return st, bodyError(raw, code)
	case is2xx(raw) && a.status == "":
		// azcore's "the response did not contain a status": what an
		// expired status URL answers.
		return st, &TokenError{Expired: true, Err: err}
	}
	return st, err
}

// bodyError is the error of a 2xx answer whose body carries an error
// object: transient if its code is, fatal otherwise.
func bodyError(raw *http.Response, code string) error {
	re := runtime.NewResponseErrorWithErrorCode(raw, code).(*azcore.ResponseError)
	e := newAnswerError(re)
	if transient(e) {
		return e
	}
	return &fatalError{what: "error answer", err: e}
}

// answer is what a poll's response body (or a fake's header) says.
type answer struct {
	status, errorCode string
}

// readAnswer reads the operation's status from a response as azcore's
// pollers do: the fakes' Fake-Poller-Status header, the body's status
// (Azure-AsyncOperation, Operation-Location) or
// properties.provisioningState (Location, the resource itself); and the
// code of an error object in the body.
func readAnswer(resp *http.Response) answer {
	var a answer
	a.status = resp.Header.Get("Fake-Poller-Status")
	body, err := runtime.Payload(resp)
	if err != nil || len(body) == 0 {
		return a
	}
	var b struct {
		Status     json.RawMessage `json:"status"`
		Properties json.RawMessage `json:"properties"`
		Error      json.RawMessage `json:"error"`
	}
	if json.Unmarshal(body, &b) != nil {
		return a
	}
	var s string
	if a.status == "" && json.Unmarshal(b.Status, &s) == nil {
		a.status = s
	}
	var props struct {
		ProvisioningState string `json:"provisioningState"`
	}
	if a.status == "" && json.Unmarshal(b.Properties, &props) == nil {
		a.status = props.ProvisioningState
	}
	var e struct {
		Code string `json:"code"`
	}
	if json.Unmarshal(b.Error, &e) == nil {
		a.errorCode = e.Code
		if a.errorCode == "" && len(b.Error) > 0 && string(b.Error) != "null" {
			a.errorCode = "error"
		}
	}
	return a
}

// tokenState reads the state the poller keeps in its resume token after a
// poll: "state" (azcore's pollers) or "status" (its fakes').
func tokenState[T any](p *runtime.Poller[T]) string {
	tk, err := p.ResumeToken()
	if err != nil {
		return ""
	}
	var t struct {
		Token struct {
			State  string `json:"state"`
			Status string `json:"status"`
		} `json:"token"`
	}
	if json.Unmarshal([]byte(tk), &t) != nil {
		return ""
	}
	if t.Token.State != "" {
		return t.Token.State
	}
	return t.Token.Status
}

// failedWord reports a terminal failure as azcore reads it.
func failedWord(s string) bool {
	return strings.EqualFold(s, "Failed") || strings.EqualFold(s, "Canceled") || strings.EqualFold(s, "Cancelled")
}

// retryAfter reads Azure's hints of when to call again: retry-after-ms,
// x-ms-retry-after-ms (milliseconds), then Retry-After (seconds or a
// date).
func retryAfter(h http.Header) time.Duration {
	for _, k := range []string{"Retry-After-Ms", "X-Ms-Retry-After-Ms"} {
		if ms, err := strconv.ParseInt(h.Get(k), 10, 64); err == nil && ms > 0 && ms < 1<<40 {
			return time.Duration(ms) * time.Millisecond
		}
	}
	d, _ := classify.RetryAfterHeader(h, time.Now())
	return d
}
