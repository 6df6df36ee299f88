// Command clilag measures, on dynalite's real CREATING to ACTIVE,
// `waitable aws dynamodb table-exists` against `aws dynamodb wait
// table-exists`, both on the same table with their defaults: how long
// after the table becomes ACTIVE each exits, how many AWS CLI processes
// and DescribeTable requests each makes, what each prints while it
// waits, and, on a table that never appears, how each times out (with its
// exit status). It prints the row of bench/README.md. Run it from
// awswait/emulatortest; it needs Node, the AWS CLI and Go, and takes
// about 11 minutes of real time: a minute a table (-n), then the CLI's
// 20 s × 25 attempts of its timeout (-timeout=false leaves the timeout
// out):
//
//	go run ./cmd/clilag
package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/waitable/waitable/awswait/emulatortest/emulators"
)

// side is one way to wait from a shell.
type side struct {
	name string
	argv func(table, endpoint string) []string
}

// result is one wait's.
type result struct {
	exit           int
	end            time.Time
	took           time.Duration
	processes      int // runs of the AWS CLI
	requests       int // DescribeTable requests
	stdout, stderr string
}

func main() {
	n := flag.Int("n", 3, "tables waited for at once, each by both sides")
	ready := flag.Duration("ready", 25*time.Second, "how long dynalite keeps each table CREATING")
	timeout := flag.Bool("timeout", true, "also wait for a table that never appears, until each side times out")
	flag.Parse()
	if err := run(*n, *ready, *timeout); err != nil {
		fmt.Fprintln(os.Stderr, "clilag:", err)
		os.Exit(1)
	}
}

func run(n int, ready time.Duration, timeout bool) error {
	cli, err := exec.LookPath("aws")
	if err != nil {
		return fmt.Errorf("no aws on the PATH: install the AWS CLI (Debian: apt-get install awscli): %w", err)
	}
	version, _ := exec.Command(cli, "--version").CombinedOutput()
	dir, err := os.MkdirTemp("", "clilag")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	bin := filepath.Join(dir, "waitable")
	if out, err := exec.Command("go", "build", "-o", bin, "github.com/waitable/waitable/cmd/waitable").CombinedOutput(); err != nil {
		return fmt.Errorf("go build waitable: %v\n%s", err, out)
	}
	endpoint, stop, err := emulators.Launch("dynalite", ready)
	if err != nil {
		return err
	}
	defer stop()
	sides := []side{
		{"`waitable aws dynamodb table-exists`", func(table, endpoint string) []string {
			return []string{bin, "aws", "dynamodb", "table-exists", "--", "--table-name", table, "--endpoint-url", endpoint}
		}},
		{"`aws dynamodb wait table-exists`", func(table, endpoint string) []string {
			return []string{"aws", "dynamodb", "wait", "table-exists", "--table-name", table, "--endpoint-url", endpoint}
		}},
	}
	ctx := context.Background()
	results := make([][]result, len(sides))
	var actives []time.Time
	for i := range n { // one table at a time, waited for by both sides at once
		table := fmt.Sprintf("orders-%d", i)
		if err := emulators.CreateTable(ctx, emulators.DynamoDB(endpoint, nil), table); err != nil {
			return err
		}
		actives = append(actives, time.Now().Add(ready)) // dynalite's timer starts with the CreateTable call: this is no earlier
		rs, err := both(ctx, dir, fmt.Sprint(i), sides, table, endpoint)
		if err != nil {
			return err
		}
		for s, r := range rs {
			results[s] = append(results[s], r)
		}
	}
	var timeouts []result
	if timeout {
		if timeouts, err = both(ctx, dir, "timeout", sides, "nobody", endpoint); err != nil {
			return err
		}
	}
	fmt.Printf("Waiting from a shell on dynalite: %d tables CREATING for %s, one after the other, each waited for by both sides at once, with their defaults "+
		"(DynamoDB's TableExists: 20 s delays, 25 attempts); %s; lag from ACTIVE to the command's exit:\n\n", n, ready, strings.TrimSpace(string(version)))
	fmt.Println("| command | found ACTIVE | lag median [min–max] | AWS CLI processes per wait | DescribeTable requests per wait | a table that never appears |")
	fmt.Println("|---|---|---|---|---|---|")
	for s, sd := range sides {
		var lags []time.Duration
		var procs, reqs []int
		for i, r := range results[s] {
			procs, reqs = append(procs, r.processes), append(reqs, r.requests)
			if r.exit == 0 {
				lags = append(lags, r.end.Sub(actives[i]))
			}
		}
		slices.Sort(lags)
		lag := "–"
		if len(lags) > 0 {
			lag = fmt.Sprintf("%.1fs [%.1f–%.1f]", lags[len(lags)/2].Seconds(), lags[0].Seconds(), lags[len(lags)-1].Seconds())
		}
		never := "not measured (-timeout=false)"
		if timeout {
			t := timeouts[s]
			never = fmt.Sprintf("exit %d after %s, %d processes, %d requests", t.exit, t.end.Sub(t.start()).Round(time.Second), t.processes, t.requests)
		}
		fmt.Printf("| %s | %d of %d | %s | %s | %s | %s |\n", sd.name, len(lags), n, lag, spread(procs), spread(reqs), never)
	}
	for s, sd := range sides {
		r := results[s][0]
		fmt.Printf("\n%s, waiting for orders-0, printed on standard error (on standard output, %s):\n\n```\n%s```\n",
			sd.name, lines(r.stdout), r.stderr)
		if timeout {
			t := timeouts[s]
			fmt.Printf("\nand for a table that never appears, on standard error (on standard output, %s):\n\n```\n%s```\n",
				lines(t.stdout), tail(t.stderr, 4))
		}
	}
	return nil
}

// both waits for table with every side at once.
func both(ctx context.Context, dir, name string, sides []side, table, endpoint string) ([]result, error) {
	rs := make([]result, len(sides))
	errs := make([]error, len(sides))
	var wg sync.WaitGroup
	for s := range sides {
		wg.Go(func() { rs[s], errs[s] = wait(ctx, dir, fmt.Sprintf("%s-%d", name, s), sides[s], table, endpoint) })
	}
	wg.Wait()
	return rs, errors.Join(errs...)
}

// start is when a result's wait began: its end less what it took. Only
// timeouts keep it.
func (r result) start() time.Time { return r.end.Add(-r.took) }

// wait runs a side's command for table, with the AWS CLI on the PATH
// behind a wrapper that counts its runs, against endpoint through a proxy
// that counts the DescribeTable requests.
func wait(ctx context.Context, dir, name string, sd side, table, endpoint string) (result, error) {
	requests := &emulators.Counter{}
	target, err := url.Parse(endpoint)
	if err != nil {
		return result{}, err
	}
	proxy := httputil.NewSingleHostReverseProxy(target)
	proxy.Transport = requests
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return result{}, err
	}
	srv := &http.Server{Handler: proxy}
	go srv.Serve(ln)
	defer srv.Close()
	argv := sd.argv(table, "http://"+ln.Addr().String())

	bin := filepath.Join(dir, name)
	if err := os.MkdirAll(bin, 0o755); err != nil {
		return result{}, err
	}
	cli, err := exec.LookPath("aws")
	if err != nil {
		return result{}, err
	}
	log := filepath.Join(bin, "runs.log")
	wrapper := fmt.Sprintf("#!/bin/sh\necho $$ >> '%s'\nexec '%s' \"$@\"\n", log, cli)
	if err := os.WriteFile(filepath.Join(bin, "aws"), []byte(wrapper), 0o755); err != nil {
		return result{}, err
	}
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	if argv[0] == "aws" {
		cmd.Path = filepath.Join(bin, "aws")
	}
	cmd.Env = append(os.Environ(), "PATH="+bin+string(filepath.ListSeparator)+os.Getenv("PATH"),
		"AWS_ACCESS_KEY_ID=AKID", "AWS_SECRET_ACCESS_KEY=SECRET", "AWS_DEFAULT_REGION=us-east-1",
		"AWS_CONFIG_FILE="+filepath.Join(bin, "config"), "AWS_SHARED_CREDENTIALS_FILE="+filepath.Join(bin, "credentials"))
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err = cmd.Run()
	r := result{end: time.Now(), stdout: stdout.String(), stderr: stderr.String(), requests: requests.Requests("DescribeTable")}
	r.took = r.end.Sub(start)
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		r.exit = ee.ExitCode()
	case err != nil:
		return r, err
	}
	runs, _ := os.ReadFile(log)
	r.processes = bytes.Count(runs, []byte("\n"))
	return r, nil
}

// spread is a median and its range.
func spread(v []int) string {
	slices.Sort(v)
	return fmt.Sprintf("%d [%d–%d]", v[len(v)/2], v[0], v[len(v)-1])
}

// lines says how many lines s has.
func lines(s string) string {
	switch n := strings.Count(s, "\n"); n {
	case 0:
		return "nothing"
	case 1:
		return "1 line"
	default:
		return fmt.Sprintf("%d lines (the table's JSON)", n)
	}
}

// tail is the last n lines of s, after a line saying how many came before.
func tail(s string, n int) string {
	lines := strings.SplitAfter(s, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	if len(lines) <= n {
		return strings.Join(lines, "")
	}
	return fmt.Sprintf("… (%d lines)\n", len(lines)-n) + strings.Join(lines[len(lines)-n:], "")
}
