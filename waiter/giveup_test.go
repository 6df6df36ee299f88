package waiter_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"go.opentelemetry.io/otel"

	"github.com/waitable/waitable/clocktest"
	"github.com/waitable/waitable/waiter"
)

// TestOnGiveUp: a wait that times out or is cancelled calls the hook,
// with its input, its error and a live context of its own that ends after
// the hook's timeout; one that succeeds or fails does not; a hook that
// panics does not reach the caller.
func TestOnGiveUp(t *testing.T) {
	clocktest.Run(t, func(t *testing.T) {
		type call struct {
			in      string
			err     error
			live    bool
			timeout time.Duration
		}
		var calls []call
		hook := func(ctx context.Context, in GetThingInput, err error) {
			dl, _ := ctx.Deadline()
			calls = append(calls, call{in.Name, err, ctx.Err() == nil, time.Until(dl)})
		}
		opt := waiter.WithOnGiveUp(hook, 5*sec)
		pending := func(context.Context, GetThingInput) (*GetThingOutput, error) { return status("creating"), nil }

		_, err := mustNew(t, thingExists, pending, opt).Wait(t.Context(), GetThingInput{"timeout"}, 10*sec)
		if len(calls) != 1 || calls[0].in != "timeout" || !errors.Is(calls[0].err, waiter.ErrTimeout) || calls[0].err != err || !calls[0].live || calls[0].timeout != 5*sec {
			t.Fatalf("after a timeout: %+v", calls)
		}

		ctx, cancel := context.WithCancel(t.Context())
		r := mustNew(t, thingExists, pending, opt).Start(ctx, GetThingInput{"cancelled"}, time.Hour)
		clocktest.Advance(3 * sec)
		cancel()
		<-r.Done() // the hook has run
		if len(calls) != 2 || !errors.Is(calls[1].err, context.Canceled) || !calls[1].live {
			t.Fatalf("after a cancellation: %+v", calls)
		}

		for _, op := range []func(context.Context, GetThingInput) (*GetThingOutput, error){readyAfter(1), func(context.Context, GetThingInput) (*GetThingOutput, error) { return status("failed"), nil }} {
			mustNew(t, thingExists, op, opt).Wait(t.Context(), GetThingInput{"ended"}, time.Minute)
		}
		if len(calls) != 2 {
			t.Errorf("the hook ran after a success or a failure: %+v", calls)
		}

		var handled []string
		otel.SetErrorHandler(otel.ErrorHandlerFunc(func(err error) { handled = append(handled, err.Error()) }))
		defer otel.SetErrorHandler(otel.ErrorHandlerFunc(func(error) {}))
		var defaultTimeout time.Duration
		boom := waiter.WithOnGiveUp(func(ctx context.Context, _ GetThingInput, _ error) {
			dl, _ := ctx.Deadline()
			defaultTimeout = time.Until(dl)
			panic("cleanup broke")
		}, 0)
		if _, err := mustNew(t, thingExists, pending, boom).Wait(t.Context(), GetThingInput{"x"}, 10*sec); !errors.Is(err, waiter.ErrTimeout) {
			t.Errorf("Wait with a panicking hook = %v, want the timeout", err)
		}
		// The panic goes to OpenTelemetry's error handler, saying what
		// panicked: the hook, not an observer.
		if len(handled) != 1 || !strings.HasPrefix(handled[0], "waiter ThingExists: its WithOnGiveUp hook panicked (the wait ended as it would have): cleanup broke") {
			t.Errorf("the error handler got %q", handled)
		}
		if defaultTimeout != 10*sec {
			t.Errorf("the hook's context ends %v after it starts, want the default 10s", defaultTimeout)
		}
	})
	if _, err := waiter.New(thingExists, readyAfter(1), waiter.WithOnGiveUp(func(context.Context, string, error) {}, 0)); !errors.Is(err, waiter.ErrInvalidOption) {
		t.Errorf("New with a hook of another input type = %v, want ErrInvalidOption", err)
	}
}

// TestOnGiveUpInABatch: a member's hook, however slow, holds up neither
// the Batch nor its other members; the member's Run is done once the hook
// has run.
func TestOnGiveUpInABatch(t *testing.T) {
	clocktest.Run(t, func(t *testing.T) {
		start := time.Now()
		release := make(chan struct{})
		hooked := make(chan string, 1)
		hook := func(ctx context.Context, key string, err error) {
			hooked <- key
			<-release
		}
		api := &slowAPI{start: start, readyAt: func(k string) time.Duration {
			if k == "i-2" {
				return 30 * sec
			}
			return time.Hour
		}}
		b := newBatchOp(t, api.describe, waiter.BatchOptions[string, BatchInstance]{Linger: -1}, waiter.WithOnGiveUp(hook, time.Minute), waiter.WithDelays(5*sec, 5*sec))
		r1, r2 := b.Add(t.Context(), "i-1", 10*sec), b.Add(t.Context(), "i-2", time.Hour)
		if key := <-hooked; key != "i-1" {
			t.Fatalf("hook for %s", key)
		}
		if _, err := r2.Result(); err != nil || time.Since(start) != 30*sec {
			t.Errorf("i-2: %v at %v, want success at 30s while i-1's hook runs", err, time.Since(start))
		}
		select {
		case <-r1.Done():
			t.Error("i-1's Run is done before its hook returned")
		default:
		}
		close(release)
		if _, err := r1.Result(); !errors.Is(err, waiter.ErrTimeout) {
			t.Errorf("i-1: %v, want a timeout", err)
		}
	})
}
