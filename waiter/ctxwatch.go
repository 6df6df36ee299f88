package waiter

import (
	"context"
	"reflect"
	"sync"
)

// ctxWatches watches the callers' contexts of a Waiter's waits: one
// context.AfterFunc per caller context, however many waits run under it,
// instead of one per wait. A registration of the context package costs a
// context of its own, two closures and an entry in the parent's map of
// children (about 185 bytes); a wait in a shared watch costs two links.
// When the caller's context ends, its watch ends the calls' contexts of
// all its waits, in goroutines of fireBatch waits each. When its last
// wait ends, the watch stays registered, idle, for the next wait under
// the same context (a command's or a request's waits follow one
// another): one idle watch per Waiter, the latest; it stops when a watch
// of another context takes its place. An idle watch holds its context
// until then, or until the context ends.
type ctxWatches struct {
	mu   sync.Mutex
	m    map[context.Context]*ctxWatch
	idle *ctxWatch // in m, with no waits
}

// ctxWatch is the registration of one caller's context: the waits under
// it, in a list linked through their calls' contexts. Guarded by its
// ctxWatches' mutex.
type ctxWatch struct {
	ws     *ctxWatches
	parent context.Context
	stop   func() bool // the context package's registration
	head   *waitCtx
	shared bool // in ws.m (the parent is comparable)
}

// add makes c end when parent ends. parent's Done is not nil.
func (ws *ctxWatches) add(parent context.Context, c *waitCtx) {
	shared := hashable(reflect.ValueOf(parent)) // a map key; most contexts are pointers
	ws.mu.Lock()
	var cw *ctxWatch
	if shared {
		cw = ws.m[parent]
	}
	if cw == ws.idle && cw != nil {
		ws.idle = nil // watching again
	} else if cw == nil {
		cw = &ctxWatch{ws: ws, parent: parent, shared: shared}
		if shared {
			if ws.m == nil {
				ws.m = map[context.Context]*ctxWatch{}
			}
			ws.m[parent] = cw
		}
		// AfterFunc never calls fire itself: on a context already done it
		// starts it in a goroutine, which waits for the mutex.
		cw.stop = context.AfterFunc(parent, cw.fire)
	}
	c.watch, c.listed, c.wnext = cw, true, cw.head
	if cw.head != nil {
		cw.head.wprev = c
	}
	cw.head = c
	ws.mu.Unlock()
}

// remove stops watching for c, whose context ended; the last wait of a
// watch leaves it idle, or stops it if it is not shared (see ctxWatches).
// c.watch is set once, before c is shared.
func (cw *ctxWatch) remove(c *waitCtx) {
	ws := cw.ws
	ws.mu.Lock()
	if !c.listed { // its watch fired, and ends it
		ws.mu.Unlock()
		return
	}
	if c.wprev != nil {
		c.wprev.wnext = c.wnext
	} else {
		cw.head = c.wnext
	}
	if c.wnext != nil {
		c.wnext.wprev = c.wprev
	}
	c.listed, c.wprev, c.wnext = false, nil, nil
	if cw.head != nil {
		ws.mu.Unlock()
		return
	}
	done := cw // the watch to stop: this one, or the idle one it replaces
	if cw.shared {
		done, ws.idle = ws.idle, cw
		if done != nil {
			delete(ws.m, done.parent)
		}
	}
	ws.mu.Unlock()
	if done != nil {
		done.stop()
	}
}

// fire ends the calls' contexts of the watch's waits: the caller's
// context ended.
func (cw *ctxWatch) fire() {
	ws := cw.ws
	ws.mu.Lock()
	if cw.shared && ws.m[cw.parent] == cw {
		delete(ws.m, cw.parent)
	}
	if ws.idle == cw {
		ws.idle = nil
	}
	list := cw.head
	cw.head = nil
	for c := list; c != nil; c = c.wnext {
		c.listed = false // remove leaves it to fire
	}
	ws.mu.Unlock()
	err, cause := cw.parent.Err(), context.Cause(cw.parent)
	// The waits end in goroutines of fireBatch of them each, as the
	// context package would end them in one goroutine each: a context
	// under which a million waits run ends them on every core.
	for list != nil {
		batch, n := list, 1
		for list = list.wnext; list != nil && n < fireBatch; list = list.wnext {
			n++
		}
		if list != nil {
			list.wprev.wnext = nil // the batch ends here
			go endAll(batch, err, cause)
		} else {
			endAll(batch, err, cause)
		}
	}
}

// fireBatch is how many waits one goroutine ends when their caller's
// context ends.
const fireBatch = 1024

// endAll ends the calls' contexts of a list that a watch no longer holds.
func endAll(list *waitCtx, err, cause error) {
	for c := list; c != nil; {
		next := c.wnext
		c.wprev, c.wnext = nil, nil
		c.end(err, cause)
		c = next
	}
}

// hashable reports whether v can be a map key without a panic: its type
// is comparable, and so are the dynamic values of the interfaces in it (a
// context that embeds another context, say).
func hashable(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Interface:
		return v.IsNil() || hashable(v.Elem())
	case reflect.Struct:
		for i := range v.NumField() {
			if !hashable(v.Field(i)) {
				return false
			}
		}
		return true
	case reflect.Array:
		for i := range v.Len() {
			if !hashable(v.Index(i)) {
				return false
			}
		}
		return true
	}
	return v.Type().Comparable()
}
