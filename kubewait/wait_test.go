package kubewait

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/benbjohnson/clock"
	"golang.org/x/time/rate"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/dynamic/fake"
	k8stesting "k8s.io/client-go/testing"

	"github.com/waitable/waitable/classify"
	"github.com/waitable/waitable/waiter"
)

var widgets = schema.GroupVersionResource{Group: "waitable.test", Version: "v1", Resource: "widgets"}

// cluster is a fake API (client-go's dynamic fake, whose watch serves the
// tracker's changes) with helpers to write objects as a controller would.
type cluster struct {
	t   *testing.T
	dyn *fake.FakeDynamicClient
}

func newCluster(t *testing.T, objs ...Object) *cluster {
	var ros []runtime.Object
	for _, o := range objs {
		ros = append(ros, &unstructured.Unstructured{Object: o})
	}
	dyn := fake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(),
		map[schema.GroupVersionResource]string{widgets: "WidgetList"}, ros...)
	return &cluster{t: t, dyn: dyn}
}

func (c *cluster) create(o Object) {
	c.t.Helper()
	if _, err := c.dyn.Resource(widgets).Namespace("ns").Create(context.Background(),
		&unstructured.Unstructured{Object: o}, metav1.CreateOptions{}); err != nil {
		c.t.Fatal(err)
	}
}

func (c *cluster) update(o Object) {
	c.t.Helper()
	if _, err := c.dyn.Resource(widgets).Namespace("ns").Update(context.Background(),
		&unstructured.Unstructured{Object: o}, metav1.UpdateOptions{}); err != nil {
		c.t.Fatal(err)
	}
}

func (c *cluster) delete(name string) {
	c.t.Helper()
	if err := c.dyn.Resource(widgets).Namespace("ns").Delete(context.Background(), name, metav1.DeleteOptions{}); err != nil {
		c.t.Fatal(err)
	}
}

// count counts the fake's actions of verb (list, watch, get).
func (c *cluster) count(verb string) int {
	n := 0
	for _, a := range c.dyn.Actions() {
		if a.GetVerb() == verb {
			n++
		}
	}
	return n
}

// selectors returns the selectors of the fake's actions of verb (list,
// watch), each as "labels=...;fields=..." (empty ones left out).
func (c *cluster) selectors(verb string) []string {
	var out []string
	for _, a := range c.dyn.Actions() {
		if a.GetVerb() != verb {
			continue
		}
		var r k8stesting.ListRestrictions
		switch a := a.(type) {
		case k8stesting.ListAction:
			r = a.GetListRestrictions()
		case k8stesting.WatchAction:
			w := a.GetWatchRestrictions()
			r = k8stesting.ListRestrictions{Labels: w.Labels, Fields: w.Fields}
		}
		var parts []string
		if r.Labels != nil && !r.Labels.Empty() {
			parts = append(parts, "labels="+r.Labels.String())
		}
		if r.Fields != nil && !r.Fields.Empty() {
			parts = append(parts, "fields="+r.Fields.String())
		}
		out = append(out, strings.Join(parts, ";"))
	}
	return out
}

// after runs f at d from now, in the bubble.
func after(d time.Duration, f func()) {
	go func() {
		time.Sleep(d)
		f()
	}()
}

func labelled(o Object, kv ...string) Object {
	l := map[string]any{}
	for i := 0; i+1 < len(kv); i += 2 {
		l[kv[i]] = kv[i+1]
	}
	o["metadata"].(map[string]any)["labels"] = l
	return o
}

func req(rule Rule, names ...string) Request {
	return Request{Resource: widgets, Namespace: "ns", Names: names, For: []Rule{rule}, Timeout: time.Minute}
}

func TestWaitSucceedsWhenTheConditionIsWritten(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		k := newCluster(t, widget("a", conditions("Ready", "False")), widget("b", nil))
		c := NewClient(k.dyn, ClientOptions{})
		after(3*time.Second, func() { k.update(widget("a", conditions("Ready", "True"))) })
		after(5*time.Second, func() { k.update(widget("b", conditions("Ready", "True"))) })
		var events []Event
		r := req(Condition("Ready", ""), "a", "b")
		r.OnEvent = func(e Event) { events = append(events, e) }
		start := time.Now()
		res, err := c.Wait(t.Context(), r)
		if err != nil {
			t.Fatal(err)
		}
		if got := time.Since(start); got != 5*time.Second {
			t.Errorf("the wait took %v, want 5s: the second write, at once", got)
		}
		if len(res.Objects) != 2 || res.Objects[0].Decision != classify.Success || res.Objects[1].Reason != "ReadyReason" {
			t.Errorf("objects = %+v", res.Objects)
		}
		// One event per transition: a pending, then a success; b pending
		// (no condition), then a success.
		var got []string
		for _, e := range events {
			got = append(got, e.Ref.Name+":"+e.Decision.String()+":"+e.Reason+":"+e.End)
		}
		want := []string{"a:retry:ReadyReason:", "b:retry::", "a:success:ReadyReason:success", "b:success:ReadyReason:success"}
		if len(got) != 4 || got[2] != want[2] || got[3] != want[3] {
			t.Errorf("events = %q, want %q (the first two in either order)", got, want)
		}
		if n := k.count("get"); n != 0 {
			t.Errorf("%d GETs: a watched wait makes none", n)
		}
	})
}

func TestWaitFailsOnAFailOnRuleAtOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		k := newCluster(t, widget("job", nil))
		c := NewClient(k.dyn, ClientOptions{})
		after(2*time.Second, func() {
			k.update(widget("job", conditions("Failed", "True")))
		})
		r := req(Condition("Complete", ""), "job")
		r.FailOn = []Rule{Condition("Failed", "")}
		start := time.Now()
		res, err := c.Wait(t.Context(), r)
		if !errors.Is(err, waiter.ErrFailure) {
			t.Fatalf("err = %v, want ErrFailure", err)
		}
		if got := time.Since(start); got != 2*time.Second {
			t.Errorf("ended after %v, want 2s: at the status write", got)
		}
		var e *Error
		if !errors.As(err, &e) || len(e.Objects) != 1 || e.Objects[0].Reason != "FailedReason" || e.Objects[0].Message != "Failed message" {
			t.Fatalf("error = %#v", err)
		}
		if !strings.Contains(err.Error(), "ns/job: failed on condition=Failed: FailedReason: Failed message") {
			t.Errorf("message %q does not say which object failed and why", err)
		}
		if res.Objects[0].Decision != classify.Failure {
			t.Errorf("result = %+v", res.Objects)
		}
	})
}

func TestWaitTimesOutAtTheDeadline(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var objs []Object
		var names []string
		for _, n := range []string{"a", "b", "c"} {
			objs = append(objs, widget(n, conditions("Ready", "False")))
			names = append(names, n)
		}
		k := newCluster(t, objs...)
		c := NewClient(k.dyn, ClientOptions{})
		r := req(Condition("Ready", ""), names...)
		r.Timeout = 5 * time.Second
		start := time.Now()
		res, err := c.Wait(t.Context(), r)
		if got := time.Since(start); got != 5*time.Second {
			t.Errorf("ended after %v, want 5s", got)
		}
		if !errors.Is(err, waiter.ErrTimeout) || errors.Is(err, waiter.ErrFailure) {
			t.Fatalf("err = %v, want ErrTimeout", err)
		}
		for _, o := range res.Objects {
			if o.Decision != classify.Retry || !errors.Is(o.Err, waiter.ErrTimeout) {
				t.Errorf("%s: %v %v, want retry and a timeout", o.Name, o.Decision, o.Err)
			}
		}
	})
}

func TestWaitTakesTheCallersDeadline(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		k := newCluster(t, widget("a", nil))
		c := NewClient(k.dyn, ClientOptions{})
		ctx, cancel := context.WithTimeout(t.Context(), 3*time.Second)
		defer cancel()
		start := time.Now()
		_, err := c.Wait(ctx, req(Condition("Ready", ""), "a"))
		if !errors.Is(err, waiter.ErrTimeout) || time.Since(start) != 3*time.Second {
			t.Errorf("err = %v after %v, want a timeout at the context's deadline, 3s", err, time.Since(start))
		}
	})
}

func TestWaitCancelled(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		k := newCluster(t, widget("a", nil))
		c := NewClient(k.dyn, ClientOptions{})
		ctx, cancel := context.WithCancel(t.Context())
		after(time.Second, cancel)
		var last Event
		r := req(Condition("Ready", ""), "a")
		r.OnEvent = func(e Event) { last = e }
		_, err := c.Wait(ctx, r)
		if !errors.Is(err, context.Canceled) || errors.Is(err, waiter.ErrTimeout) {
			t.Errorf("err = %v, want context.Canceled", err)
		}
		if last.End != "cancelled" {
			t.Errorf("last event %+v, want the object's cancellation", last)
		}
	})
}

func TestWaitForAnObjectCreatedLater(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		k := newCluster(t)
		c := NewClient(k.dyn, ClientOptions{})
		after(4*time.Second, func() { k.create(widget("late", nil)) })
		after(6*time.Second, func() { k.update(widget("late", conditions("Ready", "True"))) })
		start := time.Now()
		if _, err := c.Wait(t.Context(), req(Condition("Ready", ""), "late")); err != nil {
			t.Fatal(err)
		}
		if got := time.Since(start); got != 6*time.Second {
			t.Errorf("took %v, want 6s", got)
		}
	})
}

func TestWaitNotFoundLimitEndsAWaitForAnObjectThatNeverAppears(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		k := newCluster(t)
		c := NewClient(k.dyn, ClientOptions{})
		r := req(Condition("Ready", ""), "never")
		r.Options = []waiter.Option{waiter.WithNotFoundLimit(3), waiter.WithDelays(time.Second, time.Second)}
		start := time.Now()
		_, err := c.Wait(t.Context(), r)
		var we *waiter.Error
		if !errors.As(err, &we) || we.Failure != waiter.FailureNeverAppeared || we.Input != "ns/never" {
			t.Fatalf("err = %v, want FailureNeverAppeared for ns/never", err)
		}
		if got := time.Since(start); got != 2*time.Second {
			t.Errorf("ended after %v, want 2s: three not-found judgments at 0, 1s and 2s", got)
		}
	})
}

func TestWaitBySelectorWithACount(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		k := newCluster(t, labelled(widget("a", conditions("Ready", "True")), "app", "web"),
			labelled(widget("other", nil), "app", "db"))
		c := NewClient(k.dyn, ClientOptions{})
		after(2*time.Second, func() { k.create(labelled(widget("b", conditions("Ready", "True")), "app", "web")) })
		after(3*time.Second, func() { k.create(labelled(widget("c", nil), "app", "web")) })
		after(5*time.Second, func() { k.update(labelled(widget("c", conditions("Ready", "True")), "app", "web")) })
		r := Request{Resource: widgets, Namespace: "ns", Selector: "app=web", Count: 3, For: []Rule{Condition("Ready", "")}, Timeout: time.Minute}
		start := time.Now()
		res, err := c.Wait(t.Context(), r)
		if err != nil {
			t.Fatal(err)
		}
		if got := time.Since(start); got != 5*time.Second || len(res.Objects) != 3 {
			t.Errorf("took %v with %d objects, want 5s and 3", got, len(res.Objects))
		}
	})
}

func TestWaitBySelectorCountNeverReached(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		k := newCluster(t, labelled(widget("a", conditions("Ready", "True")), "app", "web"))
		c := NewClient(k.dyn, ClientOptions{})
		r := Request{Resource: widgets, Namespace: "ns", Selector: "app=web", Count: 2, For: []Rule{Condition("Ready", "")}, Timeout: 10 * time.Second}
		_, err := c.Wait(t.Context(), r)
		if !errors.Is(err, waiter.ErrTimeout) || !strings.Contains(err.Error(), "1 of 2 objects") {
			t.Errorf("err = %v, want a timeout saying 1 of 2 objects", err)
		}
		r.Options = []waiter.Option{waiter.WithNotFoundLimit(2), waiter.WithDelays(time.Second, time.Second)}
		start := time.Now()
		_, err = c.Wait(t.Context(), r)
		var we *waiter.Error
		if !errors.As(err, &we) || we.Failure != waiter.FailureNeverAppeared || time.Since(start) != time.Second {
			t.Errorf("err = %v after %v, want FailureNeverAppeared after 1s", err, time.Since(start))
		}
	})
}

func TestWaitBySelectorFindsNoObjects(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		k := newCluster(t, labelled(widget("a", nil), "app", "db"))
		c := NewClient(k.dyn, ClientOptions{})
		_, err := c.Wait(t.Context(), Request{Resource: widgets, Namespace: "ns", Selector: "app=web", For: []Rule{Condition("Ready", "")}, Timeout: time.Minute})
		if !errors.Is(err, ErrNoObjects) {
			t.Errorf("err = %v, want ErrNoObjects", err)
		}
		res, err := c.Wait(t.Context(), Request{Resource: widgets, Namespace: "ns", All: true, For: []Rule{Created()}, Timeout: time.Minute})
		if err != nil || len(res.Objects) != 1 {
			t.Errorf("--all create: %v, %+v", err, res.Objects)
		}
	})
}

func TestWaitForDeletion(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		k := newCluster(t, widget("a", nil), widget("b", nil))
		c := NewClient(k.dyn, ClientOptions{})
		after(time.Second, func() { k.delete("a") })
		after(2*time.Second, func() {
			k.delete("b")
			again := widget("b", nil)
			again["metadata"].(map[string]any)["uid"] = "uid-b2"
			k.create(again)
		})
		start := time.Now()
		if _, err := c.Wait(t.Context(), req(Deleted(), "a", "b", "gone")); err != nil {
			t.Fatal(err)
		}
		if got := time.Since(start); got != 2*time.Second {
			t.Errorf("took %v, want 2s", got)
		}
	})
}

func TestWaitRejectsABadRequest(t *testing.T) {
	c := NewClient(newCluster(t).dyn, ClientOptions{})
	_, err := c.Wait(t.Context(), Request{Names: []string{"a", "a", "x/y"}, Selector: "a in (", Count: -1,
		FailOn: []Rule{{}, JSONPathExists("{.x[}")}})
	if !errors.Is(err, ErrInvalidRequest) {
		t.Fatalf("err = %v", err)
	}
	for _, want := range []string{"Resource", "exactly one of Names, Selector (or FieldSelector), All and Objects", `Names[1] "a" is named twice`,
		`Names[2] "x/y"`, "Selector", "Count -1", "Timeout", "For: no rule", "FailOn[0]: no rule", "FailOn[1]: jsonpath"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("the error does not name %q:\n%v", want, err)
		}
	}
}

func TestWaitsShareOneInformer(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		k := newCluster(t, widget("a", nil))
		c := NewClient(k.dyn, ClientOptions{})
		var wg sync.WaitGroup
		for range 4 {
			wg.Go(func() {
				if _, err := c.Wait(t.Context(), req(Condition("Ready", ""), "a")); err != nil {
					t.Error(err)
				}
			})
		}
		synctest.Wait()
		k.update(widget("a", conditions("Ready", "True")))
		wg.Wait()
		if l, w := k.count("list"), k.count("watch"); l != 1 || w != 1 {
			t.Errorf("%d lists and %d watches for 4 waits, want 1 and 1", l, w)
		}
		synctest.Wait()
		if len(c.informers) != 0 {
			t.Errorf("%d informers left after the last wait", len(c.informers))
		}
	})
}

func TestWaitPollsWhenWatchIsForbidden(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var objs []Object
		var names []string
		for _, n := range []string{"a", "b", "c", "d", "e"} {
			objs = append(objs, widget(n, nil))
			names = append(names, n)
		}
		k := newCluster(t, objs...)
		k.dyn.PrependWatchReactor("widgets", func(k8stesting.Action) (bool, watch.Interface, error) {
			return true, nil, apierrors.NewForbidden(widgets.GroupResource(), "", errors.New("no watch for you"))
		})
		c := NewClient(k.dyn, ClientOptions{PollLimit: rate.NewLimiter(2, 1)})
		r := req(Condition("Ready", ""), names...)
		r.Timeout = 20 * time.Second
		r.Options = []waiter.Option{waiter.WithDelays(time.Second, time.Second)}
		var polling Event
		r.OnEvent = func(e Event) {
			if e.Watch == WatchPolling {
				polling = e
			}
		}
		start := time.Now()
		after(10*time.Second, func() {
			for _, n := range names {
				k.update(widget(n, conditions("Ready", "True")))
			}
		})
		if _, err := c.Wait(t.Context(), r); err != nil {
			t.Fatal(err)
		}
		elapsed := time.Since(start)
		gets := k.count("get")
		t.Logf("%d GETs in %v", gets, elapsed)
		// 2 a second, and 1 at the start: the limit, whatever the schedule asks.
		if limit := int(2*elapsed.Seconds()) + 1; gets > limit+limit/10 || gets < limit/2 {
			t.Errorf("%d GETs in %v, want about %d (2 a second)", gets, elapsed, limit)
		}
		if !apierrors.IsForbidden(polling.Err) {
			t.Errorf("polling event %+v, want one that says watch is forbidden", polling)
		}
	})
}

func TestWaitHonoursRetryAfterWhenPolling(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		k := newCluster(t, widget("a", nil))
		k.dyn.PrependWatchReactor("widgets", func(k8stesting.Action) (bool, watch.Interface, error) {
			return true, nil, apierrors.NewForbidden(widgets.GroupResource(), "", errors.New("no watch"))
		})
		var gets []time.Time
		k.dyn.PrependReactor("get", "widgets", func(k8stesting.Action) (bool, runtime.Object, error) {
			gets = append(gets, time.Now())
			if len(gets) == 1 {
				return true, nil, apierrors.NewTooManyRequests("slow down", 7)
			}
			return false, nil, nil
		})
		c := NewClient(k.dyn, ClientOptions{})
		r := req(Condition("Ready", ""), "a")
		r.Timeout = 12 * time.Second
		r.Options = []waiter.Option{waiter.WithDelays(time.Second, time.Second)}
		_, _ = c.Wait(t.Context(), r)
		t.Logf("GETs at %v", gets)
		if len(gets) < 2 || gets[1].Sub(gets[0]) < 7*time.Second {
			t.Fatalf("GETs at %v: the second came before the 429's Retry-After of 7s", gets)
		}
	})
}

func TestWaitBySelectorWithACountPollsWhenWatchIsForbidden(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		k := newCluster(t, labelled(widget("a", conditions("Ready", "True")), "app", "web"))
		k.dyn.PrependWatchReactor("widgets", func(k8stesting.Action) (bool, watch.Interface, error) {
			return true, nil, apierrors.NewForbidden(widgets.GroupResource(), "", errors.New("no watch"))
		})
		c := NewClient(k.dyn, ClientOptions{})
		after(3*time.Second, func() { k.create(labelled(widget("b", conditions("Ready", "True")), "app", "web")) })
		r := Request{Resource: widgets, Namespace: "ns", Selector: "app=web", Count: 2, For: []Rule{Condition("Ready", "")},
			Timeout: time.Minute, Options: []waiter.Option{waiter.WithDelays(time.Second, time.Second)}}
		start := time.Now()
		res, err := c.Wait(t.Context(), r)
		if err != nil || len(res.Objects) != 2 {
			t.Fatalf("%v, %+v", err, res.Objects)
		}
		if got := time.Since(start); got < 3*time.Second || got > 4*time.Second {
			t.Errorf("took %v, want the first poll after 3s", got)
		}
		if k.count("get") != 0 {
			t.Errorf("%d GETs: a wait by selector polls with a LIST", k.count("get"))
		}
	})
}

// expiringWatch makes the fake's first watch end with a 410 (an ERROR
// event whose status is Expired, as the API server sends after an etcd
// compaction), and its next ones work.
func expiringWatch(k *cluster) {
	first := true
	k.dyn.PrependWatchReactor("widgets", func(k8stesting.Action) (bool, watch.Interface, error) {
		if !first {
			return false, nil, nil
		}
		first = false
		w := watch.NewFakeWithChanSize(1, false)
		w.Error(&metav1.Status{Status: metav1.StatusFailure, Code: 410, Reason: metav1.StatusReasonExpired,
			Message: "too old resource version"})
		return true, w, nil
	})
}

func TestWaitRelistsWhenTheWatchExpires(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		k := newCluster(t, widget("a", nil))
		expiringWatch(k)
		c := NewClient(k.dyn, ClientOptions{})
		after(time.Second, func() { k.update(widget("a", conditions("Ready", "True"))) })
		var watchEvents []string
		r := req(Condition("Ready", ""), "a")
		r.OnEvent = func(e Event) {
			if e.Watch != "" {
				watchEvents = append(watchEvents, e.Watch)
			}
		}
		if _, err := c.Wait(t.Context(), r); err != nil {
			t.Fatal(err)
		}
		if l := k.count("list"); l != 2 || len(watchEvents) != 1 || watchEvents[0] != WatchRelisted {
			t.Errorf("%d lists, watch events %q; want 2 lists and one %q", l, watchEvents, WatchRelisted)
		}
	})
}

func TestWaitPollsWhileTheWatchFailsAndWatchesAgain(t *testing.T) {
	for _, tc := range []struct {
		failures int
		want     []string
	}{
		{2, []string{WatchRestarted}}, // under 3 in a row: no polling
		// client-go lists again after the first failed watch, and the
		// wait hears the watch was restarted, before it polls.
		{4, []string{WatchRestarted, WatchPolling, WatchWatching}},
	} {
		t.Run(fmt.Sprint(tc.failures), func(t *testing.T) { testWatchFailures(t, tc.failures, tc.want) })
	}
}

func testWatchFailures(t *testing.T, n int, want []string) {
	synctest.Test(t, func(t *testing.T) {
		k := newCluster(t, widget("a", nil))
		failures := 0
		k.dyn.PrependWatchReactor("widgets", func(k8stesting.Action) (bool, watch.Interface, error) {
			if failures < n {
				failures++
				return true, nil, apierrors.NewServiceUnavailable("restarting")
			}
			return false, nil, nil
		})
		c := NewClient(k.dyn, ClientOptions{})
		// Four failures back off for at most 2+4+8+16 s.
		after(40*time.Second, func() { k.update(widget("a", conditions("Ready", "True"))) })
		var watchEvents []string
		r := req(Condition("Ready", ""), "a")
		r.OnEvent = func(e Event) {
			if e.Watch != "" {
				watchEvents = append(watchEvents, e.Watch)
			}
		}
		start := time.Now()
		if _, err := c.Wait(t.Context(), r); err != nil {
			t.Fatal(err)
		}
		if got := time.Since(start); got != 40*time.Second {
			t.Errorf("took %v, want 40s: the write, seen by the watch at once", got)
		}
		if strings.Join(watchEvents, ",") != strings.Join(want, ",") {
			t.Errorf("watch events %q, want %q", watchEvents, want)
		}
		if polled := k.count("get") > 0; polled != (n >= failuresBeforePolling) {
			t.Errorf("%d GETs after %d failures of the watch", k.count("get"), n)
		}
	})
}

// A wait whose informer has not listed yet sleeps until it has (a wait
// that spun meanwhile would keep synctest.Wait from returning, and the
// test would time out).
func TestWaitSleepsWhileTheInformerLists(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		k := newCluster(t, widget("a", conditions("Ready", "True")))
		k.dyn.PrependReactor("list", "widgets", func(k8stesting.Action) (bool, runtime.Object, error) {
			time.Sleep(5 * time.Second) // a slow list
			return false, nil, nil
		})
		c := NewClient(k.dyn, ClientOptions{})
		done := make(chan error, 1)
		start := time.Now()
		go func() {
			_, err := c.Wait(t.Context(), req(Condition("Ready", ""), "a"))
			done <- err
		}()
		time.Sleep(time.Second)
		synctest.Wait() // every goroutine asleep: the list, and the wait
		if err := <-done; err != nil || time.Since(start) != 5*time.Second {
			t.Errorf("err = %v after %v, want success at 5s, when the list came", err, time.Since(start))
		}
	})
}

// The Client's clock is the wait's, whatever clock Request.Options names:
// a frozen mock there changes nothing.
func TestWaitRunsOnTheClientsClock(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		k := newCluster(t, widget("a", nil))
		c := NewClient(k.dyn, ClientOptions{})
		r := req(Condition("Ready", ""), "a")
		r.Timeout = 5 * time.Second
		r.Options = []waiter.Option{waiter.WithClock(clock.NewMock())}
		start := time.Now()
		if _, err := c.Wait(t.Context(), r); !errors.Is(err, waiter.ErrTimeout) || time.Since(start) != 5*time.Second {
			t.Errorf("err = %v after %v, want a timeout after 5s on the Client's clock", err, time.Since(start))
		}
	})
}

// The caller's deadline ends the wait as a timeout, not a cancellation,
// even when it comes before the wait's clock says so (here a clock that
// stands still).
func TestWaitEndsAtTheCallersDeadlineAsATimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		k := newCluster(t, widget("a", nil))
		c := NewClient(k.dyn, ClientOptions{Clock: clock.NewMock()})
		ctx, cancel := context.WithTimeout(t.Context(), 3*time.Second)
		defer cancel()
		if _, err := c.Wait(ctx, req(Condition("Ready", ""), "a")); !errors.Is(err, waiter.ErrTimeout) {
			t.Errorf("err = %v, want a timeout", err)
		}
	})
}

// A wait that joins an informer that already cannot watch hears so (and
// polls), as the waits before it did.
func TestWaitJoiningAPollingInformerHearsIt(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		k := newCluster(t, widget("a", nil), widget("b", nil))
		k.dyn.PrependWatchReactor("widgets", func(k8stesting.Action) (bool, watch.Interface, error) {
			return true, nil, apierrors.NewForbidden(widgets.GroupResource(), "", errors.New("no watch"))
		})
		c := NewClient(k.dyn, ClientOptions{})
		first := req(Condition("Ready", ""), "a")
		first.Timeout = 10 * time.Second
		go c.Wait(t.Context(), first)
		synctest.Wait() // the first wait polls
		var heard []string
		second := req(Condition("Ready", ""), "b")
		second.Timeout = 5 * time.Second
		second.OnEvent = func(e Event) {
			if e.Watch != "" {
				heard = append(heard, e.Watch)
			}
		}
		_, _ = c.Wait(t.Context(), second)
		if len(heard) != 1 || heard[0] != WatchPolling {
			t.Errorf("the second wait heard %q, want %q", heard, WatchPolling)
		}
		time.Sleep(10 * time.Second) // the first wait ends
	})
}

// A deletion by selector that finds no object is done: there is nothing
// left to delete (kubectl wait --for=delete -l says so, with status 0).
func TestWaitForDeletionBySelectorFindsNone(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		k := newCluster(t, labelled(widget("a", nil), "app", "db"))
		c := NewClient(k.dyn, ClientOptions{})
		res, err := c.Wait(t.Context(), Request{Resource: widgets, Namespace: "ns", Selector: "app=web", For: []Rule{Deleted()}, Timeout: time.Minute})
		if err != nil || len(res.Objects) != 0 {
			t.Errorf("%v, %+v; want success with no object", err, res.Objects)
		}
	})
}

// The Client's default poll limit is client-go's: 5 requests a second, in
// bursts of 10.
func TestClientDefaultPollLimit(t *testing.T) {
	c := NewClient(newCluster(t).dyn, ClientOptions{})
	if c.limit.Limit() != 5 || c.limit.Burst() != 10 {
		t.Errorf("default limit %v a second, burst %d; want 5 and 10", c.limit.Limit(), c.limit.Burst())
	}
}

// TestEventSeenIsTheObjectAsItsWaitEnded: the event that ends an
// object's wait carries the object as the wait saw it then, without its
// managedFields, a copy the caller owns; the events before carry none,
// nor does the end of a wait for an object that is gone.
func TestEventSeenIsTheObjectAsItsWaitEnded(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		a := widget("a", conditions("Ready", "True"))
		a["metadata"].(map[string]any)["managedFields"] = []any{map[string]any{"manager": "kubectl"}}
		k := newCluster(t, widget("a", nil), widget("b", nil))
		c := NewClient(k.dyn, ClientOptions{})
		after(time.Second, func() { k.update(a) })
		after(2*time.Second, func() { k.delete("b") })
		seen := map[string]Object{}
		r := req(Condition("Ready", ""), "a")
		r.OnEvent = func(e Event) {
			if e.End == "" && e.Object != nil {
				t.Errorf("event %+v before the end carries the object", e)
			}
			if e.End != "" {
				seen[e.Ref.Name] = e.Object
				if e.Object != nil {
					e.Object["metadata"].(map[string]any)["name"] = "changed by the caller"
				}
			}
		}
		res, err := c.Wait(t.Context(), r)
		if err != nil {
			t.Fatal(err)
		}
		got := seen["a"]
		if got == nil || got["status"] == nil {
			t.Fatalf("a's last event carries %v, want the object as it met the rule", got)
		}
		if _, ok := got["metadata"].(map[string]any)["managedFields"]; ok {
			t.Errorf("Seen keeps the managedFields")
		}
		if n := res.Objects[0].Object["metadata"].(map[string]any)["name"]; n != "a" {
			t.Errorf("the result's object is named %v after the caller changed Seen: want a copy", n)
		}
		r = req(Deleted(), "b")
		seen = map[string]Object{}
		r.OnEvent = func(e Event) {
			if e.End != "" {
				seen[e.Ref.Name] = e.Object
			}
		}
		if _, err := c.Wait(t.Context(), r); err != nil {
			t.Fatal(err)
		}
		if s, ok := seen["b"]; !ok || s != nil {
			t.Errorf("b's last event: ended %v, Seen %v; want nil for an object gone", ok, s)
		}
	})
}

// TestEventsOfOneInstantInTheResultsOrder: the events of a selector's
// objects judged at one instant come as the Result lists them, by
// namespace and name, run after run.
func TestEventsOfOneInstantInTheResultsOrder(t *testing.T) {
	for range 5 {
		synctest.Test(t, func(t *testing.T) {
			var objs []Object
			for _, n := range []string{"e", "b", "d", "a", "c", "f"} {
				objs = append(objs, labelled(widget(n, conditions("Ready", "True")), "app", "web"))
			}
			k := newCluster(t, objs...)
			c := NewClient(k.dyn, ClientOptions{})
			var got []string
			r := Request{Resource: widgets, Namespace: "ns", Selector: "app=web", For: []Rule{Condition("Ready", "")}, Timeout: time.Minute,
				OnEvent: func(e Event) {
					if e.End != "" {
						got = append(got, e.Ref.Name)
					}
				}}
			if _, err := c.Wait(t.Context(), r); err != nil {
				t.Fatal(err)
			}
			if strings.Join(got, " ") != "a b c d e f" {
				t.Errorf("events %q, want a b c d e f", got)
			}
		})
	}
}

// An object that can meet none of two For rules fails on the first, as
// the waiter judges (its failure matchers in For's order): the result
// names that one.
func TestResultNamesTheFirstRuleThatCannotBeMet(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		k := newCluster(t, widget("a", map[string]any{"one": map[string]any{"x": "1"}, "two": map[string]any{"y": "2"}}))
		c := NewClient(k.dyn, ClientOptions{})
		first, second := JSONPath("{.status.one}", "1"), JSONPath("{.status.two}", "2")
		r := req(first, "a")
		r.For = append(r.For, second)
		res, err := c.Wait(t.Context(), r)
		if !errors.Is(err, waiter.ErrFailure) || len(res.Objects) != 1 || res.Objects[0].Rule != first.String() {
			t.Fatalf("Wait = %+v, %v; want a failure naming %s", res.Objects, err, first)
		}
	})
}
