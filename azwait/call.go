package azwait

import (
	"context"
	"errors"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"

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
// turned off for it, and the waiter's retry strategy retries what azcore's
// retry policy would have. An error answer's HTTP status, error code and
// Retry-After are on its error (408, 429 and 5xx are transient), and
// errors.As still finds the *azcore.ResponseError. A request that got no
// answer (its connection was reset, say) is transient too, whatever the
// call's method, as it is to azcore's retry policy: a waiter calls its
// operation again at each poll, so Call is for calls that are safe to
// repeat, a GET or a POST that only reads. A credential's failure, which
// azcore does not retry, is left as it is: the waiter's default retry
// strategy ends the wait on it.
func Call[I, O any](method func(ctx context.Context, in I) (O, error)) func(context.Context, I) (O, error) {
	return func(ctx context.Context, in I) (O, error) {
		var x exchange
		out, err := method(oneTry(ctx, &x), in)
		var re *azcore.ResponseError
		switch {
		case err == nil:
		case errors.As(err, &re):
			err = answerError(re)
		case x.unanswered.Load():
			err = unansweredError(err)
		}
		return out, err
	}
}
