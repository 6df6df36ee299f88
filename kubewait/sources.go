package kubewait

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"
)

// A source is where a wait learns of some of its objects: one informer
// of the Client (informer.go), and the waits of the objects it serves
// (members.go). When the informer cannot watch, the wait polls them
// (poll.go).
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

// A subscription is one wait's interest in an informer: the names it
// waits for (nil: every object). The informer marks what changed, and
// wakes the wait with a send on wake that never blocks.
type subscription struct {
	inf   *informer
	names map[string]bool // namespace/name keys
	wake  chan struct{}

	// What changed, under the informer's lock, as all it keeps:
	dirty map[string]bool
	all   bool    // every object changed (a list)
	notes []Event // what happened to the watch, for the wait's events
}

// namedLimit is how many objects of one resource in one namespace a
// Client lists and watches by name, each with its own informer; beyond
// it, they share one informer of the namespace. An informer of one object
// costs a LIST and a WATCH of that object alone, where the namespace's
// costs every object in it, but each is a watch the server keeps and a
// stream of the client's connection: a wait for one object of a busy
// namespace asks for that object, as kubectl wait does, and a wait (or
// waits) for many share one watch, as a controller does.
const namedLimit = 10

// subscribe makes the wait's sources: the informers of its named objects
// (see [Client.subscribeNames]), or the one of its selector.
func (d *driver) subscribe(groups []named) {
	for _, g := range groups {
		sources := d.c.subscribeNames(g, d.wake)
		d.sources = append(d.sources, sources...)
		for i, ref := range g.refs {
			s := sources[0] // the namespace's informer, or the object's own
			if len(sources) > 1 {
				s = sources[i]
			}
			d.addMember(s, ref).order = g.order[i]
		}
	}
	if len(groups) == 0 {
		key := informerKey{gvr: d.req.Resource, namespace: d.req.Namespace,
			labels: d.req.Selector, fields: d.req.FieldSelector}
		d.sources = []*source{{key: key, sub: d.c.subscribe(key, nil, d.wake), members: map[string]*member{}}}
	}
}

// unsubscribe ends the wait's subscriptions, its pods' included.
func (d *driver) unsubscribe() {
	for _, s := range d.sources {
		s.sub.unsubscribe()
	}
	for _, m := range d.members() {
		m.pods.unsubscribe()
	}
}

// refresh takes what changed in s's informer and judges the objects it
// concerns and those due, from the informer, while it watches; while it
// cannot, the wait polls them (see [driver.poll]).
func (d *driver) refresh(s *source, now time.Time) error {
	dirty, all, notes, mode := s.sub.take()
	s.mode = mode
	for _, n := range notes {
		d.emit(n)
		if n.Watch == WatchPolling || n.Watch == WatchWatching {
			for _, m := range s.members {
				m.next = now // poll, or judge from the watch, at once
			}
		}
	}
	switch {
	case s.mode == modeWatching:
		if !s.synced {
			s.synced, all = true, true
			if err := d.join(s, s.sub.objects(), !s.named && d.req.Count == 0); err != nil {
				return err
			}
		}
		d.fromInformer(s, dirty, all, now)
	case s.polling() && !s.synced && !s.named && d.req.Count == 0:
		return d.pollList(s, true)
	}
	return nil
}

// join adds, if add, objs to the members of a wait by selector: without
// a count, those its first list found (none is ErrNoObjects); with one,
// those that match as they come.
func (d *driver) join(s *source, objs map[string]Object, add bool) error {
	if !add {
		return nil
	}
	for k := range objs {
		if s.members[k] == nil {
			d.addMember(s, s.refOf(k))
		}
	}
	if d.req.Count == 0 && len(s.members) == 0 && !d.req.forDeleted() {
		return fmt.Errorf("%w: %s", ErrNoObjects, s.key.which())
	}
	return nil
}

// refOf is the Ref of the object namespace/name of s's resource.
func (s *source) refOf(key string) Ref {
	ns, name, ok := strings.Cut(key, "/")
	if !ok {
		ns, name = "", key
	}
	return Ref{Resource: s.key.gvr, Namespace: ns, Name: name}
}

// fromInformer judges, from the informer's objects, the members of s
// that changed (all: every one) and those due.
func (d *driver) fromInformer(s *source, dirty map[string]bool, all bool, now time.Time) {
	if !s.named && d.req.Count > 0 {
		d.rejoin(s, dirty, all)
	}
	var due []*member
	for key, m := range s.members {
		if !m.done && (all || dirty[key] || !now.Before(m.next)) {
			due = append(due, m)
		}
	}
	// The events of one instant in a stable order.
	slices.SortFunc(due, byOrder)
	for _, m := range due {
		d.judge(m, s.sub.get(m.ref.String()), nil, now, 0)
	}
	d.judgeCount(s, now)
}

// rejoin makes the members of a wait with a count the objects the
// informer has: all of them after a list, else those that changed.
func (d *driver) rejoin(s *source, dirty map[string]bool, all bool) {
	if !all && len(dirty) == 0 {
		return // a wake-up of the clock: nothing changed, no copy of the objects
	}
	objs := s.sub.objects()
	for k := range s.members {
		if (all || dirty[k]) && objs[k] == nil {
			delete(s.members, k) // it no longer matches: it does not count
		}
	}
	for k := range objs {
		if (all || dirty[k]) && s.members[k] == nil {
			d.addMember(s, s.refOf(k))
		}
	}
}

// subscribeNames subscribes to the informers of a wait's named objects
// of one resource in one namespace, and returns their sources: an
// informer of each object by name (one source an object, in their
// order) while the Client watches at most namedLimit of that resource
// and namespace so, else the namespace's (which a Client that already
// watches it always joins).
func (c *Client) subscribeNames(g named, wake chan struct{}) []*source {
	c.mu.Lock()
	defer c.mu.Unlock()
	ns := informerKey{gvr: g.gvr, namespace: g.namespace}
	n := 0 // the informers of one object there, and those the wait would add
	for k := range c.informers {
		if k.name != "" && k.gvr == g.gvr && k.namespace == g.namespace {
			n++
		}
	}
	for _, r := range g.refs {
		if c.informers[informerKey{gvr: g.gvr, namespace: g.namespace, name: r.Name}] == nil {
			n++
		}
	}
	if c.informers[ns] != nil || n > namedLimit {
		names := map[string]bool{}
		for _, r := range g.refs {
			names[r.String()] = true
		}
		return []*source{{key: ns, sub: c.subscribeLocked(ns, names, wake), named: true, members: map[string]*member{}}}
	}
	var sources []*source
	for _, r := range g.refs {
		key := informerKey{gvr: g.gvr, namespace: g.namespace, name: r.Name}
		sources = append(sources, &source{key: key, sub: c.subscribeLocked(key, map[string]bool{r.String(): true}, wake),
			named: true, members: map[string]*member{}})
	}
	return sources
}

// subscribe returns a subscription to the informer of key, starting the
// informer if it is the first.
func (c *Client) subscribe(key informerKey, names map[string]bool, wake chan struct{}) *subscription {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.subscribeLocked(key, names, wake)
}

func (c *Client) subscribeLocked(key informerKey, names map[string]bool, wake chan struct{}) *subscription {
	inf := c.informers[key]
	if inf == nil {
		ctx, cancel := context.WithCancel(context.Background())
		inf = &informer{c: c, key: key, objs: map[string]Object{}, subs: map[*subscription]bool{},
			stop: cancel, done: make(chan struct{})}
		c.informers[key] = inf
		defer func() { go inf.run(ctx) }() // once the first wait listens
	}
	s := &subscription{inf: inf, names: names, dirty: map[string]bool{}, wake: wake}
	inf.mu.Lock()
	defer inf.mu.Unlock()
	inf.subs[s] = true
	switch inf.mode {
	case modeSyncing:
	case modeFailing, modeForbidden:
		// The new wait hears what the others heard: it must poll.
		s.notes = append(s.notes, inf.note(WatchPolling, inf.err))
		fallthrough
	default:
		s.all = true
		s.wakeUp()
	}
	return s
}

// unsubscribe ends the subscription, and the informer with its last one
// (it returns once the informer's goroutine has ended). s may be nil.
func (s *subscription) unsubscribe() {
	if s == nil {
		return
	}
	inf, c := s.inf, s.inf.c
	c.mu.Lock()
	inf.mu.Lock()
	delete(inf.subs, s)
	last := len(inf.subs) == 0
	inf.mu.Unlock()
	if last {
		delete(c.informers, inf.key)
	}
	c.mu.Unlock()
	if last {
		inf.stop()
		<-inf.done
	}
}

// wakeUp wakes s's wait, after a change to s under the informer's lock,
// with a send that never blocks.
func (s *subscription) wakeUp() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// take returns what changed since the last take, and the informer's
// mode (nothing for a nil s).
func (s *subscription) take() (dirty map[string]bool, all bool, notes []Event, mode watchMode) {
	if s == nil {
		return nil, false, nil, modeSyncing
	}
	s.inf.mu.Lock()
	defer s.inf.mu.Unlock()
	dirty, all, notes = s.dirty, s.all, s.notes
	s.dirty, s.all, s.notes = map[string]bool{}, false, nil
	return dirty, all, notes, s.inf.mode
}

// get returns the object namespace/name as the informer has it (nil if
// it has none). The informer never changes an object it has handed out:
// a change replaces it.
func (s *subscription) get(key string) Object {
	s.inf.mu.Lock()
	defer s.inf.mu.Unlock()
	return s.inf.objs[key]
}

// objects returns the informer's objects by namespace/name, in a map of
// their own (none for a nil s).
func (s *subscription) objects() map[string]Object {
	if s == nil {
		return nil
	}
	s.inf.mu.Lock()
	defer s.inf.mu.Unlock()
	return maps.Clone(s.inf.objs)
}
