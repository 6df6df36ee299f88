package awswait_test

import (
	"context"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/waitable/waitable/awswait"
	"github.com/waitable/waitable/awswait/internal/standin/eks"
	"github.com/waitable/waitable/waiter"
)

// AWS's ClusterActive waiter for an EKS client, in one line. (So that
// this module requires no service client, eks here is a stand-in for
// aws-sdk-go-v2's service/eks with the same types and methods, whose
// cluster is CREATING, then ACTIVE. With the SDK, the client is
// eks.NewFromConfig(cfg); the module awswait/sdktest runs this example
// with the real client, over scripted HTTP.)
func ExampleNew() {
	client := eks.New(eks.Options{Region: "us-east-1"})

	w, err := awswait.New(client.DescribeCluster, "ClusterActive",
		waiter.WithDelays(time.Millisecond, time.Millisecond)) // AWS's are 30s: shortened for the example
	if err != nil {
		fmt.Println(err)
		return
	}
	out, err := w.Wait(context.Background(), &eks.DescribeClusterInput{Name: aws.String("demo")}, 20*time.Minute)
	fmt.Println(out.Cluster.Status, err)
	// Output: ACTIVE <nil>
}

// Names lists AWS's waiters for a client's service (eks is a stand-in for
// aws-sdk-go-v2's, as in the example of New).
func ExampleNames() {
	client := eks.New(eks.Options{Region: "us-east-1"})
	fmt.Println(awswait.Names(client.DescribeCluster))
	// Output: [AddonActive AddonDeleted ClusterActive ClusterDeleted FargateProfileActive FargateProfileDeleted NodegroupActive NodegroupDeleted]
}

// New in two steps: AWS's definition, checked against the operation, and
// the operation adapted to a waiter's (one HTTP request per call), for
// waiter.New to join with options of its own. (eks is a stand-in for
// aws-sdk-go-v2's, as in the example of New.)
func ExampleOp() {
	client := eks.New(eks.Options{Region: "us-east-1"})

	def, err := awswait.Definition(client.DescribeCluster, "ClusterActive")
	if err != nil {
		fmt.Println(err)
		return
	}
	op, err := awswait.Op(client.DescribeCluster)
	if err != nil {
		fmt.Println(err)
		return
	}
	w, err := waiter.New(def, op, waiter.WithDelays(time.Millisecond, time.Millisecond))
	if err != nil {
		fmt.Println(err)
		return
	}
	out, err := w.Wait(context.Background(), &eks.DescribeClusterInput{Name: aws.String("demo")}, 20*time.Minute)
	fmt.Println(def.Name, out.Cluster.Status, err)
	// Output: ClusterActive ACTIVE <nil>
}
