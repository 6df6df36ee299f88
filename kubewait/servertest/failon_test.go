package servertest_test

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/waitable/waitable/kubewait/servertest/internal/apiserver"
	"github.com/waitable/waitable/kubewait/servertest/internal/waitcmd"
)

// failOnTimeout is waitable's --timeout in the runs of --fail-on: a run
// that waited for it would take this long.
const failOnTimeout = 30 * time.Second

// failOnArgs are the arguments of a wait for the Job-like widget name in
// ns, to complete or fail.
func failOnArgs(ns, name string, timeout time.Duration, failOn bool) []string {
	args := []string{"wd/" + name, "-n", ns, "--for=condition=Complete", "--timeout=" + timeout.String()}
	if failOn {
		args = append(args, "--fail-on=condition=Failed")
	}
	return args
}

// runFailOn runs waitable kube --for=condition=Complete
// --fail-on=condition=Failed on the widget name in ns, writes
// Failed=True once the command has judged the widget, and returns how the
// command ended and the time from the write (the start of the status
// update, the widget read before it included) to the command's exit.
func runFailOn(tb testing.TB, srv *apiserver.Server, env *waitcmd.Env, ns, name string) (time.Duration, waitcmd.Result) {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), failOnTimeout+10*time.Second)
	defer cancel()
	p, err := env.Start(ctx, waitcmd.Waitable, failOnArgs(ns, name, failOnTimeout, true)...)
	if err != nil {
		tb.Fatal(err)
	}
	defer p.Wait()
	// Its first line on an object: it has listed and judged it.
	if !p.WaitStderr(ctx, "widget.waitable.test/"+name) {
		cancel()
		tb.Fatalf("waitable kube named no %s: %s", name, p.Wait().StderrText())
	}
	wrote := time.Now()
	srv.SetCondition(tb, ns, name, "Failed", "True", "BackoffLimitExceeded", "Job has reached the specified backoff limit")
	res := p.Wait()
	return res.End.Sub(wrote), res
}

// checkFailOn checks that res is waitable's failure on name, with the
// condition's reason, long before its timeout.
func checkFailOn(tb testing.TB, name string, lag time.Duration, res waitcmd.Result) {
	tb.Helper()
	if res.Class() != waitcmd.Failure || !strings.Contains(res.StderrText(), "BackoffLimitExceeded") {
		tb.Errorf("%s = %s (status %d), want failure naming BackoffLimitExceeded\n%s",
			res.Command(), res.Class(), res.Code, res.StderrText())
	}
	if lag > failOnTimeout/2 {
		tb.Errorf("waitable kube on %s exited %v after Failed=True, want long before its --timeout of %v", name, lag, failOnTimeout)
	}
}

// startKubectlBeside starts kubectl wait --for=condition=Complete, with no
// --fail-on (it has none), on the widget name in ns, beside waitable kube
// on the same widget, which is to fail.
func startKubectlBeside(tb testing.TB, env *waitcmd.Env, ns, name string, timeout time.Duration) *waitcmd.Proc {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout+10*time.Second)
	tb.Cleanup(cancel)
	p, err := env.Start(ctx, waitcmd.Kubectl, failOnArgs(ns, name, timeout, false)...)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { p.Wait() })
	return p
}

// A Failed=True condition ends waitable kube --fail-on=condition=Failed
// with status 1, long before its --timeout, in every run; kubectl wait
// beside it, on the same object, waits out its own --timeout (it has no
// --fail-on). BenchmarkFailOnExit measures how soon.
func TestFailOnEndsTheCommand(t *testing.T) {
	srv := apiserver.Start(t, apiserver.Options{})
	env := waitcmd.NewEnv(t, srv.Kubeconfig)
	const ns, runs = "failon", 10
	const kubectlTimeout = 3 * time.Second
	lags, k := failOnRuns(t, srv, env, ns, runs, kubectlTimeout)
	if k.Class() != waitcmd.Timeout || k.Elapsed() < kubectlTimeout {
		t.Errorf("%s = %s after %v, want a timeout after %v", k.Command(), k.Class(), k.Elapsed(), kubectlTimeout)
	}
	slices.Sort(lags)
	t.Logf("waitable kube, Failed=True to exit over %d runs: median %v, max %v; kubectl wait beside it: %s after %v",
		runs, lags[runs/2], lags[runs-1], k.Class(), k.Elapsed().Round(time.Millisecond))
}

// BenchmarkFailOnExit measures, over 100 runs of waitable kube
// --for=condition=Complete --fail-on=condition=Failed, the time from a
// status write of Failed=True to the command's exit with status 1:
// p50-ms and p99-ms (the goal: a p99 under 250 ms). kubectl wait beside
// it, on the first run's object, waits out its --timeout of 10s:
// kubectl-s is how long it took. Run it with
//
//	go test -run '^$' -bench FailOnExit -benchtime 1x
//
// Each iteration is 100 runs; the times include the command's exit (its
// informer stopped, its output closed), as a script sees it.
func BenchmarkFailOnExit(b *testing.B) {
	srv := apiserver.Start(b, apiserver.Options{})
	env := waitcmd.NewEnv(b, srv.Kubeconfig)
	const runs = 100
	const kubectlTimeout = 10 * time.Second
	var lags []time.Duration
	var kubectl []time.Duration
	iter := 0
	for b.Loop() {
		ns := fmt.Sprintf("failon-%d", iter)
		iter++
		runLags, kr := failOnRuns(b, srv, env, ns, runs, kubectlTimeout)
		lags = append(lags, runLags...)
		if kr.Class() != waitcmd.Timeout {
			b.Errorf("%s = %s, want a timeout", kr.Command(), kr.Class())
		}
		kubectl = append(kubectl, kr.Elapsed())
	}
	slices.Sort(lags)
	b.ReportMetric(ms(percentile(lags, 0.50)), "p50-ms")
	b.ReportMetric(ms(percentile(lags, 0.99)), "p99-ms")
	b.ReportMetric(ms(lags[len(lags)-1]), "max-ms")
	b.ReportMetric(mean(kubectl).Seconds(), "kubectl-s")
}

// failOnRuns runs waitable kube --fail-on on runs new objects of
// namespace ns, one after the other, with kubectl wait beside the first,
// and returns the lags (status write to exit) and kubectl's result.
func failOnRuns(tb testing.TB, srv *apiserver.Server, env *waitcmd.Env, ns string, runs int,
	kubectlTimeout time.Duration) ([]time.Duration, waitcmd.Result) {
	var kubectl *waitcmd.Proc
	var lags []time.Duration
	for i := range runs {
		name := fmt.Sprintf("job-%d", i)
		srv.CreateWidget(tb, ns, name, nil)
		if i == 0 {
			kubectl = startKubectlBeside(tb, env, ns, name, kubectlTimeout)
		}
		lag, res := runFailOn(tb, srv, env, ns, name)
		checkFailOn(tb, name, lag, res)
		lags = append(lags, lag)
	}
	return lags, kubectl.Wait()
}

// percentile returns the p-th percentile (0 < p <= 1) of sorted, by
// nearest rank.
func percentile(sorted []time.Duration, p float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	i := int(math.Ceil(float64(len(sorted))*p)) - 1
	return sorted[max(0, min(i, len(sorted)-1))]
}

// ms is d in milliseconds.
func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// mean is the mean of ds.
func mean(ds []time.Duration) time.Duration {
	var sum time.Duration
	for _, d := range ds {
		sum += d
	}
	return sum / time.Duration(max(1, len(ds)))
}
