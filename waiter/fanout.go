package waiter

import (
	"context"
	"errors"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"
)

// GroupOption configures a fan-out: [WaitAll] or a [Group].
type GroupOption func(*groupConfig)

type groupConfig struct {
	limit    int
	failFast bool
}

// WithConcurrency runs at most n waits at once (n <= 0: no limit). Further
// waits start as earlier ones end.
func WithConcurrency(n int) GroupOption {
	return func(c *groupConfig) { c.limit = n }
}

// WithFailFast makes the first failed wait cancel the others (their errors
// then match context.Canceled). By default every wait runs to its own end
// and every outcome is collected.
func WithFailFast() GroupOption {
	return func(c *groupConfig) { c.failFast = true }
}

// Outcome is how one wait of a fan-out ended: its last output and its
// error, as [Run.Result] returns them.
type Outcome[O any] struct {
	Output O
	Err    error
}

// Group waits for many runs, of any waiters, together, on an
// errgroup.Group: a concurrency limit, and either every outcome collected
// or the first failure cancelling the rest. Share a rate limiter between
// the waiters (WithPollRateLimit) to keep all their polls under one API's
// limit. Add waits with [Go]; a Group is used once.
type Group struct {
	eg       *errgroup.Group
	ctx      context.Context
	failFast bool
	mu       sync.Mutex
	errs     []error
}

// NewGroup returns a Group whose waits run under ctx.
func NewGroup(ctx context.Context, opts ...GroupOption) *Group {
	var cfg groupConfig
	for _, o := range opts {
		o(&cfg)
	}
	eg, gctx := errgroup.WithContext(ctx)
	if cfg.limit > 0 {
		eg.SetLimit(cfg.limit)
	}
	return &Group{eg: eg, ctx: gctx, failFast: cfg.failFast}
}

// Go starts a wait of w for in in the group and returns where its outcome
// will be once [Group.Wait] has returned. When the group is at its
// concurrency limit, Go blocks until a wait ends.
func Go[I, O any](g *Group, w *Waiter[I, O], in I, maxWait time.Duration) *Outcome[O] {
	o := new(Outcome[O])
	g.eg.Go(func() error {
		o.Output, o.Err = w.Wait(g.ctx, in, maxWait)
		if o.Err == nil {
			return nil
		}
		if g.failFast {
			return o.Err
		}
		g.mu.Lock()
		g.errs = append(g.errs, o.Err)
		g.mu.Unlock()
		return nil
	})
	return o
}

// Wait blocks until every wait of the group has ended. It returns the
// first failure with WithFailFast, and otherwise every failure, joined (nil
// when all succeeded).
func (g *Group) Wait() error {
	if err := g.eg.Wait(); err != nil {
		return err
	}
	return errors.Join(g.errs...)
}

// WaitAll waits for every input with w, at most maxWait each, and returns
// the outcomes in the order of the inputs, with the error of [Group.Wait].
func WaitAll[I, O any](ctx context.Context, w *Waiter[I, O], inputs []I, maxWait time.Duration, opts ...GroupOption) ([]Outcome[O], error) {
	g := NewGroup(ctx, opts...)
	outs := make([]*Outcome[O], len(inputs))
	for i, in := range inputs {
		outs[i] = Go(g, w, in, maxWait)
	}
	err := g.Wait()
	res := make([]Outcome[O], len(outs))
	for i, o := range outs {
		res[i] = *o
	}
	return res, err
}
