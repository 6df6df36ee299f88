package sdktest_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/cloudformation"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	"github.com/aws/aws-sdk-go-v2/service/eks"
	"github.com/aws/aws-sdk-go-v2/service/rds"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/waitable/waitable/awswait"
)

// Parity: AWS's waiters, run by Waitable through awswait and by the
// waiters aws-sdk-go-v2 generates, drive the same client against the same
// scripted HTTP responses, and must end the same way after the same number
// of HTTP requests. Time is virtual, so the delays of both schedules pass
// at once.
//
// Where the SDK departs from the Smithy waiters specification, the
// outcome or the count is allowed to differ, and parityDifferences says
// why, with the specification's text.

// parityCase is one waiter: how to make the client, the SDK's generated
// waiter and Waitable's, and the responses a script is made of.
type parityCase struct {
	service, waiter string
	sdk, waitable   func(ctx context.Context, s *scripted, maxWait time.Duration) error
	// The responses: the resource in the waited-for state (done), in a
	// state to wait through (pending), in a state it cannot leave (failed;
	// zero if the waiter has none), a modelled error the waiter's
	// acceptors name (modelled; zero if none), a throttle, and an error
	// no acceptor names (denied).
	done, pending, failed, modelled, throttle, denied response
}

// scenarios are the scripts every case runs.
func scenarios(c parityCase) map[string][]response {
	s := map[string][]response{
		"ready at once":                 {c.done},
		"ready after 3 polls":           {c.pending, c.pending, c.done},
		"throttled, then ready":         {c.throttle, c.done},
		"throttled throughout":          {c.throttle},
		"throttled 3 times, then ready": {c.throttle, c.throttle, c.throttle, c.done},
		"an unmodelled error":           {c.pending, c.denied},
		"pending until the wait":        {c.pending},
	}
	if c.failed.status != 0 {
		s["a failure state"] = []response{c.pending, c.failed}
	}
	if c.modelled.status != 0 {
		s["a modelled error"] = []response{c.modelled, c.done}
	}
	return s
}

// parityDifferences are the (waiter, scenario) pairs where the SDK departs
// from the specification, and why.
var parityDifferences = map[string]string{
	"*/throttled throughout": "The caller's budget: aws-sdk-go-v2's waiters end when the client's retryer gives up " +
		"(3 attempts, then the specification's step 4: an error no acceptor matched); Waitable retries throttles and " +
		"5xx on the waiter's schedule until the wait's time (or the waiter's MaxPolls) runs out. Both fail; the SDK " +
		"after 3 requests, Waitable at the deadline.",
	"*/throttled 3 times, then ready": "As for a service throttled throughout: the SDK's waiter fails after its retryer's " +
		"3 attempts; Waitable polls on and succeeds.",
	"*/pending until the wait": "The last attempt and the jitter. The specification: \"If the computed delay subtracted " +
		"from remainingTime is less than or equal to minDelay, then set delay to remainingTime minus minDelay and perform " +
		"one last retry\", with delays drawn by \"random(minDelay, delay)\", \"a random value between two inclusive " +
		"integers\". aws-sdk-go-v2's waiters stop instead (\"if remainingTime < options.MinDelay ... break\") and draw " +
		"from [minDelay, delay) with crypto/rand: the two poll about as often, the same number of times only by chance. " +
		"Both time out.",
	"DBInstanceAvailable/pending until the wait": "Also the definitions: aws-sdk-go-v2 v1.132's RDS waiters back off to " +
		"a MaxDelay of 1800s (a newer RDS model); the RDS model in the corpus (2025-04-02) leaves maxDelay at the " +
		"specification's default, 120s. Both time out.",
	"DBInstanceDeleted/pending until the wait": "as DBInstanceAvailable",
	"InstanceRunning/pending until the wait": "Also the definitions: EC2's Smithy model is not in the corpus, so " +
		"Waitable's EC2 waiters are botocore's (a fixed 15s delay, at most 40 attempts); aws-sdk-go-v2's come from " +
		"EC2's Smithy model (15s to 120s, no attempt limit). Both fail: Waitable with ErrMaxPolls after 40 attempts, " +
		"the SDK at the deadline.",
	"InstanceStopped/pending until the wait": "as InstanceRunning",
	"VolumeAvailable/pending until the wait": "as InstanceRunning",
}

func differs(c parityCase, scenario string) (string, bool) {
	why, ok := parityDifferences[c.waiter+"/"+scenario]
	if all, ok2 := parityDifferences["*/"+scenario]; ok2 {
		why, ok = strings.TrimSpace(all+" "+why), true
	}
	return why, ok
}

// TestParityWithSDKWaiters is the parity table.
func TestParityWithSDKWaiters(t *testing.T) {
	const maxWait = 30 * time.Minute
	services := map[string]bool{}
	for _, c := range parityCases() {
		services[c.service] = true
		for name, script := range scenarios(c) {
			t.Run(c.waiter+"/"+name, func(t *testing.T) {
				var sdkErr, ourErr error
				var sdkCalls, ourCalls int
				synctest.Test(t, func(t *testing.T) {
					s := &scripted{latency: 100 * time.Millisecond, script: script}
					sdkErr, sdkCalls = c.sdk(t.Context(), s, maxWait), s.count()
				})
				synctest.Test(t, func(t *testing.T) {
					s := &scripted{latency: 100 * time.Millisecond, script: script}
					ourErr, ourCalls = c.waitable(t.Context(), s, maxWait), s.count()
				})
				same := (sdkErr == nil) == (ourErr == nil) && sdkCalls == ourCalls
				if why, ok := differs(c, name); ok {
					if name == "throttled 3 times, then ready" {
						if sdkErr == nil || ourErr != nil {
							t.Errorf("SDK %v, Waitable %v; want the SDK to fail and Waitable to succeed", sdkErr, ourErr)
						}
					} else if (sdkErr == nil) != (ourErr == nil) {
						t.Errorf("outcomes differ beyond the listed difference: SDK %v, Waitable %v", sdkErr, ourErr)
					}
					t.Logf("SDK: %d requests (%v); Waitable: %d (%v). Listed difference: %s", sdkCalls, sdkErr, ourCalls, ourErr, why)
					return
				}
				if !same {
					t.Errorf("SDK: %d requests, %v; Waitable: %d requests, %v", sdkCalls, sdkErr, ourCalls, ourErr)
				}
				switch name {
				case "ready at once", "ready after 3 polls", "throttled, then ready":
					if ourErr != nil {
						t.Errorf("Waitable: %v, want success", ourErr)
					}
				case "an unmodelled error", "a failure state", "throttled throughout":
					if ourErr == nil {
						t.Error("Waitable succeeded, want a failure")
					}
				}
			})
		}
	}
	if len(parityCases()) < 12 || len(services) < 5 {
		t.Errorf("%d waiters over %d services, want at least 12 over 5", len(parityCases()), len(services))
	}
}

// run waits with an SDK waiter; the helpers below adapt each service.
func waitable[C, In, Out, Options any](client func(*scripted) C, method func(C) awswait.Method[In, Out, Options], name string, in *In) func(context.Context, *scripted, time.Duration) error {
	return func(ctx context.Context, s *scripted, maxWait time.Duration) error {
		w, err := awswait.New(method(client(s)), name)
		if err != nil {
			return fmt.Errorf("awswait.New: %w", err)
		}
		_, err = w.Wait(ctx, in, maxWait)
		return err
	}
}

var (
	region = "us-east-1"
	anon   = aws.AnonymousCredentials{}
)

func ddbClient(s *scripted) *dynamodb.Client {
	return dynamodb.New(dynamodb.Options{Region: region, Credentials: anon, HTTPClient: s, BaseEndpoint: aws.String("http://dynamodb.local")})
}
func s3Client(s *scripted) *s3.Client {
	return s3.New(s3.Options{Region: region, Credentials: anon, HTTPClient: s, BaseEndpoint: aws.String("http://s3.local"), UsePathStyle: true})
}
func eksClient(s *scripted) *eks.Client {
	return eks.New(eks.Options{Region: region, Credentials: anon, HTTPClient: s, BaseEndpoint: aws.String("http://eks.local")})
}
func rdsClient(s *scripted) *rds.Client {
	return rds.New(rds.Options{Region: region, Credentials: anon, HTTPClient: s, BaseEndpoint: aws.String("http://rds.local")})
}
func cfnClient(s *scripted) *cloudformation.Client {
	return cloudformation.New(cloudformation.Options{Region: region, Credentials: anon, HTTPClient: s, BaseEndpoint: aws.String("http://cfn.local")})
}
func ec2Client(s *scripted) *ec2.Client {
	return ec2.New(ec2.Options{Region: region, Credentials: anon, HTTPClient: s, BaseEndpoint: aws.String("http://ec2.local")})
}

// Responses in each protocol.

func jsonErr(status int, code string) response {
	return response{status, map[string]string{"Content-Type": "application/x-amz-json-1.0"}, `{"__type":"com.amazonaws.dynamodb.v20120810#` + code + `","message":"scripted"}`}
}
func ddbTable(status string) response {
	return response{200, map[string]string{"Content-Type": "application/x-amz-json-1.0"}, `{"Table":{"TableName":"orders","TableStatus":"` + status + `"}}`}
}
func head(status int) response { return response{status, nil, ""} }
func eksCluster(status string) response {
	return response{200, map[string]string{"Content-Type": "application/json"}, `{"cluster":{"name":"demo","status":"` + status + `"}}`}
}
func restJSONErr(status int, code string) response {
	return response{status, map[string]string{"Content-Type": "application/json", "X-Amzn-Errortype": code}, `{"message":"scripted"}`}
}
func queryErr(status int, code string) response {
	return response{status, map[string]string{"Content-Type": "text/xml"},
		`<ErrorResponse><Error><Type>Sender</Type><Code>` + code + `</Code><Message>scripted</Message></Error><RequestId>r</RequestId></ErrorResponse>`}
}
func rdsInstances(statuses ...string) response {
	var b strings.Builder
	for i, s := range statuses {
		fmt.Fprintf(&b, "<DBInstance><DBInstanceIdentifier>db%d</DBInstanceIdentifier><DBInstanceStatus>%s</DBInstanceStatus></DBInstance>", i, s)
	}
	return response{200, map[string]string{"Content-Type": "text/xml"}, `<DescribeDBInstancesResponse xmlns="http://rds.amazonaws.com/doc/2014-10-31/"><DescribeDBInstancesResult><DBInstances>` +
		b.String() + `</DBInstances></DescribeDBInstancesResult><ResponseMetadata><RequestId>r</RequestId></ResponseMetadata></DescribeDBInstancesResponse>`}
}
func cfnStack(status string) response {
	return response{200, map[string]string{"Content-Type": "text/xml"}, `<DescribeStacksResponse xmlns="http://cloudformation.amazonaws.com/doc/2010-05-15/"><DescribeStacksResult><Stacks><member>` +
		`<StackName>demo</StackName><StackStatus>` + status + `</StackStatus><CreationTime>2026-01-01T00:00:00Z</CreationTime></member></Stacks></DescribeStacksResult>` +
		`<ResponseMetadata><RequestId>r</RequestId></ResponseMetadata></DescribeStacksResponse>`}
}
func ec2Err(status int, code string) response {
	return response{status, map[string]string{"Content-Type": "text/xml"},
		`<Response><Errors><Error><Code>` + code + `</Code><Message>scripted</Message></Error></Errors><RequestID>r</RequestID></Response>`}
}
func ec2Instance(state string) response {
	return response{200, map[string]string{"Content-Type": "text/xml"}, `<DescribeInstancesResponse xmlns="http://ec2.amazonaws.com/doc/2016-11-15/"><requestId>r</requestId>` +
		`<reservationSet><item><instancesSet><item><instanceId>i-1</instanceId><instanceState><code>0</code><name>` + state +
		`</name></instanceState></item></instancesSet></item></reservationSet></DescribeInstancesResponse>`}
}
func ec2Volume(state string) response {
	return response{200, map[string]string{"Content-Type": "text/xml"}, `<DescribeVolumesResponse xmlns="http://ec2.amazonaws.com/doc/2016-11-15/"><requestId>r</requestId>` +
		`<volumeSet><item><volumeId>vol-1</volumeId><status>` + state + `</status></item></volumeSet></DescribeVolumesResponse>`}
}

func parityCases() []parityCase {
	table := &dynamodb.DescribeTableInput{TableName: aws.String("orders")}
	bucket := &s3.HeadBucketInput{Bucket: aws.String("reports")}
	object := &s3.HeadObjectInput{Bucket: aws.String("reports"), Key: aws.String("q4.csv")}
	cluster := &eks.DescribeClusterInput{Name: aws.String("demo")}
	db := &rds.DescribeDBInstancesInput{DBInstanceIdentifier: aws.String("db0")}
	stack := &cloudformation.DescribeStacksInput{StackName: aws.String("demo")}
	instances := &ec2.DescribeInstancesInput{InstanceIds: []string{"i-1"}}
	volumes := &ec2.DescribeVolumesInput{VolumeIds: []string{"vol-1"}}
	ddbMethod := func(c *dynamodb.Client) awswait.Method[dynamodb.DescribeTableInput, dynamodb.DescribeTableOutput, dynamodb.Options] {
		return c.DescribeTable
	}
	headBucket := func(c *s3.Client) awswait.Method[s3.HeadBucketInput, s3.HeadBucketOutput, s3.Options] {
		return c.HeadBucket
	}
	headObject := func(c *s3.Client) awswait.Method[s3.HeadObjectInput, s3.HeadObjectOutput, s3.Options] {
		return c.HeadObject
	}
	describeCluster := func(c *eks.Client) awswait.Method[eks.DescribeClusterInput, eks.DescribeClusterOutput, eks.Options] {
		return c.DescribeCluster
	}
	describeDB := func(c *rds.Client) awswait.Method[rds.DescribeDBInstancesInput, rds.DescribeDBInstancesOutput, rds.Options] {
		return c.DescribeDBInstances
	}
	describeStacks := func(c *cloudformation.Client) awswait.Method[cloudformation.DescribeStacksInput, cloudformation.DescribeStacksOutput, cloudformation.Options] {
		return c.DescribeStacks
	}
	describeInstances := func(c *ec2.Client) awswait.Method[ec2.DescribeInstancesInput, ec2.DescribeInstancesOutput, ec2.Options] {
		return c.DescribeInstances
	}
	describeVolumes := func(c *ec2.Client) awswait.Method[ec2.DescribeVolumesInput, ec2.DescribeVolumesOutput, ec2.Options] {
		return c.DescribeVolumes
	}
	throttleJSON, deniedJSON := jsonErr(400, "ThrottlingException"), jsonErr(400, "AccessDeniedException")
	return []parityCase{
		{service: "DynamoDB", waiter: "TableExists",
			sdk: func(ctx context.Context, s *scripted, d time.Duration) error {
				return dynamodb.NewTableExistsWaiter(ddbClient(s)).Wait(ctx, table, d)
			},
			waitable: waitable(ddbClient, ddbMethod, "TableExists", table),
			done:     ddbTable("ACTIVE"), pending: ddbTable("CREATING"), modelled: jsonErr(400, "ResourceNotFoundException"),
			throttle: throttleJSON, denied: deniedJSON},
		{service: "DynamoDB", waiter: "TableNotExists",
			sdk: func(ctx context.Context, s *scripted, d time.Duration) error {
				return dynamodb.NewTableNotExistsWaiter(ddbClient(s)).Wait(ctx, table, d)
			},
			waitable: waitable(ddbClient, ddbMethod, "TableNotExists", table),
			done:     jsonErr(400, "ResourceNotFoundException"), pending: ddbTable("DELETING"), throttle: throttleJSON, denied: deniedJSON},
		{service: "S3", waiter: "BucketExists",
			sdk: func(ctx context.Context, s *scripted, d time.Duration) error {
				return s3.NewBucketExistsWaiter(s3Client(s)).Wait(ctx, bucket, d)
			},
			waitable: waitable(s3Client, headBucket, "BucketExists", bucket),
			done:     head(200), pending: head(404), throttle: head(503), denied: head(403)},
		{service: "S3", waiter: "BucketNotExists",
			sdk: func(ctx context.Context, s *scripted, d time.Duration) error {
				return s3.NewBucketNotExistsWaiter(s3Client(s)).Wait(ctx, bucket, d)
			},
			waitable: waitable(s3Client, headBucket, "BucketNotExists", bucket),
			done:     head(404), pending: head(200), throttle: head(503), denied: head(403)},
		{service: "S3", waiter: "ObjectExists",
			sdk: func(ctx context.Context, s *scripted, d time.Duration) error {
				return s3.NewObjectExistsWaiter(s3Client(s)).Wait(ctx, object, d)
			},
			waitable: waitable(s3Client, headObject, "ObjectExists", object),
			done:     head(200), pending: head(404), throttle: head(503), denied: head(403)},
		{service: "S3", waiter: "ObjectNotExists",
			sdk: func(ctx context.Context, s *scripted, d time.Duration) error {
				return s3.NewObjectNotExistsWaiter(s3Client(s)).Wait(ctx, object, d)
			},
			waitable: waitable(s3Client, headObject, "ObjectNotExists", object),
			done:     head(404), pending: head(200), throttle: head(503), denied: head(403)},
		{service: "EKS", waiter: "ClusterActive",
			sdk: func(ctx context.Context, s *scripted, d time.Duration) error {
				return eks.NewClusterActiveWaiter(eksClient(s)).Wait(ctx, cluster, d)
			},
			waitable: waitable(eksClient, describeCluster, "ClusterActive", cluster),
			done:     eksCluster("ACTIVE"), pending: eksCluster("CREATING"), failed: eksCluster("FAILED"),
			throttle: restJSONErr(429, "ThrottlingException"), denied: restJSONErr(403, "AccessDeniedException")},
		{service: "EKS", waiter: "ClusterDeleted",
			sdk: func(ctx context.Context, s *scripted, d time.Duration) error {
				return eks.NewClusterDeletedWaiter(eksClient(s)).Wait(ctx, cluster, d)
			},
			waitable: waitable(eksClient, describeCluster, "ClusterDeleted", cluster),
			done:     restJSONErr(404, "ResourceNotFoundException"), pending: eksCluster("DELETING"), failed: eksCluster("ACTIVE"),
			throttle: restJSONErr(429, "ThrottlingException"), denied: restJSONErr(403, "AccessDeniedException")},
		{service: "RDS", waiter: "DBInstanceAvailable",
			sdk: func(ctx context.Context, s *scripted, d time.Duration) error {
				return rds.NewDBInstanceAvailableWaiter(rdsClient(s)).Wait(ctx, db, d)
			},
			waitable: waitable(rdsClient, describeDB, "DBInstanceAvailable", db),
			done:     rdsInstances("available"), pending: rdsInstances("creating"), failed: rdsInstances("failed"),
			throttle: queryErr(400, "Throttling"), denied: queryErr(403, "AccessDenied")},
		{service: "RDS", waiter: "DBInstanceDeleted",
			sdk: func(ctx context.Context, s *scripted, d time.Duration) error {
				return rds.NewDBInstanceDeletedWaiter(rdsClient(s)).Wait(ctx, db, d)
			},
			waitable: waitable(rdsClient, describeDB, "DBInstanceDeleted", db),
			done:     queryErr(404, "DBInstanceNotFound"), pending: rdsInstances("deleting"), failed: rdsInstances("creating"),
			modelled: rdsInstances(), throttle: queryErr(400, "Throttling"), denied: queryErr(403, "AccessDenied")},
		{service: "CloudFormation", waiter: "StackCreateComplete",
			sdk: func(ctx context.Context, s *scripted, d time.Duration) error {
				return cloudformation.NewStackCreateCompleteWaiter(cfnClient(s)).Wait(ctx, stack, d)
			},
			waitable: waitable(cfnClient, describeStacks, "StackCreateComplete", stack),
			done:     cfnStack("CREATE_COMPLETE"), pending: cfnStack("CREATE_IN_PROGRESS"), failed: cfnStack("ROLLBACK_COMPLETE"),
			modelled: queryErr(400, "ValidationError"), throttle: queryErr(400, "Throttling"), denied: queryErr(403, "AccessDenied")},
		{service: "CloudFormation", waiter: "StackDeleteComplete",
			sdk: func(ctx context.Context, s *scripted, d time.Duration) error {
				return cloudformation.NewStackDeleteCompleteWaiter(cfnClient(s)).Wait(ctx, stack, d)
			},
			waitable: waitable(cfnClient, describeStacks, "StackDeleteComplete", stack),
			done:     cfnStack("DELETE_COMPLETE"), pending: cfnStack("DELETE_IN_PROGRESS"), failed: cfnStack("DELETE_FAILED"),
			modelled: queryErr(400, "ValidationError"), throttle: queryErr(400, "Throttling"), denied: queryErr(403, "AccessDenied")},
		{service: "EC2", waiter: "InstanceRunning",
			sdk: func(ctx context.Context, s *scripted, d time.Duration) error {
				return ec2.NewInstanceRunningWaiter(ec2Client(s)).Wait(ctx, instances, d)
			},
			waitable: waitable(ec2Client, describeInstances, "InstanceRunning", instances),
			done:     ec2Instance("running"), pending: ec2Instance("pending"), failed: ec2Instance("terminated"),
			modelled: ec2Err(400, "InvalidInstanceID.NotFound"), throttle: ec2Err(503, "RequestLimitExceeded"), denied: ec2Err(403, "UnauthorizedOperation")},
		{service: "EC2", waiter: "InstanceStopped",
			sdk: func(ctx context.Context, s *scripted, d time.Duration) error {
				return ec2.NewInstanceStoppedWaiter(ec2Client(s)).Wait(ctx, instances, d)
			},
			waitable: waitable(ec2Client, describeInstances, "InstanceStopped", instances),
			done:     ec2Instance("stopped"), pending: ec2Instance("stopping"), failed: ec2Instance("terminated"),
			throttle: ec2Err(503, "RequestLimitExceeded"), denied: ec2Err(403, "UnauthorizedOperation")},
		{service: "EC2", waiter: "VolumeAvailable",
			sdk: func(ctx context.Context, s *scripted, d time.Duration) error {
				return ec2.NewVolumeAvailableWaiter(ec2Client(s)).Wait(ctx, volumes, d)
			},
			waitable: waitable(ec2Client, describeVolumes, "VolumeAvailable", volumes),
			done:     ec2Volume("available"), pending: ec2Volume("creating"), failed: ec2Volume("deleted"),
			throttle: ec2Err(503, "RequestLimitExceeded"), denied: ec2Err(403, "UnauthorizedOperation")},
	}
}
