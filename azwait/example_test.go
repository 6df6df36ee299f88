package azwait_test

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"golang.org/x/time/rate"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/arm"
	azfake "github.com/Azure/azure-sdk-for-go/sdk/azcore/fake"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/runtime"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/compute/armcompute/v7"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/compute/armcompute/v7/fake"

	"github.com/waitable/waitable/azwait"
	"github.com/waitable/waitable/waiter"
)

// exampleClient is a VirtualMachinesClient on armcompute's fake server,
// whose VM starts and creations are in progress for two polls.
func exampleClient() *armcompute.VirtualMachinesClient {
	srv := &fake.VirtualMachinesServer{
		BeginCreateOrUpdate: func(ctx context.Context, rg, name string, vm armcompute.VirtualMachine,
			_ *armcompute.VirtualMachinesClientBeginCreateOrUpdateOptions) (resp azfake.PollerResponder[armcompute.VirtualMachinesClientCreateOrUpdateResponse], errResp azfake.ErrorResponder) {
			resp.AddNonTerminalResponse(http.StatusCreated, nil)
			resp.AddNonTerminalResponse(http.StatusCreated, nil)
			resp.AddNonTerminalResponse(http.StatusCreated, nil)
			vm.Name = to.Ptr(name)
			resp.SetTerminalResponse(http.StatusOK, armcompute.VirtualMachinesClientCreateOrUpdateResponse{VirtualMachine: vm}, nil)
			return
		},
	}
	client, err := armcompute.NewVirtualMachinesClient("sub", &azfake.TokenCredential{},
		&arm.ClientOptions{ClientOptions: azcoreOptions(fake.NewVirtualMachinesServerTransport(srv))})
	if err != nil {
		panic(err)
	}
	return client
}

// Wait for a VM's creation: the poller's resume token is the wait's
// input, and each attempt's event carries the operation's status.
func ExampleNew() {
	ctx := context.Background()
	client := exampleClient() // with Azure: armcompute.NewVirtualMachinesClient(sub, cred, nil)

	poller, err := client.BeginCreateOrUpdate(ctx, "rg", "vm1", armcompute.VirtualMachine{Location: to.Ptr("westeurope")}, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	token, err := poller.ResumeToken() // save it: another process can resume the wait from it
	if err != nil {
		fmt.Println(err)
		return
	}
	w, err := azwait.New(func(ctx context.Context, token string) (*runtime.Poller[armcompute.VirtualMachinesClientCreateOrUpdateResponse], error) {
		return client.BeginCreateOrUpdate(ctx, "rg", "vm1", armcompute.VirtualMachine{},
			&armcompute.VirtualMachinesClientBeginCreateOrUpdateOptions{ResumeToken: token})
	}, waiter.WithDelays(time.Millisecond, time.Millisecond)) // 2s to 30s by default: shortened for the example
	if err != nil {
		fmt.Println(err)
		return
	}
	run := w.Start(ctx, token, 30*time.Minute)
	for a := range run.Events() {
		fmt.Println(a.Checkpoint.Attempts, a.Output.Status)
	}
	st, err := run.Result()
	fmt.Println(*st.Result.Name, err)
	// Output:
	// 1 InProgress
	// 2 InProgress
	// 3 Succeeded
	// vm1 <nil>
}

// Wait for an ARM resource's provisioningState, GET by GET, each one HTTP
// request.
func ExampleProvisioningState() {
	states := []string{"Updating", "Succeeded"}
	gets := 0
	srv := &fake.VirtualMachinesServer{
		Get: func(ctx context.Context, rg, name string, _ *armcompute.VirtualMachinesClientGetOptions) (resp azfake.Responder[armcompute.VirtualMachinesClientGetResponse], errResp azfake.ErrorResponder) {
			s := states[min(gets, len(states)-1)]
			gets++
			resp.SetResponse(http.StatusOK, armcompute.VirtualMachinesClientGetResponse{VirtualMachine: armcompute.VirtualMachine{
				Properties: &armcompute.VirtualMachineProperties{ProvisioningState: to.Ptr(s)}}}, nil)
			return
		},
	}
	client, err := armcompute.NewVirtualMachinesClient("sub", &azfake.TokenCredential{},
		&arm.ClientOptions{ClientOptions: azcoreOptions(fake.NewVirtualMachinesServerTransport(srv))})
	if err != nil {
		fmt.Println(err)
		return
	}

	get := azwait.Call(func(ctx context.Context, name string) (armcompute.VirtualMachinesClientGetResponse, error) {
		return client.Get(ctx, "rg", name, nil)
	})
	w, err := waiter.New(azwait.ProvisioningState(), get, waiter.WithDelays(time.Millisecond, time.Millisecond))
	if err != nil {
		fmt.Println(err)
		return
	}
	vm, err := w.Wait(context.Background(), "vm1", 10*time.Minute)
	fmt.Println(*vm.Properties.ProvisioningState, gets, err)
	// Output: Succeeded 2 <nil>
}

// Wait for many VMs' creations in one Batch: one scheduler and one rate
// limit of polls (ARM throttles a subscription's reads) for all of them,
// each poll one HTTP request.
func ExampleNewBatch() {
	ctx := context.Background()
	client := exampleClient()
	resume := func(ctx context.Context, token string) (*runtime.Poller[armcompute.VirtualMachinesClientCreateOrUpdateResponse], error) {
		return client.BeginCreateOrUpdate(ctx, "rg", "", armcompute.VirtualMachine{}, // the token names the VM
			&armcompute.VirtualMachinesClientBeginCreateOrUpdateOptions{ResumeToken: token})
	}
	b, err := azwait.NewBatch(resume, 0, waiter.WithPollRateLimit(rate.NewLimiter(1000, 1)), // ARM: about 20 a second
		waiter.WithDelays(time.Millisecond, time.Millisecond)) // 2s to 30s by default: shortened for the example
	if err != nil {
		fmt.Println(err)
		return
	}
	var runs []*waiter.Run[*azwait.Status[armcompute.VirtualMachinesClientCreateOrUpdateResponse]]
	for _, name := range []string{"vm1", "vm2", "vm3"} {
		poller, err := client.BeginCreateOrUpdate(ctx, "rg", name, armcompute.VirtualMachine{Location: to.Ptr("westeurope")}, nil)
		if err != nil {
			fmt.Println(err)
			return
		}
		token, err := poller.ResumeToken()
		if err != nil {
			fmt.Println(err)
			return
		}
		runs = append(runs, b.Add(ctx, token, 30*time.Minute))
	}
	for _, r := range runs {
		st, err := r.Result()
		fmt.Println(*st.Result.Name, st.Status, err)
	}
	// Output:
	// vm1 Succeeded <nil>
	// vm2 Succeeded <nil>
	// vm3 Succeeded <nil>
}
