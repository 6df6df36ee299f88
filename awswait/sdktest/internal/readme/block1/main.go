package main

import (
	"context"
	"errors"
	"log"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/eks"

	"github.com/waitable/waitable/awswait"
	"github.com/waitable/waitable/waiter"
)

func main() {
	ctx := context.Background()
	cfg, err := config.LoadDefaultConfig(ctx)
	if err != nil {
		log.Fatal(err)
	}
	client := eks.NewFromConfig(cfg)
	w, err := awswait.New(client.DescribeCluster, "ClusterActive") // AWS's definition, paths checked against the SDK's types
	if err != nil {
		log.Fatal(err)
	}
	out, err := w.Wait(ctx, &eks.DescribeClusterInput{Name: aws.String("demo")}, 20*time.Minute)
	if errors.Is(err, waiter.ErrTimeout) {
		log.Fatalf("still %s after 20 minutes", out.Cluster.Status) // out shows where the cluster was
	}
	if err != nil {
		log.Fatal(err)
	}
}
