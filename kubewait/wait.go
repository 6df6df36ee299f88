package kubewait

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/waitable/waitable/classify"
	"github.com/waitable/waitable/retry"
	"github.com/waitable/waitable/telemetry"
	"github.com/waitable/waitable/waiter"
)

// Object is the waiter's output: an object as the API serves it, in its
// JSON form (unstructured), which acceptors read in JMESPath
// (status.conditions[?type=='Ready'].status).
type Object = map[string]any

// Wait waits until every object of req meets req.For, one of them meets a
// FailOn rule, req.Timeout passes or ctx ends, and returns each object's
// outcome. err is nil when every object succeeded, and an [*Error]
// otherwise (ErrInvalidRequest and ErrNoObjects aside).
//
// The wait runs in the calling goroutine, and so do req.OnEvent and the
// rules. It learns of the objects from the Client's informer for the
// resource, namespace and selector (shared with every other wait that
// needs it, started by the first): a watch event judges at once the
// objects it concerns, with no GET. Each object's wait is a Smithy wait
// of its own, on the core's [waiter.Waiter.Begin] and [waiter.Waiter.Step]
// with one deadline for all: between events an object is judged again
// from the informer's copy on the waiter's schedule (so
// WithNotFoundLimit and WithStability count), and at the deadline once
// more. When the informer cannot watch (list or watch forbidden, or
// failing 3 times in a row), the wait polls: a GET per object, or a LIST
// for a selector, on the same schedule, under the Client's rate limit,
// never sooner than a 429's Retry-After; it watches again when the
// informer does.
func (c *Client) Wait(ctx context.Context, req Request) (Result, error) {
	d, err := c.newDriver(req)
	if err != nil {
		return Result{}, err
	}
	return d.run(ctx)
}

// driver is one wait: the objects' waits, and what it knows of them.
type driver struct {
	c   *Client
	req Request
	w   *waiter.Waiter[Ref, Object]
	// members are the objects' waits by namespace/name; the Count's, when
	// fewer objects match than Count, is under "".
	members map[string]*member
	dynamic bool // members come and go with the selector (a Count)
	count   int
	sub     *subscription
	start   time.Time
	end     time.Time // the deadline
	polling bool
	settled bool // the members of a wait by selector without a count are known
	ctx     context.Context
}

// member is one object's wait.
type member struct {
	ref    Ref
	cp     waiter.Checkpoint
	tok    retry.Token
	obj    Object // as last seen
	err    error  // the last answer's error
	next   time.Time
	state  classify.State
	rule   string // the rule that ended its wait
	reason string
	msg    string
	done   bool
	werr   error // why its wait did not succeed, once it ended
	shown  string
}

// newDriver checks req and builds the objects' waiter.
func (c *Client) newDriver(req Request) (*driver, error) {
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	if req.Resource.Resource == "" || req.Resource.Version == "" {
		bad("Resource %q: a resource and a version are required", req.Resource.String())
	}
	which := 0
	for _, set := range []bool{len(req.Names) > 0, req.Selector != "", req.All} {
		if set {
			which++
		}
	}
	if which != 1 {
		bad("set exactly one of Names, Selector and All (%d set)", which)
	}
	seen := map[string]bool{}
	for i, n := range req.Names {
		if n == "" || strings.Contains(n, "/") {
			bad("Names[%d] %q is not an object's name", i, n)
		}
		if seen[n] {
			bad("Names[%d] %q is named twice", i, n)
		}
		seen[n] = true
	}
	if req.Selector != "" {
		if _, err := labels.Parse(req.Selector); err != nil {
			bad("Selector %q: %v", req.Selector, err)
		}
	}
	if req.Count < 0 || (req.Count > 0 && len(req.Names) > 0) {
		bad("Count %d: a count of at least 0, with Selector or All only", req.Count)
	}
	if req.Count > 0 && req.For.kind == ruleDeleted {
		bad("Count %d: a wait for deletion has no count", req.Count)
	}
	if req.Timeout <= 0 {
		bad("Timeout %v: the wait's total time must be positive", req.Timeout)
	}
	if req.For.kind == ruleNone {
		bad("For: no rule")
	} else if req.For.err != nil {
		bad("For: %v", req.For.err)
	}
	for i, r := range req.FailOn {
		switch {
		case r.kind == ruleNone:
			bad("FailOn[%d]: no rule", i)
		case r.err != nil:
			bad("FailOn[%d]: %v", i, r.err)
		}
	}
	if len(errs) > 0 {
		return nil, fmt.Errorf("%w: %w", ErrInvalidRequest, errors.Join(errs...))
	}
	w, err := newObjectWaiter(req.For, req.FailOn, append(req.Options, waiter.WithClock(c.clk)), c, req)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalidRequest, err)
	}
	d := &driver{c: c, req: req, w: w, members: map[string]*member{}, count: req.Count}
	if req.Count == 0 && req.For.kind == ruleCreated && len(req.Names) == 0 {
		d.count = 1
	}
	d.dynamic = d.count > 0
	return d, nil
}

// newObjectWaiter builds the waiter of one object's wait: For's acceptors
// (success), then FailOn's (failure), then retry while the object does
// not exist (unless For is Deleted); kstatus's rules as Go matchers, tried
// first. Its operation (a GET, under the Client's rate limit) is what a
// wait that cannot watch polls; c nil makes a waiter that only judges.
func newObjectWaiter(forRule Rule, failOn []Rule, opts []waiter.Option, c *Client, req Request) (*waiter.Waiter[Ref, Object], error) {
	var accs []classify.Acceptor
	add := func(r Rule, state classify.State) {
		if r.kind == ruleKstatus || r.kind == ruleCondition {
			opts = append(opts, r.goMatch(state))
			return
		}
		accs = append(accs, r.Acceptors(state)...)
	}
	add(forRule, classify.Success)
	for _, r := range failOn {
		add(r, classify.Failure)
	}
	if forRule.kind != ruleDeleted {
		accs = append(accs, classify.Acceptor{State: classify.Retry, Matcher: classify.Matcher{ErrorType: "NotFound"}})
	}
	def := waiter.Definition{Name: waiterName(forRule), Acceptors: accs,
		Documentation: "Waits for a Kubernetes object: " + forRule.text}
	op := func(ctx context.Context, ref Ref) (Object, error) {
		if c == nil {
			return nil, errors.New("kubewait: this waiter only judges")
		}
		u, err := c.resource(req.Resource, ref.Namespace).Get(ctx, ref.Name, metav1.GetOptions{})
		if err != nil {
			return nil, apiError(err)
		}
		return u.Object, nil
	}
	return waiter.New(def, op, opts...)
}

// waiterName names the waiter after its For rule, in the Smithy
// specification's UpperCamelCase: KubeConditionReady, KubeJSONPath,
// KubeCreated, KubeDeleted, KubeCurrent.
func waiterName(r Rule) string {
	switch r.kind {
	case ruleCondition:
		var b strings.Builder
		b.WriteString("KubeCondition")
		up := true
		for _, c := range r.condType {
			switch {
			case c < unicode.MaxASCII && (unicode.IsLetter(c) || unicode.IsDigit(c)):
				if up {
					c = unicode.ToUpper(c)
				}
				b.WriteRune(c)
				up = false
			default:
				up = true
			}
		}
		return b.String()
	case ruleJSONPath:
		return "KubeJSONPath"
	case ruleCreated:
		return "KubeCreated"
	case ruleDeleted:
		return "KubeDeleted"
	case ruleKstatus:
		return "Kube" + string(r.kstatus)
	}
	return "Kube"
}

// run is the wait's loop: take what changed, judge the objects it
// concerns (and those due), end when the objects decide it, sleep until
// the next event, the next due object or the deadline.
func (d *driver) run(parent context.Context) (Result, error) {
	clk := d.c.clk
	d.start = clk.Now()
	d.end = d.start.Add(d.req.Timeout)
	if dl, ok := parent.Deadline(); ok {
		if until := clk.Until(dl); until < d.req.Timeout {
			d.end = d.start.Add(max(until, 0))
		}
	}
	ctx, release := clk.WithDeadline(parent, d.end)
	defer release()
	d.ctx = ctx
	var names map[string]bool
	if len(d.req.Names) > 0 {
		names = map[string]bool{}
		for _, n := range d.req.Names {
			ref := Ref{Namespace: d.req.Namespace, Name: n}
			names[ref.String()] = true
			d.addMember(ref)
		}
	}
	d.sub = d.c.subscribe(informerKey{gvr: d.req.Resource, namespace: d.req.Namespace, selector: d.req.Selector}, names)
	defer d.sub.unsubscribe()

	timer := clk.Timer(time.Hour)
	defer timer.Stop()
	synced := false
	for {
		now := clk.Now()
		mode := d.sub.state()
		dirty, all, notes := d.sub.take()
		for _, n := range notes {
			d.emit(Event{Time: n.at, Watch: n.what, Err: n.err})
			if n.what == WatchPolling || n.what == WatchWatching {
				for _, m := range d.members {
					m.next = now // poll, or judge from the watch, at once
				}
			}
		}
		d.polling = mode == modeFailing || mode == modeForbidden
		if !now.Before(d.end) {
			return d.timeOut(now)
		}
		switch {
		case mode == modeWatching:
			if !synced {
				synced, all = true, true
				if err := d.join(); err != nil {
					return d.result(now), err
				}
			}
			d.fromInformer(dirty, all, now)
		case d.polling:
			if !synced && len(d.req.Names) == 0 && !d.dynamic {
				synced = true
				if err := d.pollList(true); err != nil {
					return d.result(now), err
				}
			}
			d.poll(now)
			now = clk.Now()
		}
		if res, err, ended := d.decided(now); ended {
			return res, err
		}
		if !now.Before(d.end) {
			return d.timeOut(now)
		}
		next := d.end // syncing: nothing to judge before the list
		if mode != modeSyncing {
			for _, m := range d.members {
				if !m.done && m.next.Before(next) {
					next = m.next
				}
			}
		}
		timer.Reset(max(next.Sub(now), 0))
		select {
		case <-parent.Done():
			if errors.Is(parent.Err(), context.DeadlineExceeded) {
				return d.timeOut(clk.Now()) // the caller's deadline is the wait's
			}
			return d.cancelled(clk.Now(), context.Cause(parent))
		case <-d.sub.wake:
		case <-timer.C:
		}
	}
}

// join settles the members of a wait by selector without a count: the
// objects the informer has when it has first listed (none is
// ErrNoObjects).
func (d *driver) join() error {
	if len(d.req.Names) > 0 || d.dynamic {
		return nil
	}
	for _, k := range d.sub.keys() {
		ns, name := splitKey(k)
		d.addMember(Ref{Namespace: ns, Name: name})
	}
	d.settled = true
	if len(d.members) == 0 && d.req.For.kind != ruleDeleted {
		return d.noObjects() // none to delete is deleted, as kubectl says
	}
	return nil
}

func (d *driver) noObjects() error {
	return fmt.Errorf("%w: %s", ErrNoObjects, d.which())
}

// which names the objects of a wait by selector or All: "widgets.example.com
// in ns matching app=web", "widgets.example.com in ns".
func (d *driver) which() string {
	s := informerKey{gvr: d.req.Resource, namespace: d.req.Namespace}.String()
	if d.req.Selector != "" {
		s += " matching " + d.req.Selector
	}
	return s
}

func splitKey(k string) (namespace, name string) {
	if i := strings.IndexByte(k, '/'); i >= 0 {
		return k[:i], k[i+1:]
	}
	return "", k
}

// addMember begins an object's wait, with the time left.
func (d *driver) addMember(ref Ref) *member {
	now := d.c.clk.Now()
	cp, err := d.w.Begin(now, max(d.end.Sub(now), time.Nanosecond), 0)
	if err != nil {
		panic(err) // not reached: the time left is positive
	}
	m := &member{ref: ref, cp: cp, next: now, state: classify.Retry}
	d.members[ref.String()] = m
	if ref.Name == "" { // the Count's
		d.members[""] = m
		delete(d.members, ref.String())
	}
	return m
}

// fromInformer judges, from the informer's objects, the members that
// changed (all: every one) and those due.
func (d *driver) fromInformer(dirty map[string]bool, all bool, now time.Time) {
	if d.dynamic {
		d.rejoin(dirty, all)
	}
	for key, m := range d.members {
		if m.done || key == "" || !(all || dirty[key] || !now.Before(m.next)) {
			continue
		}
		obj := d.sub.get(key)
		d.judge(m, obj, nil, now, 0)
	}
	d.judgeCount(now)
}

// rejoin makes the members of a wait with a count the objects the
// informer has: all of them after a list, else those that changed.
func (d *driver) rejoin(dirty map[string]bool, all bool) {
	if all {
		dirty = map[string]bool{}
		for k := range d.members {
			dirty[k] = true
		}
		for _, k := range d.sub.keys() {
			dirty[k] = true
		}
	}
	for k := range dirty {
		switch has := d.sub.get(k) != nil; {
		case k == "":
		case has && d.members[k] == nil:
			ns, name := splitKey(k)
			d.addMember(Ref{Namespace: ns, Name: name})
		case !has:
			delete(d.members, k) // it no longer matches: it does not count
		}
	}
}

// judgeCount judges the Count: while fewer objects match, its member
// answers NotFound (so WithNotFoundLimit counts it) when due.
func (d *driver) judgeCount(now time.Time) {
	if !d.dynamic {
		return
	}
	n := len(d.members)
	m := d.members[""]
	if m != nil {
		n--
	}
	if n >= d.count {
		if m != nil && !m.done {
			delete(d.members, "")
		}
		return
	}
	if m == nil {
		m = d.addMember(Ref{Namespace: d.req.Namespace})
	}
	if m.done || now.Before(m.next) {
		return
	}
	d.judge(m, nil, fewError{n: n, want: d.count, of: d.which()}, now, 0)
}

// fewError is the Count's answer while fewer objects match: NotFound.
type fewError struct {
	n, want int
	of      string
}

func (e fewError) Error() string {
	return fmt.Sprintf("%d of %d objects: %s", e.n, e.want, e.of)
}
func (e fewError) ErrorCode() string   { return "NotFound" }
func (e fewError) HTTPStatusCode() int { return 404 }

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
	if a.Outcome == telemetry.OutcomeTimeout && now.Before(d.end) {
		m.next = d.end
		d.show(m, now, "", nil)
		return
	}
	m.cp, m.next = a.Checkpoint, a.Checkpoint.Next
	m.state = a.State
	if a.Outcome != "" {
		m.done = true
		if a.Outcome != telemetry.OutcomeSuccess {
			m.state = classify.Failure
			if a.Outcome == telemetry.OutcomeTimeout {
				m.state = classify.Retry
			}
			if we, ok := werr.(*waiter.Error); ok {
				we.Input = m.ref.String()
				if m.ref.Name == "" {
					we.Input = "count"
				}
			}
			m.werr = werr
		}
	}
	d.show(m, now, a.Outcome, m.werr)
}

func isNotFound(err error) bool {
	var c interface{ ErrorCode() string }
	return errors.As(err, &c) && c.ErrorCode() == "NotFound"
}

// show emits m's event if its state, reason or message changed, or its
// wait ended.
func (d *driver) show(m *member, now time.Time, outcome string, err error) {
	rule := d.req.For
	if m.state == classify.Failure {
		for _, r := range d.req.FailOn {
			if r.holds(m.ref, m.obj, m.err) {
				rule = r
				m.rule = r.text
				break
			}
		}
	}
	if m.state == classify.Success {
		m.rule = rule.text
	}
	if m.ref.Name == "" {
		m.reason, m.msg = "Count", ""
		if m.err != nil {
			m.msg = m.err.Error()
		}
	} else if m.err != nil && !isNotFound(m.err) { // a poll that failed: the object is as it was
		m.reason, m.msg = "Error", m.err.Error()
	} else {
		m.reason, m.msg = rule.describe(m.obj)
	}
	shown := fmt.Sprintf("%v|%s|%s|%s", m.state, m.reason, m.msg, outcome)
	if shown == m.shown {
		return
	}
	m.shown = shown
	d.emit(Event{Time: now, Object: m.ref, State: m.state, Reason: m.reason, Message: m.msg, Outcome: outcome, Err: err})
}

func (d *driver) emit(e Event) {
	if d.req.OnEvent != nil {
		d.req.OnEvent(e)
	}
}

// poll polls the members that are due: a GET each, or one LIST for a
// wait by selector, each under the Client's rate limit.
func (d *driver) poll(now time.Time) {
	due := len(d.members) == 0 // a wait by selector with a count, before its first list
	for _, m := range d.members {
		if !m.done && !now.Before(m.next) {
			due = true
		}
	}
	if !due {
		return
	}
	if len(d.req.Names) == 0 {
		_ = d.pollList(false)
		return
	}
	for _, key := range d.req.Names {
		m := d.members[Ref{Namespace: d.req.Namespace, Name: key}.String()]
		if m.done || d.c.clk.Now().Before(m.next) {
			continue
		}
		if !d.token() {
			d.noToken()
			return
		}
		ans, tok := d.w.Call(d.ctx, m.ref, m.cp.Attempts, m.tok)
		m.tok = tok
		if ans.Output != nil && m.ref.UID == "" {
			m.ref.UID = string((&unstructured.Unstructured{Object: ans.Output}).GetUID())
			ans.Judgment = d.w.Judge(m.ref, ans.Output, ans.Err) // judged again with the UID, as the watch judges
		}
		d.apply(m, ans, d.c.clk.Now())
		if d.failed() {
			return
		}
	}
}

// pollList lists the selector's objects once, and judges every member by
// it. first settles the members of a wait without a count.
func (d *driver) pollList(first bool) error {
	if !d.token() {
		d.noToken()
		return nil
	}
	start := d.c.clk.Now()
	list, err := d.c.resource(d.req.Resource, d.req.Namespace).List(d.ctx, metav1.ListOptions{LabelSelector: d.req.Selector})
	now := d.c.clk.Now()
	if err != nil {
		err = apiError(err)
		for key, m := range d.members {
			if !m.done && key != "" {
				d.judge(m, nil, err, now, now.Sub(start))
			}
		}
		if first {
			return fmt.Errorf("kubewait: listing %s: %w", informerKey{gvr: d.req.Resource, namespace: d.req.Namespace, selector: d.req.Selector}, err)
		}
		return nil
	}
	objs := map[string]Object{}
	for i := range list.Items {
		objs[objectKey(list.Items[i].Object)] = list.Items[i].Object
	}
	if first || d.dynamic {
		for k := range objs {
			if d.members[k] == nil {
				ns, name := splitKey(k)
				d.addMember(Ref{Namespace: ns, Name: name})
			}
		}
		d.settled = d.settled || first
		if first && len(d.members) == 0 && d.req.For.kind != ruleDeleted {
			return d.noObjects()
		}
	}
	for key, m := range d.members {
		if !m.done && key != "" {
			d.judge(m, objs[key], nil, now, now.Sub(start))
		}
	}
	d.judgeCount(now)
	return nil
}

// token takes a token of the Client's rate limit, waiting for it on the
// Client's clock; false when the deadline or the context comes first.
func (d *driver) token() bool {
	clk := d.c.clk
	now := clk.Now()
	r := d.c.limit.ReserveN(now, 1)
	if !r.OK() {
		return false
	}
	delay := r.DelayFrom(now)
	if delay == 0 {
		return true
	}
	if now.Add(delay).After(d.end) {
		r.CancelAt(now)
		return false
	}
	t := clk.Timer(delay)
	defer t.Stop()
	select {
	case <-d.ctx.Done():
		r.CancelAt(clk.Now())
		return false
	case <-t.C:
		return true
	}
}

// noToken puts off to the deadline the polls that the rate limit has no
// token for before it: until then, only the watch (if it comes back) can
// judge them.
func (d *driver) noToken() {
	now := d.c.clk.Now()
	for _, m := range d.members {
		if !m.done && !now.Before(m.next) {
			m.next = d.end
		}
	}
}

// failed reports whether an object's wait failed: the wait ends.
func (d *driver) failed() bool {
	for _, m := range d.members {
		if m.done && m.state == classify.Failure {
			return true
		}
	}
	return false
}

// decided returns the wait's result if the objects decided it: one
// failed, or every one (and the Count) succeeded.
func (d *driver) decided(now time.Time) (Result, error, bool) {
	if d.failed() {
		return d.result(now), d.error(now, waiter.ErrFailure), true
	}
	if len(d.members) == 0 {
		// Nothing to wait for: a deletion by selector that found none.
		return d.result(now), nil, d.settled && d.req.For.kind == ruleDeleted
	}
	for _, m := range d.members {
		if !m.done || m.state != classify.Success {
			return Result{}, nil, false
		}
	}
	return d.result(now), nil, true
}

// timeOut ends the wait at its deadline: each object still waiting is
// judged once more (from the informer, or on its last answer when
// polling), which ends its wait.
func (d *driver) timeOut(now time.Time) (Result, error) {
	for key, m := range d.members {
		if m.done {
			continue
		}
		obj, err := m.obj, m.err
		if !d.polling && key != "" {
			obj = d.sub.get(key)
			err = nil
		}
		d.judge(m, obj, err, now, 0)
		if !m.done {
			// The caller's deadline came before the wait's clock reached
			// the deadline (a clock of its own): Step saw time left.
			m.done, m.werr = true, waiter.ErrTimeout
		}
	}
	if res, err, ended := d.decided(now); ended {
		return res, err
	}
	return d.result(now), d.error(now, waiter.ErrTimeout)
}

// cancelled ends the wait when its context ended.
func (d *driver) cancelled(now time.Time, cause error) (Result, error) {
	for _, m := range d.members {
		if !m.done {
			m.werr = &waiter.Error{Waiter: waiterName(d.req.For), Input: m.ref.String(), Reason: cause,
				Attempts: m.cp.Attempts, Elapsed: now.Sub(d.start), Acceptor: -1, Err: m.err}
			d.emit(Event{Time: now, Object: m.ref, State: m.state, Reason: m.reason, Message: m.msg,
				Outcome: telemetry.OutcomeCancelled, Err: m.werr})
		}
	}
	return d.result(now), d.error(now, cause)
}

// result is each object's outcome.
func (d *driver) result(now time.Time) Result {
	res := Result{Elapsed: now.Sub(d.start)}
	for _, m := range d.members {
		res.Objects = append(res.Objects, ObjectResult{Ref: m.ref, State: m.state, Rule: m.rule, Reason: m.reason,
			Message: m.msg, Object: m.obj, Err: m.werr})
	}
	sortObjects(res.Objects, false)
	return res
}

// error is the wait's *Error: the objects that did not succeed.
func (d *driver) error(now time.Time, reason error) error {
	e := &Error{Resource: d.req.Resource, Namespace: d.req.Namespace, Reason: reason}
	for _, o := range d.result(now).Objects {
		if o.State != classify.Success {
			e.Objects = append(e.Objects, o)
		}
	}
	sortObjects(e.Objects, true)
	return e
}
