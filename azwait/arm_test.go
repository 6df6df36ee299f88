package azwait_test

import (
	"errors"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"

	"github.com/waitable/waitable/azwait"
	"github.com/waitable/waitable/clocktest"
	"github.com/waitable/waitable/waiter"
)

// armService answers as ARM does, for the pollers azcore picks from the
// first response's headers (armcompute's fake has a poller of its own):
// the PUT gets first, each poll the next of polls, and a GET of the VM
// the VM.
type armService struct {
	first fault
	mu    sync.Mutex
	polls []fault
	gets  int
}

func (s *armService) Do(req *http.Request) (*http.Response, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var f fault
	switch {
	case req.Method == http.MethodPut:
		f = s.first
	case strings.Contains(req.URL.Path, "/operations/"):
		if len(s.polls) == 0 {
			return nil, errors.New("armService: no answer left")
		}
		f, s.polls = s.polls[0], s.polls[1:]
	default:
		s.gets++
		f = fault{status: 200, body: `{"name":"vm1","properties":{"provisioningState":"Succeeded"}}`}
	}
	h := http.Header{"Content-Type": {"application/json"}}
	for k, v := range f.header {
		h[k] = v
	}
	return &http.Response{StatusCode: f.status, Header: h, Body: io.NopCloser(strings.NewReader(f.body)), Request: req}, nil
}

func TestARMPollers(t *testing.T) {
	const opURL = "https://management.azure.com/subscriptions/sub/providers/Microsoft.Compute/locations/westeurope/operations/op1"
	async := fault{status: 201, header: http.Header{"Azure-Asyncoperation": {opURL}}, body: `{"properties":{"provisioningState":"Creating"}}`}
	location := fault{status: 201, header: http.Header{"Location": {opURL}}}
	status := func(s string) fault { return fault{status: 200, body: `{"status":"` + s + `"}`} }
	for _, c := range []struct {
		name     string
		first    fault
		polls    []fault
		want     []string // the attempts' statuses
		wantCode string   // the failure's error code, "" for success
		expired  bool
	}{
		{name: "Azure-AsyncOperation succeeds", first: async,
			polls: []fault{status("InProgress"), status("Succeeded")}, want: []string{"InProgress", "Succeeded"}},
		{name: "Azure-AsyncOperation fails at once with the service's error", first: async,
			polls: []fault{status("InProgress"), {status: 200, body: `{"status":"Failed","error":{"code":"OSProvisioningTimedOut","message":"no"}}`}},
			want:  []string{"InProgress", "Failed"}, wantCode: "OSProvisioningTimedOut"},
		{name: "Azure-AsyncOperation canceled", first: async,
			polls: []fault{{status: 200, body: `{"status":"Canceled","error":{"code":"OperationCanceled"}}`}},
			want:  []string{"Canceled"}, wantCode: "OperationCanceled"},
		{name: "Azure-AsyncOperation completed, 503 and 200 carrying an error retried", first: async,
			polls: []fault{{status: 503, header: http.Header{"Retry-After": {"3"}}, body: `{"error":{"code":"ServiceUnavailable"}}`}, okWithError, status("Completed")},
			want:  []string{"", "", "Completed"}},
		{name: "Azure-AsyncOperation expired: a 200 with no status", first: async,
			polls: []fault{status("InProgress"), noStatus}, want: []string{"InProgress", ""}, expired: true},
		{name: "Location: a 500 is not the end, a 200 is", first: location,
			polls: []fault{{status: 202}, serverError, {status: 200, body: `{"name":"vm1"}`}},
			want:  []string{"InProgress", "", "Succeeded"}},
		{name: "Location: a 409 is the failure", first: location,
			polls: []fault{{status: 202}, {status: 409, body: `{"error":{"code":"Conflict"}}`}},
			want:  []string{"InProgress", "Failed"}, wantCode: "Conflict"},
	} {
		t.Run(c.name, func(t *testing.T) {
			clocktest.Run(t, func(t *testing.T) {
				svc := &armService{first: c.first, polls: c.polls}
				vm := newWorld(t, svc)
				tok := vm.begin(t, "vm1")
				w := vm.waiter(t, "vm1")
				got, _, out, err := statuses(t, w, tok, time.Hour)
				if !slices.Equal(got, c.want) {
					t.Errorf("statuses = %q, want %q", got, c.want)
				}
				var re *azcore.ResponseError
				switch {
				case c.expired:
					if !errors.Is(err, azwait.ErrTokenExpired) {
						t.Fatalf("Wait = %v, want ErrTokenExpired", err)
					}
				case c.wantCode != "":
					if !errors.Is(err, waiter.ErrFailure) || !errors.As(err, &re) || re.ErrorCode != c.wantCode {
						t.Fatalf("Wait = %v, want a failure with the ResponseError %s", err, c.wantCode)
					}
				default:
					if err != nil || out.Result.Name == nil || *out.Result.Name != "vm1" {
						t.Fatalf("Wait = %+v, %v, want the VM", out, err)
					}
				}
				if len(svc.polls) != 0 {
					t.Errorf("%d answers left unpolled", len(svc.polls))
				}
			})
		})
	}
}
