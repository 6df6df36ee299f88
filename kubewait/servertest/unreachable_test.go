package servertest_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/waitable/waitable/kubewait/servertest/internal/apiserver"
	"github.com/waitable/waitable/kubewait/servertest/internal/waitcmd"
)

// exitUnavailable is waitable kube's exit status for an API server that
// could not be reached until the deadline (EX_UNAVAILABLE).
const exitUnavailable = 69

// A wait outlasts an API server that restarts: the proxy refuses
// connections for the first 20 s of a 60 s wait, then serves, and
// waitable kube, which tried again meanwhile (a progress line says so
// each time), succeeds. kubectl's discovery cache is cold, so that the
// command's first request is refused.
func TestWaitOutlastsAnAPIServerThatRestarts(t *testing.T) {
	t.Parallel()
	srv := apiserver.Start(t, apiserver.Options{})
	srv.CreateWidget(t, "restart", "a", nil)
	srv.SetCondition(t, "restart", "a", "Ready", "True", "Up", "")
	env := waitcmd.NewEnv(t, srv.Kubeconfig)
	srv.Refuse()
	start := time.Now()
	p, err := env.Start(t.Context(), waitcmd.Waitable, "widget/a", "-n", "restart", "--for=condition=Ready", "--timeout=60s")
	if err != nil {
		t.Fatal(err)
	}
	if !p.WaitStderr(t.Context(), "trying again in") {
		t.Fatalf("no line says the command tries again: %s", p.Wait().StderrText())
	}
	select {
	case <-p.Exited():
		t.Fatalf("it ended while the server could not be reached: %s", p.Wait().StderrText())
	case <-time.After(time.Until(start.Add(20 * time.Second))):
	}
	if err := srv.Listen(); err != nil {
		t.Fatal(err)
	}
	res := p.Wait()
	t.Logf("%s after %v:\n%s", res.Class(), res.Elapsed(), res.StderrText())
	if res.Class() != waitcmd.Success || !strings.Contains(res.StderrText(), "could not be reached") {
		t.Errorf("%s = %s (status %d), want success after saying the server could not be reached", res.Command(), res.Class(), res.Code)
	}
	if res.Elapsed() < 20*time.Second {
		t.Errorf("succeeded after %v, before the server served", res.Elapsed())
	}
}

// A server that refuses connections until the deadline ends the wait
// there, with status 69, naming the server: not at once, as kubectl and
// waitable before it did.
func TestWaitForAnAPIServerThatNeverAnswersEndsAtItsDeadline(t *testing.T) {
	t.Parallel()
	srv := apiserver.Start(t, apiserver.Options{})
	env := waitcmd.NewEnv(t, srv.Kubeconfig)
	srv.Refuse()
	const budget = 10 * time.Second
	p, err := env.Start(context.WithoutCancel(t.Context()), waitcmd.Waitable, "widget/a", "-n", "gone",
		"--for=condition=Ready", "--timeout="+budget.String())
	if err != nil {
		t.Fatal(err)
	}
	res := p.Wait()
	stderr := res.StderrText()
	t.Logf("status %d after %v:\n%s", res.Code, res.Elapsed(), stderr)
	last := res.Stderr[len(res.Stderr)-1].Text
	if res.Code != exitUnavailable || !strings.Contains(last, srv.Config.Host) || !strings.Contains(last, "could not be reached") {
		t.Errorf("status %d, last line %q; want 69, naming the server %s", res.Code, last, srv.Config.Host)
	}
	if res.Elapsed() < budget-time.Second {
		t.Errorf("ended after %v, before its deadline of %v", res.Elapsed(), budget)
	}
}
