package kubewait

import (
	"errors"
	"fmt"
	"iter"
	"slices"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/waitable/waitable/classify"
	"github.com/waitable/waitable/telemetry"
	"github.com/waitable/waitable/waiter"
)

// Result is how a wait ended, object by object.
type Result struct {
	// Objects are the objects waited for: those the request names in its
	// order, those a selector found sorted by namespace and name. A Count
	// that was not reached adds an entry with an empty Name.
	Objects []ObjectResult
	// Elapsed is the wait's time, on the Client's clock.
	Elapsed time.Duration
}

// ObjectResult is how the wait for one object ended.
type ObjectResult struct {
	Ref
	// Decision is Success, Failure, or Retry for an object whose wait did
	// not end (it timed out, was cancelled, or another object failed
	// first).
	Decision classify.State
	// End is how the object's wait ended ("success", "failure",
	// "timeout", "cancelled": [waiter.Checkpoint]'s End), "" if another
	// object's failure ended the wait first.
	End string
	// Rule is what ended the object's wait, as kubectl writes it: For's
	// rules on success ("condition=Ready, jsonpath={.status.phase}=Done");
	// on failure, the first For rule the object cannot meet, else the
	// FailOn rule that holds, else the rollout's ("" otherwise).
	Rule string
	// Unmet are the For rules that did not hold of the object when its
	// wait ended, as kubectl writes them (none on success).
	Unmet []string
	// Reason and Message are what the rules read of the object last: a
	// condition's reason and message, a JSONPath's value, kstatus's status.
	Reason, Message string
	// Object is the object as the wait saw it last (nil if it was never
	// seen), less its metadata.managedFields: a copy of the caller's own.
	Object Object
	// Err is why the object's wait did not succeed: a *waiter.Error
	// (ErrTimeout, ErrFailure, its Input naming the object), or nil.
	Err error
}

// ErrNoObjects is the error of a wait by Selector or All, with no Count,
// that found no object to wait for (kubectl wait's "no matching resources
// found").
var ErrNoObjects = errors.New("kubewait: no matching objects")

// ErrInvalidRequest is the error of a Request that cannot be a wait: it
// names every problem.
var ErrInvalidRequest = errors.New("kubewait: invalid request")

// Error is how a wait that did not succeed ends: the resource, and each
// object whose wait failed or did not end. It unwraps to their errors, so
// errors.Is(err, waiter.ErrTimeout) and errors.Is(err, waiter.ErrFailure)
// tell a timeout from a failure.
type Error struct {
	// Resource and Namespace are the wait's, when it waited for one
	// resource in one namespace (zero for Objects of several).
	Resource  schema.GroupVersionResource
	Namespace string
	// Objects are the objects that did not succeed, failures first.
	Objects []ObjectResult
	// Reason is why the wait ended: waiter.ErrFailure (an object failed),
	// waiter.ErrTimeout, or the context's error.
	Reason error
}

func (e *Error) Error() string {
	var b strings.Builder
	several, what := e.Resource.Empty(), "objects"
	if !several {
		what = resourceName(e.Resource)
	}
	b.WriteString("kubewait: " + what)
	if e.Namespace != "" {
		fmt.Fprintf(&b, " in %s", e.Namespace)
	}
	fmt.Fprintf(&b, ": %v", e.Reason)
	for i, o := range e.Objects {
		if i == 3 {
			fmt.Fprintf(&b, "; and %d more", len(e.Objects)-i)
			break
		}
		b.WriteString("; ")
		if several && o.Name != "" {
			b.WriteString(resourceName(o.Resource) + " ")
		}
		b.WriteString(o.describe())
	}
	return b.String()
}

// describe is one object's line in an error or a progress report:
// "ns/a: failed on condition=Failed: BackoffLimitExceeded: Job has
// reached the specified backoff limit", "ns/b: timed out: NotFound".
func (o ObjectResult) describe() string {
	name := o.Ref.String()
	if o.Name == "" {
		name = "count"
	}
	var s string
	switch {
	case o.Decision == classify.Success:
		s = name + ": " + o.Rule
	case o.Decision == classify.Failure && o.Rule != "":
		s = name + ": failed on " + o.Rule
	case o.Decision == classify.Failure:
		s = name + ": failed"
	case errors.Is(o.Err, waiter.ErrTimeout):
		s = name + ": timed out"
	default:
		s = name + ": not done"
	}
	var we *waiter.Error
	if errors.As(o.Err, &we) && we.Failure != waiter.FailureAcceptor && we.Failure != 0 {
		s += " (" + we.Failure.String() + ")"
		if we.Failure == waiter.FailureError && we.Err != nil {
			s += ": " + we.Err.Error()
		}
	}
	if o.Decision != classify.Success && len(o.Unmet) > 0 && o.Rule == "" {
		s += " for " + strings.Join(o.Unmet, ", ")
	}
	for _, part := range []string{o.Reason, o.Message} {
		if part != "" {
			s += ": " + part
		}
	}
	return s
}

// Is reports whether target is the wait's Reason.
func (e *Error) Is(target error) bool { return target != nil && errors.Is(e.Reason, target) }

// Unwrap returns the objects' errors.
func (e *Error) Unwrap() []error {
	var errs []error
	for _, o := range e.Objects {
		if o.Err != nil {
			errs = append(errs, o.Err)
		}
	}
	return errs
}

// failed reports whether an object's wait failed: the wait ends.
func (d *driver) failed() bool {
	for m := range d.all() {
		if m.done && m.decision == classify.Failure {
			return true
		}
	}
	return false
}

// decided returns the wait's result if the objects decided it: one
// failed, or every one (and the Count) succeeded.
func (d *driver) decided(now time.Time) (Result, error, bool) {
	if d.failed() {
		res, err := d.finish(now, waiter.ErrFailure)
		return res, err, true
	}
	ms := d.members()
	if d.countWait != nil || slices.ContainsFunc(ms, func(m *member) bool { return !m.done || m.decision != classify.Success }) {
		return Result{}, nil, false
	}
	// With nothing to wait for, only a deletion by selector that found none ends.
	return d.result(now), nil, len(ms) > 0 || d.sources[0].synced && d.req.forDeleted()
}

// timeOut ends the wait at its deadline: each object still waiting is
// judged once more (from the informer, or on its last answer when
// polling), which ends its wait.
func (d *driver) timeOut(now time.Time) (Result, error) {
	for _, m := range d.members() {
		if m.done {
			continue
		}
		obj, err := m.obj, m.err // its last answer: polled, or the Count's
		if m.src != nil && !m.src.polling() {
			obj, err = m.src.sub.get(m.ref.String()), nil
		}
		d.judge(m, obj, err, now, 0)
		if !m.done {
			// The caller's deadline came before the wait's clock reached
			// the deadline (a clock of its own): Step saw time left.
			m.done, m.werr, m.cp.End = true, waiter.ErrTimeout, telemetry.OutcomeTimeout
			d.remember(m)
		}
	}
	if res, err, ended := d.decided(now); ended {
		return res, err
	}
	return d.finish(now, waiter.ErrTimeout)
}

// cancelled ends the wait when its context ended.
func (d *driver) cancelled(now time.Time, cause error) (Result, error) {
	for _, m := range d.members() {
		if m.done {
			continue
		}
		m.werr = &waiter.Error{Waiter: waiterName(d.req.For), Input: m.name(), Reason: cause,
			Attempts: m.cp.Attempts, Elapsed: now.Sub(d.start), Acceptor: -1, Err: m.err}
		m.cp.End = telemetry.OutcomeCancelled
		d.remember(m)
		d.emit(Event{Time: now, Ref: m.ref, Decision: m.decision, Reason: m.reason, Message: m.msg,
			End: telemetry.OutcomeCancelled, Err: m.werr, Object: d.seen(m), Estimate: m.estimate})
	}
	return d.finish(now, cause)
}

// members returns every member: the objects' waits in the order the
// request names them (those of a selector by namespace and name, as
// [Result] lists them), then the Count's.
func (d *driver) members() []*member { return slices.SortedFunc(d.all(), byOrder) }

// all yields every member in no order, for the walks on each wake-up
// that need none (is one failed, which is due first).
func (d *driver) all() iter.Seq[*member] {
	return func(yield func(*member) bool) {
		for _, s := range d.sources {
			for _, m := range s.members {
				if !yield(m) {
					return
				}
			}
		}
		if d.countWait != nil {
			yield(d.countWait)
		}
	}
}

// result is each object's outcome, with a copy of its object.
func (d *driver) result(now time.Time) Result {
	res := Result{Elapsed: now.Sub(d.start)}
	for _, m := range d.members() {
		o := ObjectResult{Ref: m.ref, Decision: m.decision, End: m.cp.End, Rule: m.rule, Reason: m.reason, Message: m.msg,
			Err: m.werr}
		if m.obj != nil {
			o.Object = runtime.DeepCopyJSON(m.obj)
		}
		if m.decision != classify.Success {
			o.Unmet = slices.Clone(m.unmet)
		}
		res.Objects = append(res.Objects, o)
	}
	return res
}

// finish returns the wait's result and its *Error, for reason: the
// objects that did not succeed, failures first.
func (d *driver) finish(now time.Time, reason error) (Result, error) {
	res := d.result(now)
	e := &Error{Reason: reason}
	if len(d.req.Objects) == 0 {
		e.Resource, e.Namespace = d.req.Resource, d.req.Namespace
	}
	for _, o := range res.Objects {
		if o.Decision == classify.Failure {
			e.Objects = append(e.Objects, o)
		}
	}
	for _, o := range res.Objects {
		if o.Decision != classify.Success && o.Decision != classify.Failure {
			e.Objects = append(e.Objects, o)
		}
	}
	return res, e
}
