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

const opURL = "https://management.azure.com/subscriptions/sub/providers/Microsoft.Compute/locations/westeurope/operations/op1"

var (
	async    = fault{status: 201, header: http.Header{"Azure-Asyncoperation": {opURL}}, body: `{"properties":{"provisioningState":"Creating"}}`}
	location = fault{status: 201, header: http.Header{"Location": {opURL}}}
)

// status is an Azure-AsyncOperation's answer with the status s.
func status(s string) fault { return fault{status: 200, body: `{"status":"` + s + `"}`} }

// armCase is a VM creation on armService: the PUT's answer, the polls'
// answers, and what the wait should see.
type armCase struct {
	name     string
	first    fault
	polls    []fault
	want     []string // the attempts' statuses
	wantCode string   // the failure's error code
	failure  bool     // a failure even with wantCode "": an error object with no code
	expired  bool
}

func (c armCase) run(t *testing.T) {
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
			case c.wantCode != "" || c.failure:
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

// TestARMPollers: the pollers azcore picks for ARM's answers are read as
// the package documentation says.
func TestARMPollers(t *testing.T) {
	for _, c := range []armCase{
		{name: "Azure-AsyncOperation succeeds", first: async,
			polls: []fault{status("InProgress"), status("Succeeded")}, want: []string{"InProgress", "Succeeded"}},
		{name: "Azure-AsyncOperation fails at once with the service's error", first: async,
			polls: []fault{status("InProgress"), {status: 200, body: `{"status":"Failed","error":{"code":"OSProvisioningTimedOut","message":"no"}}`}},
			want:  []string{"InProgress", "Failed"}, wantCode: "OSProvisioningTimedOut"},
		{name: "Azure-AsyncOperation canceled", first: async,
			polls: []fault{{status: 200, body: `{"status":"Canceled","error":{"code":"OperationCanceled"}}`}},
			want:  []string{"Canceled"}, wantCode: "OperationCanceled"},
		{name: "Azure-AsyncOperation cancelled, British spelling", first: async,
			polls: []fault{{status: 200, body: `{"status":"Cancelled","error":{"code":"OperationCancelled"}}`}},
			want:  []string{"Cancelled"}, wantCode: "OperationCancelled"},
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
		c.run(t)
	}
}

// TestAKnownStatusBeatsAnErrorObject: a 2xx body is an error answer only
// when it carries an error object (with a code or a message) and no
// status azcore knows: Succeeded beside an error object, empty or not, is
// the operation's success, InProgress beside one is pending; beside a
// word azcore does not know, or none, the error object is the answer (an
// empty one is no error object: no status at all is an expired token).
func TestAKnownStatusBeatsAnErrorObject(t *testing.T) {
	for _, c := range []armCase{
		{name: "Succeeded beside an empty error object", first: async,
			polls: []fault{{status: 200, body: `{"status":"Succeeded","error":{"code":"","message":""}}`}},
			want:  []string{"Succeeded"}},
		{name: "Succeeded beside an error object", first: async,
			polls: []fault{{status: 200, body: `{"status":"Succeeded","error":{"code":"Conflict","message":"stale"}}`}},
			want:  []string{"Succeeded"}},
		{name: "InProgress beside an error object is pending", first: async,
			polls: []fault{{status: 200, body: `{"status":"InProgress","error":{"code":"Conflict","message":"stale"}}`}, status("Succeeded")},
			want:  []string{"InProgress", "Succeeded"}},
		{name: "an unknown word beside an error object is the error", first: async,
			polls: []fault{{status: 200, body: `{"status":"Running","error":{"code":"InternalServerError","message":"x"}}`}, status("Succeeded")},
			want:  []string{"", "Succeeded"}},
		{name: "an unknown word beside a fatal error object is the failure", first: async,
			polls: []fault{{status: 200, body: `{"status":"Running","error":{"code":"Conflict","message":"x"}}`}},
			want:  []string{""}, wantCode: "Conflict"},
		{name: "an error object with only a message and no status is the failure", first: async,
			polls: []fault{{status: 200, body: `{"error":{"message":"boom"}}`}},
			want:  []string{""}, failure: true},
		{name: "an empty error object and no status is an expired token", first: async,
			polls: []fault{{status: 200, body: `{"error":{"code":"","message":""}}`}},
			want:  []string{""}, expired: true},
	} {
		c.run(t)
	}
}

// finalGets is armService with scripted answers for the final GETs of
// the VM, and a count of them.
type finalGets struct {
	*armService
	mu   sync.Mutex
	gets []fault
	n    int
}

func (s *finalGets) Do(req *http.Request) (*http.Response, error) {
	if !isFinalGet(req) {
		return s.armService.Do(req)
	}
	s.mu.Lock()
	s.n++
	var f *fault
	if len(s.gets) > 0 {
		f, s.gets = &s.gets[0], s.gets[1:]
	}
	s.mu.Unlock()
	if f == nil {
		return s.armService.Do(req)
	}
	return &http.Response{StatusCode: f.status, Header: http.Header{"Content-Type": {"application/json"}},
		Body: io.NopCloser(strings.NewReader(f.body)), Request: req}, nil
}

// TestFinalGetServerErrorIsRetried: a 503 on the final GET of a PUT
// (which the poller's Result makes once the operation has succeeded) is
// transient, one request and no azcore retry, and the wait succeeds with
// the resource once the GET answers.
func TestFinalGetServerErrorIsRetried(t *testing.T) {
	clocktest.Run(t, func(t *testing.T) {
		ok := status("Succeeded")
		svc := &finalGets{
			armService: &armService{first: fault{status: 201, header: http.Header{"Azure-Asyncoperation": {opURL}}}, polls: []fault{ok, ok}},
			gets:       []fault{{status: 503, body: `{"error":{"code":"ServiceUnavailable"}}`}},
		}
		vm := newWorld(t, svc)
		tok := vm.begin(t, "vm1")
		_, attempts, out, err := statuses(t, vm.waiter(t, "vm1"), tok, time.Hour)
		if err != nil || out.Result.Name == nil || *out.Result.Name != "vm1" {
			t.Fatalf("Wait = %+v, %v, want the VM after the final GET's 503", out, err)
		}
		if len(attempts) != 2 || !attempts[0].Transient {
			t.Fatalf("attempts = %d (first transient %v), want 2, the first transient", len(attempts), attempts[0].Transient)
		}
		svc.mu.Lock()
		defer svc.mu.Unlock()
		if svc.n != 2 {
			t.Fatalf("final GETs = %d, want 2: one request each attempt", svc.n)
		}
	})
}
