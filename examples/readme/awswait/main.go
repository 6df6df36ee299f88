package main

import (
	"context"
	"errors"
	"fmt"
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
	switch {
	case err == nil:
		fmt.Println("cluster demo is", out.Cluster.Status)
	case errors.Is(err, waiter.ErrTimeout) && out == nil:
		log.Fatalf("no call succeeded: %v", err) // no answer to show: out is nil
	case errors.Is(err, waiter.ErrTimeout) && out.Cluster != nil:
		log.Fatalf("cluster demo still %s: %v", out.Cluster.Status, err) // out is the last answer
	default:
		log.Fatal(err)
	}
}
