package bench

import (
	"context"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/waitable/waitable/waiter"
)

// BenchmarkSDKWaiter is the SDK row at 1ns delays, for go test.
func BenchmarkSDKWaiter(b *testing.B) { benchSides(b, sdkSides(time.Nanosecond)) }

// TestSDKWaitersAgree: both waiters see ACTIVE on the eleventh call.
func TestSDKWaitersAgree(t *testing.T) {
	ctx := context.Background()
	in := &dynamodb.DescribeTableInput{TableName: aws.String("orders")}
	client := dynamoClient()
	w, err := waiter.New(tableExists, func(ctx context.Context, in *dynamodb.DescribeTableInput) (*dynamodb.DescribeTableOutput, error) {
		return client.DescribeTable(ctx, in)
	}, waiter.WithDelays(time.Nanosecond, time.Nanosecond))
	if err != nil {
		t.Fatal(err)
	}
	out, err := w.Wait(ctx, in, time.Minute)
	if err != nil || string(out.Table.TableStatus) != "ACTIVE" {
		t.Fatalf("waitable: %v, %v", out, err)
	}
	sdk := dynamodb.NewTableExistsWaiter(dynamoClient(), func(o *dynamodb.TableExistsWaiterOptions) { o.MinDelay, o.MaxDelay = time.Nanosecond, time.Nanosecond })
	out, err = sdk.WaitForOutput(ctx, in, time.Minute)
	if err != nil || string(out.Table.TableStatus) != "ACTIVE" {
		t.Fatalf("sdk: %v, %v", out, err)
	}
}
