// Command readme is the README's tfwait program: a provider's wait for a
// cluster to become ACTIVE, its StateChangeConf written as providers
// write it, waited on by tfwait. Here it asks an API in process, whose
// cluster is ACTIVE at once; its test runs a 20-minute create in virtual
// time.
package main

import (
	"context"
	"fmt"
	"log"
	"time"

	"github.com/hashicorp/terraform-plugin-sdk/v2/helper/retry"

	"github.com/waitable/waitable/tfwait"
	"github.com/waitable/waitable/waiter"
)

// Cluster is the API's description of a cluster.
type Cluster struct {
	ID, Status string
}

// API is the part of a cloud API the wait uses: nil and no error when
// the cluster does not exist.
type API interface {
	DescribeCluster(ctx context.Context, id string) (*Cluster, error)
}

func main() {
	c, err := waitClusterActive(context.Background(), activeAPI{}, "demo", 20*time.Minute)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("cluster %s is %s\n", c.ID, c.Status)
}

// statusCluster is the provider's refresh.
func statusCluster(ctx context.Context, api API, id string) retry.StateRefreshFunc {
	return func() (any, string, error) {
		c, err := api.DescribeCluster(ctx, id)
		if err != nil || c == nil {
			return nil, "", err // nil: not found (yet)
		}
		return c, c.Status, nil
	}
}

// waitClusterActive waits for the cluster; opts are for tests (a clock).
func waitClusterActive(ctx context.Context, api API, id string, timeout time.Duration, opts ...waiter.Option) (*Cluster, error) {
	conf := &retry.StateChangeConf{
		Pending:    []string{"CREATING"},
		Target:     []string{"ACTIVE"},
		Refresh:    statusCluster(ctx, api, id),
		Timeout:    timeout,
		MinTimeout: 10 * time.Second,
	}
	w, err := tfwait.StateChange(conf, opts...)
	if err != nil {
		return nil, err
	}
	res, err := tfwait.Result(w.Wait(ctx, struct{}{}, conf.Timeout)) // was: conf.WaitForStateContext(ctx)
	if c, ok := res.(*Cluster); ok {
		return c, err // the last answer, with an UnexpectedStateError
	}
	return nil, err // a *retry.TimeoutError says the last state
}

// activeAPI is an API whose clusters are all ACTIVE.
type activeAPI struct{}

func (activeAPI) DescribeCluster(_ context.Context, id string) (*Cluster, error) {
	return &Cluster{ID: id, Status: "ACTIVE"}, nil
}
