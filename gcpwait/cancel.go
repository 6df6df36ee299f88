package gcpwait

import (
	"context"
	"errors"
	"reflect"
	"time"

	"cloud.google.com/go/longrunning/autogen/longrunningpb"
	"github.com/googleapis/gax-go/v2"

	"github.com/waitable/waitable/waiter"
)

// Canceller cancels a long-running operation by name: longrunning's
// *autogen.OperationsClient, and the generated clients that offer the
// Operations mixin (CancelOperation).
type Canceller interface {
	CancelOperation(ctx context.Context, req *longrunningpb.CancelOperationRequest, opts ...gax.CallOption) error
}

// WithCancelOnGiveUp makes a wait that times out cancel its operation
// with c's CancelOperation (waiter.WithOnGiveUp), within timeout (0:
// 10s): the caller's budget is spent, nobody waits for the result any
// more. A wait that the caller cancelled (its context) leaves the
// operation running, because such a wait may be carried on from its
// checkpoint by another process. The cancellation is best-effort, as
// the API's is: its error is not reported (poll the operation to see
// how it ended). A nil c, or a nil pointer in it (a client that was never
// made), and a negative timeout are errors when the waiter is built,
// reported as waiter.WithOnGiveUp's.
func WithCancelOnGiveUp(c Canceller, timeout time.Duration) waiter.Option {
	if c == nil || nilPointer(c) {
		return waiter.WithOnGiveUp[string](nil, timeout)
	}
	return waiter.WithOnGiveUp(func(ctx context.Context, name string, err error) {
		if errors.Is(err, waiter.ErrTimeout) {
			_ = c.CancelOperation(ctx, &longrunningpb.CancelOperationRequest{Name: name})
		}
	}, timeout)
}

// nilPointer reports a nil pointer in c, which c == nil does not see.
func nilPointer(c Canceller) bool {
	v := reflect.ValueOf(c)
	return v.Kind() == reflect.Pointer && v.IsNil()
}
