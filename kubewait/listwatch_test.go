package kubewait

import (
	"errors"
	"net/http"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	k8stesting "k8s.io/client-go/testing"

	"github.com/waitable/waitable/waiter"
)

func expiredErr() error { return apierrors.NewResourceExpired("the continue token has expired") }

// watchEvents returns an OnEvent that records the events of the watch
// ("restarted", "polling", ...) with their errors.
func watchEvents(into *[]string) func(Event) {
	return func(e Event) {
		if e.Watch == "" {
			return
		}
		s := e.Watch
		if e.Err != nil {
			s += ": " + e.Err.Error()
		}
		*into = append(*into, s)
	}
}

// A watch that opens and then fails at once is a failure until a watch
// delivers an event: 3 in a row make the waits poll, and a watch that
// works again makes them watch.
func TestWatchThatOpensAndFailsCountsUntilAnEvent(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		k := newCluster(t, widget("a", nil))
		watches := 0
		k.dyn.PrependWatchReactor("widgets", func(k8stesting.Action) (bool, watch.Interface, error) {
			if watches++; watches > 5 {
				return false, nil, nil
			}
			w := watch.NewFakeWithChanSize(1, false)
			w.Error(&metav1.Status{Status: metav1.StatusFailure, Code: http.StatusInternalServerError,
				Reason: metav1.StatusReasonInternalError, Message: "etcd is unhappy"})
			return true, w, nil
		})
		c := NewClient(k.dyn, ClientOptions{})
		// Five failures back off for at most 2+4+8+16+32 s, and the sixth
		// watch works a little later.
		after(70*time.Second, func() { k.update(widget("a", conditions("Ready", "True"))) })
		var events []string
		r := req(Condition("Ready", ""), "a")
		r.Timeout = 2 * time.Minute
		r.OnEvent = watchEvents(&events)
		if _, err := c.Wait(t.Context(), r); err != nil {
			t.Fatal(err)
		}
		want := []string{"restarted: etcd is unhappy", "restarted: etcd is unhappy", "polling: etcd is unhappy", "watching"}
		if !slices.Equal(events, want) {
			t.Errorf("watch events %q, want %q", events, want)
		}
		if k.count("get") == 0 {
			t.Error("no GET: the wait did not poll while the watch failed")
		}
	})
}

// A watch that the server closes at once, with no event, backs off as a
// failure: not a loop of requests.
func TestWatchThatEndsAtOnceBacksOff(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		k := newCluster(t, widget("a", nil))
		k.dyn.PrependWatchReactor("widgets", func(k8stesting.Action) (bool, watch.Interface, error) {
			w := watch.NewFake()
			w.Stop() // closed, with no event
			return true, w, nil
		})
		c := NewClient(k.dyn, ClientOptions{})
		var events []string
		r := req(Condition("Ready", ""), "a")
		r.Timeout = time.Minute
		r.OnEvent = watchEvents(&events)
		if _, err := c.Wait(t.Context(), r); !errors.Is(err, waiter.ErrTimeout) {
			t.Fatalf("err = %v, want a timeout", err)
		}
		// Backoffs of at least 1, 2, 4, 8 and 16 s: at most 6 watches in a
		// minute.
		if w := k.count("watch"); w > 6 || w < 3 {
			t.Errorf("%d watches in a minute, want 3 to 6: each one that ends at once backs off", w)
		}
		short := "restarted: " + errShortWatch.Error()
		if len(events) < 3 || events[0] != short || events[1] != short || !strings.HasPrefix(events[2], "polling: "+errShortWatch.Error()) {
			t.Errorf("watch events %q, want two restarts after a watch that ended at once, then polling", events)
		}
	})
}

// A watch from a resource version newer than a lagging API server has
// (ResourceVersionTooLarge) lists again, and the waits hear why.
func TestWatchWithResourceVersionTooLargeListsAgain(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		k := newCluster(t, widget("a", nil))
		first := true
		k.dyn.PrependWatchReactor("widgets", func(k8stesting.Action) (bool, watch.Interface, error) {
			if !first {
				return false, nil, nil
			}
			first = false
			err := apierrors.NewTimeoutError("Too large resource version", 1)
			err.ErrStatus.Details.Causes = []metav1.StatusCause{{Type: metav1.CauseTypeResourceVersionTooLarge, Message: "Too large resource version"}}
			return true, nil, err
		})
		c := NewClient(k.dyn, ClientOptions{})
		after(time.Second, func() { k.update(widget("a", conditions("Ready", "True"))) })
		var events []string
		r := req(Condition("Ready", ""), "a")
		r.OnEvent = watchEvents(&events)
		if _, err := c.Wait(t.Context(), r); err != nil {
			t.Fatal(err)
		}
		if l := k.count("list"); l != 2 || len(events) != 1 || !strings.HasPrefix(events[0], "relisted: ") ||
			!strings.Contains(events[0], "Too large resource version") {
			t.Errorf("%d lists, watch events %q; want 2 lists and one relisted saying the version was too large", l, events)
		}
	})
}

// quietWatch returns a watch that delivers nothing and closes after d.
func quietWatch(d time.Duration) watch.Interface {
	w := watch.NewFake()
	time.AfterFunc(d, w.Stop) // a timer, not a goroutine that could outlive the wait
	return w
}

// A watch that stays open as long as the informer's first backoff (1-2 s)
// works, though it delivers nothing: watches that each stay open 3 s and
// then close never make the waits poll.
func TestWatchOpenForTheFirstBackoffWorks(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		k := newCluster(t, widget("a", nil))
		k.dyn.PrependWatchReactor("widgets", func(k8stesting.Action) (bool, watch.Interface, error) {
			return true, quietWatch(3 * time.Second), nil
		})
		c := NewClient(k.dyn, ClientOptions{})
		var events []string
		r := req(Condition("Ready", ""), "a")
		r.Timeout = time.Minute
		r.OnEvent = watchEvents(&events)
		if _, err := c.Wait(t.Context(), r); !errors.Is(err, waiter.ErrTimeout) {
			t.Fatalf("err = %v, want a timeout", err)
		}
		if slices.ContainsFunc(events, func(e string) bool { return strings.HasPrefix(e, "polling") }) || k.count("get") > 0 {
			t.Errorf("watch events %q, %d GETs: want no polling, each watch stayed open past the first backoff", events, k.count("get"))
		}
		if w := k.count("watch"); w < 10 {
			t.Errorf("%d watches in a minute, want 10 or more: each that worked starts the backoff again (1-2 s)", w)
		}
	})
}

// The backoff starts again once a watch works: after four watches
// refused with a 500, one that works (it stays open past the first
// backoff) and one more refused, the next watch comes 1-4 s later (the
// second backoff), not the 30-60 s of the seventh.
func TestBackoffStartsAgainOnceAWatchWorks(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		k := newCluster(t, widget("a", nil))
		var times []time.Time
		k.dyn.PrependWatchReactor("widgets", func(k8stesting.Action) (bool, watch.Interface, error) {
			times = append(times, time.Now())
			switch n := len(times); {
			case n == 5:
				return true, quietWatch(3 * time.Second), nil
			case n <= 6:
				return true, nil, apierrors.NewInternalError(errors.New("etcd is unhappy"))
			}
			return true, quietWatch(time.Hour), nil
		})
		c := NewClient(k.dyn, ClientOptions{})
		r := req(Condition("Ready", ""), "a")
		r.Timeout = 3 * time.Minute
		if _, err := c.Wait(t.Context(), r); !errors.Is(err, waiter.ErrTimeout) {
			t.Fatalf("err = %v, want a timeout", err)
		}
		if len(times) < 7 {
			t.Fatalf("%d watches, want 7 or more", len(times))
		}
		if gap := times[6].Sub(times[5]); gap < time.Second || gap > 4*time.Second {
			t.Errorf("the watch after the one that failed after one that worked came %v later, want 1-4 s (watches at %v)", gap, times)
		}
	})
}

// A watch refused with a 429 is tried again where it left off, with no
// LIST, and the waits hear it restarted.
func TestWatchRefusedWith429RestartsWithoutAList(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		k := newCluster(t, widget("a", nil))
		refused := 0
		k.dyn.PrependWatchReactor("widgets", func(k8stesting.Action) (bool, watch.Interface, error) {
			if refused < 2 {
				refused++
				return true, nil, apierrors.NewTooManyRequests("slow down", 1)
			}
			return false, nil, nil
		})
		c := NewClient(k.dyn, ClientOptions{})
		after(time.Minute, func() { k.update(widget("a", conditions("Ready", "True"))) })
		var events []string
		r := req(Condition("Ready", ""), "a")
		r.Timeout = 2 * time.Minute
		r.OnEvent = watchEvents(&events)
		if _, err := c.Wait(t.Context(), r); err != nil {
			t.Fatal(err)
		}
		if len(events) != 1 || !strings.HasPrefix(events[0], "restarted: ") || k.count("list") != 1 {
			t.Errorf("watch events %q, %d LISTs: want one restart, after the 429s, and the one LIST", events, k.count("list"))
		}
	})
}
