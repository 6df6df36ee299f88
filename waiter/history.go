package waiter

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/fnv"
	"math"
	"slices"
	"sync"
	"time"

	"github.com/waitable/waitable/internal/plural"
	"github.com/waitable/waitable/internal/survival"
	"github.com/waitable/waitable/telemetry"
)

// How long a wait will take: each Waiter keeps the durations of its past
// waits (History, in memory unless WithHistory says otherwise), each wait
// learns from them as it begins (Learn, its Checkpoint's Prior), and
// every attempt carries an Estimate of the time left; WithLearnedSchedule
// places the polls where the end is likely.

// History keeps the durations of a waiter's past waits, by the waiter's
// name and a key (WithHistoryKey; "" by default), so that the next wait
// can say how long it has left ([Estimate]) and, with
// [WithLearnedSchedule], poll where its end is likely. A Waiter keeps
// its own in memory ([NewMemoryHistory]) unless [WithHistory] gives
// another, such as one on disk that outlives the process.
//
// The waiter calls Load as each wait begins and Add as it ends, in the
// goroutine of the wait (a Batch's scheduler for its members), each under
// a context that ends after 100ms: a store that errs, is slow
// or holds samples that make no sense never fails a wait, which then runs
// on the Smithy schedule with no estimate, and says why (Estimate.None).
// A History must be safe for concurrent use.
type History interface {
	// Load returns the past waits of the waiter named name under key,
	// oldest first (the waiter reads the last HistoryWindow).
	Load(ctx context.Context, name, key string) ([]Sample, error)
	// Add records a wait that ended.
	Add(ctx context.Context, name, key string, s Sample) error
}

// Sample is one past wait, as its polls saw it: its end came after the
// last call that saw the resource pending and, if it was seen, by the call
// that saw it (never at a poll's time: the schedule's own lag would bias
// every estimate).
type Sample struct {
	// Pending is when the last call that saw the resource pending
	// started, since the wait began (0: none did).
	Pending time.Duration `json:"pendingNs"`
	// Ready is when the call that saw the resource in its success state
	// started, since the wait began (the first of a WithStability
	// streak); 0 for a wait that did not succeed.
	Ready time.Duration `json:"readyNs,omitempty"`
	// End is how the wait ended: "success", "failure", "timeout",
	// "max_polls" or "cancelled" (Checkpoint.End). A wait that did not
	// succeed lasted longer than Pending, as far as it knows.
	End string `json:"end"`
}

// The limits of what a wait learns from.
const (
	// HistoryWindow is the most past waits a wait learns from: the last
	// ones of its waiter's name and key.
	HistoryWindow = 20
	// MinHistory is the fewest past waits (that succeeded, or timed out
	// while pending) a wait needs for an estimate and a learned
	// schedule: with fewer, it has neither, and polls on the Smithy
	// schedule.
	MinHistory = 4
	// historyTimeout bounds each call of a History (Load, Add).
	historyTimeout = 100 * time.Millisecond
	// maxSample is the longest duration a Sample may hold: a store that
	// holds longer ones holds nonsense.
	maxSample = 366 * 24 * time.Hour
	// learnedChance is the chance of each poll of a learned schedule to
	// be the one that sees the end.
	learnedChance = 0.08
)

// Prior is what a wait learnt, as it began, from the waits before it
// ([Waiter.Learn]), kept in its [Checkpoint]: the distribution of their
// durations, the time past which a wait is overdue, and the chance of each
// poll of a learned schedule. The zero Prior knows nothing: no estimate,
// the Smithy schedule.
type Prior struct {
	// Waits is how many past waits it was learnt from.
	Waits int `json:"waits,omitempty"`
	// At and Share are the distribution of the past waits' durations:
	// Share[i] is the share of them over by At[i] (since a wait began),
	// linear between points. Share's last value is below 1 when some
	// timed out longer than every other took.
	At    []time.Duration `json:"atNs,omitempty"`
	Share []float64       `json:"share,omitempty"`
	// OverdueAfter is the duration past which a wait is slower than 95%
	// of the waits before it (0: none is known).
	OverdueAfter time.Duration `json:"overdueNs,omitempty"`
	// Chance is each poll's chance of seeing the end on a learned
	// schedule (WithLearnedSchedule); 0: the Smithy schedule.
	Chance float64 `json:"chance,omitempty"`
	// Note says why there is no distribution, when there is none.
	Note string `json:"note,omitempty"`
}

// noPrior is what a wait that did not learn knows.
var noPrior Prior

// dist returns p's distribution.
func (p *Prior) dist() survival.Dist { return survival.Dist{At: p.At, P: p.Share} }

// valid reports whether p is one Learn could have made.
func (p *Prior) valid() bool {
	return p.Waits >= 0 && p.OverdueAfter >= 0 && p.dist().Valid() &&
		!math.IsNaN(p.Chance) && p.Chance >= 0 && p.Chance < 1
}

// Estimate is how long a wait has left, as an attempt's event says
// ([Attempt.Estimate]), learnt from the waits of its waiter before it (see
// [History]): the 10th, 50th and 90th percentiles of the time left,
// given that the wait has not seen its end yet. Where the service reports
// its progress ([WithProgress]), the time left is the share not done of a
// whole wait's. With fewer than MinHistory past waits there is none, and
// None says so.
type Estimate struct {
	// P10, P50 and P90 are the percentiles of the time left after the
	// attempt (zero when there is no estimate, and once the wait has
	// ended).
	P10, P50, P90 time.Duration
	// Overdue reports a wait that has run longer than 95% of the waits
	// before it (Prior.OverdueAfter), with or without an estimate.
	Overdue bool
	// Past is how many past waits the estimate was learnt from.
	Past int
	// None says why there is no estimate ("3 past waits, 4 needed"), ""
	// when there is one or the wait has ended.
	None string
}

// estimate is the Estimate of a wait whose Checkpoint is s after an
// attempt that started at start and ended at end, with the progress
// its answer reported (0: none).
func estimate(s *Checkpoint, start, end time.Time, progress float64) Estimate {
	p := s.Prior
	if p == nil {
		p = &noPrior
	}
	e := Estimate{Past: p.Waits, Overdue: p.OverdueAfter > 0 && start.Sub(s.Start) > p.OverdueAfter}
	if s.End != "" {
		return e
	}
	if len(p.At) == 0 {
		e.None = p.Note
		if e.None == "" {
			e.None = "no history"
		}
		return e
	}
	b, ok := p.dist().Remaining(s.Pending, end.Sub(s.Start), progress)
	if !ok {
		e.None = fmt.Sprintf("the wait has run longer than the %s before it", plural.N(p.Waits, "past wait"))
		return e
	}
	e.P10, e.P50, e.P90 = b.P10, b.P50, b.P90
	return e
}

// Learn returns what a wait of in learns from the waits before it: the
// last HistoryWindow samples of the waiter's History (WithHistory) under
// in's key (WithHistoryKey), read within 100ms, as a [Prior], shared
// by the waits that learn it until the history changes (do not change
// it). It never fails: a History that errs, or holds a sample that makes no sense
// (negative, over a year, ready before pending, an unknown end), teaches
// nothing, and the Prior's Note says why. The in-process waits (Wait,
// Start, a Group's, a Batch's) call it as they begin; a driver of its own
// puts it in the Checkpoint [Waiter.Begin] returns before the first
// [Waiter.Step]. Of the past waits, only the last of a new regime count:
// when the last three or more all took less than every one before them,
// or all more, the service changed, and the ones before say nothing of
// the next.
func (w *Waiter[I, O]) Learn(ctx context.Context, in I) *Prior {
	if w.history == nil {
		return &Prior{Note: "no history (WithHistory(nil))"}
	}
	key := w.historyKey(in)
	ctx, cancel := w.storeContext(ctx)
	defer cancel()
	samples, err := w.history.Load(ctx, w.def.Name, key)
	if err != nil {
		return &Prior{Note: fmt.Sprintf("the history could not be read: %v", err)}
	}
	if len(samples) > HistoryWindow {
		samples = samples[len(samples)-HistoryWindow:]
	}
	sum := fnv.New64a()
	var b []byte
	for _, s := range samples {
		b = binary.LittleEndian.AppendUint64(b[:0], uint64(s.Pending))
		b = binary.LittleEndian.AppendUint64(b, uint64(s.Ready))
		sum.Write(append(b, s.End...))
	}
	return w.priors.get(key, sum.Sum64(), func() *Prior { return w.learn(samples) })
}

// learn is Learn's Prior from the samples read.
func (w *Waiter[I, O]) learn(samples []Sample) *Prior {
	var intervals []survival.Interval
	var took survival.Durations
	for i, s := range samples {
		if err := s.check(); err != nil {
			return &Prior{Note: fmt.Sprintf("the history holds nonsense (sample %d of %d: %v): not used", i+1, len(samples), err)}
		}
		switch s.End {
		case telemetry.OutcomeSuccess:
			intervals = append(intervals, survival.Interval{Lo: s.Pending, Hi: s.Ready})
			took = append(took, s.Ready)
		case telemetry.OutcomeTimeout, telemetry.OutcomeMaxPolls:
			intervals = append(intervals, survival.Interval{Lo: s.Pending, Hi: survival.Censored})
			took = append(took, survival.Censored)
		case telemetry.OutcomeCancelled: // longer than Pending; how long the caller waited says nothing
			intervals = append(intervals, survival.Interval{Lo: s.Pending, Hi: survival.Censored})
			took = append(took, -1)
		}
	}
	recent := survival.Recent(intervals)
	took = slices.DeleteFunc(took[len(took)-len(recent):], func(d time.Duration) bool { return d < 0 })
	n := len(recent)
	if n < MinHistory {
		return &Prior{Waits: n, Note: fmt.Sprintf("%s, %d needed", plural.N(n, "past wait"), MinHistory)}
	}
	d := survival.Fit(recent)
	if d.Empty() {
		return &Prior{Waits: n, Note: fmt.Sprintf("none of the %s ended", plural.N(n, "past wait"))}
	}
	p := &Prior{Waits: n, At: d.At, Share: d.P}
	if t, ok := took.Quantile(0.95); ok && t != survival.Censored {
		p.OverdueAfter = t
	}
	if w.cfg.learned {
		p.Chance = learnedChance
	}
	return p
}

// check reports a sample that makes no sense.
func (s Sample) check() error {
	switch {
	case s.Pending < 0 || s.Ready < 0:
		return errors.New("a negative duration")
	case s.Pending > maxSample || s.Ready > maxSample:
		return fmt.Errorf("a duration over %v", maxSample)
	case s.End == telemetry.OutcomeSuccess && s.Ready < s.Pending:
		return fmt.Errorf("ready at %v, before pending at %v", s.Ready, s.Pending)
	case s.End != telemetry.OutcomeSuccess && s.Ready != 0:
		return fmt.Errorf("ready at %v, but it ended %q", s.Ready, s.End)
	}
	switch s.End {
	case telemetry.OutcomeSuccess, telemetry.OutcomeFailure, telemetry.OutcomeTimeout, telemetry.OutcomeMaxPolls,
		telemetry.OutcomeCancelled:
		return nil
	}
	return fmt.Errorf("an unknown end %q", s.End)
}

// Remember records, in the waiter's History, the wait of in that ended
// at s (its Checkpoint once ended), under in's key, within 100ms
// (ctx's cancellation does not stop it: a cancelled wait is recorded too).
// The in-process waits call it as they end; a driver of its own calls it
// with its last Checkpoint. A wait that made no call, or panicked, teaches
// nothing and is not recorded. It returns the History's error.
func (w *Waiter[I, O]) Remember(ctx context.Context, in I, s Checkpoint) error {
	if w.history == nil || s.End == "" || s.End == telemetry.OutcomePanic || s.Attempts == 0 {
		return nil
	}
	since := func(t time.Time) time.Duration {
		if t.IsZero() {
			return 0
		}
		return max(t.Sub(s.Start), 0)
	}
	sample := Sample{Pending: max(s.Pending, 0), End: s.End}
	if s.End == telemetry.OutcomeSuccess {
		sample.Ready = max(since(s.StreakStart), sample.Pending)
	}
	if _, ok := w.history.(*memoryHistory); ok {
		return w.history.Add(ctx, w.def.Name, w.historyKey(in), sample)
	}
	ctx, cancel := w.cfg.clock.WithTimeout(context.WithoutCancel(ctx), historyTimeout)
	defer cancel()
	return w.history.Add(ctx, w.def.Name, w.historyKey(in), sample)
}

// storeContext returns the context of a call of the History: ctx, ended
// after historyTimeout on the waiter's clock unless the History is in
// memory (it never waits: no timer is armed for it).
func (w *Waiter[I, O]) storeContext(ctx context.Context) (context.Context, context.CancelFunc) {
	if _, ok := w.history.(*memoryHistory); ok {
		return ctx, func() {}
	}
	return w.cfg.clock.WithTimeout(ctx, historyTimeout)
}

// historyKey returns in's key in the History.
func (w *Waiter[I, O]) historyKey(in I) string {
	if w.keyFn == nil {
		return ""
	}
	return w.keyFn(in)
}

// priors keeps the Prior learnt last under each key with the checksum of
// the samples it was learnt from, so that the waits that begin between
// two ends learn once. It keeps at most maxPriors keys.
type priors struct {
	mu    sync.Mutex
	byKey map[string]cachedPrior
}

type cachedPrior struct {
	sum   uint64
	prior *Prior
}

const maxPriors = 1024

// get returns the Prior of the samples whose checksum is sum under key,
// learning it with learn unless it is known.
func (c *priors) get(key string, sum uint64, learn func() *Prior) *Prior {
	c.mu.Lock()
	if p, ok := c.byKey[key]; ok && p.sum == sum {
		c.mu.Unlock()
		return p.prior
	}
	c.mu.Unlock()
	p := learn()
	c.mu.Lock()
	if c.byKey == nil || len(c.byKey) >= maxPriors {
		c.byKey = make(map[string]cachedPrior)
	}
	c.byKey[key] = cachedPrior{sum, p}
	c.mu.Unlock()
	return p
}

// NewMemoryHistory returns a [History] that keeps in memory the last
// HistoryWindow samples of each waiter name and key, for at most 1024
// of them (a new one then forgets another, at random). Every
// Waiter keeps one of its own unless WithHistory gives another; give one
// to several Waiters with WithHistory to share what they learn.
func NewMemoryHistory() History { return &memoryHistory{byKey: make(map[memoryKey]*memoryEntry)} }

type memoryHistory struct {
	mu    sync.Mutex
	byKey map[memoryKey]*memoryEntry
}

type memoryKey struct{ name, key string }

type memoryEntry struct{ samples []Sample }

// maxMemoryKeys bounds the keys a memory History keeps.
const maxMemoryKeys = 1024

func (h *memoryHistory) Load(_ context.Context, name, key string) ([]Sample, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if e, ok := h.byKey[memoryKey{name, key}]; ok {
		return slices.Clone(e.samples), nil
	}
	return nil, nil
}

func (h *memoryHistory) Add(_ context.Context, name, key string, s Sample) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	k := memoryKey{name, key}
	e, ok := h.byKey[k]
	if !ok {
		if len(h.byKey) >= maxMemoryKeys {
			for k := range h.byKey { // any one: a map's order is random
				delete(h.byKey, k)
				break
			}
		}
		e = &memoryEntry{}
		h.byKey[k] = e
	}
	if len(e.samples) >= HistoryWindow {
		e.samples = slices.Delete(e.samples, 0, len(e.samples)-HistoryWindow+1)
	}
	e.samples = append(e.samples, s)
	return nil
}
