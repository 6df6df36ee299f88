// Command s3 waits with AWS's own S3 waiters (BucketExists, ObjectExists,
// loaded from the S3 Smithy model's waitable traits) through the real
// aws-sdk-go-v2 S3 client, against an in-process S3 server (gofakes3 on
// loopback), while another goroutine creates the bucket and then the
// object. The NotFound acceptors match the SDK's real *types.NotFound.
//
//	go run ./examples/s3
package main

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"io"
	"net/http/httptest"
	"os"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"

	"github.com/waitable/waitable/waiter"
	"github.com/waitable/waitable/waiter/model"
)

//go:embed s3-waiters.json
var traits []byte

func main() {
	server := httptest.NewServer(gofakes3.New(s3mem.New()).Server())
	defer server.Close()
	if err := run(context.Background(), os.Stdout, server.URL, server.Client()); err != nil {
		fmt.Fprintln(os.Stderr, err)
		server.Close()
		os.Exit(1)
	}
}

// definitions returns the waiters of one S3 operation's waitable trait.
func definitions(op string) (map[string]waiter.Definition, error) {
	var all map[string]json.RawMessage
	if err := json.Unmarshal(traits, &all); err != nil {
		return nil, err
	}
	defs, err := model.ParseWaitable(all[op])
	if err != nil {
		return nil, err
	}
	out := map[string]waiter.Definition{}
	for _, d := range defs {
		d.Operation.ID = "com.amazonaws.s3#" + op
		out[d.Name] = d
	}
	return out, nil
}

// run waits against the S3 server at endpoint, reached with httpClient.
func run(ctx context.Context, stdout io.Writer, endpoint string, httpClient s3.HTTPClient) error {
	client := s3.New(s3.Options{
		Region:       "us-east-1",
		HTTPClient:   httpClient,
		BaseEndpoint: aws.String(endpoint),
		UsePathStyle: true,
		Credentials:  credentials.NewStaticCredentialsProvider("key", "secret", ""),
	})

	buckets, err := definitions("HeadBucket")
	if err != nil {
		return err
	}
	objects, err := definitions("HeadObject")
	if err != nil {
		return err
	}
	// The model's 5s minimum delay, shrunk for a demo.
	fast := waiter.WithDelays(100*time.Millisecond, 400*time.Millisecond)
	bucketExists, err := waiter.New(buckets["BucketExists"], func(ctx context.Context, in *s3.HeadBucketInput) (*s3.HeadBucketOutput, error) {
		return client.HeadBucket(ctx, in)
	}, fast)
	if err != nil {
		return err
	}
	objectExists, err := waiter.New(objects["ObjectExists"], func(ctx context.Context, in *s3.HeadObjectInput) (*s3.HeadObjectOutput, error) {
		return client.HeadObject(ctx, in)
	}, fast)
	if err != nil {
		return err
	}

	// Someone else creates the bucket after 500ms, the object after 1s.
	created := make(chan error, 1)
	go func() {
		time.Sleep(500 * time.Millisecond)
		if _, err := client.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String("reports")}); err != nil {
			created <- err
			return
		}
		time.Sleep(500 * time.Millisecond)
		_, err := client.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String("reports"), Key: aws.String("2026/q4.csv"), Body: bytes.NewReader([]byte("id,total\n1,42\n"))})
		created <- err
	}()

	start := time.Now()
	show := func(name string, number int, err error, state string) {
		what := "found"
		if err != nil {
			what = fmt.Sprintf("%T", unwrapAPI(err))
		}
		fmt.Fprintf(stdout, "  %-12s #%d  +%.1fs  %-16s %s\n", name, number, time.Since(start).Seconds(), what, state)
	}
	fmt.Fprintln(stdout, "waiting for bucket reports and object 2026/q4.csv with AWS's S3 waiters:")
	br := bucketExists.Start(ctx, &s3.HeadBucketInput{Bucket: aws.String("reports")}, time.Minute)
	for a := range br.Events() {
		show("BucketExists", a.Checkpoint.Attempts, a.Err, a.Decision.String())
	}
	if _, err := br.Result(); err != nil {
		return err
	}
	or := objectExists.Start(ctx, &s3.HeadObjectInput{Bucket: aws.String("reports"), Key: aws.String("2026/q4.csv")}, time.Minute)
	for a := range or.Events() {
		show("ObjectExists", a.Checkpoint.Attempts, a.Err, a.Decision.String())
	}
	head, err := or.Result()
	if err != nil {
		return err
	}
	if err := <-created; err != nil {
		return err
	}
	fmt.Fprintf(stdout, "object is there: %d bytes, after %.1fs\n", aws.ToInt64(head.ContentLength), time.Since(start).Seconds())
	return nil
}

// unwrapAPI returns the SDK's modelled error inside an operation error, if
// any (for display).
func unwrapAPI(err error) error {
	for {
		u, ok := err.(interface{ Unwrap() error })
		if !ok || u.Unwrap() == nil {
			return err
		}
		err = u.Unwrap()
	}
}
