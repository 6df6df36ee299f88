// Command report measures Waitable against its peers on this machine, in
// one run, and prints a table of ratios. Run it from the bench folder:
//
//	go run ./cmd/report
//
// Every row is also a go test benchmark (or, for the scenario, a test) in
// this module, so that benchstat can compare runs. It takes about a
// minute on 2 cores, most of it the million idle runs.
package main

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"runtime"
	"strconv"
	"strings"
)

type result struct {
	nsPerOp, allocs, extra float64
	extraUnit              string
}

var benchLine = regexp.MustCompile(`^(Benchmark\S+?)(-\d+)?\s+\d+\s+([\d.]+) ns/op(.*)$`)

func main() {
	out, err := run("go", "test", "-run", "^$", "-bench", "WaiterDelay|RetryLoop|Matcher|SDKWaiter|IdleRuns", "-benchmem", "-count", "1", ".")
	if err != nil {
		fail(err, out)
	}
	res := map[string]result{}
	for sc := bufio.NewScanner(bytes.NewReader(out)); sc.Scan(); {
		m := benchLine.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		r := result{}
		r.nsPerOp, _ = strconv.ParseFloat(m[3], 64)
		fields := strings.Fields(m[4])
		for i := 0; i+1 < len(fields); i += 2 {
			v, _ := strconv.ParseFloat(fields[i], 64)
			switch fields[i+1] {
			case "allocs/op":
				r.allocs = v
			case "B/op":
			default:
				r.extra, r.extraUnit = v, fields[i+1]
			}
		}
		res[m[1]] = r
	}
	scen, err := run("go", "test", "-run", "TestFanoutScenario", "-v", "-count", "1", ".")
	if err != nil {
		fail(err, scen)
	}

	fmt.Printf("Waitable vs peers, measured in one run on %s/%s, %d CPUs, %s\n\n", runtime.GOOS, runtime.GOARCH, runtime.NumCPU(), cpuName())
	fmt.Println("| # | what | Waitable | peer | ratio (peer time / Waitable time) |")
	fmt.Println("|---|---|---|---|---|")
	row := func(n int, what, bench, peer, peerName string) {
		w, p := res[bench+"/impl=waitable"], res[bench+"/impl="+peer]
		if w.nsPerOp == 0 || p.nsPerOp == 0 {
			fmt.Printf("| %d | %s | missing | missing | |\n", n, what)
			return
		}
		ratio := p.nsPerOp / w.nsPerOp
		prec := 1
		if ratio < 1 {
			prec = 2
		}
		fmt.Printf("| %d | %s | %s, %.0f allocs | %s: %s, %.0f allocs | %.*f× |\n", n, what, dur(w.nsPerOp), w.allocs, peerName, dur(p.nsPerOp), p.allocs, prec, ratio)
	}
	row(1, "waiter delay computation", "BenchmarkWaiterDelay", "smithy-go", "smithy-go waiter.ComputeDelay")
	for _, p := range [][2]string{{"cenkalti-backoff-v5", "cenkalti/backoff v5"}, {"failsafe-go", "failsafe-go"}, {"avast-retry-go", "avast/retry-go v4"}, {"hand-written", "hand-written timer loop"}} {
		row(2, "retry loop, 10 failures then success, zero delay (per call)", "BenchmarkRetryLoop", p[0], p[1])
	}
	row(3, "InstanceRunning acceptors on 1,000 typed instances", "BenchmarkMatcher", "jmespath.Search", "jmespath.Search per call")
	row(3, "InstanceRunning acceptors on 1,000 typed instances", "BenchmarkMatcher", "hand-written", "hand-written Go")
	row(4, "a run of 11 polls through the real aws-sdk-go-v2 DynamoDB client, canned HTTP", "BenchmarkSDKWaiter", "aws-sdk-go-v2", "the SDK's generated TableExistsWaiter")
	for _, n := range []string{"100000", "1000000"} {
		r := res["BenchmarkIdleRuns/runs="+n]
		fmt.Printf("| 5 | memory per idle run, %s runs sleeping | %.0f bytes/run | | |\n", n, r.extra)
	}
	for sc := bufio.NewScanner(bytes.NewReader(scen)); sc.Scan(); {
		line := strings.TrimSpace(sc.Text())
		if i := strings.Index(line, "scenario "); i >= 0 {
			fmt.Printf("| 6 | fan-out, 10,000 resources ready over 10 min, service throttles above 50/s | %s | | |\n", line[i+len("scenario "):])
		}
	}
}

func run(name string, args ...string) ([]byte, error) {
	cmd := exec.Command(name, args...)
	cmd.Stderr = os.Stderr
	return cmd.Output()
}

func fail(err error, out []byte) {
	os.Stdout.Write(out)
	fmt.Fprintln(os.Stderr, "report:", err)
	os.Exit(1)
}

func dur(ns float64) string {
	switch {
	case ns >= 1e6:
		return fmt.Sprintf("%.2f ms", ns/1e6)
	case ns >= 1e3:
		return fmt.Sprintf("%.2f µs", ns/1e3)
	}
	return fmt.Sprintf("%.1f ns", ns)
}

func cpuName() string {
	b, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return "unknown CPU"
	}
	for _, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(l, "model name") {
			if i := strings.Index(l, ":"); i >= 0 {
				return strings.TrimSpace(l[i+1:])
			}
		}
	}
	return "unknown CPU"
}
