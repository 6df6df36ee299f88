package servertest_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/time/rate"

	"github.com/waitable/waitable/classify"
	"github.com/waitable/waitable/kubewait"
	"github.com/waitable/waitable/kubewait/servertest/internal/apiserver"
	"github.com/waitable/waitable/kubewait/servertest/internal/proxy"
	"github.com/waitable/waitable/waiter"
)

var widgets = apiserver.WidgetResource

func client(t testing.TB, srv *apiserver.Server, opts kubewait.ClientOptions) *kubewait.Client {
	t.Helper()
	c, err := kubewait.NewForConfig(srv.Config, opts)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// started returns an OnEvent that closes the channel at the wait's first
// event of an object: the wait has listed and judged it.
func started() (func(kubewait.Event), <-chan struct{}) {
	ch := make(chan struct{})
	var once sync.Once
	return func(e kubewait.Event) {
		if e.Ref.Name != "" {
			once.Do(func() { close(ch) })
		}
	}, ch
}

// A Failed=True condition ends the wait at once with a failure that names
// the object, its condition's reason and message (kubectl wait waits out
// its timeout). The figure (p99 of the time from the status write to the
// wait's end) is the report's; here each run must end long before the
// timeout.
func TestFailOnEndsTheWait(t *testing.T) {
	srv := apiserver.Start(t, apiserver.Options{})
	c := client(t, srv, kubewait.ClientOptions{})
	const runs = 20
	var lags []time.Duration
	for i := range runs {
		name := fmt.Sprintf("job-%d", i)
		srv.CreateWidget(t, "default", name, nil)
		onEvent, ready := started()
		done := make(chan error, 1)
		var ended time.Time
		go func() {
			_, err := c.Wait(t.Context(), kubewait.Request{Resource: widgets, Namespace: "default", Names: []string{name},
				For: []kubewait.Rule{kubewait.Condition("Complete", "")}, FailOn: []kubewait.Rule{kubewait.Condition("Failed", "")},
				Timeout: time.Minute, OnEvent: onEvent})
			ended = time.Now()
			done <- err
		}()
		<-ready
		wrote := time.Now()
		srv.SetCondition(t, "default", name, "Failed", "True", "BackoffLimitExceeded", "Job has reached the specified backoff limit")
		err := <-done
		if !errors.Is(err, waiter.ErrFailure) || !strings.Contains(err.Error(),
			"default/"+name+": failed on condition=Failed: BackoffLimitExceeded: Job has reached the specified backoff limit") {
			t.Fatalf("err = %v, want the failure of %s with its reason and message", err, name)
		}
		lags = append(lags, ended.Sub(wrote))
	}
	slices.Sort(lags)
	t.Logf("status write to the wait's end over %d runs: median %v, max %v", runs, lags[runs/2], lags[runs-1])
	if lags[runs-1] > 30*time.Second {
		t.Errorf("a wait ended %v after the write: it waited for its timeout", lags[runs-1])
	}
}

// 100 objects that never become ready, under a 5 s budget: the wait ends
// at 5 s (± 0.5 s), each object timed out, with one list and one watch.
func TestManyObjectsTimeOutTogether(t *testing.T) {
	srv := apiserver.Start(t, apiserver.Options{})
	c := client(t, srv, kubewait.ClientOptions{})
	var names []string
	for i := range 100 {
		names = append(names, fmt.Sprintf("w-%03d", i))
		srv.CreateWidget(t, "default", names[i], nil)
	}
	srv.ResetCounts()
	res, err := c.Wait(t.Context(), kubewait.Request{Resource: widgets, Namespace: "default", Names: names,
		For: []kubewait.Rule{kubewait.Condition("Ready", "")}, Timeout: 5 * time.Second})
	if !errors.Is(err, waiter.ErrTimeout) {
		t.Fatalf("err = %v, want a timeout", err)
	}
	t.Logf("100 objects, 5s budget: ended after %v", res.Elapsed)
	if res.Elapsed < 5*time.Second || res.Elapsed > 5500*time.Millisecond {
		t.Errorf("ended after %v, want 5s ± 0.5s", res.Elapsed)
	}
	if len(res.Objects) != 100 {
		t.Fatalf("%d objects in the result", len(res.Objects))
	}
	for _, o := range res.Objects {
		if o.Decision != classify.Retry || !errors.Is(o.Err, waiter.ErrTimeout) || o.Message != "no Ready condition" {
			t.Fatalf("%s: %v %v %q, want a timeout with no Ready condition", o.Name, o.Decision, o.Err, o.Message)
		}
	}
	if l, w, g := srv.Count("LIST", "widgets", "default"), srv.Count("WATCH", "widgets", "default"), srv.Count("GET", "widgets", ""); l != 1 || w != 1 || g != 0 {
		t.Errorf("%d LISTs, %d WATCHes, %d GETs; want 1, 1, 0", l, w, g)
	}
}

// Objects created after the wait began are waited for, by name and by a
// selector's count; WithNotFoundLimit ends a wait for one that never
// appears.
func TestObjectsCreatedAfterTheWaitBegan(t *testing.T) {
	srv := apiserver.Start(t, apiserver.Options{})
	c := client(t, srv, kubewait.ClientOptions{})
	t.Run("by name", func(t *testing.T) {
		onEvent, ready := started()
		done := make(chan error, 1)
		go func() {
			_, err := c.Wait(t.Context(), kubewait.Request{Resource: widgets, Namespace: "default", Names: []string{"late"},
				For: []kubewait.Rule{kubewait.Condition("Ready", "")}, Timeout: time.Minute, OnEvent: onEvent})
			done <- err
		}()
		<-ready // judged: not found
		srv.CreateWidget(t, "default", "late", nil)
		srv.SetCondition(t, "default", "late", "Ready", "True", "Up", "")
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	})
	t.Run("by selector count", func(t *testing.T) {
		var events []kubewait.Event
		var mu sync.Mutex
		done := make(chan error, 1)
		go func() {
			_, err := c.Wait(t.Context(), kubewait.Request{Resource: widgets, Namespace: "default", Selector: "app=web", Count: 3,
				For: []kubewait.Rule{kubewait.Condition("Ready", "")}, Timeout: time.Minute, OnEvent: func(e kubewait.Event) {
					mu.Lock()
					events = append(events, e)
					mu.Unlock()
				}})
			done <- err
		}()
		for i := range 3 {
			name := fmt.Sprintf("web-%d", i)
			srv.CreateWidget(t, "default", name, map[string]string{"app": "web"})
			srv.SetCondition(t, "default", name, "Ready", "True", "Up", "")
		}
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	})
	t.Run("never appears", func(t *testing.T) {
		start := time.Now()
		_, err := c.Wait(t.Context(), kubewait.Request{Resource: widgets, Namespace: "default", Names: []string{"never"},
			For: []kubewait.Rule{kubewait.Condition("Ready", "")}, Timeout: time.Minute,
			Options: []waiter.Option{waiter.WithNotFoundLimit(3), waiter.WithDelays(100*time.Millisecond, 100*time.Millisecond)}})
		var we *waiter.Error
		if !errors.As(err, &we) || we.Failure != waiter.FailureNeverAppeared {
			t.Fatalf("err = %v, want FailureNeverAppeared", err)
		}
		if time.Since(start) > 30*time.Second {
			t.Errorf("took %v: the limit did not end it early", time.Since(start))
		}
	})
}

// 1,000 objects in 10 namespaces: in five, one wait names the
// namespace's 100 objects; in the other five, each object has a wait of
// its own. A wait of many names lists and watches the namespace once; the
// waits of one name each list and watch the first 10 of them by name and
// the rest with the namespace, one LIST and one WATCH more (the Client's
// line, kubewait's namedLimit). No GET; every object is judged at its
// status write.
func TestThousandObjectsOneWatchPerNamespace(t *testing.T) {
	if testing.Short() {
		t.Skip("1,000 objects: not in -short")
	}
	srv := apiserver.Start(t, apiserver.Options{})
	c := client(t, srv, kubewait.ClientOptions{})
	type obj struct{ ns, name string }
	var objs []obj
	index := map[obj]int{}
	for n := range 10 {
		ns := fmt.Sprintf("ns-%d", n)
		for i := range 100 {
			index[obj{ns, fmt.Sprintf("w-%03d", i)}] = len(objs)
			objs = append(objs, obj{ns, fmt.Sprintf("w-%03d", i)})
		}
	}
	phase := time.Now()
	inParallel(len(objs), func(i int) { srv.CreateWidget(t, objs[i].ns, objs[i].name, nil) })
	t.Logf("created 1,000 objects in %v", time.Since(phase))
	srv.ResetCounts()
	var wg sync.WaitGroup
	var readies []<-chan struct{}
	var mu sync.Mutex
	ends := make([]time.Time, len(objs))
	wait := func(ns string, names []string) {
		onEvent, ready := started()
		readies = append(readies, ready)
		wg.Go(func() {
			_, err := c.Wait(t.Context(), kubewait.Request{Resource: widgets, Namespace: ns, Names: names,
				For: []kubewait.Rule{kubewait.Condition("Ready", "")}, Timeout: 2 * time.Minute,
				OnEvent: func(e kubewait.Event) {
					onEvent(e)
					if e.End == "success" {
						mu.Lock()
						ends[index[obj{e.Ref.Namespace, e.Ref.Name}]] = e.Time
						mu.Unlock()
					}
				}})
			if err != nil {
				t.Error(err)
			}
		})
	}
	for n := range 10 {
		ns := fmt.Sprintf("ns-%d", n)
		var names []string
		for _, o := range objs[n*100 : (n+1)*100] {
			names = append(names, o.name)
		}
		if n < 5 {
			wait(ns, names)
			continue
		}
		for _, name := range names {
			wait(ns, []string{name})
		}
	}
	phase = time.Now()
	for _, r := range readies {
		<-r
	}
	t.Logf("%d waits judged their objects in %v", len(readies), time.Since(phase))
	phase = time.Now()
	// The objects become ready one after the other, in a random order, as
	// fast as one writer goes (a controller's pace, not a flood that
	// saturates the server).
	writes := make([]time.Time, len(objs))
	for _, i := range rand.Perm(len(objs)) {
		writes[i] = time.Now()
		srv.SetCondition(t, objs[i].ns, objs[i].name, "Ready", "True", "Up", "")
	}
	wg.Wait()
	t.Logf("wrote 1,000 statuses in %v", time.Since(phase))
	lags := make([]time.Duration, len(objs))
	for i := range objs {
		lags[i] = ends[i].Sub(writes[i])
	}
	slices.Sort(lags)
	t.Logf("detection over 1,000 objects: median %v, p99 %v, max %v", lags[500], lags[990], lags[999])
	for n := range 10 {
		ns := fmt.Sprintf("ns-%d", n)
		want := 1 // one wait of 100 names
		if n >= 5 {
			want = 11 // 100 waits of one name: 10 by name, then the namespace
		}
		if l, w := srv.Count("LIST", "widgets", ns), srv.Count("WATCH", "widgets", ns); l != want || w != want {
			t.Errorf("%s: %d LISTs and %d WATCHes, want %d and %d", ns, l, w, want, want)
		}
	}
	if g := srv.Count("GET", "widgets", ""); g != 0 {
		t.Errorf("%d GETs, want none", g)
	}
}

// A watch closed with 410 (etcd compacted past its resource version, the
// watch cache off) and an API server restart in the middle of a wait: the
// terminal state written meanwhile is not missed, and the events say the
// watch was listed again or restarted.
func TestWatchExpiresAndServerRestarts(t *testing.T) {
	off := false
	srv := apiserver.Start(t, apiserver.Options{WatchCache: &off})
	c := client(t, srv, kubewait.ClientOptions{})
	srv.CreateWidget(t, "default", "a", nil)
	var mu sync.Mutex
	var watchEvents []string
	onEvent, ready := started()
	done := make(chan error, 1)
	go func() {
		_, err := c.Wait(t.Context(), kubewait.Request{Resource: widgets, Namespace: "default", Names: []string{"a"},
			For: []kubewait.Rule{kubewait.Condition("Ready", "")}, Timeout: 2 * time.Minute, OnEvent: func(e kubewait.Event) {
				onEvent(e)
				if e.Watch != "" {
					mu.Lock()
					watchEvents = append(watchEvents, e.Watch)
					mu.Unlock()
				}
			}})
		done <- err
	}()
	<-ready
	// Hold the watch off while the server restarts, the object becomes
	// ready and etcd compacts: the next watch starts from a compacted
	// resource version.
	srv.SetFault(func(r *http.Request) *proxy.Fault {
		if proxy.Classify(r).Verb == "WATCH" {
			return &proxy.Fault{Status: http.StatusServiceUnavailable}
		}
		return nil
	})
	srv.Restart(t)
	srv.SetCondition(t, "default", "a", "Ready", "True", "Up", "")
	srv.SetStatusField(t, "default", "a", "phase", "Running")
	srv.Compact(t)
	srv.SetFault(nil)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	t.Logf("watch events: %q", watchEvents)
	if !slices.ContainsFunc(watchEvents, func(e string) bool {
		return e == kubewait.WatchRelisted || e == kubewait.WatchRestarted || e == kubewait.WatchWatching
	}) {
		t.Errorf("watch events %q: none says the watch was listed again, started again or works again", watchEvents)
	}
}

// With watch forbidden, the waits poll with GET under the Client's rate
// limit (within 10%), and a 429's Retry-After holds an object's next poll
// back.
func TestPollingWhenWatchIsForbidden(t *testing.T) {
	srv := apiserver.Start(t, apiserver.Options{})
	const perSecond = 20
	c := client(t, srv, kubewait.ClientOptions{PollLimit: rate.NewLimiter(perSecond, 1)})
	var names []string
	for i := range 50 {
		names = append(names, fmt.Sprintf("p-%02d", i))
		srv.CreateWidget(t, "default", names[i], nil)
	}
	var mu sync.Mutex
	throttled := map[string]bool{}
	srv.SetFault(func(r *http.Request) *proxy.Fault {
		req := proxy.Classify(r)
		switch {
		case req.Verb == "WATCH":
			return &proxy.Fault{Status: http.StatusForbidden}
		case req.Verb == "GET" && req.Name == "p-00":
			mu.Lock()
			defer mu.Unlock()
			if !throttled[req.Name] {
				throttled[req.Name] = true
				return &proxy.Fault{Status: http.StatusTooManyRequests, Header: http.Header{"Retry-After": {"2"}}}
			}
		}
		return nil
	})
	srv.ResetCounts()
	// Five waits of ten objects each, every object due every 100 ms: the
	// Client's one limit holds them all back, so that a poll waits about
	// 2.5 s for its token (50 objects at 20 a second). p-00's second poll,
	// due 2 s after the 429, so comes about 4.5 s in: the waits have 8 s,
	// so that a loaded machine still leaves it room before the deadline.
	var wg sync.WaitGroup
	var throttleSeen atomic.Bool // the 429 came to the wait, not to client-go's own retries
	for i := 0; i < len(names); i += 10 {
		wg.Go(func() {
			_, err := c.Wait(t.Context(), kubewait.Request{Resource: widgets, Namespace: "default", Names: names[i : i+10],
				For: []kubewait.Rule{kubewait.Condition("Ready", "")}, Timeout: 8 * time.Second,
				OnEvent: func(e kubewait.Event) {
					if e.Ref.Name == "p-00" && strings.Contains(e.Message, "too many requests") {
						throttleSeen.Store(true)
					}
				},
				Options: []waiter.Option{waiter.WithDelays(100*time.Millisecond, 100*time.Millisecond)}})
			if !errors.Is(err, waiter.ErrTimeout) {
				t.Errorf("err = %v, want a timeout", err)
			}
		})
	}
	wg.Wait()
	var gets []time.Time // as the proxy saw them come
	var p00 []time.Time
	for _, r := range srv.Requests() {
		if r.Verb == "GET" {
			gets = append(gets, r.Time)
			if r.Name == "p-00" {
				p00 = append(p00, r.Time)
			}
		}
	}
	if len(gets) < 2 {
		t.Fatalf("%d GETs", len(gets))
	}
	slices.SortFunc(gets, time.Time.Compare)
	span := gets[len(gets)-1].Sub(gets[0]).Seconds()
	rate := float64(len(gets)-1) / span
	// The most GETs in one second: client-go's own limit (5 a second, in
	// bursts of 10) would allow 15; ours allows 20.
	densest := 0
	for i, at := range gets {
		n, _ := slices.BinarySearchFunc(gets[i:], at.Add(time.Second), time.Time.Compare)
		densest = max(densest, n)
	}
	t.Logf("%d GETs in %.2fs: %.1f a second (limit %d), at most %d in a second", len(gets), span, rate, perSecond, densest)
	if rate > perSecond*1.1 {
		t.Errorf("%d GETs, %.1f a second: want at most %d a second + 10%%", len(gets), rate, perSecond)
	}
	if densest <= 15 {
		t.Errorf("at most %d GETs in any second: client-go's own limit (5 a second, in bursts of 10) holds them back", densest)
	}
	if !throttleSeen.Load() {
		t.Errorf("no event of p-00 says it was throttled: client-go retried the 429 itself")
	}
	switch {
	case len(p00) < 2:
		t.Errorf("p-00 polled at %v: no second GET before the deadline", p00)
	case p00[1].Sub(p00[0]) < 2*time.Second:
		t.Errorf("p-00 polled at %v: the second GET came before the 429's Retry-After of 2s", p00)
	}
}
