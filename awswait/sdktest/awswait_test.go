package sdktest_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	"github.com/aws/aws-sdk-go-v2/service/eks"

	"github.com/waitable/waitable/awswait"
	"github.com/waitable/waitable/backoff"
	"github.com/waitable/waitable/clocktest"
	"github.com/waitable/waitable/retry"
	"github.com/waitable/waitable/telemetry"
	"github.com/waitable/waitable/waiter"
)

func dynamo(s *scripted) *dynamodb.Client {
	return dynamodb.New(dynamodb.Options{Region: "us-east-1", Credentials: aws.AnonymousCredentials{}, HTTPClient: s,
		BaseEndpoint: aws.String("http://dynamodb.local")})
}

func dynamoTable(status string) response {
	return response{200, map[string]string{"Content-Type": "application/x-amz-json-1.0"}, `{"Table":{"TableName":"orders","TableStatus":"` + status + `"}}`}
}

func dynamoError(status int, code string) response {
	return response{status, map[string]string{"Content-Type": "application/x-amz-json-1.0"}, `{"__type":"com.amazonaws.dynamodb.v20120810#` + code + `","message":"no"}`}
}

// TestOneRequestPerPoll: a throttled DynamoDB DescribeTable through the
// adapter makes one HTTP request per poll (the client's retryer would make
// three), each marked with the SDK waiters' user-agent feature.
func TestOneRequestPerPoll(t *testing.T) {
	clocktest.Run(t, func(t *testing.T) {
		s := &scripted{latency: 100 * time.Millisecond, script: []response{dynamoError(400, "ThrottlingException"), dynamoError(400, "ThrottlingException"), dynamoTable("ACTIVE")}}
		client := dynamo(s)
		w, err := awswait.New(client.DescribeTable, "TableExists")
		if err != nil {
			t.Fatal(err)
		}
		out, err := w.Wait(t.Context(), &dynamodb.DescribeTableInput{TableName: aws.String("orders")}, 10*time.Minute)
		if err != nil || string(out.Table.TableStatus) != "ACTIVE" || s.count() != 3 {
			t.Fatalf("Wait = %v after %d requests; want ACTIVE after 3", err, s.count())
		}
		for _, r := range s.requests {
			if ua := r.Header.Get("User-Agent"); !strings.Contains(ua, "m/") || !strings.Contains(ua[strings.Index(ua, "m/"):], "B") {
				t.Errorf("User-Agent %q lacks the waiter feature (m/...B...)", ua)
			}
		}
		// The client itself still retries outside the waiter.
		s2 := &scripted{latency: 100 * time.Millisecond, script: []response{dynamoError(400, "ThrottlingException"), dynamoError(400, "ThrottlingException"), dynamoTable("ACTIVE")}}
		if _, err := dynamo(s2).DescribeTable(t.Context(), &dynamodb.DescribeTableInput{TableName: aws.String("orders")}); err != nil || s2.count() != 3 {
			t.Errorf("a plain call: %v after %d requests; want the client's own retries", err, s2.count())
		}
	})
}

// TestRetryAfterHonoured: an x-amz-retry-after of 7s on a throttle holds
// the next poll back exactly that long: never sooner than the service
// asked, though the throttle backoff (1s) and the waiter's delay (1s)
// are shorter.
func TestRetryAfterHonoured(t *testing.T) {
	clocktest.Run(t, func(t *testing.T) {
		throttle := dynamoError(400, "ThrottlingException")
		throttle.headers["x-amz-retry-after"] = "7000"
		s := &scripted{latency: 100 * time.Millisecond, script: []response{throttle, dynamoTable("ACTIVE")}}
		client := dynamo(s)
		// The throttle backoff at its highest (1s): the hint is longer.
		strategy, err := retry.NewStandard(retry.WithService("DynamoDB"), retry.WithJitter(backoff.High))
		if err != nil {
			t.Fatal(err)
		}
		w, err := awswait.New(client.DescribeTable, "TableExists", waiter.WithDelays(time.Second, time.Second), waiter.WithRetryStrategy(strategy))
		if err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		if _, err := w.Wait(t.Context(), &dynamodb.DescribeTableInput{TableName: aws.String("orders")}, time.Minute); err != nil {
			t.Fatal(err)
		}
		// Two calls of 100ms each, and between them the service's 7s.
		if got := time.Since(start); got != 7*time.Second+200*time.Millisecond {
			t.Errorf("the wait took %v, want 7.2s: two calls of 100ms and the service's 7s", got)
		}
	})
}

// TestNewFindsAWSWaiters: AWS's waiters by name, from a Smithy model
// (DynamoDB) or botocore (EC2, whose Smithy model is not in the corpus),
// with their paths checked against the SDK's types; a wrong name or the
// wrong operation is an error that says what would fit.
func TestNewFindsAWSWaiters(t *testing.T) {
	ddb := dynamodb.New(dynamodb.Options{Region: "us-east-1"})
	e := ec2.New(ec2.Options{Region: "us-east-1"})
	if _, err := awswait.New(ddb.DescribeTable, "TableExists"); err != nil {
		t.Errorf("TableExists: %v", err)
	}
	if _, err := awswait.New(e.DescribeInstances, "InstanceRunning"); err != nil {
		t.Errorf("InstanceRunning: %v", err)
	}
	for _, tt := range []struct {
		err  error
		want string
	}{
		{second(awswait.New(ddb.DescribeTable, "TableExist")), `dynamodb has no waiter "TableExist" (did you mean TableExists?)`},
		{second(awswait.New(ddb.ListTables, "TableExists")), "dynamodb.TableExists polls DescribeTable, not the operation of dynamodb.ListTablesInput"},
		{second(awswait.New(e.DescribeVolumes, "InstanceRunning")), "ec2.InstanceRunning polls DescribeInstances"},
	} {
		if tt.err == nil || !strings.Contains(tt.err.Error(), tt.want) {
			t.Errorf("error %v, want it to contain %q", tt.err, tt.want)
		}
	}
	if names := awswait.Names(e.DescribeInstances); len(names) < 40 {
		t.Errorf("Names(ec2) = %d waiters, want EC2's 40-odd", len(names))
	}
}

func second[T any](_ T, err error) error { return err }

// TestThrottlesOverLoopback: ClusterActive with a 20-minute budget,
// against a real EKS endpoint on loopback that throttles 3 times in a row
// (the last with Retry-After: 1), then answers ACTIVE: the throttles are
// transient, the wait succeeds, and the call after the Retry-After comes
// no sooner than 1s later.
func TestThrottlesOverLoopback(t *testing.T) {
	var mu sync.Mutex
	var at []time.Time
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		at = append(at, time.Now())
		n := len(at)
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		if n <= 3 {
			w.Header().Set("X-Amzn-Errortype", "ThrottlingException")
			if n == 3 {
				w.Header().Set("Retry-After", "1")
			}
			w.WriteHeader(http.StatusTooManyRequests)
			fmt.Fprint(w, `{"message":"Rate exceeded"}`)
			return
		}
		fmt.Fprint(w, `{"cluster":{"name":"demo","status":"ACTIVE"}}`)
	}))
	defer srv.Close()
	client := eks.New(eks.Options{Region: "us-east-1", Credentials: aws.AnonymousCredentials{}, BaseEndpoint: aws.String(srv.URL)})
	w, err := awswait.New(client.DescribeCluster, "ClusterActive", waiter.WithDelays(10*time.Millisecond, 50*time.Millisecond), waiter.WithTelemetry(telemetry.Settings{Off: true}))
	if err != nil {
		t.Fatal(err)
	}
	out, err := w.Wait(t.Context(), &eks.DescribeClusterInput{Name: aws.String("demo")}, 20*time.Minute)
	mu.Lock()
	defer mu.Unlock()
	if err != nil || out == nil || out.Cluster == nil || len(at) != 4 {
		t.Fatalf("Wait = %v after %d requests; want ACTIVE on the 4th", err, len(at))
	}
	if gap := at[3].Sub(at[2]); gap < time.Second {
		t.Errorf("the call after Retry-After: 1 came %v later, want no sooner than 1s", gap)
	}
}

// TestPendingRetryAfter: a pending DescribeCluster answer (CREATING) whose
// HTTP response says Retry-After: 30 is polled again 30s later, not at the
// waiter's 1s.
func TestPendingRetryAfter(t *testing.T) {
	clocktest.Run(t, func(t *testing.T) {
		creating := response{200, map[string]string{"Content-Type": "application/json", "Retry-After": "30"}, `{"cluster":{"name":"demo","status":"CREATING"}}`}
		active := response{200, map[string]string{"Content-Type": "application/json"}, `{"cluster":{"name":"demo","status":"ACTIVE"}}`}
		s := &scripted{script: []response{creating, active}}
		client := eks.New(eks.Options{Region: "us-east-1", Credentials: aws.AnonymousCredentials{}, HTTPClient: s, BaseEndpoint: aws.String("http://eks.local")})
		w, err := awswait.New(client.DescribeCluster, "ClusterActive", waiter.WithDelays(time.Second, time.Second), waiter.WithTelemetry(telemetry.Settings{Off: true}))
		if err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		if _, err := w.Wait(t.Context(), &eks.DescribeClusterInput{Name: aws.String("demo")}, time.Hour); err != nil {
			t.Fatal(err)
		}
		if got := time.Since(start); got != 30*time.Second || s.count() != 2 {
			t.Errorf("ACTIVE seen after %v and %d requests, want 30s and 2", got, s.count())
		}
	})
}
