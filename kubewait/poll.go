package kubewait

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"slices"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/pager"
)

// poll polls the objects that are due in the sources whose informers
// cannot watch, under the Client's rate limit: a LIST for a wait by
// selector, else a GET each, the longest due first.
func (d *driver) poll(now time.Time) {
	var due []*member
	for _, s := range d.sources {
		switch {
		case !s.polling():
		case !s.named:
			if (s.synced || d.req.Count > 0) && d.listDue(s, now) {
				_ = d.pollList(s, false)
			}
		default:
			for _, m := range s.members {
				if m.due(now) {
					due = append(due, m)
				}
			}
		}
	}
	slices.SortFunc(due, func(a, b *member) int { return cmp.Or(a.next.Compare(b.next), a.order-b.order) })
	for _, m := range due {
		if d.failed() {
			return
		}
		if !d.token() {
			d.noToken(due)
			return
		}
		ans, tok := d.w.Call(d.ctx, m.ref, m.cp.Attempts, m.tok)
		m.tok = tok
		if ans.Output != nil {
			(&unstructured.Unstructured{Object: ans.Output}).SetManagedFields(nil)
			if m.ref.UID == "" {
				m.ref.UID = string((&unstructured.Unstructured{Object: ans.Output}).GetUID())
				ans.Judgment = d.w.Judge(m.ref, ans.Output, ans.Err) // judged again with the UID, as the watch judges
			}
		}
		d.step(m, ans, d.c.clk.Now())
	}
}

// listDue reports whether a wait by selector must list its objects: one
// of them (or its Count) is due, or it has none yet.
func (d *driver) listDue(s *source, now time.Time) bool {
	if len(s.members) == 0 || d.countWait.due(now) {
		return true // a wait with a count, before its first list, or its Count
	}
	for _, m := range s.members {
		if m.due(now) {
			return true
		}
	}
	return false
}

// due reports whether m's wait must be judged (or polled) at now (m may
// be nil: no Count).
func (m *member) due(now time.Time) bool { return m != nil && !m.done && !now.Before(m.next) }

// pollList lists the selector's objects once, and judges every member of
// s by it. first settles the members of a wait without a count.
func (d *driver) pollList(s *source, first bool) error {
	if !d.token() {
		d.noToken(append(slices.Collect(maps.Values(s.members)), d.countWait))
		return nil
	}
	start := d.c.clk.Now()
	objs, err := d.c.list(d.ctx, s.key)
	now := d.c.clk.Now()
	if err = apiError(err); err != nil && first && !unreachable(err) {
		return fmt.Errorf("kubewait: listing %s: %w", s.key, err)
	}
	if err == nil {
		s.synced = s.synced || first
		if err := d.join(s, objs, first || d.req.Count > 0); err != nil {
			return err
		}
	}
	for key, m := range s.members {
		if !m.done {
			d.judge(m, objs[key], err, now, now.Sub(start)) // after an error, the informer lists again
		}
	}
	if err == nil {
		d.judgeCount(s, now)
	}
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
	if !sleep(d.ctx, clk, delay) {
		r.CancelAt(clk.Now())
		return false
	}
	return true
}

// noToken puts off to the deadline the polls that the rate limit has no
// token for before it: until then, only a watch (if it comes back) can
// judge them.
func (d *driver) noToken(due []*member) {
	now := d.c.clk.Now()
	for _, m := range due {
		if m.due(now) {
			m.next = d.end
		}
	}
}

// list lists the objects of key for a poll, in pages, with client-go's
// pager (which lists again as a whole if the pages' snapshot expires),
// and returns them by namespace/name, without their managedFields.
func (c *Client) list(ctx context.Context, key informerKey) (map[string]Object, error) {
	res := c.dyn.Resource(key.gvr).Namespace(key.namespace)
	p := pager.New(func(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
		return res.List(ctx, opts)
	})
	list, _, err := p.List(ctx, key.selector(metav1.ListOptions{}))
	if err != nil {
		return nil, err
	}
	objs := map[string]Object{}
	err = meta.EachListItem(list, func(o runtime.Object) error {
		if key, o, ok := cached(o); ok {
			objs[key] = o
		}
		return nil
	})
	return objs, err
}
