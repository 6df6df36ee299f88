package sdktest_test

import (
	"context"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/eks"

	"github.com/waitable/waitable/awswait"
	"github.com/waitable/waitable/waiter"
)

// awswait.New with a real DynamoDB client (its HTTP answers scripted
// here): AWS's TableExists waiter in one line.
func Example_dynamoDB() {
	http := &scripted{script: []response{dynamoTable("CREATING"), dynamoTable("ACTIVE")}}
	client := dynamodb.New(dynamodb.Options{Region: "us-east-1", Credentials: aws.AnonymousCredentials{}, HTTPClient: http})

	w, err := awswait.New(client.DescribeTable, "TableExists",
		waiter.WithDelays(time.Millisecond, time.Millisecond)) // AWS's are 20s: shortened for the example
	if err != nil {
		fmt.Println(err)
		return
	}
	out, err := w.Wait(context.Background(), &dynamodb.DescribeTableInput{TableName: aws.String("orders")}, time.Minute)
	fmt.Println(out.Table.TableStatus, err, len(http.requests), "requests")
	// Output: ACTIVE <nil> 2 requests
}

// awswait.Names lists AWS's waiters for a real client's service.
func Example_names() {
	client := dynamodb.New(dynamodb.Options{Region: "us-east-1"})
	fmt.Println(awswait.Names(client.DescribeTable))
	// Output: [TableExists TableNotExists]
}

// awswait's ExampleNew with the real EKS client (its HTTP answers
// scripted here, CREATING then ACTIVE, as awswait's stand-in answers).
func Example_eks() {
	http := &scripted{script: []response{eksCluster("CREATING"), eksCluster("ACTIVE")}}
	client := eks.New(eks.Options{Region: "us-east-1", Credentials: aws.AnonymousCredentials{}, HTTPClient: http})

	w, err := awswait.New(client.DescribeCluster, "ClusterActive",
		waiter.WithDelays(time.Millisecond, time.Millisecond)) // AWS's are 30s: shortened for the example
	if err != nil {
		fmt.Println(err)
		return
	}
	out, err := w.Wait(context.Background(), &eks.DescribeClusterInput{Name: aws.String("demo")}, 20*time.Minute)
	fmt.Println(out.Cluster.Status, err, len(http.requests), "requests")
	// Output: ACTIVE <nil> 2 requests
}
