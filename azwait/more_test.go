package azwait_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/time/rate"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/arm"
	azfake "github.com/Azure/azure-sdk-for-go/sdk/azcore/fake"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/runtime"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/compute/armcompute/v7"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/compute/armcompute/v7/fake"

	"github.com/waitable/waitable/azwait"
	"github.com/waitable/waitable/classify"
	"github.com/waitable/waitable/clocktest"
	"github.com/waitable/waitable/waiter"
)

func TestManyOperationsUnderOneRateLimit(t *testing.T) {
	clocktest.Run(t, func(t *testing.T) {
		const n, perSecond = 20, 2
		vm := newVMWorld(t, 4, "")
		lim := rate.NewLimiter(perSecond, 1)
		g := waiter.NewGroup(t.Context(), waiter.GroupOptions{})
		start := time.Now()
		for i := range n {
			name := fmt.Sprint("vm", i)
			w := vm.waiter(t, name, waiter.WithPollRateLimit(lim))
			waiter.Go(g, name, w, vm.begin(t, name), time.Hour)
		}
		if err := g.Wait(); err != nil {
			t.Fatalf("Group.Wait = %v, want every creation done", err)
		}
		polls := vm.faults.pollTimes()
		if len(polls) != n*4 {
			t.Fatalf("%d polls, want %d (4 per creation)", len(polls), n*4)
		}
		// One token a poll: never more than perSecond polls a second (the
		// burst of 1 included).
		for i := perSecond; i < len(polls); i++ {
			if d := polls[i].Sub(polls[i-perSecond]); d < time.Second-time.Microsecond { // x/time/rate rounds
				t.Fatalf("polls %d and %d came %v apart: over the limit of %d a second", i-perSecond, i, d, perSecond)
			}
		}
		if el := time.Since(start); el < time.Duration(len(polls)-1)*time.Second/perSecond-time.Millisecond {
			t.Fatalf("%d polls in %v: faster than the limit", len(polls), el)
		}
	})
}

// vmStates is a fake VM whose Get answers the provisioning states in
// turn, the last one for ever after.
func vmStates(t *testing.T, states ...string) (*armcompute.VirtualMachinesClient, func() int) {
	var mu sync.Mutex
	gets := 0
	srv := &fake.VirtualMachinesServer{
		Get: func(ctx context.Context, rg, name string, _ *armcompute.VirtualMachinesClientGetOptions) (resp azfake.Responder[armcompute.VirtualMachinesClientGetResponse], errResp azfake.ErrorResponder) {
			mu.Lock()
			defer mu.Unlock()
			s := states[min(gets, len(states)-1)]
			gets++
			if s == "500" {
				errResp.SetResponseError(http.StatusInternalServerError, "InternalServerError")
				return
			}
			resp.SetResponse(http.StatusOK, armcompute.VirtualMachinesClientGetResponse{VirtualMachine: armcompute.VirtualMachine{
				Name: to.Ptr(name), Properties: &armcompute.VirtualMachineProperties{ProvisioningState: to.Ptr(s)}}}, nil)
			return
		},
	}
	client, err := armcompute.NewVirtualMachinesClient("sub", &azfake.TokenCredential{},
		&arm.ClientOptions{ClientOptions: azcoreOptions(fake.NewVirtualMachinesServerTransport(srv))})
	if err != nil {
		t.Fatal(err)
	}
	return client, func() int { mu.Lock(); defer mu.Unlock(); return gets }
}

func TestProvisioningState(t *testing.T) {
	for _, c := range []struct {
		states   []string
		wantErr  error
		wantGets int
	}{
		{[]string{"Updating", "500", "Updating", "Succeeded"}, nil, 4},
		{[]string{"Updating", "Failed"}, waiter.ErrFailure, 2},
		{[]string{"Deleting", "Canceled"}, waiter.ErrFailure, 2},
	} {
		t.Run(fmt.Sprint(c.states), func(t *testing.T) {
			clocktest.Run(t, func(t *testing.T) {
				client, gets := vmStates(t, c.states...)
				get := azwait.Call(func(ctx context.Context, name string) (armcompute.VirtualMachinesClientGetResponse, error) {
					return client.Get(ctx, "rg", name, nil)
				})
				w, err := waiter.New(azwait.ProvisioningState(), get)
				if err != nil {
					t.Fatal(err)
				}
				out, err := w.Wait(t.Context(), "vm1", time.Hour)
				if c.wantErr == nil && err != nil || c.wantErr != nil && !errors.Is(err, c.wantErr) {
					t.Fatalf("Wait = %v, want %v", err, c.wantErr)
				}
				if gets() != c.wantGets {
					t.Fatalf("%d GETs, want %d: one request a poll", gets(), c.wantGets)
				}
				if c.wantErr == nil && *out.Properties.ProvisioningState != "Succeeded" {
					t.Fatalf("output state %s, want Succeeded", *out.Properties.ProvisioningState)
				}
			})
		})
	}
}

// okVM is a GET's answer: the VM vm1, provisioned.
func okVM(req *http.Request) *http.Response {
	return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"application/json"}},
		Body: io.NopCloser(strings.NewReader(`{"name":"vm1","properties":{"provisioningState":"Succeeded"}}`)), Request: req}
}

// provisioned waits with ProvisioningState and Call on client's Get of
// vm1.
func provisioned(t *testing.T, client *armcompute.VirtualMachinesClient) error {
	t.Helper()
	get := azwait.Call(func(ctx context.Context, name string) (armcompute.VirtualMachinesClientGetResponse, error) {
		return client.Get(ctx, "rg", name, nil)
	})
	w, err := waiter.New(azwait.ProvisioningState(), get)
	if err != nil {
		t.Fatal(err)
	}
	_, err = w.Wait(t.Context(), "vm1", time.Hour)
	return err
}

// TestCallRetriesAConnectionReset: a GET of Call whose connection is
// reset (no answer) is made again within the budget; the error of a POST
// that got no answer is transient too.
func TestCallRetriesAConnectionReset(t *testing.T) {
	clocktest.Run(t, func(t *testing.T) {
		var gets atomic.Int32
		vm := newWorld(t, &resets{n: 1, match: func(*http.Request) bool { return true }, next: transportFunc(func(req *http.Request) (*http.Response, error) {
			gets.Add(1)
			return okVM(req), nil
		})})
		if err := provisioned(t, vm.client); err != nil || gets.Load() != 1 {
			t.Fatalf("Wait = %v after %d answered GETs, want success after one connection reset and one GET", err, gets.Load())
		}
	})
	clocktest.Run(t, func(t *testing.T) {
		var methods []string
		vm := newWorld(t, transportFunc(func(req *http.Request) (*http.Response, error) {
			methods = append(methods, req.Method)
			return nil, errors.New("connection reset by peer")
		}))
		start := azwait.Call(func(ctx context.Context, name string) (*runtime.Poller[armcompute.VirtualMachinesClientStartResponse], error) {
			return vm.client.BeginStart(ctx, "rg", name, nil)
		})
		_, err := start(t.Context(), "vm1")
		if v := classify.Classify(err); v.Safety != classify.SafetyYes || len(methods) != 1 || methods[0] != http.MethodPost {
			t.Fatalf("POST %v: the error %v is %v, want one request, its error transient", methods, err, v.Safety)
		}
	})
}

// TestCredentialFailureIsNotMadeTransient: a request azcore does not send
// because the credential failed (an error azcore marks non-retriable) is
// left to the retry strategy as it is: the default one ends the wait
// after that one attempt, under Call as under New.
func TestCredentialFailureIsNotMadeTransient(t *testing.T) {
	clocktest.Run(t, func(t *testing.T) {
		vm := newVMWorld(t, 2, "")
		tok := vm.begin(t, "vm1")
		cred := &azfake.TokenCredential{}
		cred.SetError(errors.New("no token"))
		client, err := armcompute.NewVirtualMachinesClient("sub", cred, &arm.ClientOptions{ClientOptions: azcoreOptions(vm.faults)})
		if err != nil {
			t.Fatal(err)
		}
		if err := provisioned(t, client); !errors.Is(err, waiter.ErrFailure) {
			t.Errorf("Call: Wait = %v, want a failure", err)
		}
		w, err := azwait.New(func(ctx context.Context, token string) (*runtime.Poller[createResponse], error) {
			return client.BeginCreateOrUpdate(ctx, "rg", "vm1", armcompute.VirtualMachine{},
				&armcompute.VirtualMachinesClientBeginCreateOrUpdateOptions{ResumeToken: token})
		})
		if err != nil {
			t.Fatal(err)
		}
		_, attempts, _, err := statuses(t, w, tok, time.Hour)
		if !errors.Is(err, waiter.ErrFailure) || len(attempts) != 1 {
			t.Errorf("New: Wait = %v after %d attempts, want a failure after 1", err, len(attempts))
		}
		if req, polls := vm.faults.counts(); req != 1 || polls != 0 {
			t.Errorf("requests, polls = %d, %d, want 1 (the Begin), 0", req, polls)
		}
	})
}

// TestCallErrorAnswersAreReadByStatus: an error answer to Call's GET
// carries its HTTP status, error code and Retry-After to the retry
// strategy: a 408, 429 or 5xx is retried (no sooner than its
// Retry-After), a 404 ends the wait at once holding the
// *azcore.ResponseError; one request each call.
func TestCallErrorAnswersAreReadByStatus(t *testing.T) {
	for _, c := range []struct {
		status    int
		after     string
		transient bool
	}{
		{http.StatusRequestTimeout, "", true},
		{http.StatusTooManyRequests, "40", true},
		{http.StatusBadGateway, "", true},
		{http.StatusNotFound, "", false},
	} {
		t.Run(fmt.Sprint(c.status), func(t *testing.T) {
			clocktest.Run(t, func(t *testing.T) {
				var mu sync.Mutex
				var times []time.Time
				vm := newWorld(t, transportFunc(func(req *http.Request) (*http.Response, error) {
					mu.Lock()
					defer mu.Unlock()
					times = append(times, time.Now())
					if len(times) > 1 {
						return okVM(req), nil
					}
					h := http.Header{"Content-Type": {"application/json"}}
					if c.after != "" {
						h.Set("Retry-After", c.after)
					}
					return &http.Response{StatusCode: c.status, Header: h,
						Body: io.NopCloser(strings.NewReader(`{"error":{"code":"Scripted","message":"x"}}`)), Request: req}, nil
				}))
				err := provisioned(t, vm.client)
				mu.Lock()
				defer mu.Unlock()
				if !c.transient {
					var re *azcore.ResponseError
					if !errors.Is(err, waiter.ErrFailure) || !errors.As(err, &re) || re.StatusCode != c.status || len(times) != 1 {
						t.Fatalf("Wait = %v after %d GETs, want a failure holding the %d ResponseError after 1", err, len(times), c.status)
					}
					return
				}
				if err != nil || len(times) != 2 {
					t.Fatalf("Wait = %v after %d GETs, want success after 2", err, len(times))
				}
				if c.after != "" && times[1].Sub(times[0]) < 40*time.Second {
					t.Fatalf("GETs %v apart, want no sooner than the Retry-After of 40s", times[1].Sub(times[0]))
				}
			})
		})
	}
}

// TestProvisioningStateRefusesAnOutputWithoutThePath: waiter.New checks
// that ProvisioningState's output type has properties.provisioningState.
func TestProvisioningStateRefusesAnOutputWithoutThePath(t *testing.T) {
	type noState struct{ Name string }
	_, err := waiter.New(azwait.ProvisioningState(), func(ctx context.Context, name string) (noState, error) {
		return noState{}, nil
	})
	if err == nil {
		t.Errorf("waiter.New(ProvisioningState(), an output without the path) = nil error, want one")
	}
}
