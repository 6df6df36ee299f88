package kubewait

import (
	"context"
	"slices"
	"strings"
	"sync"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
)

// An informer lists and watches one resource in one namespace with one
// selector through client-go's Reflector (its list and watch, its relists
// after a 410, its watch timeouts and resumption, paging, bookmarks),
// keeps the objects, and tells the waits that subscribe to it which
// objects changed and what happened to its watch. The Client shares it
// between every wait with the same key, and stops it when the last one
// unsubscribes.
//
// What is ours is what the Reflector does not do: it counts failures
// until a watch works, so that the waits poll when it keeps
// failing, and stops for good when the list or the watch is forbidden.
// The Reflector reports neither (a bare Reflector takes no watch error
// handler, and hears of no failure of a watch's stream): the informer
// learns them from the ListWatch it gives the Reflector, which makes
// every request. And the backoff between two of its ListAndWatch is ours
// (see [informer.run]). What it gives the Reflector (its ListWatch, its
// store, its clock), and what it learns from it, is in reflector.go.
type informer struct {
	c   *Client
	key informerKey

	mu       sync.Mutex
	objs     map[string]Object // by namespace/name, without managedFields
	mode     watchMode
	err      error // why it is failing or forbidden
	failures int   // failures in a row, with no watch event in between
	// why is the failure of the watch that the next list, or watch,
	// comes after (nil: none), and listFailed whether the last failure
	// was a list's.
	why        error
	noted      bool // the waits heard the watch was restarted since one last opened
	listFailed bool
	retries    int                    // ListAndWatch that ended since a watch delivered an event
	subs       map[*subscription]bool // the waits' subscriptions: it ends with the last

	stop context.CancelFunc
	done chan struct{}
}

// informerKey is what an informer lists and watches: a resource in a
// namespace ("" for every namespace, or a cluster-scoped resource), with
// a label and a field selector, or one object by its name.
type informerKey struct {
	gvr       schema.GroupVersionResource
	namespace string
	labels    string
	fields    string
	name      string // one object's, asked for as kubectl asks (selector)
}

// selector returns opts with the key's selectors: for one object, the
// field selector of its name, as kubectl asks for it (and as an RBAC
// grant of resourceNames allows a list and a watch).
func (k informerKey) selector(opts metav1.ListOptions) metav1.ListOptions {
	opts.LabelSelector, opts.FieldSelector = k.labels, k.fields
	if k.name != "" {
		opts.FieldSelector = fields.OneTermEqualSelector("metadata.name", k.name).String()
	}
	return opts
}

// watchMode is where an informer stands.
type watchMode uint8

const (
	modeSyncing   watchMode = iota // listing for the first time
	modeWatching                   // listed, watching: its objects are current
	modeFailing                    // the list or watch failed too often in a row: waits poll
	modeForbidden                  // list or watch is forbidden: waits poll, for good
)

// replace installs a list's objects and wakes every wait. A list after
// an expired resource version (or continue token) says so; one after a
// watch that failed says the watch was restarted (client-go lists again,
// then watches), once until a watch opens again; one after the list's
// own failures brings back the waits that polled.
func (inf *informer) replace(list []any) {
	objs := make(map[string]Object, len(list))
	for _, o := range list {
		if key, o, ok := cached(o); ok {
			objs[key] = o
		}
	}
	inf.mu.Lock()
	defer inf.mu.Unlock()
	inf.objs = objs
	switch {
	case inf.why == nil || inf.mode == modeFailing:
	case relistAfter(inf.why):
		inf.noteLocked(WatchRelisted, inf.why)
	case !inf.noted:
		inf.noteLocked(WatchRestarted, inf.why)
		inf.noted = true
	}
	inf.why = nil
	switch {
	case inf.mode == modeSyncing:
		inf.mode = modeWatching
	case inf.mode == modeFailing && inf.listFailed:
		inf.failures = 0
		inf.setModeLocked(modeWatching, nil)
	}
	for s := range inf.subs {
		s.all = true
		s.wakeUp()
	}
}

// apply applies one watch event and wakes the waits it concerns.
func (inf *informer) apply(t watch.EventType, obj any) {
	key, o, ok := cached(obj)
	if !ok {
		return
	}
	inf.mu.Lock()
	defer inf.mu.Unlock()
	if t == watch.Deleted {
		delete(inf.objs, key)
	} else {
		inf.objs[key] = o
	}
	for s := range inf.subs {
		if s.names == nil || s.names[key] {
			s.dirty[key] = true
			s.wakeUp()
		}
	}
}

// setModeLocked changes the informer's mode and tells every wait.
func (inf *informer) setModeLocked(m watchMode, err error) {
	if inf.mode == m {
		inf.err = err
		return
	}
	inf.mode, inf.err = m, err
	switch m {
	case modeFailing, modeForbidden:
		inf.noteLocked(WatchPolling, err)
	case modeWatching:
		inf.noteLocked(WatchWatching, nil)
	}
}

func (inf *informer) noteLocked(what string, err error) {
	n := inf.note(what, err)
	for s := range inf.subs {
		s.notes = append(s.notes, n)
		s.wakeUp()
	}
}

// note is the event of what happened to the informer's watch: its Ref is
// the informer's resource and namespace, and its object if it has one.
func (inf *informer) note(what string, err error) Event {
	return Event{Time: inf.c.clk.Now(), Watch: what, Err: err,
		Ref: Ref{Resource: inf.key.gvr, Namespace: inf.key.namespace, Name: inf.key.name}}
}

// String names an informer in errors: widgets.example.com in ns
// (app=web), widgets.example.com ns/a.
func (k informerKey) String() string {
	if k.name != "" {
		return resourceName(k.gvr) + " " + Ref{Namespace: k.namespace, Name: k.name}.String()
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

// selectors are the key's label and field selectors, those it has.
func (k informerKey) selectors() string {
	return strings.Join(slices.DeleteFunc([]string{k.labels, k.fields}, func(s string) bool { return s == "" }), ", ")
}
