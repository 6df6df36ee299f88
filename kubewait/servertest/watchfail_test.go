package servertest_test

import (
	"encoding/json"
	"errors"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/waitable/waitable/kubewait"
	"github.com/waitable/waitable/kubewait/servertest/internal/apiserver"
	"github.com/waitable/waitable/kubewait/servertest/internal/proxy"
	"github.com/waitable/waitable/waiter"
)

// watchLog records a wait's events of the watch ("restarted",
// "polling: ...") as they come.
type watchLog struct {
	mu     sync.Mutex
	events []string
	seen   chan string
}

func newWatchLog() *watchLog { return &watchLog{seen: make(chan string, 100)} }

func (l *watchLog) onEvent(e kubewait.Event) {
	if e.Watch == "" {
		return
	}
	s := e.Watch
	if e.Err != nil {
		s += ": " + e.Err.Error()
	}
	l.mu.Lock()
	l.events = append(l.events, s)
	l.mu.Unlock()
	l.seen <- e.Watch
}

func (l *watchLog) get() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.events)
}

// await waits for the event what, and fails t if none comes in time.
func (l *watchLog) await(t *testing.T, what string, within time.Duration) {
	t.Helper()
	deadline := time.After(within)
	for {
		select {
		case w := <-l.seen:
			if w == what {
				return
			}
		case <-deadline:
			t.Fatalf("no %q event within %v; events %q", what, within, l.get())
		}
	}
}

// watchErrorBody is a watch stream whose only event is an ERROR with a
// 500, as the API server sends when etcd fails under a watch.
func watchErrorBody() string {
	return watchErrorEvent(metav1.Status{Code: http.StatusInternalServerError,
		Reason: metav1.StatusReasonInternalError, Message: "etcd is unhappy"})
}

var jsonHeader = http.Header{"Content-Type": {"application/json"}}

// watchFault fails the WATCHes of widgets in ns with f while fail
// returns true; it counts them in n.
func watchFault(srv *apiserver.Server, ns string, n *atomic.Int32, fail func(n int32) bool, f *proxy.Fault) {
	srv.SetFault(func(r *http.Request) *proxy.Fault {
		req := proxy.Classify(r)
		if req.Verb != "WATCH" || req.Resource != "widgets" || req.Namespace != ns {
			return nil
		}
		if fail(n.Add(1)) {
			return f
		}
		return nil
	})
}

// A watch that opens and fails at once, 5 times in a row, is a failure
// each time (it delivered no event): after 3 the wait polls, and when the
// watch works again (it delivers an event) it watches. The backoffs are
// the informer's, on the real clock: about 31 to 62 s in all.
func TestWatchThatFailsAtOnceFallsBackToPolling(t *testing.T) {
	t.Parallel()
	srv := apiserver.Start(t, apiserver.Options{})
	c := client(t, srv, kubewait.ClientOptions{})
	srv.CreateWidget(t, "flaky", "a", nil)
	var watches atomic.Int32
	watchFault(srv, "flaky", &watches, func(n int32) bool { return n <= 5 },
		&proxy.Fault{Status: http.StatusOK, Header: jsonHeader, Body: watchErrorBody()})
	log := newWatchLog()
	done := make(chan error, 1)
	go func() {
		_, err := c.Wait(t.Context(), kubewait.Request{Resource: widgets, Namespace: "flaky", Names: []string{"a"},
			For: []kubewait.Rule{kubewait.Condition("Ready", "")}, Timeout: 3 * time.Minute, OnEvent: log.onEvent,
			Options: []waiter.Option{waiter.WithDelays(time.Second, time.Second)}})
		done <- err
	}()
	log.await(t, kubewait.WatchPolling, time.Minute)
	log.await(t, kubewait.WatchWatching, 2*time.Minute)
	srv.ResetCounts()
	srv.SetCondition(t, "flaky", "a", "Ready", "True", "Up", "")
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	events := log.get()
	t.Logf("watch events: %q; %d watches", events, watches.Load())
	want := []string{"restarted: etcd is unhappy", "restarted: etcd is unhappy", "polling: etcd is unhappy", "watching"}
	if !slices.Equal(events, want) {
		t.Errorf("watch events %q, want %q", events, want)
	}
	if w := watches.Load(); w != 6 {
		t.Errorf("%d watches, want 6: five that failed, one that works", w)
	}
	if g := srv.Count("GET", "widgets", "flaky"); g != 0 {
		t.Errorf("%d GETs after the watch worked again: the wait still polls", g)
	}
}

// A watch that the server closes at once, with no event, backs off: a
// handful of watches in 10 s, not a loop of requests; after 3 the wait
// polls.
func TestWatchThatEndsAtOnceBacksOff(t *testing.T) {
	t.Parallel()
	srv := apiserver.Start(t, apiserver.Options{})
	c := client(t, srv, kubewait.ClientOptions{})
	srv.CreateWidget(t, "short", "a", nil)
	var watches atomic.Int32
	watchFault(srv, "short", &watches, func(int32) bool { return true },
		&proxy.Fault{Status: http.StatusOK, Header: jsonHeader, Body: "\n"})
	log := newWatchLog()
	_, err := c.Wait(t.Context(), kubewait.Request{Resource: widgets, Namespace: "short", Names: []string{"a"},
		For: []kubewait.Rule{kubewait.Condition("Ready", "")}, Timeout: 10 * time.Second, OnEvent: log.onEvent})
	if !errors.Is(err, waiter.ErrTimeout) {
		t.Fatalf("err = %v, want a timeout", err)
	}
	events := log.get()
	t.Logf("%d watches in 10s; events %q", watches.Load(), events)
	// Backoffs of at least 1, 2, 4 and 8 s: at most 4 watches in 10 s.
	if w := watches.Load(); w > 4 || w < 2 {
		t.Errorf("%d watches in 10s, want 2 to 4: a watch that ends at once backs off", w)
	}
	if !slices.ContainsFunc(events, func(e string) bool { return strings.HasPrefix(e, "restarted: kubewait: the watch ended at once") }) {
		t.Errorf("events %q: none says the watch ended at once", events)
	}
	if watches.Load() >= 3 && srv.Count("GET", "widgets", "short") == 0 {
		t.Error("no GET after 3 watches that ended at once: the wait did not poll")
	}
}

// A watch from a resource version that the server does not have yet (a
// lagging API server, ResourceVersionTooLarge) lists again, and the
// wait's events say so.
func TestWatchWithResourceVersionTooLargeListsAgain(t *testing.T) {
	t.Parallel()
	srv := apiserver.Start(t, apiserver.Options{})
	c := client(t, srv, kubewait.ClientOptions{})
	srv.CreateWidget(t, "lagging", "a", nil)
	tooLarge, _ := json.Marshal(metav1.Status{TypeMeta: metav1.TypeMeta{Kind: "Status", APIVersion: "v1"},
		Status: metav1.StatusFailure, Code: http.StatusGatewayTimeout, Reason: metav1.StatusReasonTimeout,
		Message: "Too large resource version", Details: &metav1.StatusDetails{
			Causes: []metav1.StatusCause{{Type: metav1.CauseTypeResourceVersionTooLarge, Message: "Too large resource version"}}}})
	var watches atomic.Int32
	watchFault(srv, "lagging", &watches, func(n int32) bool { return n == 1 },
		&proxy.Fault{Status: http.StatusGatewayTimeout, Header: jsonHeader, Body: string(tooLarge)})
	log := newWatchLog()
	done := make(chan error, 1)
	go func() {
		_, err := c.Wait(t.Context(), kubewait.Request{Resource: widgets, Namespace: "lagging", Names: []string{"a"},
			For: []kubewait.Rule{kubewait.Condition("Ready", "")}, Timeout: time.Minute, OnEvent: log.onEvent})
		done <- err
	}()
	log.await(t, kubewait.WatchRelisted, 30*time.Second)
	srv.SetCondition(t, "lagging", "a", "Ready", "True", "Up", "")
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if l, events := srv.Count("LIST", "widgets", "lagging"), log.get(); l != 2 || len(events) != 1 ||
		!strings.Contains(events[0], "Too large resource version") {
		t.Errorf("%d LISTs, events %q; want 2 and one relisted saying why", l, events)
	}
}
