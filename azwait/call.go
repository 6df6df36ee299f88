package azwait

import (
	"context"
	"errors"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"

	"github.com/waitable/waitable/classify"
	"github.com/waitable/waitable/waiter"
)

// ProvisioningState returns the waiter definition for an ARM resource
// that changes without a long-running operation to poll: GET it until its
// properties.provisioningState is Succeeded (success), or Failed or
// Canceled (failure), polling from 2s to 30s apart. The output type must
// have that path (armcompute's VirtualMachinesClientGetResponse has);
// waiter.New checks it. Make each GET one request with [Call].
func ProvisioningState() waiter.Definition {
	const path = "properties.provisioningState"
	return waiter.Definition{
		Name:          "ProvisioningSucceeded",
		Documentation: "Wait until an ARM resource's provisioningState is Succeeded.",
		Acceptors: []classify.Acceptor{
			{State: classify.Success, Matcher: classify.OnOutput(path, classify.StringEquals, "Succeeded")},
			{State: classify.Failure, Matcher: classify.OnOutput(path, classify.StringEquals, "Failed")},
			{State: classify.Failure, Matcher: classify.OnOutput(path, classify.StringEquals, "Canceled")},
		},
		MinDelay: 2 * time.Second,
		MaxDelay: 30 * time.Second,
	}
}

// Call adapts a call of an Azure SDK client (a resource's Get, say) into
// a waiter's operation: each call makes one HTTP request, azcore's retries
// turned off for it, and an error answer's HTTP status, error code and
// Retry-After are on its error for the waiter's retry strategy (408, 429
// and 5xx are transient). errors.As still finds the *azcore.ResponseError.
func Call[I, O any](method func(ctx context.Context, in I) (O, error)) func(context.Context, I) (O, error) {
	return func(ctx context.Context, in I) (O, error) {
		out, err := method(policy.WithRetryOptions(ctx, policy.RetryOptions{MaxRetries: -1}), in)
		var re *azcore.ResponseError
		if err != nil && errors.As(err, &re) {
			err = newAnswerError(re)
		}
		return out, err
	}
}
