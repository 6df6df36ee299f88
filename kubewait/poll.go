package kubewait

import (
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// poll polls the members of s that are due, while s's informer cannot
// watch: a GET each, or one LIST for a wait by selector, each under the
// Client's rate limit.
func (d *driver) poll(s *source, now time.Time) {
	due := !s.named && len(s.members) == 0 // a wait with a count, before its first list
	for _, m := range s.members {
		if !m.done && !now.Before(m.next) {
			due = true
		}
	}
	if m := d.countWait; !s.named && m != nil && !m.done && !now.Before(m.next) {
		due = true
	}
	if !due {
		return
	}
	if !s.named {
		_ = d.pollList(s, false)
		return
	}
	for _, m := range s.members {
		if m.done || d.c.clk.Now().Before(m.next) {
			continue
		}
		if !d.token() {
			d.noToken(s)
			return
		}
		ans, tok := d.w.Call(d.ctx, m.ref, m.cp.Attempts, m.tok)
		m.tok = tok
		if ans.Output != nil {
			stripObject(ans.Output)
			if m.ref.UID == "" {
				m.ref.UID = string((&unstructured.Unstructured{Object: ans.Output}).GetUID())
				ans.Judgment = d.w.Judge(m.ref, ans.Output, ans.Err) // judged again with the UID, as the watch judges
			}
		}
		d.apply(m, ans, d.c.clk.Now())
		if d.failed() {
			return
		}
	}
}

// pollList lists the selector's objects once, and judges every member of
// s by it. first settles the members of a wait without a count.
func (d *driver) pollList(s *source, first bool) error {
	if !d.token() {
		d.noToken(s)
		return nil
	}
	start := d.c.clk.Now()
	objs, _, err := d.c.list(d.ctx, s.key)
	now := d.c.clk.Now()
	if err != nil {
		err = apiError(err)
		for _, m := range s.members {
			if !m.done {
				d.judge(m, nil, err, now, now.Sub(start))
			}
		}
		if first {
			return fmt.Errorf("kubewait: listing %s: %w", s.key, err)
		}
		return nil
	}
	if first || d.count > 0 {
		for k := range objs {
			if s.members[k] == nil {
				ns, name := splitKey(k)
				d.addMember(s, Ref{Resource: s.key.gvr, Namespace: ns, Name: name})
			}
		}
		d.settled = d.settled || first
		if first && len(s.members) == 0 && !d.req.forKind(ruleDeleted) {
			return d.noObjects(s)
		}
	}
	for key, m := range s.members {
		if !m.done {
			d.judge(m, objs[key], nil, now, now.Sub(start))
		}
	}
	d.judgeCount(s, now)
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

// noToken puts off to the deadline the polls of s that the rate limit has
// no token for before it: until then, only the watch (if it comes back)
// can judge them.
func (d *driver) noToken(s *source) {
	now := d.c.clk.Now()
	for _, m := range s.members {
		if !m.done && !now.Before(m.next) {
			m.next = d.end
		}
	}
	if m := d.countWait; !s.named && m != nil && !m.done && !now.Before(m.next) {
		m.next = d.end
	}
}
