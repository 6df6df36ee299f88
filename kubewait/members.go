package kubewait

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/waitable/waitable/classify"
	"github.com/waitable/waitable/retry"
	"github.com/waitable/waitable/waiter"
)

// A source is where a wait learns of some of its objects: one informer
// of the Client, and the objects' waits it serves.
type source struct {
	key informerKey
	sub *subscription
	// named: the members are objects the request names; else those the
	// selector finds.
	named   bool
	members map[string]*member // by namespace/name
	mode    watchMode          // the informer's, as last seen
	synced  bool               // judged after the informer's first list
}

func (s *source) polling() bool { return s.mode == modeFailing || s.mode == modeForbidden }

// ref names the source in the events of its watch: its resource and
// namespace, and the object of an informer of one object.
func (s *source) ref() Ref {
	return Ref{Resource: s.key.gvr, Namespace: s.key.namespace, Name: s.key.name()}
}

// member is one object's wait.
type member struct {
	src   *source
	ref   Ref
	order int // its place among the objects the request names
	cp    waiter.Checkpoint
	tok   retry.Token
	obj   Object // as last seen
	err   error  // the last answer's error
	next  time.Time
	state classify.State
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

// subscribe makes the wait's sources: the informers of its named objects
// (see [Client.subscribeNames]), or the one of its selector.
func (d *driver) subscribe(groups []named) {
	for _, g := range groups {
		for _, s := range d.c.subscribeNames(g, d.wake) {
			s.named = true
			s.members = map[string]*member{}
			d.sources = append(d.sources, s)
		}
		for i, ref := range g.refs {
			d.addMember(d.sourceOf(ref), ref).order = g.order[i]
		}
	}
	if len(groups) == 0 {
		key := informerKey{gvr: d.req.Resource, namespace: d.req.Namespace,
			labels: d.req.Selector, fields: d.req.FieldSelector}
		d.sources = []*source{{key: key, sub: d.c.subscribe(key, nil, d.wake), members: map[string]*member{}}}
	}
}

// sourceOf returns the source of a named object: its own informer, or
// its namespace's.
func (d *driver) sourceOf(ref Ref) *source {
	var found *source
	for _, s := range d.sources {
		if s.key.gvr != ref.Resource || s.key.namespace != ref.Namespace {
			continue
		}
		if s.key.name() == ref.Name {
			return s
		}
		if s.key.fields == "" {
			found = s
		}
	}
	return found
}

// join settles the members of a wait by selector without a count: the
// objects the informer has when it has first listed (none is
// ErrNoObjects).
func (d *driver) join(s *source) error {
	if s.named || d.count > 0 {
		return nil
	}
	for _, k := range s.sub.keys() {
		ns, name := splitKey(k)
		d.addMember(s, Ref{Resource: s.key.gvr, Namespace: ns, Name: name})
	}
	d.settled = true
	if len(s.members) == 0 && !d.req.forDeleted() {
		return d.noObjects(s)
	}
	return nil
}

func (d *driver) noObjects(s *source) error {
	return fmt.Errorf("%w: %s", ErrNoObjects, s.key.which())
}

func splitKey(k string) (namespace, name string) {
	if i := strings.IndexByte(k, '/'); i >= 0 {
		return k[:i], k[i+1:]
	}
	return "", k
}

// addMember begins an object's wait in s (s nil: the Count's), with the
// time left.
func (d *driver) addMember(s *source, ref Ref) *member {
	now := d.c.clk.Now()
	cp, err := d.w.Begin(now, max(d.end.Sub(now), time.Nanosecond), 0)
	if err != nil {
		panic(err) // not reached: the time left is positive
	}
	m := &member{src: s, ref: ref, cp: cp, next: now, state: classify.Retry}
	if s == nil {
		d.countWait = m
	} else {
		s.members[ref.String()] = m
	}
	return m
}

// fromInformer judges, from the informer's objects, the members of s
// that changed (all: every one) and those due.
func (d *driver) fromInformer(s *source, dirty map[string]bool, all bool, now time.Time) {
	if !s.named && d.count > 0 {
		d.rejoin(s, dirty, all)
	}
	type keyed struct {
		key string
		m   *member
	}
	var due []keyed
	for key, m := range s.members {
		if !m.done && (all || dirty[key] || !now.Before(m.next)) {
			due = append(due, keyed{key, m})
		}
	}
	// The events of one instant in a stable order.
	slices.SortFunc(due, func(a, b keyed) int { return byOrder(a.m, b.m) })
	for _, k := range due {
		d.judge(k.m, s.sub.get(k.key), nil, now, 0)
	}
	d.judgeCount(s, now)
}

// byOrder orders members as a Result lists them: the named objects in
// the order the request names them, a selector's by namespace and name.
func byOrder(a, b *member) int {
	return cmp.Or(cmp.Compare(a.order, b.order), strings.Compare(a.ref.Namespace, b.ref.Namespace),
		strings.Compare(a.ref.Name, b.ref.Name))
}

// rejoin makes the members of a wait with a count the objects the
// informer has: all of them after a list, else those that changed.
func (d *driver) rejoin(s *source, dirty map[string]bool, all bool) {
	if all {
		dirty = map[string]bool{}
		for k := range s.members {
			dirty[k] = true
		}
		for _, k := range s.sub.keys() {
			dirty[k] = true
		}
	}
	for k := range dirty {
		switch has := s.sub.get(k) != nil; {
		case has && s.members[k] == nil:
			ns, name := splitKey(k)
			d.addMember(s, Ref{Resource: s.key.gvr, Namespace: ns, Name: name})
		case !has:
			delete(s.members, k) // it no longer matches: it does not count
		}
	}
}

// judgeCount judges the Count of a wait by selector: while fewer objects
// match, its wait answers NotFound (so WithNotFoundLimit counts it) when
// due.
func (d *driver) judgeCount(s *source, now time.Time) {
	if s.named || d.count == 0 {
		return
	}
	m := d.countWait
	if n := len(s.members); n >= d.count {
		if m != nil && !m.done {
			d.countWait = nil
		}
		return
	} else if m == nil {
		m = d.addMember(nil, Ref{Resource: s.key.gvr, Namespace: d.req.Namespace})
	}
	if m.done || now.Before(m.next) {
		return
	}
	d.judge(m, nil, fewError{n: len(s.members), want: d.count, of: s.key.which()}, now, 0)
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
