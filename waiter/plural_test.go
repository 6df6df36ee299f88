package waiter_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/waitable/waitable/clocktest"
	"github.com/waitable/waitable/waiter"
)

// TestMessagesCountOne: every message that counts something says "1 poll",
// "1 transient error", "1 not-found answer", "1 wait", never "1 polls".
func TestMessagesCountOne(t *testing.T) {
	has := func(t *testing.T, what string, err error, want string) {
		t.Helper()
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s = %v, want it to say %q", what, err, want)
		}
	}
	clocktest.Run(t, func(t *testing.T) {
		ctx := t.Context()
		in := GetThingInput{"a"}

		failed := func(context.Context, GetThingInput) (*GetThingOutput, error) { return status("failed"), nil }
		_, err := mustNew(t, thingExists, failed).Wait(ctx, in, time.Minute)
		has(t, "a failure at the first poll", err, "failure after 1 poll in")

		_, err = mustNew(t, thingExists, newRecorder(func(int) (*GetThingOutput, error) { return nil, refused{} }).op,
			waiter.WithTransientLimit(1)).Wait(ctx, in, time.Hour)
		has(t, "WithTransientLimit(1)", err, ": 1 transient error in a row, the limit")

		_, err = mustNew(t, thingExists, newRecorder(func(int) (*GetThingOutput, error) { return nil, notFound{} }).op,
			waiter.WithNotFoundLimit(1)).Wait(ctx, in, time.Hour)
		has(t, "WithNotFoundLimit(1)", err, ": 1 not-found answer in a row")

		_, err = waiter.WaitAll(ctx, mustNew(t, thingExists, failed), []GetThingInput{in}, time.Minute, waiter.GroupOptions{})
		has(t, "WaitAll of one failing wait", err, "waiter: 1 of 1 wait did not succeed: #1: failure after 1 poll in ")

		w := mustNew(t, thingExists, readyAfter(1))
		r := w.Start(ctx, in, time.Minute)
		if _, err := r.Result(); err != nil {
			t.Fatal(err)
		}
		ended := r.Checkpoint()
		_, err = w.WaitFrom(ctx, in, ended)
		has(t, "WaitFrom an ended checkpoint", err, "the wait ended (success) after 1 poll, ")
		ended.End = "" // a checkpoint from before Checkpoint.End
		_, err = w.WaitFrom(ctx, in, ended)
		var ce *waiter.CheckpointError
		if !errors.As(err, &ce) || ce.Problem != waiter.ProblemEnded {
			t.Fatalf("WaitFrom an ended checkpoint with no End = %v, want ProblemEnded", err)
		}
		has(t, "WaitFrom an ended checkpoint with no End", err, "the wait ended after 1 poll: ")
	})
}
