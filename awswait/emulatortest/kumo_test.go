package emulatortest

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	"github.com/aws/aws-sdk-go-v2/service/eks"
	ekstypes "github.com/aws/aws-sdk-go-v2/service/eks/types"
	"github.com/aws/aws-sdk-go-v2/service/rds"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/sivchari/kumo"

	"github.com/waitable/waitable/awswait"
	"github.com/waitable/waitable/awswait/emulatortest/emulators"
	"github.com/waitable/waitable/waiter"
)

// fast are the delays of the waits on kumo: its resources change as soon
// as asked, so the tests need no more.
var fast = waiter.WithDelays(50*time.Millisecond, 50*time.Millisecond)

// kumoServer starts kumo in process and returns its endpoint.
func kumoServer(t *testing.T) string {
	srv := kumo.NewServer()
	t.Cleanup(srv.Close)
	return srv.URL
}

// mustWait waits with AWS's waiter name on method's client and checks it
// ended as want says (nil: success), one request a poll.
func mustWait[In, Out, Opts any](t *testing.T, method awswait.Method[In, Out, Opts], name string, in *In,
	requests *emulators.Counter, op string, want error) {
	t.Helper()
	w, err := awswait.New(method, name, fast)
	if err != nil {
		t.Fatal(err)
	}
	before, changing := requests.Requests(op), requests.Pending()
	polls, _, err := waitCounted(t.Context(), w, in, 20*time.Second)
	if changing && polls < 2 {
		t.Errorf("%s ended on its first poll, which saw the state before the change", name)
	}
	if (want == nil) != (err == nil) || (want != nil && !errors.Is(err, want)) {
		t.Errorf("%s = %v, want %v", name, err, want)
	}
	if got := requests.Requests(op) - before; got != polls {
		t.Errorf("%s: %d polls, %d %s requests; want one a poll", name, polls, got, op)
	}
}

// TestS3OnKumo: BucketExists, BucketNotExists, ObjectExists and
// ObjectNotExists wait around another goroutine's changes to kumo's S3.
func TestS3OnKumo(t *testing.T) {
	requests, endpoint := &emulators.Counter{}, kumoServer(t)
	client := s3.New(s3.Options{BaseEndpoint: aws.String(endpoint), Region: "us-east-1", Credentials: emulators.Credentials,
		UsePathStyle: true, HTTPClient: requests.Client()})
	admin := s3.New(s3.Options{BaseEndpoint: aws.String(endpoint), Region: "us-east-1", Credentials: emulators.Credentials, UsePathStyle: true})
	bucket := &s3.HeadBucketInput{Bucket: aws.String("logs")}
	object := &s3.HeadObjectInput{Bucket: aws.String("logs"), Key: aws.String("a.txt")}
	requests.AfterNext(t, func(ctx context.Context) error {
		_, err := admin.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String("logs")})
		return err
	})
	mustWait(t, client.HeadBucket, "BucketExists", bucket, requests, "", nil)
	requests.AfterNext(t, func(ctx context.Context) error {
		_, err := admin.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String("logs"), Key: aws.String("a.txt"), Body: strings.NewReader("x")})
		return err
	})
	mustWait(t, client.HeadObject, "ObjectExists", object, requests, "", nil)
	requests.AfterNext(t, func(ctx context.Context) error {
		_, err := admin.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: aws.String("logs"), Key: aws.String("a.txt")})
		return err
	})
	mustWait(t, client.HeadObject, "ObjectNotExists", object, requests, "", nil)
	requests.AfterNext(t, func(ctx context.Context) error {
		_, err := admin.DeleteBucket(ctx, &s3.DeleteBucketInput{Bucket: aws.String("logs")})
		return err
	})
	mustWait(t, client.HeadBucket, "BucketNotExists", bucket, requests, "", nil)
}

// ec2Client returns an EC2 client of kumo, counting its requests.
func ec2Client(t *testing.T, endpoint string) (*ec2.Client, *emulators.Counter) {
	requests := &emulators.Counter{}
	return ec2.New(ec2.Options{BaseEndpoint: aws.String(endpoint), Region: "us-east-1", Credentials: emulators.Credentials,
		HTTPClient: requests.Client()}), requests
}

// runInstances starts n instances and returns their IDs.
func runInstances(t *testing.T, client *ec2.Client, n int) []string {
	t.Helper()
	out, err := client.RunInstances(t.Context(), &ec2.RunInstancesInput{ImageId: aws.String("ami-12345678"),
		MinCount: aws.Int32(int32(n)), MaxCount: aws.Int32(int32(n)), InstanceType: ec2types.InstanceTypeT3Micro})
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, i := range out.Instances {
		ids = append(ids, *i.InstanceId)
	}
	return ids
}

// TestEC2OnKumo: InstanceRunning and InstanceTerminated on kumo's EC2.
// (EC2's query protocol has no X-Amz-Target: the counted client makes the
// waits' requests only; another makes the changes.)
func TestEC2OnKumo(t *testing.T) {
	endpoint := kumoServer(t)
	client, requests := ec2Client(t, endpoint)
	admin, _ := ec2Client(t, endpoint)
	ids := runInstances(t, admin, 2)
	in := &ec2.DescribeInstancesInput{InstanceIds: ids}
	mustWait(t, client.DescribeInstances, "InstanceRunning", in, requests, "", nil)
	requests.AfterNext(t, func(ctx context.Context) error {
		_, err := admin.TerminateInstances(ctx, &ec2.TerminateInstancesInput{InstanceIds: ids})
		return err
	})
	mustWait(t, client.DescribeInstances, "InstanceTerminated", in, requests, "", nil)
}

// TestEKSOnKumo: ClusterActive on a cluster kumo creates; ClusterDeleted
// fails at once on an ACTIVE cluster, by its failure acceptor, then
// succeeds once the cluster is deleted. (EKS's REST protocol has no
// X-Amz-Target: the counter's "" is every request of the client, and
// only the waits make requests while they run.)
func TestEKSOnKumo(t *testing.T) {
	requests := &emulators.Counter{}
	client := eks.New(eks.Options{BaseEndpoint: aws.String(kumoServer(t)), Region: "us-east-1", Credentials: emulators.Credentials,
		HTTPClient: requests.Client()})
	_, err := client.CreateCluster(t.Context(), &eks.CreateClusterInput{Name: aws.String("demo"),
		RoleArn:            aws.String("arn:aws:iam::123456789012:role/eks"),
		ResourcesVpcConfig: &ekstypes.VpcConfigRequest{SubnetIds: []string{"subnet-1", "subnet-2"}}})
	if err != nil {
		t.Fatal(err)
	}
	in := &eks.DescribeClusterInput{Name: aws.String("demo")}
	mustWait(t, client.DescribeCluster, "ClusterActive", in, requests, "", nil)
	mustWait(t, client.DescribeCluster, "ClusterDeleted", in, requests, "", waiter.ErrFailure)
	if _, err := client.DeleteCluster(t.Context(), &eks.DeleteClusterInput{Name: aws.String("demo")}); err != nil {
		t.Fatal(err)
	}
	mustWait(t, client.DescribeCluster, "ClusterDeleted", in, requests, "", nil)
}

// TestRDSOnKumo: DBInstanceAvailable and DBInstanceDeleted on kumo's RDS.
func TestRDSOnKumo(t *testing.T) {
	requests, endpoint := &emulators.Counter{}, kumoServer(t)
	client := rds.New(rds.Options{BaseEndpoint: aws.String(endpoint), Region: "us-east-1", Credentials: emulators.Credentials,
		HTTPClient: requests.Client()})
	admin := rds.New(rds.Options{BaseEndpoint: aws.String(endpoint), Region: "us-east-1", Credentials: emulators.Credentials})
	if _, err := admin.CreateDBInstance(t.Context(), &rds.CreateDBInstanceInput{DBInstanceIdentifier: aws.String("db1"),
		DBInstanceClass: aws.String("db.t3.micro"), Engine: aws.String("postgres")}); err != nil {
		t.Fatal(err)
	}
	in := &rds.DescribeDBInstancesInput{DBInstanceIdentifier: aws.String("db1")}
	mustWait(t, client.DescribeDBInstances, "DBInstanceAvailable", in, requests, "", nil)
	requests.AfterNext(t, func(ctx context.Context) error {
		_, err := admin.DeleteDBInstance(ctx, &rds.DeleteDBInstanceInput{DBInstanceIdentifier: aws.String("db1"),
			SkipFinalSnapshot: aws.Bool(true)})
		return err
	})
	// Real RDS answers a deleted instance with DBInstanceNotFound, which
	// the waiter's success acceptor matches (the parity tests in
	// awswait/sdktest check it); kumo answers DBInstanceNotFoundFault,
	// which no acceptor matches: the wait ends at once on that error,
	// the resource's deletion seen, rather than polling on.
	mustWait(t, client.DescribeDBInstances, "DBInstanceDeleted", in, requests, "", waiter.ErrFailure)
}

// TestBatchOnKumo: NewBatch waits for 200 of kumo's EC2 instances with
// DescribeInstances calls of up to 100 IDs: each instance has its own
// wait and outcome (three terminated ones fail, the rest run), in a
// handful of calls.
func TestBatchOnKumo(t *testing.T) {
	client, requests := ec2Client(t, kumoServer(t))
	ids := append(runInstances(t, client, 100), runInstances(t, client, 100)...)
	// Three are terminated first: InstanceRunning's failure acceptor
	// ends their waits, and only theirs.
	terminated := map[string]bool{ids[5]: true, ids[150]: true, ids[199]: true}
	if _, err := client.TerminateInstances(t.Context(), &ec2.TerminateInstancesInput{InstanceIds: []string{ids[5], ids[150], ids[199]}}); err != nil {
		t.Fatal(err)
	}
	def, err := awswait.Definition(client.DescribeInstances, "InstanceRunning")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	largest := 0
	describe := func(ctx context.Context, keys []string) (map[string]*ec2.DescribeInstancesOutput, error) {
		mu.Lock()
		largest = max(largest, len(keys))
		mu.Unlock()
		out, err := client.DescribeInstances(ctx, &ec2.DescribeInstancesInput{InstanceIds: keys})
		if err != nil {
			return nil, err
		}
		found := map[string]*ec2.DescribeInstancesOutput{}
		for _, r := range out.Reservations {
			for _, i := range r.Instances {
				found[*i.InstanceId] = &ec2.DescribeInstancesOutput{Reservations: []ec2types.Reservation{{Instances: []ec2types.Instance{i}}}}
			}
		}
		return found, nil
	}
	b, err := waiter.NewBatch(def, describe, waiter.BatchOptions[string, *ec2.DescribeInstancesOutput]{Size: 100, Linger: 20 * time.Millisecond}, fast)
	if err != nil {
		t.Fatal(err)
	}
	before := requests.Requests("")
	runs := make([]*waiter.Run[*ec2.DescribeInstancesOutput], len(ids))
	for i, id := range ids {
		runs[i] = b.Add(t.Context(), id, 20*time.Second)
	}
	for i, r := range runs {
		out, err := r.Result()
		if terminated[ids[i]] {
			if !errors.Is(err, waiter.ErrFailure) {
				t.Errorf("terminated instance %s: %v; want ErrFailure", ids[i], err)
			}
			continue
		}
		if err != nil || out == nil || *out.Reservations[0].Instances[0].InstanceId != ids[i] {
			t.Errorf("instance %s: %v; want it running", ids[i], err)
		}
	}
	calls := requests.Requests("") - before
	if calls < 2 || calls > 6 || largest > 100 {
		t.Errorf("%d DescribeInstances calls for 200 instances, the largest of %d IDs; want 2 to 6 calls of at most 100", calls, largest)
	}
}
