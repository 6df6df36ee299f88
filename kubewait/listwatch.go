package kubewait

import (
	"context"
	"errors"
	"math/rand/v2"
	"time"

	"github.com/benbjohnson/clock"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/watch"
)

// How an informer lists, watches and backs off: client-go's Reflector's
// rules (k8s.io/client-go/tools/cache), on the Client's clock.
const (
	// listPageSize is how many objects a page of a LIST holds.
	listPageSize = 500
	// shortWatch: a watch that the server closes sooner, having sent no
	// event, failed (the Reflector's "very short watch"); one that stays
	// open this long after a failure works again.
	shortWatch = time.Second
	// A failure backs off for a delay that starts at backoffInit and
	// doubles up to backoffMax, each with as much again at random, and
	// starts again from backoffInit after backoffReset without failure.
	backoffInit  = 800 * time.Millisecond
	backoffMax   = 30 * time.Second
	backoffReset = 2 * time.Minute
	// failuresBeforePolling is how many failures of the list or watch in
	// a row, with no watch event in between, make the waits poll until the
	// watch works again.
	failuresBeforePolling = 3
	// watchTimeoutMin is the least timeout a watch asks for; the server
	// ends the watch then, and the informer watches again from where it
	// was (see watchTimeout).
	watchTimeoutMin = 5 * time.Minute
)

// errShortWatch is the failure of a watch that ended at once.
var errShortWatch = errors.New("kubewait: the watch ended at once, with no event")

// run lists and watches until ctx ends: a list, then a watch from its
// resource version, again and again. A watch that the server closes (at
// its timeout, say) is started again from where it was. One whose
// resource version expired (410) or is too new for the server lists
// again, and so does a list whose continue token expired, each after the
// backoff: never in a loop. A failure counts until a watch delivers an
// event, and backs off; failuresBeforePolling in a row make the waits
// poll; a forbidden list or watch ends the informer's watching for good.
func (inf *informer) run(ctx context.Context) {
	defer close(inf.done)
	res := inf.c.resource(inf.key.gvr, inf.key.namespace)
	b := backoff{clk: inf.c.clk}
	failures := 0
	var rv string
	var relist error // why the next list comes, after the first
	var broken error // the failure the next watch starts again after
	whole := false   // list in one page: the pages' snapshot expired
	for ctx.Err() == nil {
		if rv == "" {
			objs, listRV, err := inf.c.listPages(ctx, inf.key, whole)
			switch {
			case err == nil:
				inf.replace(objs, relist)
				rv, relist, whole = listRV, nil, false
			case expired(err): // a continue token: the first page's snapshot is gone
				whole = true
				if relist == nil {
					relist = apiError(err)
				}
				if !inf.backOff(ctx, &b) {
					return
				}
				continue
			default:
				if !inf.failed(ctx, err, &failures, &b) {
					return
				}
				continue
			}
		}
		wi, err := res.Watch(ctx, metav1.ListOptions{LabelSelector: inf.key.labels, FieldSelector: inf.key.fields,
			ResourceVersion: rv, AllowWatchBookmarks: true, TimeoutSeconds: watchTimeout()})
		if err == nil {
			if broken != nil && inf.state() == modeWatching {
				inf.note(WatchRestarted, broken)
			}
			broken = nil
			start := inf.c.clk.Now()
			var delivered bool
			rv, delivered, err = inf.follow(ctx, wi, rv)
			wi.Stop()
			if delivered {
				failures = 0
			}
			if err == nil && !delivered && inf.c.clk.Since(start) < shortWatch {
				err = errShortWatch
			}
		}
		switch {
		case ctx.Err() != nil:
			return
		case err == nil: // closed by the server: watch again from rv
		case relistAfter(err):
			rv, relist = "", apiError(err)
			if !inf.backOff(ctx, &b) {
				return
			}
		default:
			broken = apiError(err)
			if !inf.failed(ctx, err, &failures, &b) {
				return
			}
		}
	}
}

// watchTimeout returns the timeout a watch asks the server to end it
// after, in whole seconds: at random in [watchTimeoutMin,
// 2*watchTimeoutMin), as the Reflector draws it, so that the watches of
// many clients do not end (and start again) together.
func watchTimeout() *int64 {
	s := int64((watchTimeoutMin + rand.N(watchTimeoutMin)) / time.Second)
	return &s
}

// follow applies a watch's events until it ends, and returns the resource
// version it reached, whether it delivered an event, and the error it
// ended with (nil: closed by the server, or ctx ended). A watch that
// delivers an event, or stays open for shortWatch, works: if the waits
// were polling, they watch again.
func (inf *informer) follow(ctx context.Context, wi watch.Interface, rv string) (string, bool, error) {
	works := inf.c.clk.Timer(shortWatch)
	defer works.Stop()
	delivered := false
	for {
		select {
		case <-ctx.Done():
			return rv, delivered, nil
		case <-works.C:
			inf.works()
		case ev, ok := <-wi.ResultChan():
			if !ok {
				return rv, delivered, nil
			}
			if ev.Type == watch.Error {
				return rv, delivered, apierrors.FromObject(ev.Object)
			}
			u, ok := ev.Object.(*unstructured.Unstructured)
			if !ok {
				continue
			}
			rv = u.GetResourceVersion()
			if !delivered {
				delivered = true
				inf.works()
			}
			if ev.Type != watch.Bookmark {
				inf.apply(ev.Type, u.Object)
			}
		}
	}
}

// relistAfter reports a watch error after which the informer lists
// again: a resource version expired (410 Gone, or the Expired reason of
// a watch's ERROR event, after an etcd compaction), or newer than a
// lagging API server has (ResourceVersionTooLarge).
func relistAfter(err error) bool {
	return expired(err) || apierrors.HasStatusCause(err, metav1.CauseTypeResourceVersionTooLarge)
}

func expired(err error) bool {
	return apierrors.IsResourceExpired(err) || apierrors.IsGone(err)
}

// failed handles a failed list or watch: a forbidden one stops the
// informer (false); any other backs off and, after failuresBeforePolling
// in a row, makes the waits poll until the watch works again.
func (inf *informer) failed(ctx context.Context, err error, failures *int, b *backoff) bool {
	err = apiError(err)
	if apierrors.IsForbidden(err) || apierrors.IsUnauthorized(err) || apierrors.IsMethodNotSupported(err) {
		inf.setMode(modeForbidden, err)
		return false
	}
	*failures++
	if *failures >= failuresBeforePolling {
		inf.setMode(modeFailing, err)
	}
	return inf.backOff(ctx, b)
}

// backOff sleeps for b's next delay, and reports whether ctx is still
// alive.
func (inf *informer) backOff(ctx context.Context, b *backoff) bool {
	t := inf.c.clk.Timer(b.next())
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}

// works records a watch that works: waits that polled watch again.
func (inf *informer) works() {
	inf.mu.Lock()
	defer inf.mu.Unlock()
	if inf.mode == modeFailing {
		inf.mode, inf.err = modeWatching, nil
		inf.noteLocked(WatchWatching, nil)
	}
}

// state returns the informer's mode.
func (inf *informer) state() watchMode {
	inf.mu.Lock()
	defer inf.mu.Unlock()
	return inf.mode
}

// list lists the objects of key for a poll: as listPages does, and the
// whole list again at once if the pages' snapshot expires before the last
// (a poll keeps to the waiter's schedule and the Client's rate limit).
func (c *Client) list(ctx context.Context, key informerKey) (map[string]Object, string, error) {
	objs, rv, err := c.listPages(ctx, key, false)
	if err != nil && expired(err) {
		return c.listPages(ctx, key, true)
	}
	return objs, rv, err
}

// listPages lists the objects of key, a page of listPageSize at a time
// (or all in one page when whole), and returns them by namespace/name
// without their managedFields, with the list's resource version. When the
// pages' snapshot expires before the last page (410 on a continue token),
// it returns that error.
func (c *Client) listPages(ctx context.Context, key informerKey, whole bool) (map[string]Object, string, error) {
	res := c.resource(key.gvr, key.namespace)
	opts := metav1.ListOptions{LabelSelector: key.labels, FieldSelector: key.fields, Limit: listPageSize}
	if whole {
		opts.Limit = 0
	}
	objs := map[string]Object{}
	for {
		page, err := res.List(ctx, opts)
		if err != nil {
			return nil, "", err
		}
		for i := range page.Items {
			obj := page.Items[i].Object
			stripObject(obj)
			objs[objectKey(obj)] = obj
		}
		if page.GetContinue() == "" {
			return objs, page.GetResourceVersion(), nil
		}
		opts.Continue = page.GetContinue()
	}
}

// backoff is the delay after a failure, as client-go's Reflector backs
// off: from backoffInit, doubling to backoffMax, jittered by up to as
// much again (so that clients that failed together do not retry
// together), reset after backoffReset without a failure.
type backoff struct {
	clk  clock.Clock
	step time.Duration
	last time.Time
}

func (b *backoff) next() time.Duration {
	now := b.clk.Now()
	if b.step == 0 || now.Sub(b.last) >= backoffReset {
		b.step = backoffInit
	} else {
		b.step = min(2*b.step, backoffMax)
	}
	b.last = now
	return b.step + time.Duration(rand.Float64()*float64(b.step))
}
