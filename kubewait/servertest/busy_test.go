package servertest_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/waitable/waitable/kubewait/servertest/internal/apiserver"
	"github.com/waitable/waitable/kubewait/servertest/internal/waitcmd"
)

// busyObjects is how many other widgets share the namespace of the one
// both commands wait for.
const busyObjects = 3000

// busy is what one command cost to wait for one named object of a busy
// namespace.
type busy struct {
	requests int
	bytes    int64         // received of widgets in the namespace, as on the wire
	lag      time.Duration // from the status write to the command's line
}

// busyNamespace makes busyObjects widgets and a target in a namespace of
// its own, runs waitable kube and kubectl wait side by side on the
// target alone, makes it Ready once both watch, and returns what each
// cost: its requests of widgets in the namespace, the bytes they
// received, and the time from the write to its "condition met" line.
func busyNamespace(tb testing.TB, srv *apiserver.Server, env *waitcmd.Env, reqs *waitcmd.Requests, ns string) map[waitcmd.Tool]busy {
	tb.Helper()
	inParallel(busyObjects, func(i int) { srv.CreateWidget(tb, ns, fmt.Sprintf("other-%04d", i), nil) })
	srv.CreateWidget(tb, ns, "target", nil)
	srv.ResetCounts()
	reqs.Reset()
	ctx, cancel := context.WithTimeout(tb.Context(), 2*time.Minute)
	defer cancel()
	tools := []waitcmd.Tool{waitcmd.Waitable, waitcmd.Kubectl}
	procs := map[waitcmd.Tool]*waitcmd.Proc{}
	for _, tool := range tools {
		p, err := env.Start(ctx, tool, "widget/target", "-n", ns, "--for=condition=Ready", "--timeout=90s")
		if err != nil {
			tb.Fatal(err)
		}
		defer p.Wait()
		procs[tool] = p
	}
	for _, tool := range tools {
		select {
		case <-reqs.Made(tool, "WATCH", "widgets", ns):
		case <-procs[tool].Exited():
			tb.Fatalf("%s exited before it watched: %s", tool, procs[tool].Wait().StderrText())
		}
	}
	write := time.Now()
	srv.SetCondition(tb, ns, "target", "Ready", "True", "Up", "")
	out := map[waitcmd.Tool]busy{}
	for _, tool := range tools {
		res := procs[tool].Wait()
		if res.Class() != waitcmd.Success || len(res.Stdout) == 0 {
			tb.Fatalf("%s = %s (status %d)\n%s", res.Command(), res.Class(), res.Code, res.StderrText())
		}
		var cost busy
		for _, r := range srv.Requests() {
			if r.Resource == "widgets" && r.Namespace == ns && strings.HasPrefix(r.UserAgent, string(tool)) {
				cost.requests++
				cost.bytes += r.Bytes
			}
		}
		cost.lag = res.Stdout[0].Time.Sub(write)
		out[tool] = cost
	}
	return out
}

// A wait for one named object among 3,000 others asks the server for that
// object alone (a metadata.name field selector, as kubectl does): the
// bytes it receives are those of the object, not of its namespace
// (at most twice kubectl's, and 64 KiB), and it learns of the write as
// soon as kubectl does. BenchmarkOneNamedObjectInABusyNamespace reports
// the figures.
func TestOneNamedObjectInABusyNamespace(t *testing.T) {
	if testing.Short() {
		t.Skip("3,000 objects: not in -short")
	}
	srv := apiserver.Start(t, apiserver.Options{})
	env := waitcmd.NewEnv(t, srv.Kubeconfig)
	reqs := waitcmd.Track(srv)
	if err := env.Warm(t.Context()); err != nil {
		t.Fatal(err)
	}
	got := busyNamespace(t, srv, env, reqs, "busy")
	w, k := got[waitcmd.Waitable], got[waitcmd.Kubectl]
	t.Logf("waitable: %d requests, %d bytes, lag %v; kubectl: %d requests, %d bytes, lag %v",
		w.requests, w.bytes, w.lag, k.requests, k.bytes, k.lag)
	if limit := 2*k.bytes + 64<<10; w.bytes > limit {
		t.Errorf("waitable received %d bytes of widgets, kubectl %d: want at most %d (twice kubectl's and 64 KiB)", w.bytes, k.bytes, limit)
	}
	// Both watch the object: the same lag, give or take a scheduler's
	// hiccup on a busy machine (a poll would take seconds).
	if w.lag > k.lag+time.Second {
		t.Errorf("waitable saw the write after %v, kubectl after %v", w.lag, k.lag)
	}
}

// BenchmarkOneNamedObjectInABusyNamespace puts waitable kube beside
// kubectl wait on one named widget among 3,000 in its namespace:
//
//	widget/target -n NS --for=condition=Ready
//
// Run it with
//
//	go test -run '^$' -bench OneNamedObject -benchtime 3x
//
// Metrics per tool: the requests of widgets in the namespace and the bytes
// they received (as on the wire, at the API server's proxy), and the lag
// from the status write to the command's line.
func BenchmarkOneNamedObjectInABusyNamespace(b *testing.B) {
	srv := apiserver.Start(b, apiserver.Options{})
	env := waitcmd.NewEnv(b, srv.Kubeconfig)
	reqs := waitcmd.Track(srv)
	if err := env.Warm(b.Context()); err != nil {
		b.Fatal(err)
	}
	var sum map[waitcmd.Tool]busy
	round := 0
	for b.Loop() {
		round++
		got := busyNamespace(b, srv, env, reqs, fmt.Sprintf("busy-%d", round))
		if sum == nil {
			sum = map[waitcmd.Tool]busy{}
		}
		for tool, c := range got {
			s := sum[tool]
			s.requests += c.requests
			s.bytes += c.bytes
			s.lag += c.lag
			sum[tool] = s
		}
	}
	for tool, s := range sum {
		n := float64(b.N)
		b.ReportMetric(float64(s.requests)/n, string(tool)+"-requests")
		b.ReportMetric(float64(s.bytes)/n, string(tool)+"-bytes")
		b.ReportMetric(ms(s.lag)/n, string(tool)+"-lag-ms")
	}
}
