package main

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"testing"

	"go.uber.org/goleak"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/arm"
	azfake "github.com/Azure/azure-sdk-for-go/sdk/azcore/fake"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/compute/armcompute/v7"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/compute/armcompute/v7/fake"

	"github.com/waitable/waitable/clocktest"
	"github.com/waitable/waitable/waiter"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// TestREADMEProgram runs the README's azwait program against armcompute's
// fake server, in virtual time: a start that succeeds, and one that fails.
func TestREADMEProgram(t *testing.T) {
	for _, c := range []struct {
		name, failCode, want string
	}{
		{"started", "", "poll 1: InProgress\npoll 2: InProgress\npoll 3: Succeeded\nvm1 started\n"},
		{"failed", "AllocationFailed", "poll 1: InProgress\npoll 2: Failed\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			clocktest.Run(t, func(t *testing.T) {
				srv := &fake.VirtualMachinesServer{
					BeginStart: func(ctx context.Context, rg, vm string, _ *armcompute.VirtualMachinesClientBeginStartOptions) (resp azfake.PollerResponder[armcompute.VirtualMachinesClientStartResponse], errResp azfake.ErrorResponder) {
						resp.AddNonTerminalResponse(http.StatusAccepted, nil)
						resp.AddNonTerminalResponse(http.StatusAccepted, nil)
						if c.failCode != "" {
							resp.SetTerminalError(http.StatusOK, c.failCode)
							return
						}
						resp.AddNonTerminalResponse(http.StatusAccepted, nil)
						resp.SetTerminalResponse(http.StatusOK, armcompute.VirtualMachinesClientStartResponse{}, nil)
						return
					},
				}
				client, err := armcompute.NewVirtualMachinesClient("sub", &azfake.TokenCredential{},
					&arm.ClientOptions{ClientOptions: azcore.ClientOptions{Transport: fake.NewVirtualMachinesServerTransport(srv)}})
				if err != nil {
					t.Fatal(err)
				}
				var out bytes.Buffer
				err = run(t.Context(), client, "rg", "vm1", &out)
				if out.String() != c.want {
					t.Errorf("output:\n%s\nwant:\n%s", out.String(), c.want)
				}
				var re *azcore.ResponseError
				if c.failCode == "" && err != nil || c.failCode != "" && (!errors.Is(err, waiter.ErrFailure) || !errors.As(err, &re) || re.ErrorCode != c.failCode) {
					t.Errorf("run = %v, want failure %q", err, c.failCode)
				}
			})
		})
	}
}
