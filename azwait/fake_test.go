package azwait_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/arm"
	azfake "github.com/Azure/azure-sdk-for-go/sdk/azcore/fake"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/runtime"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/compute/armcompute/v7"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/compute/armcompute/v7/fake"

	"github.com/waitable/waitable/azwait"
	"github.com/waitable/waitable/waiter"
)

// createResponse is the result type of the VM creations the tests wait on.
type createResponse = armcompute.VirtualMachinesClientCreateOrUpdateResponse

// faults is a transport of ours in front of armcompute's fake server: it
// counts the requests, serves scripted faults to the next polls, and,
// until readyAt, answers polls itself as the fake answers one in progress,
// so that an operation ends at a time rather than after a number of polls.
type faults struct {
	next policy.Transporter

	mu       sync.Mutex
	requests int         // every request that reached the transport
	polls    []time.Time // when each poll came
	script   []fault     // served to the next polls, in order
	readyAt  time.Time
}

// fault is one scripted answer to a poll.
type fault struct {
	status int
	header http.Header
	body   string
}

var (
	serverError = fault{status: 500, body: `{"error":{"code":"InternalServerError","message":"try again"}}`}
	okWithError = fault{status: 200, body: `{"error":{"code":"InternalServerError","message":"an error in a 200"}}`}
	noStatus    = fault{status: 200, body: `{}`}
)

func throttle(after string) fault {
	return fault{status: 429, header: http.Header{"Retry-After": {after}},
		body: `{"error":{"code":"TooManyRequests","message":"slow down"}}`}
}

func (f *faults) Do(req *http.Request) (*http.Response, error) {
	f.mu.Lock()
	f.requests++
	isPoll := strings.HasSuffix(req.URL.Path, "/get/fake/status")
	var fl *fault
	if isPoll {
		f.polls = append(f.polls, time.Now())
		if len(f.script) > 0 {
			fl, f.script = &f.script[0], f.script[1:]
		} else if time.Now().Before(f.readyAt) {
			fl = &fault{status: http.StatusAccepted, header: http.Header{"Fake-Poller-Status": {"InProgress"}}}
		}
	}
	f.mu.Unlock()
	if fl == nil {
		return f.next.Do(req)
	}
	h := http.Header{"Content-Type": {"application/json"}}
	for k, v := range fl.header {
		h[k] = v
	}
	return &http.Response{StatusCode: fl.status, Status: http.StatusText(fl.status), Header: h,
		Body: io.NopCloser(strings.NewReader(fl.body)), Request: req}, nil
}

func (f *faults) counts() (requests, polls int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.requests, len(f.polls)
}

func (f *faults) pollTimes() []time.Time {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]time.Time(nil), f.polls...)
}

func (f *faults) serve(fs ...fault) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.script = append(f.script, fs...)
}

// vmWorld is a VirtualMachinesClient on armcompute's fake server behind
// the fault transport. inProgress is how many in-progress answers the
// fake gives (the first goes to the Begin request), then the creation
// ends with the VM, or with failCode if it is set.
type vmWorld struct {
	client *armcompute.VirtualMachinesClient
	faults *faults
}

func newVMWorld(t testing.TB, inProgress int, failCode string) *vmWorld {
	t.Helper()
	srv := &fake.VirtualMachinesServer{
		BeginCreateOrUpdate: func(ctx context.Context, rg, name string, vm armcompute.VirtualMachine,
			_ *armcompute.VirtualMachinesClientBeginCreateOrUpdateOptions) (resp azfake.PollerResponder[createResponse], errResp azfake.ErrorResponder) {
			for range inProgress {
				resp.AddNonTerminalResponse(http.StatusCreated, nil)
			}
			if failCode != "" {
				resp.SetTerminalError(http.StatusOK, failCode)
				return
			}
			vm.Name = to.Ptr(name)
			vm.Properties = &armcompute.VirtualMachineProperties{ProvisioningState: to.Ptr("Succeeded")}
			resp.SetTerminalResponse(http.StatusOK, createResponse{VirtualMachine: vm}, nil)
			return
		},
	}
	return newWorld(t, fake.NewVirtualMachinesServerTransport(srv))
}

func newWorld(t testing.TB, next policy.Transporter) *vmWorld {
	t.Helper()
	f := &faults{next: next}
	client, err := armcompute.NewVirtualMachinesClient("sub", &azfake.TokenCredential{},
		&arm.ClientOptions{ClientOptions: azcoreOptions(f)})
	if err != nil {
		t.Fatal(err)
	}
	return &vmWorld{client: client, faults: f}
}

// begin starts creating the VM name and returns the poller's token.
func (w *vmWorld) begin(t testing.TB, name string) string {
	t.Helper()
	p, err := w.client.BeginCreateOrUpdate(t.Context(), "rg", name, armcompute.VirtualMachine{Location: to.Ptr("westeurope")}, nil)
	if err != nil {
		t.Fatalf("BeginCreateOrUpdate: %v", err)
	}
	tok, err := p.ResumeToken()
	if err != nil {
		t.Fatalf("ResumeToken: %v", err)
	}
	return tok
}

// waiter returns azwait's waiter for the creation of the VM name.
func (w *vmWorld) waiter(t testing.TB, name string, opts ...waiter.Option) *waiter.Waiter[string, *azwait.Status[createResponse]] {
	t.Helper()
	wt, err := azwait.New(w.resume(name), opts...)
	if err != nil {
		t.Fatal(err)
	}
	return wt
}

// resumeAny rebuilds the poller of any creation of the world's client
// from its token: the token names the VM.
func (w *vmWorld) resumeAny() azwait.Resume[createResponse] {
	return func(ctx context.Context, token string) (*runtime.Poller[createResponse], error) {
		return w.client.BeginCreateOrUpdate(ctx, "rg", "any", armcompute.VirtualMachine{},
			&armcompute.VirtualMachinesClientBeginCreateOrUpdateOptions{ResumeToken: token})
	}
}

// resume rebuilds a creation's poller, as a new process would.
func (w *vmWorld) resume(name string) azwait.Resume[createResponse] {
	return func(ctx context.Context, token string) (*runtime.Poller[createResponse], error) {
		return w.client.BeginCreateOrUpdate(ctx, "rg", name, armcompute.VirtualMachine{},
			&armcompute.VirtualMachinesClientBeginCreateOrUpdateOptions{ResumeToken: token})
	}
}

func azcoreOptions(tr policy.Transporter) azcore.ClientOptions {
	return azcore.ClientOptions{Transport: tr}
}

type transportFunc func(*http.Request) (*http.Response, error)

func (f transportFunc) Do(req *http.Request) (*http.Response, error) { return f(req) }

// resets resets the connection of the next n requests that match: they
// get no answer.
type resets struct {
	next  policy.Transporter
	match func(*http.Request) bool
	mu    sync.Mutex
	n     int
}

func (r *resets) Do(req *http.Request) (*http.Response, error) {
	r.mu.Lock()
	reset := r.n > 0 && r.match(req)
	if reset {
		r.n--
	}
	r.mu.Unlock()
	if reset {
		return nil, errors.New("connection reset by peer")
	}
	return r.next.Do(req)
}

// isFakePoll matches a poll of armcompute's fake.
func isFakePoll(req *http.Request) bool { return strings.HasSuffix(req.URL.Path, "/get/fake/status") }

// isARMPoll matches a poll of armService's operation.
func isARMPoll(req *http.Request) bool { return strings.Contains(req.URL.Path, "/operations/") }

// isFinalGet matches armService's final GET of the resource.
func isFinalGet(req *http.Request) bool { return req.Method == http.MethodGet && !isARMPoll(req) }
