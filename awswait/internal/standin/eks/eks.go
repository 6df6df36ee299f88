// Package eks is a stand-in for aws-sdk-go-v2's service/eks: the shape
// awswait reads (a package named eks, DescribeClusterInput and
// DescribeClusterOutput for the operation DescribeCluster, an Options
// struct with a Retryer and APIOptions), and none of the SDK's code. Its
// client makes no HTTP request: each cluster it is asked about is
// CREATING on the first DescribeCluster and ACTIVE from then on.
//
// awswait's examples and tests use it so that awswait's go.mod need not
// require a service client (every requirement of a module's go.mod,
// test-only ones included, reaches its users' module graphs). The tests
// against the real clients are in the module awswait/sdktest.
package eks

import (
	"context"
	"errors"
	"maps"
	"slices"
	"sync"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/smithy-go/middleware"
)

// Options are the client's options: the fields of the SDK's eks.Options
// that awswait sets per call, and a region.
type Options struct {
	// Region is the AWS region; the stand-in ignores it.
	Region string
	// Retryer is the client's retry strategy; the stand-in never retries.
	Retryer aws.Retryer
	// APIOptions edit an operation's middleware stack; the stand-in
	// builds none.
	APIOptions []func(*middleware.Stack) error
}

// Client is the stand-in's client.
type Client struct {
	options Options

	mu    sync.Mutex
	calls map[string]int
}

// New returns a client with options, as the SDK's eks.New does.
func New(options Options, optFns ...func(*Options)) *Client {
	for _, f := range optFns {
		f(&options)
	}
	return &Client{options: options, calls: map[string]int{}}
}

// ClusterStatus is a cluster's status.
type ClusterStatus string

// The statuses the stand-in answers with.
const (
	ClusterStatusCreating ClusterStatus = "CREATING"
	ClusterStatusActive   ClusterStatus = "ACTIVE"
)

// Cluster is a cluster as DescribeCluster describes it.
type Cluster struct {
	// Name is the cluster's name.
	Name *string
	// Status is the cluster's status.
	Status ClusterStatus
}

// DescribeClusterInput is DescribeCluster's input.
type DescribeClusterInput struct {
	// Name is the name of the cluster to describe.
	Name *string
}

// DescribeClusterOutput is DescribeCluster's output.
type DescribeClusterOutput struct {
	// Cluster is the cluster described.
	Cluster *Cluster
	// ResultMetadata is the SDK's metadata of the call; empty here.
	ResultMetadata middleware.Metadata
}

// DescribeCluster describes the cluster params names: CREATING on the
// first call for its name, ACTIVE from then on.
func (c *Client) DescribeCluster(ctx context.Context, params *DescribeClusterInput, optFns ...func(*Options)) (*DescribeClusterOutput, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if params == nil || params.Name == nil {
		return nil, errors.New("eks: DescribeCluster: the cluster's Name is missing")
	}
	options := c.options
	options.APIOptions = append([]func(*middleware.Stack) error(nil), options.APIOptions...)
	for _, f := range optFns {
		f(&options)
	}
	c.mu.Lock()
	c.calls[*params.Name]++
	n := c.calls[*params.Name]
	c.mu.Unlock()
	status := ClusterStatusActive
	if n == 1 {
		status = ClusterStatusCreating
	}
	return &DescribeClusterOutput{Cluster: &Cluster{Name: params.Name, Status: status}}, nil
}

// ListClustersInput is ListClusters' input.
type ListClustersInput struct{}

// ListClustersOutput is ListClusters' output.
type ListClustersOutput struct {
	// Clusters are the names of the clusters.
	Clusters []string
}

// ListClusters lists the names of the clusters described so far, sorted.
func (c *Client) ListClusters(ctx context.Context, params *ListClustersInput, optFns ...func(*Options)) (*ListClustersOutput, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return &ListClustersOutput{Clusters: slices.Sorted(maps.Keys(c.calls))}, nil
}
