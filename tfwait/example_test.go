package tfwait_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/hashicorp/terraform-plugin-sdk/v2/helper/retry"

	"github.com/waitable/waitable/tfwait"
)

// A provider's StateChangeConf, unchanged, waited on by tfwait.
func ExampleStateChange() {
	states := []string{"creating", "creating", "available"}
	conf := &retry.StateChangeConf{
		Pending: []string{"creating"},
		Target:  []string{"available"},
		Refresh: func() (any, string, error) {
			state := states[0]
			states = states[1:]
			return "cluster demo, " + state, state, nil
		},
		Timeout:      20 * time.Minute,
		PollInterval: time.Millisecond, // a test's: providers poll every few seconds
	}
	w, err := tfwait.StateChange(conf)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(tfwait.Result(w.Wait(context.Background(), struct{}{}, conf.Timeout))) // was: conf.WaitForStateContext(ctx)
	// Output: cluster demo, available <nil>
}

// A state neither pending nor target ends the wait with the SDK's own
// error, as WaitForStateContext does.
func ExampleResult_unexpectedState() {
	conf := &retry.StateChangeConf{
		Pending: []string{"creating"},
		Target:  []string{"available"},
		Refresh: func() (any, string, error) { return "cluster demo", "failed", nil },
		Timeout: 20 * time.Minute,
	}
	w, err := tfwait.StateChange(conf)
	if err != nil {
		fmt.Println(err)
		return
	}
	_, err = tfwait.Result(w.Wait(context.Background(), struct{}{}, conf.Timeout))
	var unexpected *retry.UnexpectedStateError
	if errors.As(err, &unexpected) {
		fmt.Println("the cluster is", unexpected.State)
	}
	// Output: the cluster is failed
}

// A provider on terraform-plugin-framework gives a refresh that takes the
// poll's context.
func ExampleStateChangeFunc() {
	refresh := func(ctx context.Context) (any, string, error) {
		if _, ok := ctx.Deadline(); !ok {
			return nil, "", errors.New("no deadline")
		}
		return "bucket demo", "", nil // found: a delete is still going on
	}
	conf := &retry.StateChangeConf{
		Pending:      []string{""},
		Target:       []string{}, // gone: a nil result ends the wait
		Timeout:      time.Millisecond,
		PollInterval: time.Millisecond,
	}
	w, err := tfwait.StateChangeFunc(conf, refresh)
	if err != nil {
		fmt.Println(err)
		return
	}
	_, err = tfwait.Result(w.Wait(context.Background(), struct{}{}, conf.Timeout))
	var timeout *retry.TimeoutError
	fmt.Println(errors.As(err, &timeout), err)
	// Output: true timeout while waiting for resource to be gone (timeout: 1ms)
}
