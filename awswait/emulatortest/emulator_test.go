package emulatortest

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	// kumo starts a reaper of DynamoDB items when its package is loaded,
	// and never stops it: it is kumo's, not a test's.
	goleak.VerifyTestMain(m, goleak.IgnoreTopFunction("github.com/sivchari/kumo/internal/service/dynamodb.(*MemoryStorage).ttlReaper"))
}

// counter counts the HTTP requests a client makes, by the target (the
// X-Amz-Target header: "DynamoDB_20120810.DescribeTable").
type counter struct {
	mu   sync.Mutex
	n    map[string]int
	then func() // run once, after the next response is read
}

func (c *counter) RoundTrip(r *http.Request) (*http.Response, error) {
	target := r.Header.Get("X-Amz-Target")
	c.mu.Lock()
	if c.n == nil {
		c.n = map[string]int{}
	}
	c.n[target[strings.LastIndexByte(target, '.')+1:]]++
	then := c.then
	c.then = nil
	c.mu.Unlock()
	resp, err := http.DefaultTransport.RoundTrip(r)
	if then == nil || err != nil {
		return resp, err
	}
	// The whole answer is read before the change, so it is the state
	// from before the change.
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		return nil, err
	}
	resp.Body = io.NopCloser(bytes.NewReader(body))
	then()
	return resp, nil
}

// afterNext makes change, with another client, once the next request of
// this one is answered: the wait sees the old state on its first poll and
// the new one on a later poll, on no timing of the test's.
func (c *counter) afterNext(t *testing.T, change func(ctx context.Context) error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.then = func() {
		if err := change(context.Background()); err != nil {
			t.Error(err)
		}
	}
}

// requests returns how many requests of operation op were made.
func (c *counter) requests(op string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n[op]
}

// pending reports whether a change of afterNext waits for a request.
func (c *counter) pending() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.then != nil
}

// client is the HTTP client of a service client, counting its requests.
func (c *counter) client() *http.Client { return &http.Client{Transport: c} }

// creds are the emulators' credentials: any will do.
var creds = aws.NewCredentialsCache(credentials.NewStaticCredentialsProvider("AKID", "SECRET", ""))
