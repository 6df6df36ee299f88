package servertest_test

import (
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/waitable/waitable/kubewait"
	"github.com/waitable/waitable/kubewait/servertest/internal/apiserver"
	"github.com/waitable/waitable/kubewait/servertest/internal/proxy"
	"github.com/waitable/waitable/waiter"
)

// A watch that always answers 410 (a 410 response, or the watch's Expired
// ERROR event, as the API server sends after an etcd compaction) lists
// again only after the backoff: in 5 s, the first LIST and at most 2
// more (backoffs of at least 1 and 2 s, the third at least 4), not a
// loop of LISTs. Each watch carries a timeoutSeconds in [300, 600).
func TestWatchThatAlwaysAnswers410ListsAgainAfterTheBackoff(t *testing.T) {
	t.Parallel()
	srv := apiserver.Start(t, apiserver.Options{})
	faults := map[string]*proxy.Fault{
		"gone": {Status: http.StatusGone, Header: jsonHeader},
		"expired": {Status: http.StatusOK, Header: jsonHeader, Body: watchErrorEvent(metav1.Status{
			Code: http.StatusGone, Reason: metav1.StatusReasonExpired, Message: "too old resource version: 1 (7)"})},
	}
	srv.SetFault(func(r *http.Request) *proxy.Fault {
		if req := proxy.Classify(r); req.Verb == "WATCH" && req.Resource == "widgets" {
			return faults[req.Namespace]
		}
		return nil
	})
	for ns := range faults {
		t.Run(ns, func(t *testing.T) {
			t.Parallel()
			c := client(t, srv, kubewait.ClientOptions{})
			srv.CreateWidget(t, ns, "a", nil)
			var events []string // OnEvent runs in this goroutine
			onEvent := func(e kubewait.Event) {
				if e.Watch != "" {
					events = append(events, e.Watch)
				}
			}
			_, err := c.Wait(t.Context(), kubewait.Request{Resource: widgets, Namespace: ns, Names: []string{"a"},
				For: []kubewait.Rule{kubewait.Condition("Ready", "")}, Timeout: 5 * time.Second, OnEvent: onEvent})
			if !errors.Is(err, waiter.ErrTimeout) {
				t.Fatalf("err = %v, want a timeout", err)
			}
			lists, watches := srv.Count("LIST", "widgets", ns), srv.Count("WATCH", "widgets", ns)
			t.Logf("%d LISTs and %d WATCHes in 5 s", lists, watches)
			if lists < 2 || lists > 3 {
				t.Errorf("%d LISTs in 5 s, want 2 or 3: a 410 lists again after the backoff", lists)
			}
			for _, r := range srv.Requests() {
				if r.Verb != "WATCH" || r.Namespace != ns {
					continue
				}
				u, err := url.Parse(r.Path)
				if err != nil {
					t.Fatal(err)
				}
				if s, err := strconv.Atoi(u.Query().Get("timeoutSeconds")); err != nil || s < 300 || s >= 600 {
					t.Errorf("watch %s: want a timeoutSeconds in [300, 600)", r.Path)
					break
				}
			}
			if g := srv.Count("GET", "widgets", ns); g != 0 {
				t.Errorf("%d GETs: a watch that answers 410 is no failure, the wait lists rather than polls", g)
			}
			if len(events) != lists-1 || slices.ContainsFunc(events, func(e string) bool { return e != kubewait.WatchRelisted }) {
				t.Errorf("watch events %q for %d LISTs, want one relisted per LIST after the first", events, lists)
			}
		})
	}
}

// watchErrorEvent is a watch stream whose only event is an ERROR with
// status s.
func watchErrorEvent(s metav1.Status) string {
	s.TypeMeta, s.Status = metav1.TypeMeta{Kind: "Status", APIVersion: "v1"}, metav1.StatusFailure
	b, _ := json.Marshal(map[string]any{"type": "ERROR", "object": s})
	return string(b) + "\n"
}
