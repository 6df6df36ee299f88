package bench

import (
	"context"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/waitable/waitable/awswait"
	"github.com/waitable/waitable/classify"
	"github.com/waitable/waitable/waiter"
)

// cannedDynamoDB answers every DescribeTable with CREATING, except every
// eleventh, which is ACTIVE: the same HTTP cost on both sides.
type cannedDynamoDB struct{ n atomic.Int64 }

func (c *cannedDynamoDB) Do(req *http.Request) (*http.Response, error) {
	if req.Body != nil {
		io.Copy(io.Discard, req.Body)
		req.Body.Close()
	}
	status := "CREATING"
	if c.n.Add(1)%11 == 0 {
		status = "ACTIVE"
	}
	body := `{"Table":{"TableName":"orders","TableStatus":"` + status + `"}}`
	return &http.Response{
		StatusCode: 200, Status: "200 OK", Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header:        http.Header{"Content-Type": {"application/x-amz-json-1.0"}, "X-Amzn-Requestid": {"req-1"}},
		Body:          io.NopCloser(strings.NewReader(body)),
		ContentLength: int64(len(body)),
		Request:       req,
	}, nil
}

func dynamoClient() *dynamodb.Client {
	return dynamodb.New(dynamodb.Options{
		Region:       "us-east-1",
		Credentials:  aws.AnonymousCredentials{},
		HTTPClient:   &cannedDynamoDB{},
		BaseEndpoint: aws.String("http://dynamodb.local"),
	})
}

// tableExists is DynamoDB's TableExists waiter as its Smithy model defines
// it (minDelay 20s, overridden below as the SDK's is).
var tableExists = waiter.Definition{
	Name:     "TableExists",
	MinDelay: 20 * time.Second,
	Acceptors: []classify.Acceptor{
		{State: classify.Success, Matcher: classify.OnOutput("Table.TableStatus", classify.StringEquals, "ACTIVE")},
		{State: classify.Retry, Matcher: classify.OnErrorType("ResourceNotFoundException")},
	},
}

// sdkSides are the SDK rows' sides: one op is a run of 11 polls (10
// CREATING, then ACTIVE) through the real aws-sdk-go-v2 DynamoDB client,
// whose HTTP client returns canned responses, with the given delay between
// polls: Waitable's waiter, through the awswait adapter (one HTTP request
// per poll, the client's retryer off), against the SDK's generated
// TableExistsWaiter.
func sdkSides(delay time.Duration) []Side {
	in := &dynamodb.DescribeTableInput{TableName: aws.String("orders")}
	return []Side{
		{Name: "waitable (awswait)", Op: func(n int) {
			client := dynamoClient()
			w, err := awswait.New(client.DescribeTable, "TableExists", waiter.WithDelays(delay, delay))
			if err != nil {
				panic(err)
			}
			ctx := context.Background()
			for range n {
				if _, err := w.Wait(ctx, in, time.Hour); err != nil {
					panic(err)
				}
			}
		}},
		{Name: "aws-sdk-go-v2 TableExistsWaiter", Op: func(n int) {
			w := dynamodb.NewTableExistsWaiter(dynamoClient(), func(o *dynamodb.TableExistsWaiterOptions) {
				o.MinDelay, o.MaxDelay = delay, delay
			})
			ctx := context.Background()
			for range n {
				if _, err := w.WaitForOutput(ctx, in, time.Hour); err != nil {
					panic(err)
				}
			}
		}},
	}
}
