// Command quickstart waits for a simulated EKS cluster with the real
// ClusterActive waiter from AWS's EKS Smithy model, printing each attempt
// as it happens.
//
//	go run ./examples/quickstart
package main

import (
	"bytes"
	"context"
	_ "embed"
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/waitable/waitable/waiter"
	"github.com/waitable/waitable/waiter/model"
)

//go:embed eks-cluster-active.json
var eksModel []byte

// The Go types of DescribeCluster, shaped as aws-sdk-go-v2 generates them:
// pointer fields and a typed string enum. The waiter's path is Smithy's
// cluster.status; the Go fields are Cluster and Status.
type (
	ClusterStatus string
	Cluster       struct {
		Name   *string
		Status ClusterStatus
	}
	DescribeClusterInput  struct{ Name *string }
	DescribeClusterOutput struct{ Cluster *Cluster }
)

// throttlingException is the error an AWS service returns when called too
// often: Waitable retries it as transient.
type throttlingException struct{}

func (throttlingException) Error() string     { return "ThrottlingException: Rate exceeded" }
func (throttlingException) ErrorCode() string { return "ThrottlingException" }

// simulatedEKS is a cluster that is CREATING for readyAfter, then ACTIVE,
// and that throttles its third DescribeCluster call.
type simulatedEKS struct {
	mu         sync.Mutex
	created    time.Time
	readyAfter time.Duration
	calls      int
}

func (s *simulatedEKS) DescribeCluster(ctx context.Context, in *DescribeClusterInput) (*DescribeClusterOutput, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls++
	if s.calls == 3 {
		return nil, throttlingException{}
	}
	st := ClusterStatus("CREATING")
	if time.Since(s.created) >= s.readyAfter {
		st = "ACTIVE"
	}
	return &DescribeClusterOutput{Cluster: &Cluster{Name: in.Name, Status: st}}, nil
}

func main() {
	if err := run(context.Background(), os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

func run(ctx context.Context, stdout io.Writer) error {
	catalog, err := model.LoadSmithy(bytes.NewReader(eksModel))
	if err != nil {
		return err
	}
	def, err := catalog.Get("ClusterActive")
	if err != nil {
		return err
	}

	eks := &simulatedEKS{created: time.Now(), readyAfter: 2 * time.Second}
	w, err := waiter.New(def, eks.DescribeCluster,
		// The model says 30s to 120s between polls; shrink them for a demo.
		waiter.WithDelays(200*time.Millisecond, time.Second))
	if err != nil {
		return err
	}

	fmt.Fprintf(stdout, "waiter %s on %s, from AWS's EKS model: %d acceptors\n", def.Name, def.Operation.ID, len(def.Acceptors))
	start := time.Now()
	name := "demo"
	run := w.Start(ctx, &DescribeClusterInput{Name: &name}, time.Minute)
	for a := range run.Events() {
		what := "cluster.status=" + string(a.Output.GetStatus())
		if a.Err != nil {
			what = a.Err.Error()
		}
		verdict := a.Decision.String()
		switch {
		case a.Transient:
			verdict += " (transient error)"
		case a.Acceptor >= 0:
			verdict += fmt.Sprintf(" (acceptor %d: %s)", a.Acceptor, a.Matcher)
		}
		next := ""
		if a.NextDelay > 0 {
			next = fmt.Sprintf(", next poll in %v", a.NextDelay.Round(time.Millisecond))
		}
		fmt.Fprintf(stdout, "  #%d  +%.1fs  %-36s  %s%s\n", a.Checkpoint.Attempts, a.Start.Sub(start).Seconds(), what, verdict, next)
	}
	out, err := run.Result()
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "cluster %s is %s after %.1fs\n", *out.Cluster.Name, out.Cluster.Status, time.Since(start).Seconds())
	return nil
}

// GetStatus returns the cluster's status, or "" when there is none.
func (o *DescribeClusterOutput) GetStatus() ClusterStatus {
	if o == nil || o.Cluster == nil {
		return ""
	}
	return o.Cluster.Status
}
