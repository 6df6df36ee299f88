package kubewait

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"net/http"
	"slices"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/waitable/waitable/classify"
	"github.com/waitable/waitable/retry"
	"github.com/waitable/waitable/telemetry"
	"github.com/waitable/waitable/waiter"
)

// member is one object's wait: a Smithy wait on the core's Begin and
// Step, judged from its source's informer, or polled.
type member struct {
	src      *source // nil for the Count's wait
	ref      Ref
	order    int // its place among the objects the request names (the Count's last)
	cp       waiter.Checkpoint
	tok      retry.Token
	obj      Object // as last seen
	err      error  // the last answer's error
	next     time.Time
	decision classify.State
	estimate waiter.Estimate // the last step's
	// pods follows the pods of the object's current revision, for the
	// request's Rollout rule (nil without one).
	pods *podWatch
	// rule is the rule that ended its wait; unmet are the For rules that
	// do not hold; reason and msg what the rules read of the object.
	rule   string
	unmet  []string
	reason string
	msg    string
	done   bool
	werr   error // why its wait did not succeed, once it ended
	shown  string
}

// objectWaiter is the waiter of each object's wait in one request: the
// request's rules as its acceptors, and a GET (under the Client's rate
// limit, see poll.go) as its operation.
type objectWaiter struct {
	*waiter.Waiter[Ref, Object]
	// rollout is the index of the acceptor of a Rollout rule's failure
	// (-1: none). The object's pods decide it, not the object: the
	// driver judges them, and gives the acceptor's verdict (see step).
	// The rule's progress is rolloutProgress's.
	rollout int
}

// newObjectWaiter builds the waiter of the objects of req: success when
// every For rule holds, then a Rollout's failure, then the For rules that
// the object cannot meet (a JSONPath of several values) and FailOn's
// rules (failure), then retry while the object does not exist (unless
// For is Deleted). One For rule of acceptors is its acceptors; else one
// Go matcher, since acceptors cannot say "and". The Client's History
// keeps each object's past waits under its resource, namespace and name,
// unless req.Options say otherwise; the Client's clock replaces any.
func newObjectWaiter(c *Client, req Request) (*objectWaiter, error) {
	ow := &objectWaiter{rollout: -1}
	opts := append([]waiter.Option{waiter.WithHistory(c.history), waiter.WithHistoryKey(historyKey)}, req.Options...)
	var accs []classify.Acceptor
	custom := 0 // the WithMatch options so far: acceptors 0 to custom-1
	match := func(state classify.State, name string, f func(Ref, Object, error) bool) {
		opts = append(opts, waiter.WithMatch(state, name, f))
		custom++
	}
	add := func(r Rule, state classify.State) {
		if a := r.acceptors(state); a != nil {
			accs = append(accs, a...)
			return
		}
		match(state, r.text, r.holds)
	}
	if len(req.For) == 1 {
		add(req.For[0], classify.Success)
	} else {
		match(classify.Success, rulesText(req.For), func(ref Ref, obj Object, err error) bool {
			return !slices.ContainsFunc(req.For, func(r Rule) bool { return !r.holds(ref, obj, err) })
		})
	}
	for _, r := range req.For {
		if _, ok := r.rollout(); ok && ow.rollout < 0 {
			ow.rollout = custom
			match(classify.Failure, r.text, func(Ref, Object, error) bool { return false })
			opts = append(opts, waiter.WithProgress(rolloutProgress))
		}
	}
	for _, r := range req.For {
		if _, ok := r.is.(jsonPathRule); ok {
			match(classify.Failure, r.text, func(_ Ref, obj Object, _ error) bool { return r.fault(obj) != nil })
		}
	}
	for _, r := range req.FailOn {
		add(r, classify.Failure)
	}
	if !req.forDeleted() {
		accs = append(accs, classify.Acceptor{State: classify.Retry, Matcher: classify.OnErrorType("NotFound")})
	}
	def := waiter.Definition{Name: waiterName(req.For), Acceptors: accs,
		Documentation: "Waits for a Kubernetes object: " + rulesText(req.For)}
	op := func(ctx context.Context, ref Ref) (Object, error) {
		u, err := c.dyn.Resource(ref.Resource).Namespace(ref.Namespace).Get(ctx, ref.Name, metav1.GetOptions{})
		if err != nil {
			return nil, apiError(err)
		}
		return u.Object, nil
	}
	w, err := waiter.New(def, op, append(opts, waiter.WithClock(c.clk))...) // the Client's clock replaces any
	ow.Waiter = w
	return ow, err
}

// historyKey is the key of an object's past waits: its resource,
// namespace and name.
func historyKey(ref Ref) string { return resourceName(ref.Resource) + " " + ref.String() }

// rulesText writes rules as kubectl's flags do, one after the other:
// "condition=Ready, jsonpath={.status.phase}=Done".
func rulesText(rules []Rule) string {
	texts := make([]string, len(rules))
	for i, r := range rules {
		texts[i] = r.text
	}
	return strings.Join(texts, ", ")
}

// waiterName names the waiter after its For rule (a request's rules are
// checked), in the Smithy specification's UpperCamelCase:
// KubeConditionReady, KubeJSONPath, KubeCreated, KubeDeleted,
// KubeCurrent; KubeRules for several.
func waiterName(rules []Rule) string {
	if len(rules) != 1 {
		return "KubeRules"
	}
	return rules[0].is.name()
}

// addMember begins an object's wait in s (s nil: the Count's), with the
// time left, and what the waits of the object before it teach.
func (d *driver) addMember(s *source, ref Ref) *member {
	now := d.c.clk.Now()
	cp, err := d.w.Begin(now, max(d.end.Sub(now), time.Nanosecond), 0)
	if err != nil {
		panic(err) // not reached: the time left is positive
	}
	cp.Prior = d.w.Learn(d.ctx, ref)
	m := &member{src: s, ref: ref, cp: cp, next: now, decision: classify.Retry}
	if s == nil {
		m.order, d.countWait = math.MaxInt, m // the Count's comes after the objects'
	} else {
		s.members[ref.String()] = m
	}
	return m
}

// judge judges one answer for m (obj, or err; obj nil and err nil: the
// object does not exist) at now, and steps its wait.
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
	d.step(m, ans, now)
}

// step steps m's wait with ans, a judged answer: a rollout's pods, which
// the driver follows, fail it when they cannot start, and tell its
// progress. An object's wait that the schedule would end with a timeout
// before the deadline goes on until it: the watch may still bring its
// answer.
func (d *driver) step(m *member, ans waiter.Answer[Object], now time.Time) {
	j := &ans.Judgment
	if m.pods != nil && j.State != classify.Success && m.pods.failure(now) != nil {
		j.Acceptor, j.Matcher, j.State, j.Message = d.w.rollout, d.rollout.text, classify.Failure, ""
	}
	a, werr := d.w.Step(m.cp, ans, now)
	if ans.Output != nil || ans.Err == nil || classify.ErrorMatches(ans.Err, "NotFound") {
		m.obj = ans.Output // an error other than NotFound says nothing of the object: keep it
	}
	m.err = ans.Err
	m.estimate = a.Estimate()
	defer d.sooner(m, now)
	if a.Checkpoint.End == telemetry.OutcomeTimeout && now.Before(d.end) {
		m.next = d.end
		d.show(m, now, "", nil)
		return
	}
	m.cp, m.next = a.Checkpoint, a.Checkpoint.Next
	m.decision = a.Decision
	if a.Checkpoint.End != "" {
		m.done = true
		if a.Checkpoint.End != telemetry.OutcomeSuccess {
			m.decision = classify.Failure
			if a.Checkpoint.End == telemetry.OutcomeTimeout {
				m.decision = classify.Retry
			}
			if we, ok := werr.(*waiter.Error); ok {
				we.Input = m.name()
			}
			m.werr = werr
		}
		d.remember(m)
	}
	d.show(m, now, a.Checkpoint.End, m.werr)
}

// remember records m's ended wait in the waiter's History.
func (d *driver) remember(m *member) {
	_ = d.w.Remember(context.WithoutCancel(d.ctx), m.ref, m.cp) // a History that errs never fails a wait
}

// sooner brings m's next judgment forward to when a trouble of its pods
// may fail its rollout.
func (d *driver) sooner(m *member, now time.Time) {
	if m.pods != nil && !m.done {
		if t, ok := m.pods.next(now); ok && t.Before(m.next) {
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

// show reads what the rules say of m's object (the rule that ended its
// wait, the For rules that do not hold, a reason and a message) and
// emits m's event if its decision, reason or message changed, or its
// wait ended.
func (d *driver) show(m *member, now time.Time, end string, err error) {
	m.unmet = m.unmet[:0]
	m.rule = ""
	var rule Rule // the rule whose reading the event reports
	switch {
	case m.decision == classify.Failure:
		for _, r := range d.req.For { // the first that cannot be met, as the waiter judges
			if m.rule == "" && r.fault(m.obj) != nil {
				rule, m.rule = r, r.text
			}
		}
		for _, r := range d.req.FailOn {
			if m.rule == "" && r.holds(m.ref, m.obj, m.err) {
				rule, m.rule = r, r.text
			}
		}
		if m.rule == "" && m.pods != nil && m.pods.failure(now) != nil {
			rule, m.rule = *d.rollout, d.rollout.text
		}
	case m.decision == classify.Success:
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
	_, ofRollout := rule.rollout()
	switch {
	case m.src == nil:
		m.reason, m.msg = "Count", ""
		if m.err != nil {
			m.msg = m.err.Error()
		}
	case m.err != nil && !classify.ErrorMatches(m.err, "NotFound"): // a poll that failed: the object is as it was
		m.reason, m.msg = "Error", m.err.Error()
	case ofRollout && m.decision != classify.Success && m.pods != nil && m.pods.shown != nil:
		m.reason, m.msg = m.pods.shown.reason, m.pods.shown.String()
	default:
		m.reason, m.msg = rule.describe(m.obj)
	}
	shown := fmt.Sprintf("%v|%s|%s|%s", m.decision, m.reason, m.msg, end)
	if shown == m.shown {
		return
	}
	m.shown = shown
	e := Event{Time: now, Ref: m.ref, Decision: m.decision, Reason: m.reason, Message: m.msg, End: end, Err: err,
		Estimate: m.estimate}
	if end != "" {
		e.Object = d.seen(m)
	}
	d.emit(e)
}

// seen is the object m's wait saw last, for an event: a copy, made only
// for a caller that takes events.
func (d *driver) seen(m *member) Object {
	if m.obj == nil || d.req.OnEvent == nil {
		return nil
	}
	return runtime.DeepCopyJSON(m.obj)
}

// byOrder orders members as a Result lists them: the named objects in
// the order the request names them, a selector's by namespace and name.
func byOrder(a, b *member) int {
	return cmp.Or(cmp.Compare(a.order, b.order), strings.Compare(a.ref.Namespace, b.ref.Namespace),
		strings.Compare(a.ref.Name, b.ref.Name))
}

// judgeCount judges the Count of a wait by selector: while fewer objects
// match, its wait answers NotFound (so WithNotFoundLimit counts it) when
// due.
func (d *driver) judgeCount(s *source, now time.Time) {
	if s.named || d.req.Count == 0 {
		return
	}
	m := d.countWait
	if n := len(s.members); n >= d.req.Count {
		if m != nil && !m.done {
			d.countWait = nil
		}
		return
	} else if m == nil {
		m = d.addMember(nil, Ref{Resource: s.key.gvr, Namespace: d.req.Namespace})
	}
	if !m.due(now) {
		return
	}
	few := fmt.Errorf("%d of %d objects: %s", len(s.members), d.req.Count, s.key.which())
	d.judge(m, nil, &classify.CallError{Err: few, Code: "NotFound", StatusCode: http.StatusNotFound}, now, 0) // the Count's answer while fewer objects match
}
