package azwait_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/runtime"

	"github.com/waitable/waitable/azwait"
	"github.com/waitable/waitable/clocktest"
	"github.com/waitable/waitable/waiter"
)

// dataPlane is a data-plane service: a POST answered 202 with an
// Operation-Location, whose status answers polls in turn.
type dataPlane struct {
	mu    sync.Mutex
	polls []fault
}

func (s *dataPlane) Do(req *http.Request) (*http.Response, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var f fault
	switch {
	case req.Method == http.MethodPost:
		f = fault{status: 202, header: http.Header{"Operation-Location": {"https://svc.example/operations/op1"}}, body: `{"status":"NotStarted"}`}
	case len(s.polls) > 0:
		f, s.polls = s.polls[0], s.polls[1:]
	default:
		return nil, errors.New("dataPlane: no answer left")
	}
	h := http.Header{"Content-Type": {"application/json"}}
	for k, v := range f.header {
		h[k] = v
	}
	return &http.Response{StatusCode: f.status, Header: h, Body: io.NopCloser(strings.NewReader(f.body)), Request: req}, nil
}

// analysis is the data-plane operation's result.
type analysis struct {
	Status string `json:"status"`
	Result struct {
		Pages int `json:"pages"`
	} `json:"result"`
}

// TestDataPlaneOperationLocation: the Operation-Location poller of a
// data-plane POST, rebuilt with runtime.NewPollerFromResumeToken, is
// waited on as an ARM one: the service's own words for a pending state
// (Running), a 429 retried, the result on success, the service's error on
// failure.
func TestDataPlaneOperationLocation(t *testing.T) {
	for _, c := range []struct {
		name     string
		polls    []fault
		want     []string
		wantCode string
	}{
		{"succeeds", []fault{
			{status: 200, body: `{"status":"Running"}`},
			{status: 429, header: http.Header{"Retry-After": {"5"}}, body: `{"error":{"code":"TooManyRequests"}}`},
			{status: 200, body: `{"status":"Succeeded","result":{"pages":3}}`},
		}, []string{"Running", "", "Succeeded"}, ""},
		{"fails", []fault{
			{status: 200, body: `{"status":"Running"}`},
			{status: 200, body: `{"status":"Failed","error":{"code":"InvalidDocument","message":"no"}}`},
		}, []string{"Running", "Failed"}, "InvalidDocument"},
	} {
		t.Run(c.name, func(t *testing.T) {
			clocktest.Run(t, func(t *testing.T) {
				svc := &dataPlane{polls: c.polls}
				pl := runtime.NewPipeline("test", "v0", runtime.PipelineOptions{}, &policy.ClientOptions{Transport: svc})
				req, err := runtime.NewRequest(t.Context(), http.MethodPost, "https://svc.example/analyze")
				if err != nil {
					t.Fatal(err)
				}
				resp, err := pl.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				p, err := runtime.NewPoller[analysis](resp, pl, nil)
				if err != nil {
					t.Fatal(err)
				}
				tok, err := p.ResumeToken()
				if err != nil {
					t.Fatal(err)
				}
				w, err := azwait.New(func(ctx context.Context, token string) (*runtime.Poller[analysis], error) {
					return runtime.NewPollerFromResumeToken[analysis](token, pl, nil)
				})
				if err != nil {
					t.Fatal(err)
				}
				run := w.Start(t.Context(), tok, time.Hour)
				var got []string
				for a := range run.Events() {
					got = append(got, a.Output.Status)
				}
				out, err := run.Result()
				if !slices.Equal(got, c.want) {
					t.Errorf("statuses = %q, want %q", got, c.want)
				}
				if c.wantCode == "" {
					if err != nil || out.Result.Result.Pages != 3 {
						t.Fatalf("Wait = %+v, %v, want the result of 3 pages", out, err)
					}
					return
				}
				var re *azcore.ResponseError
				if !errors.Is(err, waiter.ErrFailure) || !errors.As(err, &re) || re.ErrorCode != c.wantCode {
					t.Fatalf("Wait = %v, want a failure holding the ResponseError %s", err, c.wantCode)
				}
			})
		})
	}
}
