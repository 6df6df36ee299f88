package waiter

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/waitable/waitable/internal/plural"
	"github.com/waitable/waitable/internal/waitname"
)

// GroupOptions configure a fan-out: [WaitAll] or a [Group]. The zero
// value runs every wait at once and collects every outcome.
type GroupOptions struct {
	// Concurrency is how many waits run at once at most (0: no limit).
	// Further waits start as earlier ones end.
	Concurrency int
	// FailFast makes the first failed wait cancel the others (their
	// errors then match context.Canceled); waits not yet started make no
	// call. By default every wait runs to its own end and every outcome
	// is collected.
	FailFast bool
	// Progress, if set, is called as each wait ends, one call at a time,
	// in the order they end: a progress line, a dashboard, a log.
	Progress func(Progress)
}

// Progress is what a fan-out reports as each wait ends.
type Progress struct {
	// Name is the wait's name (see [Go]) and Err how it ended (nil:
	// success).
	Name string
	Err  error
	// Done, Failed and Started count the waits ended so far, those of them
	// that did not succeed, and the waits started.
	Done, Failed, Started int
}

// Result is how one wait of a fan-out ended: its last output and its
// error, as [Run.Result] returns them.
type Result[O any] struct {
	Output O
	Err    error
}

// Group waits for many resources, with any waiters, together: a
// concurrency limit, and either every outcome collected or the first
// failure cancelling the rest. Each wait is a [Run] (its events and
// checkpoints are there to read) named after its input or a name you
// give, and every error names its wait. Share a rate limiter between the
// waiters (WithPollRateLimit) to keep all their polls under one API's
// limit. Add waits with [Go], watch them with GroupOptions.Progress (or
// each Run's events), and collect them with [Group.Wait].
// A Group is safe for concurrent use. A zero Group is valid: its waits
// run under context.Background(), all at once, and every outcome is
// collected, as NewGroup(context.Background(), GroupOptions{}) does.
type Group struct {
	ctx    context.Context         // the caller's, or (FailFast) the group's own; nil: a zero Group's
	cancel context.CancelCauseFunc // nil without FailFast
	cfg    GroupOptions
	slots  chan struct{} // nil: no limit

	mu      sync.Mutex
	started int
	done    int
	failed  []groupFailure
	first   int // the failure that cancelled the rest (GroupOptions.FailFast), 0 if none
	all     sync.WaitGroup
	report  sync.Mutex // serializes progress calls
}

type groupMember struct {
	name string
	n    int  // its order in the group
	slot bool // holds one of the group's concurrency slots
}

type groupFailure struct {
	n   int
	err error
}

// NewGroup returns a Group whose waits run under ctx.
func NewGroup(ctx context.Context, opts GroupOptions) *Group {
	g := &Group{cfg: opts, ctx: ctx}
	if opts.FailFast { // a context of the group's own, to cancel the waits
		g.ctx, g.cancel = context.WithCancelCause(ctx)
	}
	if opts.Concurrency > 0 {
		g.slots = make(chan struct{}, opts.Concurrency)
	}
	return g
}

// Go starts a wait of w for in in the group and returns its Run. name
// names the wait in errors and progress: an instance ID, a table name,
// what the caller knows the resource by; "" names it after in (its text
// for strings, numbers and fmt.Stringers; "#n", its order in the group,
// otherwise). When the group is at its concurrency limit, Go blocks until
// a wait ends (or the group is cancelled: the wait then ends at once,
// making no call).
func Go[I, O any](g *Group, name string, w *Waiter[I, O], in I, maxWait time.Duration) *Run[O] {
	m := g.join(name, in)
	return w.start(g.context(), in, maxWait, nil, m.name, func(err error) { g.ended(m, err) })
}

// context returns the context the group's waits run under.
func (g *Group) context() context.Context {
	if g.ctx == nil {
		return context.Background()
	}
	return g.ctx
}

// join counts a new wait of the group, once a concurrency slot is free
// (or the group is cancelled: the wait then ends at once, making no call),
// and names it (see Go).
func (g *Group) join(name string, in any) *groupMember {
	slot := false
	if g.slots != nil {
		select {
		case g.slots <- struct{}{}:
			slot = true
		case <-g.ctx.Done(): // the wait ends at once, making no call
		}
	}
	g.mu.Lock()
	g.started++
	if name == "" {
		name = waitname.For(in, g.started)
	}
	m := &groupMember{name: name, n: g.started, slot: slot}
	g.mu.Unlock()
	g.all.Add(1)
	return m
}

// ended records a member's end.
func (g *Group) ended(m *groupMember, err error) {
	g.mu.Lock()
	g.done++
	if err != nil {
		g.failed = append(g.failed, groupFailure{m.n, err})
		if g.cfg.FailFast && g.first == 0 {
			g.first = m.n
		}
	}
	p := Progress{Name: m.name, Err: err, Done: g.done, Failed: len(g.failed), Started: g.started}
	g.mu.Unlock()
	if err != nil && g.cfg.FailFast {
		g.cancel(fmt.Errorf("waiter: the group fails fast, and wait %s failed", m.name))
	}
	if m.slot {
		<-g.slots
	}
	if g.cfg.Progress != nil {
		g.report.Lock()
		g.cfg.Progress(p)
		g.report.Unlock()
	}
	g.all.Done()
}

// Wait blocks until every wait of the group has ended and returns nil if
// all succeeded, or a [*GroupError] listing the ones that did not, in the
// order they were started (with GroupOptions.FailFast, the failure that cancelled
// the others comes first).
func (g *Group) Wait() error {
	g.all.Wait()
	if g.cancel != nil {
		g.cancel(nil)
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if len(g.failed) == 0 {
		return nil
	}
	slices.SortFunc(g.failed, func(a, b groupFailure) int {
		switch {
		case a.n == g.first:
			return -1
		case b.n == g.first:
			return 1
		}
		return a.n - b.n
	})
	e := &GroupError{Total: g.started}
	for _, f := range g.failed {
		e.Failed = append(e.Failed, f.err)
	}
	return e
}

// GroupError is how a fan-out in which some waits did not succeed ends:
// each failure is an [*Error] naming its wait (Error.Input). errors.Is and
// errors.As look through all of them.
type GroupError struct {
	Failed []error
	Total  int
}

// groupErrorShown is how many failures Error spells out.
const groupErrorShown = 3

// Error reads like "waiter: 25 of 1000 waits did not succeed: i-1: timed
// out after 3 polls in 1m0s; ...; and 22 more".
func (e *GroupError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "waiter: %d of %s did not succeed", len(e.Failed), plural.N(e.Total, "wait"))
	for i, err := range e.Failed[:min(len(e.Failed), groupErrorShown)] {
		sep := "; "
		if i == 0 {
			sep = ": "
		}
		b.WriteString(sep)
		b.WriteString(short(err))
	}
	if n := len(e.Failed) - groupErrorShown; n > 0 {
		fmt.Fprintf(&b, "; and %d more", n)
	}
	return b.String()
}

// short is a member's error without the waiter's name: "input: reason
// after n polls in d".
func short(err error) string {
	var we *Error
	if !errors.As(err, &we) {
		return err.Error()
	}
	s := fmt.Sprintf(
		"%s: %v after %s in %v",
		we.Input,
		we.Reason,
		plural.N(we.Attempts, "poll"),
		we.Elapsed,
	)
	if we.Acceptor >= 0 {
		s += fmt.Sprintf(" (acceptor %d: %s)", we.Acceptor, we.Matcher)
	} else if we.Err != nil {
		s += fmt.Sprintf(" (%v)", we.Err)
	}
	return s
}

// Unwrap returns every failure.
func (e *GroupError) Unwrap() []error { return e.Failed }

// WaitAll waits for every input with w, at most maxWait each, and returns
// their Results in the order of the inputs, with the error of [Group.Wait].
// Each wait is named after its input, or "#n" (see [Go]), and runs as
// [Waiter.Start] does: in a goroutine of its own, from its start to its
// end. If an operation panicked, WaitAll panics with a
// [*PanicError] (the first input's whose operation panicked), in the
// caller's goroutine, once every wait has ended.
func WaitAll[I, O any](ctx context.Context, w *Waiter[I, O], inputs []I, maxWait time.Duration,
	opts GroupOptions) ([]Result[O], error) {
	g := NewGroup(ctx, opts)
	res := make([]Result[O], len(inputs))
	for i, in := range inputs {
		m := g.join("", in)
		finish := func(out O, err error, _ *Checkpoint) {
			res[i] = Result[O]{Output: out, Err: err}
			g.ended(m, err)
		}
		l := &loop[I, O]{}
		l.name = m.name
		if err := l.init(w, g.ctx, in, maxWait, nil, false, nil); err != nil {
			finish(l.last, err, nil)
			continue
		}
		l.launch(finish)
	}
	err := g.Wait()
	for _, o := range res {
		if pe, ok := o.Err.(*PanicError); ok {
			panic(pe)
		}
	}
	return res, err
}
