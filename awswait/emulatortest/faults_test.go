package emulatortest

import (
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/waitable/waitable/awswait"
	"github.com/waitable/waitable/awswait/emulatortest/emulators"
	"github.com/waitable/waitable/waiter"
)

// faultProxy forwards to an emulator, but answers the first requests with
// the faults given, in order: "throttle" (400 ThrottlingException in
// DynamoDB's JSON, with x-amz-retry-after), "unavailable" (503) or "drop"
// (the connection closed with no answer). It records when each request
// came.
type faultProxy struct {
	mu     sync.Mutex
	faults []string
	at     []time.Time
	proxy  *httputil.ReverseProxy
}

// retryAfter is the hint a throttle asks for.
const retryAfter = 1500 * time.Millisecond

func (p *faultProxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	p.mu.Lock()
	p.at = append(p.at, time.Now())
	fault := ""
	if len(p.faults) > 0 {
		fault, p.faults = p.faults[0], p.faults[1:]
	}
	p.mu.Unlock()
	switch fault {
	case "throttle":
		w.Header().Set("Content-Type", "application/x-amz-json-1.0")
		w.Header().Set("x-amz-retry-after", "1500")
		w.WriteHeader(http.StatusBadRequest)
		w.Write([]byte(`{"__type":"com.amazonaws.dynamodb.v20120810#ThrottlingException","message":"Rate exceeded"}`))
	case "unavailable":
		w.WriteHeader(http.StatusServiceUnavailable)
	case "drop":
		conn, _, err := w.(http.Hijacker).Hijack()
		if err == nil {
			conn.Close()
		}
	default:
		p.proxy.ServeHTTP(w, r)
	}
}

// times returns when the requests came, from the first.
func (p *faultProxy) times() []time.Duration {
	p.mu.Lock()
	defer p.mu.Unlock()
	var d []time.Duration
	for _, t := range p.at {
		d = append(d, t.Sub(p.at[0]))
	}
	return d
}

// TestFaultsBeforeDynalite: behind a proxy that throttles (with
// x-amz-retry-after), answers 503 and drops a connection before it lets
// requests through to dynalite, TableExists succeeds within its budget,
// makes one request a poll (the client's own retries are off), and calls
// again no sooner than the throttle's hint.
func TestFaultsBeforeDynalite(t *testing.T) {
	target, err := url.Parse(emulators.Start(t, "dynalite", 0))
	if err != nil {
		t.Fatal(err)
	}
	direct := emulators.DynamoDB(target.String(), nil)
	createTable(t, direct, "orders")
	p := &faultProxy{faults: []string{"throttle", "unavailable", "drop"}, proxy: httputil.NewSingleHostReverseProxy(target)}
	front := httptest.NewServer(p)
	defer front.Close()
	client := emulators.DynamoDB(front.URL,
		&http.Client{Transport: &http.Transport{DialContext: (&net.Dialer{}).DialContext, DisableKeepAlives: true}})
	exists, err := awswait.New(client.DescribeTable, "TableExists", waiter.WithDelays(100*time.Millisecond, 100*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	polls, out, err := waitCounted(t.Context(), exists, &dynamodb.DescribeTableInput{TableName: aws.String("orders")}, 30*time.Second)
	if err != nil || out.Table.TableStatus != types.TableStatusActive {
		t.Fatalf("TableExists = %v; want success through the faults", err)
	}
	times := p.times()
	if polls != 4 || len(times) != polls {
		t.Errorf("%d polls, %d requests at the proxy (%v); want 4, one a poll: throttle, 503, dropped, ACTIVE", polls, len(times), times)
	}
	if len(times) > 1 && times[1] < retryAfter {
		t.Errorf("the call after the throttle came at +%v, sooner than its x-amz-retry-after of %v", times[1], retryAfter)
	}
}
