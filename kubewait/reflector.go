package kubewait

import (
	"context"
	"errors"
	"time"

	"github.com/benbjohnson/clock"
	"github.com/go-logr/logr"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"
	k8sclock "k8s.io/utils/clock"
)

// failuresBeforePolling is how many failures of the list or watch in a
// row, with no watch that works in between, make the waits poll until a
// watch works.
const failuresBeforePolling = 3

// errShortWatch is the failure of a watch that ended long before the
// timeout it asked for, having delivered no event.
var errShortWatch = errors.New("kubewait: the watch ended at once, with no event")

// run runs the informer's Reflector until ctx ends: its ListAndWatch,
// then, when it ends (a failure, a watch that must list again), again
// after a backoff. The backoff is the Client's (ClientOptions.Jitter),
// not the Reflector's Run's, which cannot keep three promises of ours: it
// resets every 2 minutes whether or not the watch failed meanwhile (so a
// watch that always answers 410 would cost twice the LISTs), it sleeps
// on the real clock whatever ReflectorOptions.Clock says, and it draws
// its jitter from math/rand's global source. Ours doubles from 1-2 s to
// 30-60 s and starts again once a watch works. (Within a ListAndWatch,
// the Reflector's own backoff after a refused watch or a 429, and its
// watches' timeouts, are client-go's, jittered from math/rand: it takes
// no source.) The first list comes in pages of client-go's pager's
// size; a relist, from the Reflector's last version, is served whole
// from the API server's watch cache, as client-go chooses.
func (inf *informer) run(ctx context.Context) {
	defer close(inf.done)
	quiet := logr.Discard() // the waits' events say what the Reflector would log
	ctx = klog.NewContext(ctx, quiet)
	// The Reflector's watch-list (a streaming list) retries a watch
	// whose resource version expired at once, with no backoff: a server
	// that answers every watch with 410 would get a loop of requests.
	// The informer lists, in pages, and the Reflector's backoff holds.
	lw := noWatchList{&cache.ListWatch{ListWithContextFunc: inf.list, WatchFuncWithContext: inf.watch}}
	r := cache.NewReflectorWithOptions(lw, &unstructured.Unstructured{}, store{inf}, cache.ReflectorOptions{
		Name: inf.key.String(), Logger: &quiet, Clock: reflectorClock{inf.c.clk}})
	for {
		_ = r.ListAndWatchWithContext(ctx) // its failures reach the informer through lw
		inf.mu.Lock()
		inf.retries++
		delay := inf.c.backoff.Delay(inf.retries, 0)
		inf.mu.Unlock()
		if !sleep(ctx, inf.c.clk, delay) {
			return
		}
	}
}

// sleep sleeps for d on clk, and reports whether ctx is still alive.
func sleep(ctx context.Context, clk clock.Clock, d time.Duration) bool {
	t := clk.Timer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}

// noWatchList is a ListWatch that says it does not serve a watch-list.
type noWatchList struct{ *cache.ListWatch }

func (noWatchList) IsWatchListSemanticsUnSupported() bool { return true }

// list is the Reflector's LIST, a page at a time.
func (inf *informer) list(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
	l, err := inf.c.dyn.Resource(inf.key.gvr).Namespace(inf.key.namespace).List(ctx, inf.key.selector(opts))
	if err != nil && ctx.Err() == nil {
		inf.failed(err, true)
	}
	return l, err
}

// watch is the Reflector's WATCH: what it delivers and how it ends tell
// the informer whether the watch works.
func (inf *informer) watch(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
	w, err := inf.c.dyn.Resource(inf.key.gvr).Namespace(inf.key.namespace).Watch(ctx, inf.key.selector(opts))
	if err != nil {
		if ctx.Err() == nil {
			inf.failed(err, false)
		}
		return nil, err
	}
	inf.mu.Lock()
	defer inf.mu.Unlock()
	if inf.why != nil && !relistAfter(inf.why) && inf.mode == modeWatching && !inf.noted {
		inf.noteLocked(WatchRestarted, inf.why) // after a refused connection or a 429: no list
	}
	inf.why, inf.noted = nil, false
	var early time.Time // before it, a watch that ends with no event failed
	if opts.TimeoutSeconds != nil {
		early = inf.c.clk.Now().Add(time.Duration(*opts.TimeoutSeconds) * time.Second / 2)
	}
	return inf.seen(w, early), nil
}

// failed records a failure of the list (list) or of the watch. An
// expired resource version (or continue token), or a watch's that is too
// large, is no failure but a reason: the pager lists again as a whole,
// or the Reflector from the latest version. A forbidden one stops the
// informer; failuresBeforePolling in a row make the waits poll.
func (inf *informer) failed(err error, list bool) {
	err = apiError(err)
	inf.mu.Lock()
	defer inf.mu.Unlock()
	switch {
	case inf.mode == modeForbidden: // stopped
	case expired(err) || !list && relistAfter(err):
		inf.why = err
	case apierrors.IsForbidden(err) || apierrors.IsUnauthorized(err) || apierrors.IsMethodNotSupported(err):
		inf.setModeLocked(modeForbidden, err)
		inf.stop()
	default:
		inf.why, inf.listFailed = err, list
		if list {
			inf.why = nil // a list's failure is no watch's: no restarted event
		}
		if inf.failures++; inf.failures >= failuresBeforePolling {
			inf.setModeLocked(modeFailing, err)
		}
	}
}

// relistAfter reports a watch error after which the Reflector lists
// again: a resource version expired (410 Gone, or the Expired reason of
// a watch's ERROR event, after an etcd compaction), or newer than a
// lagging API server has (ResourceVersionTooLarge).
func relistAfter(err error) bool {
	return expired(err) || apierrors.HasStatusCause(err, metav1.CauseTypeResourceVersionTooLarge)
}

func expired(err error) bool {
	return apierrors.IsResourceExpired(err) || apierrors.IsGone(err)
}

// seen passes a watch's events on to the Reflector, telling the
// informer first: an event (a bookmark too) says the watch works, and so
// does a watch that stays open as long as the informer's first backoff
// (1-2 s); an ERROR event is a failure (an expired version only a reason
// to list again), and so is a watch that ends with no event before half
// the timeout it asked for (one the server ends at its timeout is not).
// The Reflector's Stop stops it, and w.
func (inf *informer) seen(w watch.Interface, early time.Time) watch.Interface {
	out := make(chan watch.Event)
	p := watch.NewProxyWatcher(out)
	go func() {
		defer close(out)
		defer w.Stop()
		open := inf.c.clk.Timer(inf.c.backoff.Delay(1, 0))
		defer open.Stop()
		delivered, failed := false, false
		for {
			var e watch.Event
			select {
			case <-p.StopChan():
				return
			case <-open.C:
				if !failed {
					inf.works()
				}
				continue
			case ev, ok := <-w.ResultChan():
				if !ok {
					if !delivered && !failed && (early.IsZero() || inf.c.clk.Now().Before(early)) {
						inf.failed(errShortWatch, false)
					}
					return
				}
				e = ev
			}
			switch {
			case e.Type == watch.Error:
				failed = true
				inf.failed(apierrors.FromObject(e.Object), false)
			case !delivered:
				delivered = true
				inf.works()
			}
			select {
			case out <- e:
			case <-p.StopChan():
				return
			}
		}
	}()
	return p
}

// works records a watch that delivered an event: its failures are over,
// and waits that polled watch again.
func (inf *informer) works() {
	inf.mu.Lock()
	defer inf.mu.Unlock()
	inf.failures, inf.retries = 0, 0
	if inf.mode == modeFailing {
		inf.setModeLocked(modeWatching, nil)
	}
}

// store is the Reflector's store: the informer's objects.
type store struct{ inf *informer }

func (s store) Add(obj any) error    { s.inf.apply(watch.Added, obj); return nil }
func (s store) Update(obj any) error { s.inf.apply(watch.Modified, obj); return nil }
func (s store) Delete(obj any) error { s.inf.apply(watch.Deleted, obj); return nil }
func (s store) Resync() error        { return nil }

func (s store) Replace(list []any, _ string) error { s.inf.replace(list); return nil }

// cached returns obj as the informer keeps it, without its managedFields
// (often most of its bytes), which no rule reads, and its key,
// namespace/name as a Ref writes it.
func cached(obj any) (key string, o Object, ok bool) {
	u, ok := obj.(*unstructured.Unstructured)
	if !ok {
		return "", nil, false
	}
	u.SetManagedFields(nil)
	return Ref{Namespace: u.GetNamespace(), Name: u.GetName()}.String(), u.Object, true
}

// reflectorClock is the Client's clock as the Reflector reads time: its
// timers are the one thing it does not say as k8s.io/utils/clock does.
type reflectorClock struct{ clock.Clock }

func (c reflectorClock) NewTimer(d time.Duration) k8sclock.Timer { return reflectorTimer{c.Timer(d)} }

type reflectorTimer struct{ t *clock.Timer }

func (t reflectorTimer) C() <-chan time.Time        { return t.t.C }
func (t reflectorTimer) Stop() bool                 { return t.t.Stop() }
func (t reflectorTimer) Reset(d time.Duration) bool { return t.t.Reset(d) }
