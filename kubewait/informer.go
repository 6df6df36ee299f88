package kubewait

import (
	"context"
	"fmt"
	"sync"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
)

// An informer lists and watches one resource in one namespace with one
// selector, keeps the objects, and tells the waits that subscribe to it
// which objects changed. The Client shares it between every wait with the
// same key, and stops it when the last one unsubscribes.
type informer struct {
	c   *Client
	key informerKey

	mu     sync.Mutex
	objs   map[string]map[string]any // by namespace/name
	mode   watchMode
	err    error // why it is failing or forbidden
	byName map[string]map[*subscription]struct{}
	all    map[*subscription]struct{}
	refs   int

	stop context.CancelFunc
	done chan struct{}
}

type informerKey struct {
	gvr       schema.GroupVersionResource
	namespace string
	selector  string
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

	mu    sync.Mutex
	dirty map[string]bool
	all   bool        // every object changed (a list)
	notes []watchNote // what happened to the watch
	wake  chan struct{}
}

// watchNote is a change of the watch, for the wait's events.
type watchNote struct {
	at   time.Time
	what string
	err  error
}

// failuresBeforePolling is how many failures of the list or watch in a
// row make the waits poll until it works again.
const failuresBeforePolling = 3

// subscribe returns a subscription to the informer of key, starting the
// informer if it is the first.
func (c *Client) subscribe(key informerKey, names map[string]bool) *subscription {
	c.mu.Lock()
	defer c.mu.Unlock()
	inf := c.informers[key]
	start := inf == nil
	var ctx context.Context
	if start {
		var cancel context.CancelFunc
		ctx, cancel = context.WithCancel(context.Background())
		inf = &informer{c: c, key: key, objs: map[string]map[string]any{},
			byName: map[string]map[*subscription]struct{}{}, all: map[*subscription]struct{}{},
			stop: cancel, done: make(chan struct{})}
		c.informers[key] = inf
	}
	inf.refs++
	s := &subscription{inf: inf, names: names, dirty: map[string]bool{}, wake: make(chan struct{}, 1)}
	inf.mu.Lock()
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
	inf.mu.Unlock()
	if start {
		go inf.run(ctx) // once the first wait listens
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
// it has none).
func (s *subscription) get(key string) map[string]any {
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

func objectKey(obj map[string]any) string {
	u := unstructured.Unstructured{Object: obj}
	if ns := u.GetNamespace(); ns != "" {
		return ns + "/" + u.GetName()
	}
	return u.GetName()
}

// run lists and watches until ctx ends: a list, then a watch from its
// resource version, again and again. A watch that the server closes is
// started again from where it was; one whose resource version expired
// (410) lists again. Failures back off on the Client's clock; a forbidden
// list or watch ends the informer's watching for good.
func (inf *informer) run(ctx context.Context) {
	defer close(inf.done)
	res := inf.c.resource(inf.key.gvr, inf.key.namespace)
	opts := metav1.ListOptions{LabelSelector: inf.key.selector}
	failures := 0
	listed := false
	broken := false // the last watch failed: say so when the next one works
	var rv string
	for ctx.Err() == nil {
		if rv == "" {
			list, err := res.List(ctx, opts)
			if err != nil {
				if !inf.failed(ctx, err, &failures) {
					return
				}
				continue
			}
			inf.replace(list, listed)
			listed = true
			rv = list.GetResourceVersion()
			failures = 0
		}
		wopts := opts
		wopts.ResourceVersion, wopts.AllowWatchBookmarks = rv, true
		wi, err := res.Watch(ctx, wopts)
		if err != nil {
			if expired(err) {
				rv = ""
				continue
			}
			broken = true
			if !inf.failed(ctx, err, &failures) {
				return
			}
			continue
		}
		inf.watching(broken)
		broken = false
		failures = 0
		var werr error
		rv, werr = inf.follow(ctx, wi, rv)
		wi.Stop()
		switch {
		case werr == nil:
		case expired(werr):
			rv = ""
		default:
			broken = true
			if !inf.failed(ctx, werr, &failures) {
				return
			}
		}
	}
}

// follow applies a watch's events until it ends, and returns the resource
// version it reached and the error it ended with (nil: closed by the
// server, or ctx ended).
func (inf *informer) follow(ctx context.Context, wi watch.Interface, rv string) (string, error) {
	for {
		select {
		case <-ctx.Done():
			return rv, nil
		case ev, ok := <-wi.ResultChan():
			if !ok {
				return rv, nil
			}
			if ev.Type == watch.Error {
				return rv, apierrors.FromObject(ev.Object)
			}
			u, ok := ev.Object.(*unstructured.Unstructured)
			if !ok {
				continue
			}
			rv = u.GetResourceVersion()
			if ev.Type == watch.Bookmark {
				continue
			}
			inf.apply(ev.Type, u.Object)
		}
	}
}

// expired reports a watch whose resource version is too old (410 Gone, or
// the Expired reason a watch's ERROR event carries).
func expired(err error) bool {
	return apierrors.IsResourceExpired(err) || apierrors.IsGone(err)
}

// failed handles a failed list or watch: a forbidden one stops the
// informer (false); any other backs off and, after failuresBeforePolling
// in a row, makes the waits poll until the watch works again.
func (inf *informer) failed(ctx context.Context, err error, failures *int) bool {
	err = apiError(err)
	if apierrors.IsForbidden(err) || apierrors.IsUnauthorized(err) || apierrors.IsMethodNotSupported(err) {
		inf.setMode(modeForbidden, err)
		return false
	}
	*failures++
	if *failures >= failuresBeforePolling {
		inf.setMode(modeFailing, err)
	}
	backoff := min(250*time.Millisecond<<min(*failures-1, 6), 8*time.Second)
	t := inf.c.clk.Timer(backoff)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
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

// replace installs a list's objects and wakes every wait: after the first
// list, a list again means the watch had expired.
func (inf *informer) replace(list *unstructured.UnstructuredList, again bool) {
	objs := make(map[string]map[string]any, len(list.Items))
	for i := range list.Items {
		objs[objectKey(list.Items[i].Object)] = list.Items[i].Object
	}
	inf.mu.Lock()
	defer inf.mu.Unlock()
	inf.objs = objs
	was := inf.mode
	inf.mode, inf.err = modeWatching, nil
	switch {
	case again:
		inf.noteLocked(WatchRelisted, nil)
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
func (inf *informer) apply(t watch.EventType, obj map[string]any) {
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

// watching records a watch that started: after a failure, the waits hear
// that it restarted (or, if they were polling, that it works again).
func (inf *informer) watching(afterFailure bool) {
	inf.mu.Lock()
	defer inf.mu.Unlock()
	switch {
	case inf.mode == modeFailing:
		inf.mode, inf.err = modeWatching, nil
		inf.noteLocked(WatchWatching, nil)
	case afterFailure:
		inf.noteLocked(WatchRestarted, nil)
	}
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

// String names an informer in errors: widgets.example.com in ns (app=web).
func (k informerKey) String() string {
	s := k.gvr.Resource
	if k.gvr.Group != "" {
		s += "." + k.gvr.Group
	}
	if k.namespace != "" {
		s += " in " + k.namespace
	}
	if k.selector != "" {
		s += fmt.Sprintf(" (%s)", k.selector)
	}
	return s
}
