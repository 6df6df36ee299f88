package emulatortest

import (
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/kinesis"
	"github.com/aws/aws-sdk-go-v2/service/kinesis/types"

	"github.com/waitable/waitable/awswait"
	"github.com/waitable/waitable/awswait/emulatortest/emulators"
	"github.com/waitable/waitable/waiter"
)

// TestStreamExistsOnKinesalite: AWS's StreamExists waits through
// kinesalite's real CREATING to ACTIVE, one DescribeStream request a poll;
// StreamNotExists through DELETING to gone.
func TestStreamExistsOnKinesalite(t *testing.T) {
	requests := &emulators.Counter{}
	client := kinesis.New(kinesis.Options{BaseEndpoint: aws.String(emulators.Start(t, "kinesalite", time.Second)),
		Region: "us-east-1", Credentials: emulators.Credentials, HTTPClient: requests.Client()})
	if _, err := client.CreateStream(t.Context(), &kinesis.CreateStreamInput{StreamName: aws.String("clicks"), ShardCount: aws.Int32(1)}); err != nil {
		t.Fatal(err)
	}
	in := &kinesis.DescribeStreamInput{StreamName: aws.String("clicks")}
	exists, err := awswait.New(client.DescribeStream, "StreamExists", waiter.WithDelays(200*time.Millisecond, 200*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	polls, out, err := waitCounted(t.Context(), exists, in, 30*time.Second)
	if err != nil || out.StreamDescription.StreamStatus != types.StreamStatusActive {
		t.Fatalf("StreamExists = %v; want the stream ACTIVE", err)
	}
	if polls < 2 || requests.Requests("DescribeStream") != polls {
		t.Errorf("StreamExists: %d polls, %d DescribeStream requests; want at least 2 (it was CREATING), one a poll",
			polls, requests.Requests("DescribeStream"))
	}

	if _, err := client.DeleteStream(t.Context(), &kinesis.DeleteStreamInput{StreamName: aws.String("clicks")}); err != nil {
		t.Fatal(err)
	}
	gone, err := awswait.New(client.DescribeStream, "StreamNotExists", waiter.WithDelays(200*time.Millisecond, 200*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	before := requests.Requests("DescribeStream")
	polls, _, err = waitCounted(t.Context(), gone, in, 30*time.Second)
	if err != nil || polls < 2 || requests.Requests("DescribeStream")-before != polls {
		t.Errorf("StreamNotExists = %v after %d polls and %d requests; want success, at least 2 (it was DELETING), one a poll",
			err, polls, requests.Requests("DescribeStream")-before)
	}
}
