package kubewait

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/waitable/waitable/classify"
	"github.com/waitable/waitable/telemetry"
	"github.com/waitable/waitable/waiter"
)

// newObjectWaiter builds the waiter of one object's wait: success when
// every For rule holds, then FailOn's rules (failure), then retry while
// the object does not exist (unless For is Deleted). One For rule is its
// acceptors (Condition's and kstatus's are Go matchers, tried first);
// several are one Go matcher, since acceptors cannot say "and". Its
// operation (a GET, under the Client's rate limit) is what a wait that
// cannot watch polls; c nil makes a waiter that only judges.
//
// rolloutFailed, if not nil, says whether an object's rollout failed (see
// [Rollout]): a For rule of Rollout's fails the object's wait when it
// does, after the success and before FailOn's rules.
func newObjectWaiter(forRules, failOn []Rule, opts []waiter.Option, c *Client, rolloutFailed func(Ref) bool) (*waiter.Waiter[Ref, Object], error) {
	var accs []classify.Acceptor
	add := func(r Rule, state classify.State) {
		if a := r.Acceptors(state); a != nil {
			accs = append(accs, a...)
			return
		}
		opts = append(opts, r.goMatch(state))
	}
	if len(forRules) == 1 {
		add(forRules[0], classify.Success)
	} else {
		opts = append(opts, waiter.WithMatch(classify.Success, rulesText(forRules), func(ref Ref, obj Object, err error) bool {
			for _, r := range forRules {
				if !r.holds(ref, obj, err) {
					return false
				}
			}
			return true
		}))
	}
	for _, r := range forRules {
		if _, ok := r.rollout(); ok && rolloutFailed != nil {
			opts = append(opts, waiter.WithMatch(classify.Failure, r.text, func(ref Ref, _ Object, _ error) bool { return rolloutFailed(ref) }))
		}
	}
	for _, r := range failOn {
		add(r, classify.Failure)
	}
	deleted := len(forRules) == 1 && forRules[0].isDeleted()
	if !deleted {
		accs = append(accs, classify.Acceptor{State: classify.Retry, Matcher: classify.Matcher{ErrorType: "NotFound"}})
	}
	def := waiter.Definition{Name: waiterName(forRules), Acceptors: accs,
		Documentation: "Waits for a Kubernetes object: " + rulesText(forRules)}
	op := func(ctx context.Context, ref Ref) (Object, error) {
		if c == nil {
			return nil, errors.New("kubewait: this waiter only judges")
		}
		u, err := c.resource(ref.Resource, ref.Namespace).Get(ctx, ref.Name, metav1.GetOptions{})
		if err != nil {
			return nil, apiError(err)
		}
		return u.Object, nil
	}
	return waiter.New(def, op, opts...)
}

// rulesText writes rules as kubectl's flags do, one after the other:
// "condition=Ready, jsonpath={.status.phase}=Done".
func rulesText(rules []Rule) string {
	texts := make([]string, len(rules))
	for i, r := range rules {
		texts[i] = r.text
	}
	return strings.Join(texts, ", ")
}

// waiterName names the waiter after its For rule, in the Smithy
// specification's UpperCamelCase: KubeConditionReady, KubeJSONPath,
// KubeCreated, KubeDeleted, KubeCurrent; KubeRules for several.
func waiterName(rules []Rule) string {
	switch {
	case len(rules) != 1:
		return "KubeRules"
	case rules[0].is == nil:
		return "Kube"
	}
	return rules[0].is.name()
}

// judge applies one answer for m (obj, or err; obj nil and err nil: the
// object does not exist) to its wait, at now, and emits an event if its
// state changed.
func (d *driver) judge(m *member, obj Object, err error, now time.Time, latency time.Duration) {
	if obj == nil && err == nil {
		err = notFoundError(m.ref)
	}
	if obj != nil && m.ref.UID == "" {
		m.ref.UID = string((&unstructured.Unstructured{Object: obj}).GetUID())
	}
	if d.rollout != nil && obj != nil && m.src != nil {
		d.watchPods(m, obj, now)
	}
	ans := waiter.Answer[Object]{Start: now.Add(-latency), Latency: latency, Output: obj, Err: err}
	ans.Judgment = d.w.Judge(m.ref, obj, err)
	d.apply(m, ans, now)
}

// apply steps m's wait with ans. An object's wait that the schedule would
// end with a timeout before the deadline goes on until it: the watch may
// still bring its answer.
func (d *driver) apply(m *member, ans waiter.Answer[Object], now time.Time) {
	a, werr := d.w.Step(m.cp, ans, now)
	if ans.Output != nil || ans.Err == nil || isNotFound(ans.Err) {
		m.obj = ans.Output // an error other than NotFound says nothing of the object: keep it
	}
	m.err = ans.Err
	defer d.sooner(m, now)
	if a.Checkpoint.End == telemetry.OutcomeTimeout && now.Before(d.end) {
		m.next = d.end
		d.show(m, now, "", nil)
		return
	}
	m.cp, m.next = a.Checkpoint, a.Checkpoint.Next
	m.state = a.Decision
	if a.Checkpoint.End != "" {
		m.done = true
		if a.Checkpoint.End != telemetry.OutcomeSuccess {
			m.state = classify.Failure
			if a.Checkpoint.End == telemetry.OutcomeTimeout {
				m.state = classify.Retry
			}
			if we, ok := werr.(*waiter.Error); ok {
				we.Input = m.name()
			}
			m.werr = werr
		}
	}
	d.show(m, now, a.Checkpoint.End, m.werr)
}

// sooner brings m's next judgment forward to when a trouble of its pods
// may fail its rollout.
func (d *driver) sooner(m *member, now time.Time) {
	if pw := d.podWatches[m]; pw != nil && !m.done {
		if t, ok := pw.next(now); ok && t.Before(m.next) {
			m.next = t
		}
	}
}

// name names m in errors: namespace/name, or "count" for the Count's wait.
func (m *member) name() string {
	if m.src == nil {
		return "count"
	}
	return m.ref.String()
}

func isNotFound(err error) bool {
	var c interface{ ErrorCode() string }
	return errors.As(err, &c) && c.ErrorCode() == "NotFound"
}

// show reads what the rules say of m's object (the rule that ended its
// wait, the For rules that do not hold, a reason and a message) and
// emits m's event if its state, reason or message changed, or its wait
// ended.
func (d *driver) show(m *member, now time.Time, outcome string, err error) {
	m.unmet = m.unmet[:0]
	m.rule = ""
	var rule Rule // the rule whose reading the event reports
	switch {
	case m.state == classify.Failure:
		for _, r := range d.req.FailOn {
			if r.holds(m.ref, m.obj, m.err) {
				rule, m.rule = r, r.text
				break
			}
		}
		if m.rule == "" && d.rollout != nil && d.rolloutFailed(m.ref) {
			rule, m.rule = *d.rollout, d.rollout.text
		}
	case m.state == classify.Success:
		rule, m.rule = d.req.For[0], rulesText(d.req.For)
	case len(d.req.For) == 1:
		rule, m.unmet = d.req.For[0], append(m.unmet, d.req.For[0].text)
	default:
		for _, r := range d.req.For {
			if !r.holds(m.ref, m.obj, m.err) {
				if rule.is == nil {
					rule = r
				}
				m.unmet = append(m.unmet, r.text)
			}
		}
	}
	if rule.is == nil {
		rule = d.req.For[0]
	}
	switch {
	case m.src == nil:
		m.reason, m.msg = "Count", ""
		if m.err != nil {
			m.msg = m.err.Error()
		}
	case m.err != nil && !isNotFound(m.err): // a poll that failed: the object is as it was
		m.reason, m.msg = "Error", m.err.Error()
	case isRollout(rule) && m.state != classify.Success && d.podWatches[m] != nil && d.podWatches[m].shown != nil:
		t := d.podWatches[m].shown
		m.reason, m.msg = t.reason, t.String()
	default:
		m.reason, m.msg = rule.describe(m.obj)
	}
	shown := fmt.Sprintf("%v|%s|%s|%s", m.state, m.reason, m.msg, outcome)
	if shown == m.shown {
		return
	}
	m.shown = shown
	e := Event{Time: now, Object: m.ref, State: m.state, Reason: m.reason, Message: m.msg, Outcome: outcome, Err: err}
	if outcome != "" {
		e.Seen = d.seen(m)
	}
	d.emit(e)
}

// seen is Event.Seen of m: a copy of its object, made only for a caller
// that takes events.
func (d *driver) seen(m *member) Object {
	if m.obj == nil || d.req.OnEvent == nil {
		return nil
	}
	return runtime.DeepCopyJSON(m.obj)
}

// isRollout reports whether r is a Rollout rule.
func isRollout(r Rule) bool {
	_, ok := r.rollout()
	return ok
}
