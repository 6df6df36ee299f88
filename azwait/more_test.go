package azwait_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"testing"
	"time"

	"golang.org/x/time/rate"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/arm"
	azfake "github.com/Azure/azure-sdk-for-go/sdk/azcore/fake"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/compute/armcompute/v7"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/compute/armcompute/v7/fake"

	"github.com/waitable/waitable/azwait"
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
