package waiter

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"reflect"
	"strconv"
	"time"

	"github.com/benbjohnson/clock"

	"github.com/waitable/waitable/backoff"
	"github.com/waitable/waitable/classify"
	"github.com/waitable/waitable/internal/errjoin"
	"github.com/waitable/waitable/jmespath"
	"github.com/waitable/waitable/retry"
	"github.com/waitable/waitable/telemetry"
)

// Waiter polls one operation until its resource reaches a terminal state,
// as a [Definition] (or a Go condition, [NewFunc]) says. Build it with [New] or
// [NewFunc]; wait with [Waiter.Wait] (in your goroutine) or [Waiter.Start]
// (in the background, with events and checkpoints). A Waiter is safe for
// concurrent use by any number of waits.
type Waiter[I, O any] struct {
	def            Definition
	op             func(context.Context, I) (O, error)
	set            *classify.Set[I, O]
	custom         []customMatch[I, O]
	cond           func(in I, out O, err error) (done bool, failure error)
	schedule       backoff.WaiterSchedule
	strategy       retry.Strategy
	transientLimit int // transient errors in a row that end a wait (0: no limit)
	rules          string
	cfg            config
	obs            telemetry.Observer // nil: nothing observes
	descs          []string           // each compiled acceptor's Matcher.String(), built once
	delayFn        func(attempt int, out O, err error) time.Duration
	hintFn         func(out O) time.Duration
	outHints       bool                 // O may have a RetryAfter method (see mayHint)
	identity       *jmespath.Expr       // WithIdentity's, compiled
	names          jmespath.MemberNames // the definition's model's, for I and O (nil: none)
	giveUp         func(ctx context.Context, in I, err error)
	history        History           // nil: none
	keyFn          func(in I) string // WithHistoryKey's
	progressFn     func(out O) float64
	priors         priors // the Prior learnt last, by key
}

// customMatch is an acceptor written as a Go function.
type customMatch[I, O any] struct {
	state classify.State
	name  string
	match func(in I, out O, err error) bool
}

// ErrInvalidOption is matched by errors.Is for the error [New] returns for
// a bad option or a nil operation, and for a wait given no time.
var ErrInvalidOption = errors.New("waiter: invalid option")

// New builds a Waiter for def that calls op. It validates def (see
// [Definition.Validate]), compiles every acceptor's JMESPath once and
// checks its paths against the Go types I and O, applies the options, and
// returns every problem at once. It rejects a nil op.
func New[I, O any](
	def Definition,
	op func(context.Context, I) (O, error),
	opts ...Option,
) (*Waiter[I, O], error) {
	w, cfg, errs := newWaiter(def, op, opts)
	hasSuccess := false
	for _, m := range cfg.matches {
		hasSuccess = hasSuccess || m.state == classify.Success
	}
	errs = append(errs, def.problems(hasSuccess)...)
	if len(errs) == 0 {
		errs = append(errs, w.compile()...)
	}
	for _, m := range cfg.matches {
		fn, ok := m.fn.(func(I, O, error) bool)
		if !ok {
			errs = append(
				errs,
				fmt.Errorf(
					"%w: waiter %s: WithMatch(%q) is for %s, not func(%v, %v, error) bool",
					ErrInvalidOption,
					def.Name,
					m.name,
					reflect.TypeOf(m.fn),
					reflect.TypeFor[I](),
					reflect.TypeFor[O](),
				),
			)
			continue
		}
		w.custom = append(w.custom, customMatch[I, O]{state: m.state, name: m.name, match: fn})
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	w.rules = w.fingerprint()
	return w, nil
}

// NewFunc builds a Waiter from Go alone: an operation and a condition, no
// Definition and no model. name names it in errors, events and telemetry
// (any non-empty string). Its delays are the specification's defaults (2s
// to 120s) unless WithDelays sets others; sub-second delays are fine here.
//
// cond judges each call the way a Kubernetes ConditionFunc does: done
// ends the wait with success; an error of its own ends it as a failure
// with that error; (false, nil) polls again, whatever the call returned
// (an error included: it is the condition's verdict), never sooner than
// the error's retry-after hint. To leave an error of the call to the retry
// strategy (retried if transient, a failure otherwise, as for an error no
// acceptor matches), return that error unchanged.
func NewFunc[I, O any](
	name string,
	op func(context.Context, I) (O, error),
	cond func(in I, out O, err error) (done bool, failure error),
	opts ...Option,
) (*Waiter[I, O], error) {
	def := Definition{Name: name}
	w, _, errs := newWaiter(def, op, opts)
	if name == "" {
		errs = append(errs, fmt.Errorf("%w: NewFunc: the name is empty", ErrInvalidOption))
	}
	if cond == nil {
		errs = append(
			errs,
			fmt.Errorf("%w: waiter %s: the condition is nil", ErrInvalidOption, name),
		)
	}
	if len(w.cfg.matches) > 0 {
		errs = append(
			errs,
			fmt.Errorf("%w: waiter %s: WithMatch does not apply to NewFunc: the condition decides",
				ErrInvalidOption, name),
		)
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	w.cond = cond
	w.rules = w.fingerprint()
	return w, nil
}

// newWaiter applies the options and everything New and NewFunc share.
func newWaiter[I, O any](
	def Definition,
	op func(context.Context, I) (O, error),
	opts []Option,
) (*Waiter[I, O], config, []error) {
	cfg := config{clock: clock.New(), events: defaultEventBuffer}
	// A nil option is counted, not placed: the packages built on New put
	// options of their own before their callers', so a position would
	// mislead.
	nils := 0
	for _, o := range opts {
		if o == nil {
			nils++
			continue
		}
		o(&cfg)
	}
	switch {
	case nils == 1:
		cfg.errs = append(cfg.errs, errors.New("an option is nil"))
	case nils > 1:
		cfg.errs = append(cfg.errs, fmt.Errorf("%d options are nil", nils))
	}
	var errs []error
	if op == nil {
		errs = append(
			errs,
			fmt.Errorf("%w: waiter %s: the operation is nil", ErrInvalidOption, def.Name),
		)
	}
	for _, e := range cfg.errs {
		errs = append(errs, fmt.Errorf("%w: waiter %s: %w", ErrInvalidOption, def.Name, e))
	}
	w := &Waiter[I, O]{def: def, op: op, cfg: cfg, strategy: cfg.strategy, schedule: def.Schedule(), outHints: mayHint[O]()}
	if cfg.minDelay > 0 {
		w.schedule.MinDelay, w.schedule.MaxDelay = cfg.minDelay, cfg.maxDelay
	}
	w.schedule.Jitter = cfg.jitter
	if !cfg.strategySet {
		if s, err := retry.NewStandard(retry.WithClock(cfg.clock)); err != nil {
			errs = append(errs, err)
		} else {
			w.strategy = s
		}
	}
	w.transientLimit = cfg.transientLimit
	if m := def.Operation.Model; m != nil {
		names, err := m.MemberNames(reflect.TypeFor[I](), reflect.TypeFor[O]())
		if err != nil {
			errs = append(
				errs,
				&DefinitionError{
					Waiter:   def.Name,
					Acceptor: -1,
					Rule:     "model",
					Err: fmt.Errorf(
						"the model does not fit %v and %v: %w",
						reflect.TypeFor[I](),
						reflect.TypeFor[O](),
						err,
					),
				},
			)
		}
		w.names = names
	}
	if cfg.identity != "" {
		e, err := identityExpr[O](cfg.identity, w.names)
		if err != nil {
			errs = append(errs, fmt.Errorf("%w: waiter %s: WithIdentity(%q): %w",
				ErrInvalidOption, def.Name, cfg.identity, err))
		}
		w.identity = e
	}
	errs = typed(&w.delayFn, cfg.delayFn, def.Name, "WithDelayFunc", errs)
	errs = typed(&w.hintFn, cfg.hintFn, def.Name, "WithPollHint", errs)
	errs = typed(&w.giveUp, cfg.giveUp, def.Name, "WithOnGiveUp", errs)
	errs = typed(&w.keyFn, cfg.keyFn, def.Name, "WithHistoryKey", errs)
	errs = typed(&w.progressFn, cfg.progressFn, def.Name, "WithProgress", errs)
	w.history = cfg.history
	if !cfg.historySet {
		w.history = NewMemoryHistory()
	}
	ts := cfg.telemetry
	ts.Scope = "github.com/waitable/waitable/waiter"
	obs, err := ts.Observer()
	if err != nil {
		errs = append(errs, err)
	}
	w.obs = obs
	return w, cfg, errs
}

// typed sets *dst to an option's function v (nil: none given), or adds an
// error to errs if v is for other types than the Waiter's.
func typed[F any](dst *F, v any, waiter, option string, errs []error) []error {
	if v == nil {
		return errs
	}
	f, ok := v.(F)
	if !ok {
		return append(
			errs,
			fmt.Errorf(
				"%w: waiter %s: %s is for %s, not %v",
				ErrInvalidOption,
				waiter,
				option,
				reflect.TypeOf(v),
				reflect.TypeFor[F](),
			),
		)
	}
	*dst = f
	return errs
}

// compile compiles the definition's acceptors against I and O.
func (w *Waiter[I, O]) compile() []error {
	var errs []error
	set, err := classify.Compile[I, O](w.def.Acceptors, classify.WithMemberNames(w.names))
	for _, e := range errjoin.Split(err) {
		var ae *classify.AcceptorError
		if errors.As(e, &ae) {
			e = &DefinitionError{Waiter: w.def.Name, Acceptor: ae.Index, Rule: ae.Rule, Err: ae.Err}
		}
		errs = append(errs, e)
	}
	w.set = set
	if set != nil {
		for _, a := range set.Acceptors() {
			w.descs = append(w.descs, a.Matcher.String())
		}
	}
	return errs
}

// fingerprint identifies the rules a Checkpoint was made under: what a
// checkpoint needs to resume with the same decisions.
func (w *Waiter[I, O]) fingerprint() string {
	h := fnv.New64a()
	acceptors, _ := json.Marshal(w.def.Acceptors)
	fmt.Fprintf(
		h,
		"%s|%s|%v|%v|%d|%d|%t",
		w.def.Name,
		acceptors,
		w.schedule.MinDelay,
		w.schedule.MaxDelay,
		w.maxPolls(),
		w.transientLimit,
		w.cond != nil,
	)
	for _, c := range w.custom {
		fmt.Fprintf(h, "|%s=%v", c.name, c.state)
	}
	if w.cfg.reserve != nil {
		fmt.Fprintf(h, "|reserve=%v", *w.cfg.reserve)
	}
	if w.delayFn != nil {
		fmt.Fprint(h, "|delayFunc")
	}
	if w.cfg.initialDelay > 0 {
		fmt.Fprintf(h, "|initial=%v", w.cfg.initialDelay)
	}
	if w.cfg.learned {
		fmt.Fprint(h, "|learned")
	}
	if w.stable() {
		fmt.Fprintf(h, "|stable=%d/%v", w.cfg.stableN, w.cfg.stableFor)
	}
	if w.cfg.notFoundLimit > 0 || w.cfg.identity != "" {
		fmt.Fprintf(h, "|notFound=%d|identity=%s", w.cfg.notFoundLimit, w.cfg.identity)
	}
	return strconv.FormatUint(h.Sum64(), 16)
}

// Schedule returns the delay schedule the waiter uses (the definition's,
// or the WithDelays override).
func (w *Waiter[I, O]) Schedule() backoff.WaiterSchedule { return w.schedule }

// stable reports whether success must be seen more than once
// (WithStability).
func (w *Waiter[I, O]) stable() bool { return w.cfg.stableN > 1 || w.cfg.stableFor > 0 }

// maxPolls returns the poll limit of a wait (0: none).
func (w *Waiter[I, O]) maxPolls() int {
	if w.cfg.maxPolls != nil {
		return *w.cfg.maxPolls
	}
	return w.def.MaxPolls
}

// identityExpr compiles WithIdentity's path and checks it against O: an
// identity is a string (an ARN, a UID), a number or a timestamp.
func identityExpr[O any](path string, names jmespath.MemberNames) (*jmespath.Expr, error) {
	var opts []jmespath.Option
	if names != nil {
		opts = append(opts, jmespath.WithMemberNames(names))
	}
	e, err := jmespath.Compile(path, opts...)
	if err != nil {
		return nil, err
	}
	t, err := e.Check(e.GoType(reflect.TypeFor[O]()))
	if err != nil {
		return nil, err
	}
	if k, ok := t.Kind(); ok && k != jmespath.String && k != jmespath.Number && k != jmespath.Null {
		return nil, fmt.Errorf("an identity must be a string, a number or a timestamp, but the path gives %s",
			jmespath.Describe(t))
	}
	return e, nil
}

// identityOf is an identity's value as text: numbers (timestamps too, as
// epoch seconds) in full, never in exponent form.
func identityOf(v any) string {
	if f, ok := v.(float64); ok {
		return strconv.FormatFloat(f, 'f', -1, 64)
	}
	return fmt.Sprint(v)
}
