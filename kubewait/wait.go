package kubewait

import (
	"context"
	"errors"
	"time"
)

// Object is the waiter's output: an object as the API serves it, in its
// JSON form (unstructured), which acceptors read in JMESPath
// (status.conditions[?type=='Ready'].status).
type Object = map[string]any

// Wait waits until every object of req meets every rule of req.For, one
// of them meets a FailOn rule, req.Timeout passes or ctx ends, and
// returns each object's outcome. err is nil when every object succeeded,
// and an [*Error] otherwise (ErrInvalidRequest, ErrNoObjects and a kind
// the server does not have aside).
//
// The wait runs in the calling goroutine, and so do req.OnEvent and the
// rules. It learns of the objects from the Client's informers (shared
// with every other wait that needs them, started by the first): a watch
// event judges at once the objects it concerns, with no GET. Each
// object's wait is a Smithy wait of its own, on the core's
// [waiter.Waiter.Begin] and [waiter.Waiter.Step] with one deadline for
// all: between events an object is judged again from the informer's copy
// on the waiter's schedule (so WithNotFoundLimit and WithStability
// count), and at the deadline once more. When an informer cannot watch
// (list or watch forbidden, or failing 3 times in a row), the wait polls
// its objects: a GET per object, or a LIST for a selector, on the same
// schedule, under the Client's rate limit, never sooner than a 429's
// Retry-After; it watches again when the informer does. An API server
// that cannot be reached (refused, 5xx, a timeout), as it restarts, is
// waited for until the deadline: its discovery (for Objects), its first
// list, its polls.
func (c *Client) Wait(ctx context.Context, req Request) (Result, error) {
	if err := req.check(); err != nil {
		return Result{}, err
	}
	w, err := newObjectWaiter(c, req)
	if err != nil {
		return Result{}, errors.Join(ErrInvalidRequest, err)
	}
	d := &driver{c: c, req: req, w: w, wake: make(chan struct{}, 1)}
	for _, r := range req.For {
		if _, ok := r.rollout(); ok && d.rollout == nil { // the first, whose acceptor the waiter has
			d.rollout = &r
		}
	}
	ctx, release := d.begin(ctx)
	defer release()
	groups, err := d.resolve(ctx)
	if err != nil {
		return Result{}, err
	}
	d.sharedPods = sharedPods(req, groups)
	if req.Count == 0 && req.forCreated() && len(groups) == 0 {
		d.req.Count = 1
	}
	return d.run(groups)
}

// driver is one wait: the sources of its objects, and their waits.
type driver struct {
	c   *Client
	req Request
	w   *objectWaiter
	// sources are where the wait learns of its objects (sources.go), each
	// with the waits of its objects (members.go).
	sources []*source
	wake    chan struct{} // every source's informer wakes the wait here
	// countWait, for a wait by selector with a Count (req.Count, 1 for
	// Created alone), is its wait while fewer objects match.
	countWait *member
	// rollout is the request's Rollout rule, if it has one: each member
	// follows its object's pods (member.pods).
	rollout    *Rule
	sharedPods map[string]bool // namespaces whose pods the wait lists and watches whole
	start, end time.Time       // end is the deadline
	parent     context.Context // the caller's
	ctx        context.Context // the caller's, ended at the deadline
}

// begin starts the wait's budget: req.Timeout from now, or less if the
// caller's deadline comes sooner.
func (d *driver) begin(parent context.Context) (context.Context, context.CancelFunc) {
	clk := d.c.clk
	d.start = clk.Now()
	d.end = d.start.Add(d.req.Timeout)
	if dl, ok := parent.Deadline(); ok {
		d.end = d.start.Add(min(d.req.Timeout, max(clk.Until(dl), 0)))
	}
	d.parent = parent
	ctx, release := clk.WithDeadline(parent, d.end)
	d.ctx = ctx
	return ctx, release
}

// run is the wait's loop: take what changed, judge the objects it
// concerns (and those due), end when the objects decide it, sleep until
// the next event, the next due object or the deadline.
func (d *driver) run(groups []named) (Result, error) {
	clk := d.c.clk
	d.subscribe(groups)
	defer d.unsubscribe()
	timer := clk.Timer(time.Hour)
	defer timer.Stop()
	for {
		now := clk.Now()
		if !now.Before(d.end) {
			return d.timeOut(now)
		}
		for _, m := range d.members() {
			m.pods.refresh(now)
		}
		for _, s := range d.sources {
			if err := d.refresh(s, now); err != nil {
				return d.result(clk.Now()), err
			}
		}
		d.poll(now)
		now = clk.Now()
		if res, err, ended := d.decided(now); ended {
			return res, err
		}
		if !now.Before(d.end) {
			return d.timeOut(now)
		}
		timer.Reset(max(d.next().Sub(now), 0))
		select {
		case <-d.parent.Done():
			if errors.Is(d.parent.Err(), context.DeadlineExceeded) {
				return d.timeOut(clk.Now()) // the caller's deadline is the wait's
			}
			return d.cancelled(clk.Now(), context.Cause(d.parent))
		case <-d.wake:
		case <-timer.C:
		}
	}
}

// next is when the wait must next judge or poll an object: the earliest
// one due, or the deadline. A source still listing has none due.
func (d *driver) next() time.Time {
	next := d.end
	for m := range d.all() {
		if !m.done && m.next.Before(next) && (m.src == nil || m.src.mode != modeSyncing) {
			next = m.next
		}
	}
	return next
}

func (d *driver) emit(e Event) {
	if d.req.OnEvent != nil {
		d.req.OnEvent(e)
	}
}
