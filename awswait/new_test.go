package awswait_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/waitable/waitable/awswait"
	"github.com/waitable/waitable/awswait/internal/standin/eks"
	"github.com/waitable/waitable/clocktest"
)

// TestNewWithStandIn: New finds AWS's waiter by the package and type
// names of the operation (the stand-in's are the SDK's eks), polls on
// AWS's schedule (ClusterActive: 30s), and says what is wrong with a
// waiter's name or the operation. The module awswait/sdktest runs the
// same against the SDK's clients.
func TestNewWithStandIn(t *testing.T) {
	clocktest.Run(t, func(t *testing.T) {
		client := eks.New(eks.Options{Region: "us-east-1"})
		w, err := awswait.New(client.DescribeCluster, "ClusterActive")
		if err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		out, err := w.Wait(t.Context(), &eks.DescribeClusterInput{Name: aws.String("demo")}, 20*time.Minute)
		if err != nil || out.Cluster.Status != eks.ClusterStatusActive {
			t.Fatalf("Wait = %v, %v; want ACTIVE", out, err)
		}
		if got := time.Since(start); got != 30*time.Second {
			t.Errorf("ACTIVE after %v, want AWS's 30s delay", got)
		}
	})
	client := eks.New(eks.Options{})
	if _, err := awswait.New(client.DescribeCluster, "ClusterActiv"); err == nil || !strings.Contains(err.Error(), "ClusterActiv") {
		t.Errorf("New(ClusterActiv) = %v, want an error naming it", err)
	}
	if _, err := awswait.New(client.ListClusters, "ClusterActive"); err == nil || !strings.Contains(err.Error(), "polls DescribeCluster") {
		t.Errorf("New(ListClusters, ClusterActive) = %v, want an error saying it polls DescribeCluster", err)
	}
	if names := awswait.Names(client.DescribeCluster); !slices.Contains(names, "ClusterActive") || !slices.IsSorted(names) {
		t.Errorf("Names = %v, want EKS's waiters, sorted", names)
	}
}
