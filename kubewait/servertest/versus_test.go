package servertest_test

import (
	"context"
	"flag"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/waitable/waitable/kubewait/servertest/internal/apiserver"
	"github.com/waitable/waitable/kubewait/servertest/internal/waitcmd"
)

var versusLarge = flag.Bool("versus.large", false, "BenchmarkVersusKubectl: run objects=1000 too")

// BenchmarkVersusKubectl puts waitable kube beside kubectl wait on one
// job: N widgets in a namespace become Ready at random times over a
// window (5 s for 100, 10 s for 1000), one status write each, as their
// controller would, while the command waits for all of them:
//
//	--for=condition=Ready widgets --all -n NS --timeout=...
//
// Run it with
//
//	go test -run '^$' -bench VersusKubectl -benchtime 1x              # objects=100
//	go test -run '^$' -bench VersusKubectl -benchtime 1x -versus.large # and objects=1000
//
// objects=1000 takes about four minutes more (kubectl, at about a fifth
// of a second per object, takes over three), so CI's run of every
// benchmark skips it. Each iteration makes the objects in a namespace of
// its own, starts the command, and, once the command watches, writes the
// statuses. The metrics, per iteration:
//
//   - LIST, WATCH, GET: the command's requests of those verbs on widgets,
//     counted at the API server's proxy; requests: all of them, discovery
//     included.
//     kubectl reads discovery from its cache (warmed before), waitable
//     has no cache on disk and asks the server each time.
//   - p50-lag-ms, p99-lag-ms, max-lag-ms: detection lag, the time from
//     an object's status write (the start of the update) to the line in
//     which the command reported it, as the line arrived: kubectl's
//     "condition met" on standard output, waitable's progress line
//     "widget.waitable.test/w-0001  success" on standard error (its
//     standard output comes at the end).
//
// Read the ratio of the two tools on each row. kubectl waits for one
// object after another (a LIST and a WATCH each): an object that became
// ready while kubectl waited for another is reported when kubectl gets to
// it, so its lag grows with the window. waitable watches once for all of
// them and reports each at its write.
func BenchmarkVersusKubectl(b *testing.B) {
	srv := apiserver.Start(b, apiserver.Options{})
	env := waitcmd.NewEnv(b, srv.Kubeconfig)
	reqs := waitcmd.Track(srv)
	if err := env.Warm(b.Context()); err != nil {
		b.Fatal(err)
	}
	round := 0
	for _, size := range []struct {
		objects int
		window  time.Duration
	}{{100, 5 * time.Second}, {1000, 10 * time.Second}} {
		for _, tool := range []waitcmd.Tool{waitcmd.Waitable, waitcmd.Kubectl} {
			b.Run(fmt.Sprintf("objects=%d/tool=%s", size.objects, tool), func(b *testing.B) {
				if size.objects > 100 && !*versusLarge {
					b.Skip("objects=1000: run with -versus.large")
				}
				var lags []time.Duration
				var counts [4]int
				for b.Loop() {
					round++
					b.StopTimer()
					ns := fmt.Sprintf("versus-%d", round)
					names := make([]string, size.objects)
					for i := range names {
						names[i] = fmt.Sprintf("w-%04d", i)
					}
					inParallel(size.objects, func(i int) { srv.CreateWidget(b, ns, names[i], nil) })
					reqs.Reset()
					b.StartTimer()
					lags = append(lags, versusRound(b, srv, env, reqs, tool, ns, names, size.window)...)
					for i, verb := range []string{"LIST", "WATCH", "GET"} {
						counts[i] += reqs.Count(tool, verb, "widgets")
					}
					counts[3] += reqs.Count(tool, "", "")
				}
				slices.Sort(lags)
				for i, unit := range []string{"LIST", "WATCH", "GET", "requests"} {
					b.ReportMetric(float64(counts[i])/float64(b.N), unit)
				}
				b.ReportMetric(ms(percentile(lags, 0.50)), "p50-lag-ms")
				b.ReportMetric(ms(percentile(lags, 0.99)), "p99-lag-ms")
				b.ReportMetric(ms(lags[len(lags)-1]), "max-lag-ms")
			})
		}
	}
}

// versusRound runs tool on the widgets names in ns, makes each Ready at a
// random time within window once the tool watches, and returns each
// object's detection lag.
func versusRound(b *testing.B, srv *apiserver.Server, env *waitcmd.Env, reqs *waitcmd.Requests, tool waitcmd.Tool,
	ns string, names []string, window time.Duration) []time.Duration {
	// kubectl takes about a fifth of a second per object.
	timeout := 2*window + time.Duration(len(names))*300*time.Millisecond + time.Minute
	ctx, cancel := context.WithTimeout(b.Context(), timeout+10*time.Second)
	defer cancel()
	p, err := env.Start(ctx, tool, "widgets", "--all", "-n", ns, "--for=condition=Ready", "--timeout="+timeout.String())
	if err != nil {
		b.Fatal(err)
	}
	defer p.Wait()
	select {
	case <-reqs.Made(tool, "WATCH", "widgets", ns):
	case <-p.Exited():
		b.Fatalf("%s exited before it watched: %s", tool, p.Wait().StderrText())
	}

	// One scheduler hands each object to four writers at its time, so
	// that a slow write does not hold the next one back.
	start := time.Now()
	at := make([]time.Duration, len(names))
	for i := range at {
		at[i] = rand.N(window)
	}
	order := make([]int, len(names))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(x, y int) int { return int(at[x] - at[y]) })
	writes := make([]time.Time, len(names))
	due := make(chan int)
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for i := range due {
				writes[i] = time.Now()
				srv.SetCondition(b, ns, names[i], "Ready", "True", "Up", "")
			}
		})
	}
	timer := time.NewTimer(0)
	for _, i := range order {
		timer.Reset(time.Until(start.Add(at[i])))
		<-timer.C
		due <- i
	}
	close(due)
	wg.Wait()

	res := p.Wait()
	if res.Class() != waitcmd.Success {
		b.Fatalf("%s = %s (status %d)\n%s", res.Command(), res.Class(), res.Code, res.StderrText())
	}
	reported := map[string]time.Time{}
	for _, l := range reportLines(tool, res) {
		if name, ok := reportedName(tool, l.Text); ok {
			if _, dup := reported[name]; !dup {
				reported[name] = l.Time
			}
		}
	}
	lags := make([]time.Duration, 0, len(names))
	for i, n := range names {
		t, ok := reported[n]
		if !ok {
			b.Fatalf("%s reported no line for %s", tool, n)
		}
		lags = append(lags, t.Sub(writes[i]))
	}
	return lags
}

// reportLines are the lines in which tool reports objects as they meet
// --for: kubectl's standard output, waitable's standard error.
func reportLines(tool waitcmd.Tool, r waitcmd.Result) []waitcmd.Line {
	if tool == waitcmd.Kubectl {
		return r.Stdout
	}
	return r.Stderr
}

// reportedName returns the widget that line reports as meeting --for:
// kubectl's "widget.waitable.test/w-0001 condition met", waitable's
// "+3s  widget.waitable.test/w-0001  success (Up)".
func reportedName(tool waitcmd.Tool, line string) (string, bool) {
	f := strings.Fields(line)
	var obj string
	switch {
	case tool == waitcmd.Kubectl && len(f) == 3 && f[1] == "condition" && f[2] == "met":
		obj = f[0]
	case tool == waitcmd.Waitable && len(f) >= 3 && f[2] == "success":
		obj = f[1]
	default:
		return "", false
	}
	return strings.CutPrefix(obj, "widget.waitable.test/")
}

// inParallel runs f(0) to f(n-1) on 8 goroutines, as a controller
// writing many objects would, and returns when all have returned.
func inParallel(n int, f func(i int)) {
	next := make(chan int)
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for i := range next {
				f(i)
			}
		})
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
}
