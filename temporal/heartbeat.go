package temporal

import (
	"context"
	"errors"
	"sync"
	"time"

	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/client"
	sdktemporal "go.temporal.io/sdk/temporal"

	"github.com/waitable/waitable/retry"
	"github.com/waitable/waitable/waiter"
)

// loopRequest is the input of the activity that polls in heartbeat mode.
type loopRequest[I any] struct {
	Input I
	State waiter.Checkpoint
	// MaxAttempts is how many attempts the activity may make before it
	// hands the wait back (so that the run can continue as new).
	MaxAttempts int
	// Below: the activity hands the wait back when the next delay is
	// this long or longer, for a durable timer (0: never).
	Below time.Duration
}

// loopResult is what the activity hands back: the wait ended (Done), or
// its Checkpoint when the next delay is long or the run's attempts are spent.
type loopResult[O any] struct {
	Output     O
	HaveOutput bool // Output is the last output observed
	State      waiter.Checkpoint
	Attempts   []Attempt
	Done       bool
	End        *details `json:",omitempty"` // the error a Done wait ended with; nil for success
	EndMessage string   `json:",omitempty"`
}

// ended records the decision that ended the wait.
func (r *loopResult[O]) ended(dec decision) {
	r.Done = true
	if dec.Err != nil {
		dd := toDetails(dec.Err)
		r.End, r.EndMessage = &dd, dec.Err.Error()
	}
}

// beat is a heartbeat's details: the wait's Checkpoint after its latest
// attempt, and that attempt.
type beat struct {
	State waiter.Checkpoint
	Last  *Attempt `json:",omitempty"`
}

// errHandBack is the cause of the loop's context when the server asked
// for the activity's cancellation (or no longer knows it).
var errHandBack = errors.New("temporal: the activity was cancelled")

// loop polls inside one activity, heartbeating the wait's Checkpoint after
// every attempt, before the next call: a worker lost mid-activity costs
// at most the call in flight, which the activity's next attempt, on any
// worker, makes again from the last heartbeat. A wait that begins in it
// learns from the waiter's history there (its Prior is in the first
// heartbeat and the activity's result, so a replay decides the same), and
// one that ends in it is recorded there: no history event is added.
func (d *driver[I, O]) loop(ctx context.Context, req loopRequest[I]) (loopResult[O], error) {
	s := req.State
	if activity.HasHeartbeatDetails(ctx) {
		var b beat
		if err := activity.GetHeartbeatDetails(ctx, &b); err == nil && b.State.Attempts >= s.Attempts {
			s = b.State
		}
	}
	if s.Attempts == 0 && s.Prior == nil { // the wait begins here: it learns from the waits before
		s.Prior = d.w.Learn(ctx, req.Input)
	}
	hb := startHeartbeats(ctx, d.o.heartbeatTimeout, beat{State: s}, !d.sdkHeartbeats)
	defer hb.stop()
	ctx = hb.ctx
	var res loopResult[O]
	var tok retry.Token
	sleep := time.NewTimer(0) // one timer for every delay of the activity
	defer sleep.Stop()
	<-sleep.C
	for {
		if wait := time.Until(s.Next); wait > 0 {
			sleep.Reset(wait)
			select {
			case <-ctx.Done():
				return res, hb.stopped(s)
			case <-sleep.C:
			}
		}
		limit := s.Deadline
		if t := time.Now().Add(d.o.callTimeout); t.Before(limit) {
			limit = t
		}
		cctx, cancel := context.WithDeadline(ctx, limit)
		p, next := d.w.Call(cctx, req.Input, s.Attempts, tok)
		out := p.Output
		cancel()
		if context.Cause(ctx) != nil { // cancelled, or the worker stops: the call does not count
			return res, hb.stopped(s)
		}
		now := time.Now()
		dec := d.stepCore(&s, p, now) // a call the deadline cut off is not judged, as in process
		tok = next
		if p.Err == nil {
			res.Output, res.HaveOutput = out, true
		}
		a := Attempt{Number: s.Attempts, Start: p.Start, Latency: p.Latency, State: dec.State.String(),
			Acceptor: p.Judgment.Acceptor, Matcher: p.Judgment.Matcher, NextDelay: dec.Delay}.withErr(msg(p.Err), kindOf(p.Err))
		res.Attempts = append(res.Attempts, a)
		res.State = s
		if dec.Done {
			res.ended(dec)
			_ = d.w.Remember(ctx, req.Input, s) // a history's error never fails a wait
			return res, nil
		}
		if err := hb.record(ctx, beat{State: s, Last: &a}); err != nil {
			return res, hb.stopped(s)
		}
		if len(res.Attempts) >= req.MaxAttempts || (req.Below > 0 && dec.Delay >= req.Below) {
			return res, nil // a durable timer (or a new run) takes over
		}
	}
}

// heartbeats sends a loop's heartbeats: one after each attempt, at once
// and synchronously (the SDK's own heartbeats are batched, and a worker
// that dies within a batch would lose attempts), and one whenever half
// the heartbeat timeout passes without any (a long delay, a slow call).
// Sends are one at a time, each with the latest details: a keepalive
// never lands after, and so undoes, a newer heartbeat. Its ctx ends when
// the server asks to cancel the activity or no longer knows it, or when
// the activity's own context ends.
type heartbeats struct {
	ctx    context.Context
	cancel context.CancelCauseFunc
	c      client.Client
	token  []byte
	actx   context.Context

	mu     sync.Mutex // held while a heartbeat is sent
	last   time.Time  // when the latest was sent
	latest beat

	done chan struct{}
	wg   sync.WaitGroup
}

func startHeartbeats(actx context.Context, timeout time.Duration, first beat, direct bool) *heartbeats {
	ctx, cancel := context.WithCancelCause(actx)
	h := &heartbeats{ctx: ctx, cancel: cancel, actx: actx, token: activity.GetInfo(actx).TaskToken, latest: first, last: time.Now(), done: make(chan struct{})}
	if direct {
		h.c = activity.GetClient(actx)
	}
	every := max(timeout/2, 10*time.Millisecond) // a keepalive after this long without a heartbeat
	h.wg.Add(1)
	go func() {
		defer h.wg.Done()
		t := time.NewTicker(every / 2)
		defer t.Stop()
		for {
			select {
			case <-h.done:
				return
			case <-ctx.Done():
				return
			case <-t.C:
				h.keepalive(ctx, every)
			}
		}
	}()
	return h
}

// record sends b now. An answer that the activity is cancelled, or
// unknown to the server, ends h.ctx; a failed send is not an error (the
// next one may pass; the heartbeat timeout decides).
func (h *heartbeats) record(ctx context.Context, b beat) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.latest = b
	return h.send(ctx)
}

// keepalive sends the latest details again if none were sent for every.
func (h *heartbeats) keepalive(ctx context.Context, every time.Duration) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if time.Since(h.last) >= every {
		_ = h.send(ctx)
	}
}

// send sends h.latest; h.mu is held.
func (h *heartbeats) send(ctx context.Context) error {
	b := h.latest
	h.last = time.Now()
	if h.c == nil {
		activity.RecordHeartbeat(h.actx, b)
		return context.Cause(h.ctx)
	}
	err := h.c.RecordActivityHeartbeat(ctx, h.token, b)
	var canceled *sdktemporal.CanceledError
	var notFound *serviceerror.NotFound
	if errors.As(err, &canceled) || errors.As(err, &notFound) {
		h.cancel(errHandBack)
	}
	return context.Cause(h.ctx)
}

// stopped is the loop's error when its context ended. When the server
// asked to cancel the activity (or, in the SDK's test environment, the
// SDK did), it is a cancellation whose details are the wait's Checkpoint, which
// the workflow reads. Otherwise the activity's own context ended (its
// worker stops): a retryable error, and Temporal's next attempt resumes
// from the last heartbeat.
func (h *heartbeats) stopped(s waiter.Checkpoint) error {
	if errors.Is(context.Cause(h.ctx), errHandBack) || (h.c == nil && h.actx.Err() != nil) {
		if h.c != nil && h.actx.Err() == nil {
			// The SDK reports a cancellation only of an activity whose
			// context it cancelled itself, which it does on the answer
			// to its own heartbeat: this one is its first, so it is
			// sent at once, and the answer says cancelled again.
			activity.RecordHeartbeat(h.actx, beat{State: s})
		}
		return sdktemporal.NewCanceledError(beat{State: s})
	}
	return sdktemporal.NewApplicationError("the activity stopped mid-wait (its worker stops); its next attempt resumes from the last heartbeat", "waitable.Stopped", h.actx.Err())
}

func (h *heartbeats) stop() {
	close(h.done)
	h.wg.Wait()
	h.cancel(nil)
}
