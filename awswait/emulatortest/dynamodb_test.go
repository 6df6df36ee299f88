package emulatortest

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/waitable/waitable/awswait"
	"github.com/waitable/waitable/awswait/emulatortest/emulators"
	"github.com/waitable/waitable/waiter"
)

// dynamo returns a DynamoDB client of a dynalite whose tables stay
// CREATING and DELETING for transition, and the counter of its requests.
func dynamo(t *testing.T, transition time.Duration) (*dynamodb.Client, *emulators.Counter) {
	c := &emulators.Counter{}
	return emulators.DynamoDB(emulators.Start(t, "dynalite", transition), c.Client()), c
}

// createTable creates a table with a string key, as a user would.
func createTable(t *testing.T, client *dynamodb.Client, name string) {
	t.Helper()
	if err := emulators.CreateTable(t.Context(), client, name); err != nil {
		t.Fatal(err)
	}
}

// waitCounted runs w as Start does and returns the attempts it made and
// how it ended.
func waitCounted[I, O any](ctx context.Context, w *waiter.Waiter[I, O], in I, maxWait time.Duration) (int, O, error) {
	r := w.Start(ctx, in, maxWait)
	attempts := 0
	for range r.Events() {
		attempts++
	}
	out, err := r.Result()
	return attempts, out, err
}

// TestTableExistsOnDynalite: AWS's TableExists waits through dynalite's
// real CREATING to ACTIVE, one DescribeTable request a poll; TableNotExists
// through DELETING to gone.
func TestTableExistsOnDynalite(t *testing.T) {
	client, requests := dynamo(t, time.Second)
	createTable(t, client, "orders")
	exists, err := awswait.New(client.DescribeTable, "TableExists", waiter.WithDelays(200*time.Millisecond, 200*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	polls, out, err := waitCounted(t.Context(), exists, &dynamodb.DescribeTableInput{TableName: aws.String("orders")}, 30*time.Second)
	if err != nil || out.Table.TableStatus != types.TableStatusActive {
		t.Fatalf("TableExists = %v; want the table ACTIVE", err)
	}
	if polls < 2 || requests.Requests("DescribeTable") != polls {
		t.Errorf("TableExists: %d polls, %d DescribeTable requests; want at least 2 (it was CREATING), one a poll",
			polls, requests.Requests("DescribeTable"))
	}

	if _, err := client.DeleteTable(t.Context(), &dynamodb.DeleteTableInput{TableName: aws.String("orders")}); err != nil {
		t.Fatal(err)
	}
	gone, err := awswait.New(client.DescribeTable, "TableNotExists", waiter.WithDelays(200*time.Millisecond, 200*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	before := requests.Requests("DescribeTable")
	polls, _, err = waitCounted(t.Context(), gone, &dynamodb.DescribeTableInput{TableName: aws.String("orders")}, 30*time.Second)
	if err != nil || polls < 2 || requests.Requests("DescribeTable")-before != polls {
		t.Errorf("TableNotExists = %v after %d polls and %d requests; want success, at least 2 (it was DELETING), one a poll",
			err, polls, requests.Requests("DescribeTable")-before)
	}
}

// TestTableNeverAppears: TableExists on a table nobody creates polls until
// its budget ends, with ErrTimeout holding dynalite's
// ResourceNotFoundException, one request a poll.
func TestTableNeverAppears(t *testing.T) {
	client, requests := dynamo(t, 0)
	exists, err := awswait.New(client.DescribeTable, "TableExists", waiter.WithDelays(100*time.Millisecond, 100*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	polls, _, err := waitCounted(t.Context(), exists, &dynamodb.DescribeTableInput{TableName: aws.String("nobody")}, time.Second)
	var notFound *types.ResourceNotFoundException
	if !errors.Is(err, waiter.ErrTimeout) || !errors.As(err, &notFound) {
		t.Fatalf("TableExists on a missing table = %v, want ErrTimeout holding ResourceNotFoundException", err)
	}
	if polls < 2 || requests.Requests("DescribeTable") != polls {
		t.Errorf("%d polls, %d requests; want several, one a poll", polls, requests.Requests("DescribeTable"))
	}
}

// TestFinalPollAtTheEndOfTheBudget: a table that becomes ACTIVE late in
// the wait's budget, after the last poll of the schedule, is found by the
// final poll the waiter makes at the end of the budget (the Smithy rule).
// Under the rule as first published, which aws-sdk-go-v2's waiters keep
// (the final poll MinDelay before the deadline), it would not be: that
// poll comes while the table is CREATING.
func TestFinalPollAtTheEndOfTheBudget(t *testing.T) {
	client, requests := dynamo(t, 2500*time.Millisecond)
	createTable(t, client, "late")
	exists, err := awswait.New(client.DescribeTable, "TableExists", waiter.WithDelays(2*time.Second, 2*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	polls, out, err := waitCounted(t.Context(), exists, &dynamodb.DescribeTableInput{TableName: aws.String("late")}, 3*time.Second)
	if err != nil || out.Table.TableStatus != types.TableStatusActive {
		t.Fatalf("TableExists with 3s for a table ACTIVE after 2.5s = %v after %d polls; want the final poll to find it ACTIVE", err, polls)
	}
	if requests.Requests("DescribeTable") != polls {
		t.Errorf("%d polls, %d DescribeTable requests; want one a poll", polls, requests.Requests("DescribeTable"))
	}
}
