// Command readme is the README's azwait program: it starts a virtual
// machine and waits for the start under a budget of its own, printing the
// operation's status at each poll. The resume token it prints lets
// another process carry the wait on.
package main

import (
	"context"
	"fmt"
	"io"
	"log"
	"os"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/runtime"
	"github.com/Azure/azure-sdk-for-go/sdk/azidentity"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/compute/armcompute/v7"

	"github.com/waitable/waitable/azwait"
)

func main() {
	cred, err := azidentity.NewDefaultAzureCredential(nil)
	if err != nil {
		log.Fatal(err)
	}
	client, err := armcompute.NewVirtualMachinesClient(os.Getenv("AZURE_SUBSCRIPTION_ID"), cred, nil)
	if err != nil {
		log.Fatal(err)
	}
	if err := run(context.Background(), client, "rg", "vm1", os.Stdout); err != nil {
		log.Fatal(err)
	}
}

func run(ctx context.Context, client *armcompute.VirtualMachinesClient, rg, vm string, out io.Writer) error {
	poller, err := client.BeginStart(ctx, rg, vm, nil)
	if err != nil {
		return err
	}
	token, err := poller.ResumeToken() // a new process resumes the wait from it
	if err != nil {
		return err
	}
	w, err := azwait.New(func(ctx context.Context, token string) (*runtime.Poller[armcompute.VirtualMachinesClientStartResponse], error) {
		return client.BeginStart(ctx, rg, vm, &armcompute.VirtualMachinesClientBeginStartOptions{ResumeToken: token})
	})
	if err != nil {
		return err
	}
	run := w.Start(ctx, token, 15*time.Minute) // one HTTP request a poll; 429, 5xx retried within the 15 minutes
	for a := range run.Events() {
		fmt.Fprintf(out, "poll %d: %s\n", a.Checkpoint.Attempts, a.Output.Status)
	}
	if _, err := run.Result(); err != nil {
		return err // errors.As finds the service's *azcore.ResponseError
	}
	fmt.Fprintln(out, vm, "started")
	return nil
}
