package emulators

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
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Counter counts the HTTP requests a client makes, by operation: the
// part of the X-Amz-Target header after its dot ("DescribeTable"), or ""
// for the protocols that send none (S3, EC2, EKS, RDS). The zero value is
// ready to use.
type Counter struct {
	mu   sync.Mutex
	n    map[string]int
	then func() // run once, after the next response is read
}

// RoundTrip counts r and sends it.
func (c *Counter) RoundTrip(r *http.Request) (*http.Response, error) {
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

// AfterNext makes change, with another client, once the next request of
// this one is answered: the wait sees the old state on its first poll and
// the new one on a later poll, on no timing of the test's.
func (c *Counter) AfterNext(t *testing.T, change func(ctx context.Context) error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.then = func() {
		if err := change(context.Background()); err != nil {
			t.Error(err)
		}
	}
}

// Requests returns how many requests of operation op were made.
func (c *Counter) Requests(op string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n[op]
}

// Pending reports whether a change of AfterNext waits for a request.
func (c *Counter) Pending() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.then != nil
}

// Client is the HTTP client of a service client, counting its requests.
func (c *Counter) Client() *http.Client { return &http.Client{Transport: c} }

// Credentials are the emulators' credentials: any will do.
var Credentials = aws.NewCredentialsCache(credentials.NewStaticCredentialsProvider("AKID", "SECRET", ""))

// DynamoDB returns a client of the DynamoDB emulator at endpoint, whose
// requests go through httpClient (nil: http.DefaultClient).
func DynamoDB(endpoint string, httpClient *http.Client) *dynamodb.Client {
	o := dynamodb.Options{BaseEndpoint: aws.String(endpoint), Region: "us-east-1", Credentials: Credentials}
	if httpClient != nil { // a nil *http.Client in the interface field would be used, and panic
		o.HTTPClient = httpClient
	}
	return dynamodb.New(o)
}

// CreateTable creates a table with a string key, as a user would.
func CreateTable(ctx context.Context, client *dynamodb.Client, name string) error {
	_, err := client.CreateTable(ctx, &dynamodb.CreateTableInput{TableName: aws.String(name),
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("id"), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("id"), KeyType: types.KeyTypeHash}},
		BillingMode:          types.BillingModePayPerRequest})
	return err
}
