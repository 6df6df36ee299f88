package servertest_test

import (
	"context"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/waitable/waitable/kubewait/servertest/internal/apiserver"
	"github.com/waitable/waitable/kubewait/servertest/internal/proxy"
	"github.com/waitable/waitable/kubewait/servertest/internal/waitcmd"
)

// TestKubeCommandPollsOnceAfterRetryAfter: waitable kube's requests are
// made once (no client-go retries) and honour a 429's Retry-After. Its
// watch forbidden (403), the command polls the widget with GETs; the
// first GET gets a 429 with Retry-After: 6 (more than the poll's own
// backoff, about 2 to 4 s). That one request reaches the server and the
// wait itself sees the 429 (a progress line says so, at once: client-go
// would have slept out the Retry-After and asked again, unseen); the next
// GET, the next poll, comes no sooner than 6 s after it, and finds the
// widget Ready.
func TestKubeCommandPollsOnceAfterRetryAfter(t *testing.T) {
	const retryAfter = 6 * time.Second
	srv := apiserver.Start(t, apiserver.Options{})
	env := waitcmd.NewEnv(t, srv.Kubeconfig)
	const ns = "retry-after"
	srv.CreateWidget(t, ns, "a", nil)
	var mu sync.Mutex
	gets := 0
	srv.SetFault(func(r *http.Request) *proxy.Fault {
		req := proxy.Classify(r)
		switch {
		case req.Resource != "widgets":
		case req.Verb == "WATCH":
			return &proxy.Fault{Status: http.StatusForbidden}
		case req.Verb == "GET":
			mu.Lock()
			defer mu.Unlock()
			if gets++; gets == 1 {
				return &proxy.Fault{Status: http.StatusTooManyRequests, Header: http.Header{"Retry-After": {"6"}}}
			}
		}
		return nil
	})
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	p, err := env.Start(ctx, waitcmd.Waitable, "wd/a", "-n", ns, "--for=condition=Ready", "--timeout=40s")
	if err != nil {
		t.Fatal(err)
	}
	if !p.WaitStderr(ctx, "watch polling") {
		t.Fatalf("no polling line:\n%s", p.Wait().StderrText())
	}
	srv.SetCondition(t, ns, "a", "Ready", "True", "Up", "")
	res := p.Wait()
	t.Logf("%s: %s after %v\n%s", res.Command(), res.Class(), res.Elapsed(), res.StderrText())
	if res.Class() != waitcmd.Success {
		t.Fatalf("%s = %s, want success", res.Command(), res.Class())
	}
	var polls []proxy.Request
	for _, r := range srv.Requests() {
		if r.Verb == "GET" && r.Resource == "widgets" {
			polls = append(polls, r)
		}
	}
	if len(polls) != 2 || polls[0].Status != http.StatusTooManyRequests || polls[1].Status != http.StatusOK {
		t.Fatalf("GETs of the widget: %+v; want two, a 429 then a 200", polls)
	}
	if gap := polls[1].Time.Sub(polls[0].Time); gap < retryAfter {
		t.Errorf("the poll after the 429 came %v after it, want at least its Retry-After, %v", gap, retryAfter)
	}
	var seen *waitcmd.Line
	for _, l := range res.Stderr {
		if strings.Contains(l.Text, "widget.waitable.test/a  retry (Error: ") && strings.Contains(l.Text, "too many requests") {
			seen = &l
			break
		}
	}
	switch {
	case seen == nil:
		t.Errorf("no progress line reports the 429: the wait did not see it")
	case seen.Time.Sub(polls[0].Time) >= retryAfter:
		t.Errorf("the 429 was reported %v after its GET: a retry, not the poll, met it", seen.Time.Sub(polls[0].Time))
	}
}
