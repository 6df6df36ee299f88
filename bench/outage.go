package bench

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"os"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"testing/synctest"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/waitable/waitable/backoff"
	"github.com/waitable/waitable/waiter"
)

// The outage scenario: a service unavailable for the first 20% of each
// wait's budget. For the first 10% it refuses connections (the error
// net/http returns when nothing listens on the port: a *url.Error around a
// *net.OpError around ECONNREFUSED), for the next 10% it answers HTTP 503,
// and from then on it answers ready. Each client waits for it once per
// seed, with a budget of 5 minutes, in a synctest bubble of its own, so
// virtual time makes every wait instant.
//
// The service is an http.RoundTripper under a real *http.Client, not a
// loopback socket: network I/O does not block durably in a synctest
// bubble, so a real socket would need real time (minutes per wait). The
// client above the transport is net/http's own, so each client sees the
// errors and responses a real server would give it and classifies them
// itself.
//
// The clients, each as its users write it:
//
//   - "waitable": waiter.NewFunc with its defaults (delays 2s to 120s, the
//     standard retry strategy), as the README's health check: the call's
//     error goes to the retry strategy, a status other than 200 polls
//     again. Only its jitter is seeded.
//   - "aws-sdk-go-v2 TableExistsWaiter": the real DynamoDB client (its
//     default retryer: 3 attempts per call) and its generated waiter (20s
//     to 120s), against DynamoDB Local's address; ready is a DescribeTable
//     of an ACTIVE table. Its jitter is crypto-random, so not seeded.
//   - "k8s wait.PollUntilContextTimeout" and "hand-written loop": every 2s
//     (Waitable's MinDelay), an error or a status other than 200 meaning
//     "not yet", until the budget's deadline. They have no jitter: every
//     seed makes the same wait.

const (
	outageBudget   = 5 * time.Minute                 // each wait's total wait time
	outageRefused  = 10                              // percent of the budget with connections refused
	outageDown     = 20                              // percent of the budget before ready (503 after outageRefused)
	outageInterval = 2 * time.Second                 // the k8s poll's and the hand-written loop's
	outageHealth   = "http://127.0.0.1:8080/healthz" // what waitable, k8s and the loop poll
	outageDynamoDB = "http://127.0.0.1:8000"         // DynamoDB Local's port, for the SDK
)

// OutageClients are the clients of the outage scenario, in the report's
// order.
var OutageClients = []string{"waitable", "aws-sdk-go-v2 TableExistsWaiter", "k8s wait.PollUntilContextTimeout", "hand-written loop"}

// OutageStats is how one client did in the outage scenario.
type OutageStats struct {
	Client           string
	Waits, Succeeded int
	Calls            int           // HTTP requests over all waits, retries included
	Ready            time.Duration // median time from start to success; none: -1
	Ended            time.Duration // median time from start to a failed wait's end; none: -1
	Failure          string        // the first failed wait's error; none: ""
}

// Share is the percentage of waits that succeeded.
func (s OutageStats) Share() float64 {
	if s.Waits == 0 {
		return 0
	}
	return 100 * float64(s.Succeeded) / float64(s.Waits)
}

// String is the statistics on one line, for test logs.
func (s OutageStats) String() string {
	return fmt.Sprintf("%s: %d/%d succeeded (%.0f%%), %d calls, ready after %s, failures ended after %s: %s",
		s.Client, s.Succeeded, s.Waits, s.Share(), s.Calls, lagFmt(s.Ready), lagFmt(s.Ended), s.Failure)
}

// outage is the service, as the transport of an *http.Client: down for
// the first outageDown percent of budget from start, then ready.
type outage struct {
	start  time.Time
	budget time.Duration
	ready  func(*http.Request) *http.Response
	calls  atomic.Int64
}

// RoundTrip answers as the service does at this instant.
func (o *outage) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Body != nil {
		io.Copy(io.Discard, req.Body)
		req.Body.Close()
	}
	o.calls.Add(1)
	switch since := time.Since(o.start); {
	case since < o.budget*outageRefused/100:
		return nil, refused(req)
	case since < o.budget*outageDown/100:
		return response(req, http.StatusServiceUnavailable, "text/plain; charset=utf-8", "Service Unavailable\n"), nil
	}
	return o.ready(req), nil
}

// refused is the error net/http's transport returns when nothing listens
// on the port; http.Client.Do wraps it in a *url.Error.
func refused(req *http.Request) error {
	var addr net.Addr
	if ap, err := netip.ParseAddrPort(req.URL.Host); err == nil {
		addr = net.TCPAddrFromAddrPort(ap)
	}
	return &net.OpError{Op: "dial", Net: "tcp", Addr: addr, Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)}
}

func response(req *http.Request, code int, contentType, body string) *http.Response {
	return &http.Response{
		StatusCode: code, Status: fmt.Sprintf("%d %s", code, http.StatusText(code)),
		Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header:        http.Header{"Content-Type": {contentType}, "X-Amzn-Requestid": {"req-1"}},
		Body:          io.NopCloser(strings.NewReader(body)),
		ContentLength: int64(len(body)),
		Request:       req,
	}
}

func healthOK(req *http.Request) *http.Response {
	return response(req, http.StatusOK, "text/plain; charset=utf-8", "ok\n")
}

func tableActive(req *http.Request) *http.Response {
	return response(req, http.StatusOK, "application/x-amz-json-1.0", `{"Table":{"TableName":"orders","TableStatus":"ACTIVE"}}`)
}

// RunOutage makes n waits of one client (one of [OutageClients]), each
// with its own seed (seed, seed+1, ...) and the given budget, each against
// a service of its own, and returns how they did.
func RunOutage(t *testing.T, client string, n int, budget time.Duration, seed uint64) OutageStats {
	st := OutageStats{Client: client, Waits: n}
	var ready, ended []float64
	for i := range n {
		synctest.Test(t, func(t *testing.T) {
			svc := &outage{start: time.Now(), budget: budget, ready: healthOK}
			if client == "aws-sdk-go-v2 TableExistsWaiter" {
				svc.ready = tableActive
			}
			err := outageWait(t.Context(), client, &http.Client{Transport: svc}, budget, seed+uint64(i))
			took := time.Since(svc.start)
			st.Calls += int(svc.calls.Load())
			if err != nil {
				ended = append(ended, float64(took))
				if st.Failure == "" {
					st.Failure = err.Error()
				}
				return
			}
			st.Succeeded++
			ready = append(ready, float64(took))
		})
	}
	st.Ready, st.Ended = medianOr(ready), medianOr(ended)
	return st
}

func medianOr(xs []float64) time.Duration {
	if len(xs) == 0 {
		return -1
	}
	return time.Duration(median(xs))
}

// outageWait is one wait of a client for the service behind hc.
func outageWait(ctx context.Context, client string, hc *http.Client, budget time.Duration, seed uint64) error {
	switch client {
	case "waitable":
		get := func(ctx context.Context, url string) (*http.Response, error) {
			req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
			if err != nil {
				return nil, err
			}
			return hc.Do(req)
		}
		healthy := func(url string, resp *http.Response, err error) (bool, error) {
			if err != nil {
				return false, err // the call's own error: retried if transient
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			return resp.StatusCode == http.StatusOK, nil
		}
		w, err := waiter.NewFunc("ServiceHealthy", get, healthy, waiter.WithJitter(backoff.Seeded(seed)))
		if err != nil {
			return err
		}
		_, err = w.Wait(ctx, outageHealth, budget)
		return err
	case "aws-sdk-go-v2 TableExistsWaiter":
		c := dynamodb.New(dynamodb.Options{
			Region:       "us-east-1",
			Credentials:  aws.AnonymousCredentials{},
			HTTPClient:   hc,
			BaseEndpoint: aws.String(outageDynamoDB),
		})
		_, err := dynamodb.NewTableExistsWaiter(c).WaitForOutput(ctx, &dynamodb.DescribeTableInput{TableName: aws.String("orders")}, budget)
		return err
	case "k8s wait.PollUntilContextTimeout":
		return wait.PollUntilContextTimeout(ctx, outageInterval, budget, true, func(ctx context.Context) (bool, error) {
			return up(ctx, hc, outageHealth), nil // an error is "not yet": the service may be starting
		})
	case "hand-written loop":
		return HandHealthWait(ctx, hc, outageHealth, outageInterval, budget)
	}
	return fmt.Errorf("bench: unknown client %q", client)
}

// HandHealthWait is the health wait a competent Go programmer writes: a
// probe every interval on a ticker, any error or a status other than 200
// meaning "not yet", until the budget's deadline.
func HandHealthWait(ctx context.Context, hc *http.Client, url string, interval, budget time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, budget)
	defer cancel()
	tick := time.NewTicker(interval)
	defer tick.Stop()
	for {
		if up(ctx, hc, url) {
			return nil
		}
		select {
		case <-tick.C:
		case <-ctx.Done():
			return fmt.Errorf("%s not healthy: %w", url, ctx.Err())
		}
	}
}

// up probes url once: true on status 200.
func up(ctx context.Context, hc *http.Client, url string) bool {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return false
	}
	resp, err := hc.Do(req)
	if err != nil {
		return false // refused, reset, timed out: not up yet
	}
	defer resp.Body.Close()
	io.Copy(io.Discard, resp.Body)
	return resp.StatusCode == http.StatusOK
}

// writeOutage writes the outage table of n waits per client.
func writeOutage(w io.Writer, n int, stats []OutageStats) {
	fmt.Fprintf(w, "Outage: a service unavailable for the first %d%% of each wait's budget (%v): connections refused for the first %d%%, then HTTP 503, then ready; %d waits per client, each with its own seed (virtual time):\n\n",
		outageDown, outageBudget, outageRefused, n)
	fmt.Fprintln(w, "| client | waits | succeeded | share | ready after (median) | failed waits ended after (median) | HTTP calls per wait | a failed wait's error |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|---|")
	for _, s := range stats {
		failure := "—"
		if s.Failure != "" {
			failure = "`" + strings.ReplaceAll(s.Failure, "|", `\|`) + "`"
		}
		fmt.Fprintf(w, "| %s | %d | %d | %.0f%% | %s | %s | %.1f | %s |\n", s.Client, s.Waits, s.Succeeded, s.Share(),
			dashIfNone(s.Ready), dashIfNone(s.Ended), float64(s.Calls)/float64(max(s.Waits, 1)), failure)
	}
}

func dashIfNone(d time.Duration) string {
	if d < 0 {
		return "—"
	}
	return lagFmt(d)
}
