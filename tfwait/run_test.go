package tfwait_test

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-sdk/v2/helper/retry"

	"github.com/waitable/waitable/clocktest"
	"github.com/waitable/waitable/tfwait"
	"github.com/waitable/waitable/waiter"
)

// TestAProvidersWaitIsStartedPokedAndResumed: a provider's wait runs as
// any waiter's does: Started, each refresh's record in its events; Poked,
// a refresh comes at once instead of at the next PollInterval; resumed in
// another process from a Checkpoint, numbered on and ending with the
// refresh that reached the target, which Result returns as the SDK would.
func TestAProvidersWaitIsStartedPokedAndResumed(t *testing.T) {
	clocktest.Run(t, func(t *testing.T) {
		start := time.Now()
		api := &cluster{now: time.Now, readyAt: start.Add(5 * time.Minute)}
		var at []time.Duration
		conf := &retry.StateChangeConf{
			Pending: []string{"creating"},
			Target:  []string{"available"},
			Refresh: func() (any, string, error) {
				at = append(at, time.Since(start))
				return api.refresh()
			},
			Timeout:      20 * time.Minute,
			PollInterval: time.Minute,
		}
		w, err := tfwait.StateChange(conf)
		if err != nil {
			t.Fatal(err)
		}
		run := w.Start(t.Context(), struct{}{}, conf.Timeout)
		var saved []byte
		var states []string
		for a := range run.Events() {
			states = append(states, a.Output.State)
			switch a.Checkpoint.Attempts {
			case 1:
				clocktest.Advance(20 * time.Second)
				run.Poke() // an event says the cluster changed: look now
			case 3:
				if saved, err = json.Marshal(a.Checkpoint); err != nil {
					t.Fatal(err)
				}
				run.Cancel() // the process stops
			}
		}
		if _, err := tfwait.Result(run.Result()); !errors.Is(err, context.Canceled) {
			t.Fatalf("first process: Result = %v, want context.Canceled", err)
		}
		if want := []time.Duration{0, 20 * time.Second, 80 * time.Second}; !slices.Equal(at, want) {
			t.Fatalf("refreshes at %v, want %v: the poke's at once, then PollInterval", at, want)
		}
		if want := []string{"creating", "creating", "creating"}; !slices.Equal(states, want) {
			t.Fatalf("the events' states = %v, want %v", states, want)
		}

		// Another process: a new waiter for the same conf, from the checkpoint.
		cp, err := waiter.ParseCheckpoint(saved)
		if err != nil {
			t.Fatal(err)
		}
		w2, err := tfwait.StateChange(conf)
		if err != nil {
			t.Fatal(err)
		}
		run2 := w2.StartFrom(t.Context(), struct{}{}, cp)
		var numbers []int
		for a := range run2.Events() {
			numbers = append(numbers, a.Checkpoint.Attempts)
		}
		res, err := tfwait.Result(run2.Result())
		if o, ok := res.(*object); err != nil || !ok || o.Status != "available" {
			t.Fatalf("resumed wait = %v, %v, want the available cluster", res, err)
		}
		if len(numbers) == 0 || numbers[0] != 4 || time.Since(start) > 5*time.Minute+time.Minute {
			t.Fatalf("resumed attempts %v, done at %v: want them numbered on from 4, the cluster seen within a PollInterval of 5m",
				numbers, time.Since(start))
		}
	})
}
