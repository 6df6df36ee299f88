package kubewait

import (
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	k8stesting "k8s.io/client-go/testing"

	"github.com/waitable/waitable/waiter"
)

// stormCap is how many watches a storm of 410s lasts in the tests below;
// the watch works after it. A wait that backs off never reaches it; an
// informer that lists again in a loop reaches it at once, without time
// passing, and then the test ends and fails rather than spinning.
const stormCap = 200

// A watch that always answers 410 (as an error, or as the watch's ERROR
// event), or ResourceVersionTooLarge, makes the informer list again only
// after the backoff: at most 7 LISTs in the first minute (the first list,
// then backoffs of at least 1, 2, 4, 8, 16 and 30 s), at
// most 2 in each minute after (at least 30 s apart), at most 10 in 3
// minutes. Each relist is an event of the wait.
func TestWatchThatAlwaysAnswers410ListsAgainAfterTheBackoff(t *testing.T) {
	tooLarge := apierrors.NewTimeoutError("Too large resource version", 1)
	tooLarge.ErrStatus.Details.Causes = []metav1.StatusCause{{Type: metav1.CauseTypeResourceVersionTooLarge,
		Message: "Too large resource version"}}
	for _, tc := range []struct {
		name  string
		watch func() (watch.Interface, error)
	}{
		{"410 Gone", func() (watch.Interface, error) {
			return nil, &apierrors.StatusError{ErrStatus: metav1.Status{Status: metav1.StatusFailure, Code: http.StatusGone,
				Reason: metav1.StatusReasonGone, Message: "too old resource version: 1 (7)"}}
		}},
		{"Expired event", func() (watch.Interface, error) {
			w := watch.NewFakeWithChanSize(1, false)
			w.Error(&metav1.Status{Status: metav1.StatusFailure, Code: http.StatusGone,
				Reason: metav1.StatusReasonExpired, Message: "too old resource version: 1 (7)"})
			return w, nil
		}},
		{"ResourceVersionTooLarge", func() (watch.Interface, error) { return nil, tooLarge }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				k := newCluster(t, widget("a", nil))
				start := time.Now()
				var lists []time.Duration
				k.dyn.PrependReactor("list", "widgets", func(k8stesting.Action) (bool, runtime.Object, error) {
					lists = append(lists, time.Since(start))
					return false, nil, nil
				})
				watches := 0
				k.dyn.PrependWatchReactor("widgets", func(k8stesting.Action) (bool, watch.Interface, error) {
					if watches++; watches > stormCap {
						return false, nil, nil
					}
					w, err := tc.watch()
					return true, w, err
				})
				c := NewClient(k.dyn, ClientOptions{})
				var events []string
				r := req(Condition("Ready", ""), "a")
				r.Timeout = 3 * time.Minute
				r.OnEvent = watchEvents(&events)
				if _, err := c.Wait(t.Context(), r); !errors.Is(err, waiter.ErrTimeout) {
					t.Fatalf("err = %v, want a timeout", err)
				}
				perMinute := make([]int, 4)
				for _, at := range lists {
					perMinute[at/time.Minute]++
				}
				t.Logf("%d LISTs in 3 minutes, per minute %v", len(lists), perMinute)
				if perMinute[0] > 7 || perMinute[1] > 2 || perMinute[2] > 2 {
					t.Errorf("LISTs per minute %v, want at most 7, then 2: a relist backs off", perMinute)
				}
				if len(lists) > 10 {
					t.Errorf("%d LISTs in 3 minutes, want at most 10", len(lists))
				}
				if len(lists) < 5 {
					t.Errorf("%d LISTs in 3 minutes, want at least 5: the informer lists again after each", len(lists))
				}
				relisted := 0
				for _, e := range events {
					if strings.HasPrefix(e, WatchRelisted+": ") {
						relisted++
					}
				}
				if relisted != len(lists)-1 {
					t.Errorf("%d relisted events for %d LISTs, want one per list after the first; events %q",
						relisted, len(lists), events)
				}
			})
		})
	}
}

// A LIST whose continue token expires on its second page lists again from
// the start, as a whole (client-go's pager, at once): once, not in a loop.
func TestListWithAnExpiredContinueTokenListsAgainAsAWhole(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		k := newCluster(t)
		start := time.Now()
		var asked []string
		var at []time.Duration
		k.dyn.PrependReactor("list", "widgets", func(a k8stesting.Action) (bool, runtime.Object, error) {
			opts := a.(k8stesting.ListActionImpl).ListOptions
			asked = append(asked, fmt.Sprintf("limit=%d continue=%s", opts.Limit, opts.Continue))
			at = append(at, time.Since(start))
			switch {
			case opts.Limit == 0:
				return true, listPage("", ready("a"), ready("b"), ready("c")), nil
			case opts.Continue == "":
				return true, listPage("p2", ready("a")), nil
			case len(asked) < stormCap:
				return true, nil, expiredErr()
			default:
				return true, listPage("", ready("b"), ready("c")), nil
			}
		})
		c := NewClient(k.dyn, ClientOptions{})
		var events []string
		res, err := c.Wait(t.Context(), Request{Resource: widgets, Namespace: "ns", All: true,
			For: rules(Condition("Ready", "")), Timeout: time.Minute, OnEvent: watchEvents(&events)})
		if err != nil || len(res.Objects) != 3 {
			t.Fatalf("%v, %d objects; want 3 ready", err, len(res.Objects))
		}
		want := []string{"limit=500 continue=", "limit=500 continue=p2", "limit=0 continue="}
		if !slices.Equal(asked, want) {
			t.Errorf("lists asked %q, want %q", asked, want)
		}
		if len(at) == 3 && at[2] != at[1] {
			t.Errorf("listed again %v after the token expired, want at once, as client-go's pager does", at[2]-at[1])
		}
		if len(events) != 1 || !strings.HasPrefix(events[0], WatchRelisted+": ") ||
			!strings.Contains(events[0], "continue token has expired") {
			t.Errorf("watch events %q, want one relisted saying the continue token expired", events)
		}
	})
}

// Every watch asks the server to end it after a timeout drawn at random
// in [5 min, 10 min), as the Reflector's do (so that the watches of many
// clients do not end together); a watch the server ends at its timeout
// starts again at once from the last resource version it delivered, with
// no LIST and no event: it is not a failure.
func TestWatchCarriesAJitteredTimeoutAndResumesAfterIt(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		k := newCluster(t)
		k.dyn.PrependReactor("list", "widgets", func(k8stesting.Action) (bool, runtime.Object, error) {
			return true, listPage("", widget("a", nil)), nil
		})
		const n = 10 // watches; the last delivers Ready
		last := "7"  // the last resource version a watch delivered
		var timeouts []int64
		var from, want []string
		var at []time.Time
		k.dyn.PrependWatchReactor("widgets", func(a k8stesting.Action) (bool, watch.Interface, error) {
			opts := a.(k8stesting.WatchActionImpl).ListOptions
			at = append(at, time.Now())
			from, want = append(from, opts.ResourceVersion), append(want, last)
			if opts.TimeoutSeconds == nil {
				timeouts = append(timeouts, 0)
				return true, watch.NewFake(), nil // never ends: the wait times out
			}
			timeouts = append(timeouts, *opts.TimeoutSeconds)
			w := watch.NewFakeWithChanSize(1, false)
			i := len(from)
			switch {
			case i == n:
				w.Modify(&unstructured.Unstructured{Object: withRV(widget("a", conditions("Ready", "True")), "100")})
				return true, w, nil
			case i%2 == 1: // odd watches deliver an event; even ones stay quiet
				last = fmt.Sprint(7 + i)
				w.Modify(&unstructured.Unstructured{Object: withRV(widget("a", nil), last)})
			}
			after(time.Duration(*opts.TimeoutSeconds)*time.Second, w.Stop)
			return true, w, nil
		})
		c := NewClient(k.dyn, ClientOptions{})
		var events []string
		r := req(Condition("Ready", ""), "a")
		r.Timeout = 2 * time.Hour
		r.OnEvent = watchEvents(&events)
		if _, err := c.Wait(t.Context(), r); err != nil {
			t.Fatalf("%v; watch timeouts %v", err, timeouts)
		}
		for i, s := range timeouts {
			if s < 300 || s >= 600 {
				t.Errorf("watch %d: timeoutSeconds %d, want in [300, 600)", i+1, s)
			}
		}
		if slices.Min(timeouts) == slices.Max(timeouts) {
			t.Errorf("%d watches all with timeoutSeconds %d: no jitter", len(timeouts), timeouts[0])
		}
		for i := 1; i < len(at); i++ {
			if d, want := at[i].Sub(at[i-1]), time.Duration(timeouts[i-1])*time.Second; d != want {
				t.Errorf("watch %d started %v after watch %d, want %v: at once when the server ended it", i+1, d, i, want)
			}
		}
		if !slices.Equal(from, want) {
			t.Errorf("watches from resource versions %q, want %q: each from the last one delivered", from, want)
		}
		if l := k.count("list"); l != 1 || len(events) != 0 {
			t.Errorf("%d LISTs and watch events %q, want 1 and none: a watch that ends at its timeout is no failure",
				l, events)
		}
	})
}

// withRV sets the object's resource version.
func withRV(o Object, rv string) Object {
	o["metadata"].(map[string]any)["resourceVersion"] = rv
	return o
}

// listPage is a page of a LIST of widgets at resource version 7, with the
// continue token cont ("" on the last page).
func listPage(cont string, items ...Object) *unstructured.UnstructuredList {
	l := &unstructured.UnstructuredList{Object: map[string]any{"apiVersion": "waitable.test/v1", "kind": "WidgetList",
		"metadata": map[string]any{"resourceVersion": "7", "continue": cont}}}
	for _, o := range items {
		l.Items = append(l.Items, unstructured.Unstructured{Object: o})
	}
	return l
}

func ready(name string) Object { return widget(name, conditions("Ready", "True")) }
