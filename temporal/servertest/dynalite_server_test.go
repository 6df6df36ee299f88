package servertest

import (
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/server/temporaltest"

	"github.com/waitable/waitable/awswait"
	"github.com/waitable/waitable/awswait/emulatortest/emulators"
	"github.com/waitable/waitable/telemetry"
	"github.com/waitable/waitable/temporal"
	"github.com/waitable/waitable/waiter"
)

// TestDurableWaitOnDynalite: a durable wait for a table that dynalite
// keeps CREATING for four seconds, polled every half second. Its worker
// stops after two polls and a new worker finishes it, in each mode. Each
// poll is one DescribeTable request: only the one in flight at the stop
// may be made again.
func TestDurableWaitOnDynalite(t *testing.T) {
	endpoint := emulators.Start(t, "dynalite", 4*time.Second)
	ts := temporaltest.NewServer(temporaltest.WithT(t))
	for _, mode := range []temporal.Mode{temporal.ModeTimers, temporal.ModeHeartbeat} {
		t.Run(mode.String(), func(t *testing.T) {
			requests := &emulators.Counter{}
			db := emulators.DynamoDB(endpoint, requests.Client())
			table := "orders-" + mode.String()
			if err := emulators.CreateTable(t.Context(), db, table); err != nil {
				t.Fatal(err)
			}
			w, err := awswait.New(db.DescribeTable, "TableExists", waiter.WithDelays(500*time.Millisecond, 500*time.Millisecond),
				waiter.WithTelemetry(telemetry.Settings{Off: true}))
			if err != nil {
				t.Fatal(err)
			}
			register := func(r worker.Registry) {
				if err := temporal.Register(r, "TableExists", w, temporal.WithMode(mode), temporal.WithHeartbeatTimeout(time.Second)); err != nil {
					t.Error(err)
				}
			}
			queue := "dynalite-" + mode.String()
			first := ts.NewWorker(queue, register)
			ctx := t.Context()
			wait, err := temporal.Start[*dynamodb.DescribeTableInput, *dynamodb.DescribeTableOutput](ctx, ts.GetDefaultClient(), "TableExists",
				&dynamodb.DescribeTableInput{TableName: aws.String(table)}, time.Minute, client.StartWorkflowOptions{TaskQueue: queue})
			if err != nil {
				t.Fatal(err)
			}
			waitFor(t, "two polls recorded", func() bool {
				p, err := wait.Progress(ctx)
				return err == nil && p.Checkpoint.Attempts >= 2
			})
			first.Stop()
			stoppedAt := requests.Requests("DescribeTable")
			ts.NewWorker(queue, register)
			out, err := wait.Get(ctx)
			if err != nil || out.Table == nil || out.Table.TableStatus != types.TableStatusActive {
				t.Fatalf("Get = %+v, %v; want the table ACTIVE", out, err)
			}
			p, err := wait.Progress(ctx)
			if err != nil {
				t.Fatal(err)
			}
			attempts, got := p.Checkpoint.Attempts, requests.Requests("DescribeTable")
			if got < attempts || got > attempts+1 || stoppedAt >= attempts {
				t.Errorf("%d DescribeTable requests (%d before the stop) for %d polls; want one a poll, at most one more, and polls after the stop",
					got, stoppedAt, attempts)
			}
			t.Logf("%d polls, %d DescribeTable requests, %d before the stop", attempts, got, stoppedAt)
		})
	}
}
