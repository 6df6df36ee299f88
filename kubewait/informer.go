package kubewait

import (
	"context"
	"strings"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
)

// An informer lists and watches one resource in one namespace with one
// selector, keeps the objects, and tells the waits that subscribe to it
// which objects changed. The Client shares it between every wait with the
// same key, and stops it when the last one unsubscribes. Its list and
// watch are in listwatch.go.
type informer struct {
	c   *Client
	key informerKey

	mu     sync.Mutex
	objs   map[string]Object // by namespace/name, without managedFields
	mode   watchMode
	err    error // why it is failing or forbidden
	byName map[string]map[*subscription]struct{}
	all    map[*subscription]struct{}
	refs   int

	stop context.CancelFunc
	done chan struct{}
}

// informerKey is what an informer lists and watches: a resource in a
// namespace ("" for every namespace, or a cluster-scoped resource), with
// a label and a field selector.
type informerKey struct {
	gvr       schema.GroupVersionResource
	namespace string
	labels    string
	fields    string
}

// resourceIn is a resource in a namespace.
type resourceIn struct {
	gvr       schema.GroupVersionResource
	namespace string
}

// nameField is the field selector of one object by its name, as kubectl
// asks for it (and as an RBAC grant of resourceNames allows a list and a
// watch).
func nameField(name string) string {
	return fields.OneTermEqualSelector("metadata.name", name).String()
}

// name returns the object's name if the key is one object's, else "".
func (k informerKey) name() string {
	if k.labels != "" || k.fields == "" {
		return ""
	}
	sel, err := fields.ParseSelector(k.fields)
	if err != nil {
		return ""
	}
	name, ok := sel.RequiresExactMatch("metadata.name")
	if !ok || nameField(name) != k.fields {
		return ""
	}
	return name
}

// watchMode is where an informer stands.
type watchMode uint8

const (
	modeSyncing   watchMode = iota // listing for the first time
	modeWatching                   // listed, watching: its objects are current
	modeFailing                    // the list or watch failed too often in a row: waits poll
	modeForbidden                  // list or watch is forbidden: waits poll, for good
)

// A subscription is one wait's interest in an informer: the names it
// waits for (nil: every object). The informer marks what changed, and
// wakes the wait with a send on wake that never blocks.
type subscription struct {
	inf   *informer
	names map[string]bool // namespace/name keys
	wake  chan struct{}

	mu    sync.Mutex
	dirty map[string]bool
	all   bool        // every object changed (a list)
	notes []watchNote // what happened to the watch
}

// watchNote is a change of the watch, for the wait's events.
type watchNote struct {
	at   time.Time
	what string
	err  error
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

// subscribeNames subscribes to the informers of a wait's named objects
// of one resource in one namespace, and returns their sources: an
// informer of each object by name while the Client watches at most
// namedLimit of that resource and namespace so, else the namespace's
// (which a Client that already watches it always joins).
func (c *Client) subscribeNames(g named, wake chan struct{}) []*source {
	c.mu.Lock()
	defer c.mu.Unlock()
	ns := informerKey{gvr: g.gvr, namespace: g.namespace}
	in := resourceIn{g.gvr, g.namespace}
	fresh := 0 // the objects that would need an informer of their own
	for _, r := range g.refs {
		if c.informers[informerKey{gvr: g.gvr, namespace: g.namespace, fields: nameField(r.Name)}] == nil {
			fresh++
		}
	}
	if c.informers[ns] != nil || c.byName[in]+fresh > namedLimit {
		names := map[string]bool{}
		for _, r := range g.refs {
			names[r.String()] = true
		}
		return []*source{{key: ns, sub: c.subscribeLocked(ns, names, wake)}}
	}
	var sources []*source
	for _, r := range g.refs {
		key := informerKey{gvr: g.gvr, namespace: g.namespace, fields: nameField(r.Name)}
		sources = append(sources, &source{key: key, sub: c.subscribeLocked(key, map[string]bool{r.String(): true}, wake)})
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
		inf = &informer{c: c, key: key, objs: map[string]Object{},
			byName: map[string]map[*subscription]struct{}{}, all: map[*subscription]struct{}{},
			stop: cancel, done: make(chan struct{})}
		c.informers[key] = inf
		if key.name() != "" {
			c.byName[resourceIn{key.gvr, key.namespace}]++
		}
		defer func() { go inf.run(ctx) }() // once the first wait listens
	}
	inf.refs++
	s := &subscription{inf: inf, names: names, dirty: map[string]bool{}, wake: wake}
	inf.mu.Lock()
	defer inf.mu.Unlock()
	if names == nil {
		inf.all[s] = struct{}{}
	}
	for n := range names {
		if inf.byName[n] == nil {
			inf.byName[n] = map[*subscription]struct{}{}
		}
		inf.byName[n][s] = struct{}{}
	}
	switch inf.mode {
	case modeSyncing:
	case modeFailing, modeForbidden:
		// The new wait hears what the others heard: it must poll.
		s.notes = append(s.notes, watchNote{at: c.clk.Now(), what: WatchPolling, err: inf.err})
		fallthrough
	default:
		s.all = true
		s.wakeUp()
	}
	return s
}

// unsubscribe ends the subscription, and the informer with its last one
// (it returns once the informer's goroutine has ended).
func (s *subscription) unsubscribe() {
	inf, c := s.inf, s.inf.c
	inf.mu.Lock()
	delete(inf.all, s)
	for n := range s.names {
		delete(inf.byName[n], s)
		if len(inf.byName[n]) == 0 {
			delete(inf.byName, n)
		}
	}
	inf.mu.Unlock()
	c.mu.Lock()
	inf.refs--
	last := inf.refs == 0
	if last {
		delete(c.informers, inf.key)
		if inf.key.name() != "" {
			in := resourceIn{inf.key.gvr, inf.key.namespace}
			if c.byName[in]--; c.byName[in] == 0 {
				delete(c.byName, in)
			}
		}
	}
	c.mu.Unlock()
	if last {
		inf.stop()
		<-inf.done
	}
}

func (s *subscription) wakeUp() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// take returns what changed since the last take.
func (s *subscription) take() (dirty map[string]bool, all bool, notes []watchNote) {
	s.mu.Lock()
	defer s.mu.Unlock()
	dirty, all, notes = s.dirty, s.all, s.notes
	s.dirty, s.all, s.notes = map[string]bool{}, false, nil
	return dirty, all, notes
}

// state returns the informer's mode.
func (s *subscription) state() watchMode {
	s.inf.mu.Lock()
	defer s.inf.mu.Unlock()
	return s.inf.mode
}

// get returns the object namespace/name as the informer has it (nil if
// it has none). The informer never changes an object it has handed out:
// a change replaces it.
func (s *subscription) get(key string) Object {
	s.inf.mu.Lock()
	defer s.inf.mu.Unlock()
	return s.inf.objs[key]
}

// keys returns the keys of the informer's objects.
func (s *subscription) keys() []string {
	s.inf.mu.Lock()
	defer s.inf.mu.Unlock()
	keys := make([]string, 0, len(s.inf.objs))
	for k := range s.inf.objs {
		keys = append(keys, k)
	}
	return keys
}

func objectKey(obj Object) string {
	u := unstructured.Unstructured{Object: obj}
	if ns := u.GetNamespace(); ns != "" {
		return ns + "/" + u.GetName()
	}
	return u.GetName()
}

// stripObject drops what no rule reads and a cache need not keep: the
// object's managedFields (often most of its bytes).
func stripObject(obj Object) {
	if md, ok := obj["metadata"].(map[string]any); ok {
		delete(md, "managedFields")
	}
}

// setMode changes the informer's mode and tells every wait.
func (inf *informer) setMode(m watchMode, err error) {
	inf.mu.Lock()
	defer inf.mu.Unlock()
	if inf.mode == m {
		inf.err = err
		return
	}
	inf.mode, inf.err = m, err
	if m == modeFailing || m == modeForbidden {
		inf.noteLocked(WatchPolling, err)
	}
}

// replace installs a list's objects and wakes every wait. A list that
// came again says why (why: the watch's resource version expired, or was
// too new for the server, or a continue token expired); nil for the first.
func (inf *informer) replace(objs map[string]Object, why error) {
	inf.mu.Lock()
	defer inf.mu.Unlock()
	inf.objs = objs
	was := inf.mode
	inf.mode, inf.err = modeWatching, nil
	switch {
	case why != nil:
		inf.noteLocked(WatchRelisted, why)
	case was == modeFailing:
		inf.noteLocked(WatchWatching, nil)
	}
	for s := range inf.allSubs() {
		s.mu.Lock()
		s.all = true
		s.mu.Unlock()
		s.wakeUp()
	}
}

// apply applies one watch event and wakes the waits it concerns.
func (inf *informer) apply(t watch.EventType, obj Object) {
	stripObject(obj)
	key := objectKey(obj)
	inf.mu.Lock()
	defer inf.mu.Unlock()
	if t == watch.Deleted {
		delete(inf.objs, key)
	} else {
		inf.objs[key] = obj
	}
	mark := func(s *subscription) {
		s.mu.Lock()
		s.dirty[key] = true
		s.mu.Unlock()
		s.wakeUp()
	}
	for s := range inf.all {
		mark(s)
	}
	for s := range inf.byName[key] {
		mark(s)
	}
}

// note tells every wait what happened to the watch.
func (inf *informer) note(what string, err error) {
	inf.mu.Lock()
	defer inf.mu.Unlock()
	inf.noteLocked(what, err)
}

func (inf *informer) noteLocked(what string, err error) {
	n := watchNote{at: inf.c.clk.Now(), what: what, err: err}
	for s := range inf.allSubs() {
		s.mu.Lock()
		s.notes = append(s.notes, n)
		s.mu.Unlock()
		s.wakeUp()
	}
}

// allSubs returns every subscription (inf.mu held).
func (inf *informer) allSubs() map[*subscription]struct{} {
	subs := make(map[*subscription]struct{}, len(inf.all))
	for s := range inf.all {
		subs[s] = struct{}{}
	}
	for _, ss := range inf.byName {
		for s := range ss {
			subs[s] = struct{}{}
		}
	}
	return subs
}

// String names an informer in errors: widgets.example.com in ns
// (app=web), widgets.example.com ns/a.
func (k informerKey) String() string {
	if name := k.name(); name != "" {
		return resourceName(k.gvr) + " " + Ref{Namespace: k.namespace, Name: name}.String()
	}
	s := resourceName(k.gvr)
	if k.namespace != "" {
		s += " in " + k.namespace
	}
	if sel := k.selectors(); sel != "" {
		s += " (" + sel + ")"
	}
	return s
}

// which names the objects of a wait by selector: "widgets.example.com in
// ns matching app=web", "widgets.example.com in ns".
func (k informerKey) which() string {
	s := informerKey{gvr: k.gvr, namespace: k.namespace}.String()
	if sel := k.selectors(); sel != "" {
		s += " matching " + sel
	}
	return s
}

func (k informerKey) selectors() string {
	var sel []string
	for _, s := range []string{k.labels, k.fields} {
		if s != "" {
			sel = append(sel, s)
		}
	}
	return strings.Join(sel, ", ")
}
