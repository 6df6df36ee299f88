package servertest_test

import (
	"context"
	"net/http"
	"slices"
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

// TestKubeCommandLineAsMet: each object's line reaches standard output
// as the object meets --for, as kubectl's does: with wd/a and wd/b, a
// Ready and b not yet, both commands print a's line before b is made
// Ready, then b's.
func TestKubeCommandLineAsMet(t *testing.T) {
	srv := apiserver.Start(t, apiserver.Options{})
	env := waitcmd.NewEnv(t, srv.Kubeconfig)
	const ns = "line-as-met"
	srv.CreateWidget(t, ns, "a", nil)
	srv.CreateWidget(t, ns, "b", nil)
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	var procs []*waitcmd.Proc
	defer func() { // on a t.Fatal: no command outlives the test
		cancel()
		for _, p := range procs {
			p.Wait()
		}
	}()
	for _, tool := range []waitcmd.Tool{waitcmd.Kubectl, waitcmd.Waitable} {
		p, err := env.Start(ctx, tool, "wd/a", "wd/b", "-n", ns, "--for=condition=Ready", "--timeout=30s")
		if err != nil {
			t.Fatal(err)
		}
		procs = append(procs, p)
	}
	srv.SetCondition(t, ns, "a", "Ready", "True", "Up", "")
	for _, p := range procs {
		if !p.WaitStdout(ctx, "widget.waitable.test/a condition met") {
			t.Fatal("a command printed no line for a while b was not Ready")
		}
	}
	bReady := time.Now()
	srv.SetCondition(t, ns, "b", "Ready", "True", "Up", "")
	for _, p := range procs {
		res := p.Wait()
		want := []string{"widget.waitable.test/a condition met", "widget.waitable.test/b condition met"}
		if res.Class() != waitcmd.Success || !slices.Equal(waitcmd.Texts(res.Stdout), want) || !res.Stdout[0].Time.Before(bReady) {
			t.Errorf("%s = %s, stdout %q (a's line at %v, b Ready at %v); want success, %q, a's line first",
				res.Command(), res.Class(), waitcmd.Texts(res.Stdout), res.Stdout[0].Time, bReady, want)
		}
	}
}
