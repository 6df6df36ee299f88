package gcpwait

import (
	"context"
	"errors"
	"fmt"

	"github.com/googleapis/gax-go/v2"
	"github.com/googleapis/gax-go/v2/apierror"
	"google.golang.org/api/googleapi"

	"github.com/waitable/waitable/waiter"
)

// ComputeOperation is the shape of Compute Engine's *computepb.Operation,
// as its ZoneOperationsClient, RegionOperationsClient and
// GlobalOperationsClient Get it. This package does not import the compute
// module (its generated types alone weigh about 12 MB of source): any
// type with these methods fits, computepb's and a test's own.
type ComputeOperation[S fmt.Stringer] interface {
	GetName() string
	// GetStatus is PENDING, RUNNING or DONE.
	GetStatus() S
	GetProgress() int32
	GetHttpErrorStatusCode() int32
	GetHttpErrorMessage() string
}

// NewCompute returns a waiter for Compute Engine operations that get
// fetches by name: a function of yours that calls the Get of the zone's,
// region's or global operations client with the project (and zone or
// region) and the name:
//
//	get := func(ctx context.Context, name string, opts ...gax.CallOption) (*computepb.Operation, error) {
//		return zoneOps.Get(ctx, &computepb.GetZoneOperationRequest{Project: p, Zone: z, Operation: name}, opts...)
//	}
//	w, err := gcpwait.NewCompute(get)
//
// The wait's input is the operation's name, and its output's Metadata is
// the operation as the poll found it (its status and progress: each
// attempt's progress, waiter.WithProgress). Each poll is one Get, with
// gax's retries off. The wait succeeds when the status
// is DONE, and fails at once with an *OperationError when the operation
// ended with an HTTP error status, as compute's own Operation.Poll reads
// it (the error is an *apierror.APIError over a *googleapi.Error); errors
// of the Get are judged as [New] judges a poll's.
func NewCompute[Op ComputeOperation[S], S fmt.Stringer](
	get func(ctx context.Context, name string, opts ...gax.CallOption) (Op, error),
	opts ...waiter.Option,
) (*waiter.Waiter[string, Status[struct{}, Op]], error) {
	if get == nil {
		return nil, errors.New("gcpwait: the get function is nil")
	}
	return newWaiter("ComputeOperation", func(ctx context.Context, name string) (Status[struct{}, Op], error) {
		op, err := get(ctx, name, noRetry)
		st := Status[struct{}, Op]{Name: name}
		if err != nil {
			return st, callError(err)
		}
		st.Metadata = op
		st.Done = op.GetStatus().String() == "DONE"
		if c := op.GetHttpErrorStatusCode(); st.Done && c != 0 && (c < 200 || c > 299) {
			st.Err, _ = apierror.FromError(&googleapi.Error{Code: int(c), Message: op.GetHttpErrorMessage()})
		}
		return st, nil
	}, opts)
}
