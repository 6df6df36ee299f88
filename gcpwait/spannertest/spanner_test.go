package spannertest

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	database "cloud.google.com/go/spanner/admin/database/apiv1"
	"cloud.google.com/go/spanner/admin/database/apiv1/databasepb"
	"cloud.google.com/go/spanner/spannertest"
	"go.uber.org/goleak"
	"google.golang.org/api/option"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/waitable/waitable/gcpwait"
	"github.com/waitable/waitable/waiter"
)

// TestMain checks that no test leaves a goroutine running (spannertest's
// server and the admin client included: each test closes them).
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

const db = "projects/fake-proj/instances/fake-instance/databases/fake-db"

// admin starts spannertest's server (gRPC on a loopback port, as it
// only offers) and returns the generated database admin client of it.
func admin(t *testing.T) *database.DatabaseAdminClient {
	t.Helper()
	srv, err := spannertest.NewServer("localhost:0")
	if err != nil {
		t.Fatal(err)
	}
	srv.SetLogger(t.Logf)
	c, err := database.NewDatabaseAdminClient(t.Context(),
		option.WithEndpoint(srv.Addr), option.WithoutAuthentication(),
		option.WithGRPCDialOption(grpc.WithTransportCredentials(insecure.NewCredentials())))
	if err != nil {
		srv.Close()
		t.Fatal(err)
	}
	t.Cleanup(func() {
		c.Close()
		srv.Close()
	})
	return c
}

// tables returns the fake database's schema: its DDL statements.
func tables(t *testing.T, c *database.DatabaseAdminClient) []string {
	t.Helper()
	resp, err := c.GetDatabaseDdl(context.Background(), &databasepb.GetDatabaseDdlRequest{Database: db})
	if err != nil {
		t.Fatal(err)
	}
	return resp.GetStatements()
}

// TestUpdateDatabaseDdl: a real UpdateDatabaseDdl operation of the
// generated admin client, waited for by name through
// DatabaseAdminClient.UpdateDatabaseDdlOperation, succeeds with the
// table in the schema; a statement the database refuses fails the wait
// with an *OperationError; side by side, the wrapper's own Wait ends the
// same way. spannertest runs on the wall clock (it sleeps up to 100ms
// per statement until someone polls): the waiter polls every 10 to 50ms,
// and the outcome, not the number of polls, is asserted.
func TestUpdateDatabaseDdl(t *testing.T) {
	c := admin(t)
	ctx := t.Context()
	w, err := gcpwait.NewEmpty(c.UpdateDatabaseDdlOperation, waiter.WithDelays(10*time.Millisecond, 50*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}

	op, err := c.UpdateDatabaseDdl(ctx, &databasepb.UpdateDatabaseDdlRequest{Database: db,
		Statements: []string{"CREATE TABLE Jobs (ID INT64 NOT NULL, State STRING(MAX)) PRIMARY KEY (ID)"}})
	if err != nil {
		t.Fatal(err)
	}
	st, err := w.Wait(ctx, op.Name(), 30*time.Second)
	if err != nil || !st.Done {
		t.Fatalf("Wait(%s) = %+v, %v; want done", op.Name(), st, err)
	}
	if got := tables(t, c); !slices.ContainsFunc(got, func(s string) bool { return len(s) > 17 && s[:17] == "CREATE TABLE Jobs" }) {
		t.Errorf("the schema after the wait = %q, want the table Jobs", got)
	}

	// Adding the same table again parses, and the database refuses it.
	again := []string{"CREATE TABLE Jobs (ID INT64 NOT NULL) PRIMARY KEY (ID)"}
	op, err = c.UpdateDatabaseDdl(ctx, &databasepb.UpdateDatabaseDdlRequest{Database: db, Statements: again})
	if err != nil {
		t.Fatal(err)
	}
	_, err = w.Wait(ctx, op.Name(), 30*time.Second)
	var oe *gcpwait.OperationError
	if !errors.Is(err, waiter.ErrFailure) || !errors.As(err, &oe) {
		t.Fatalf("Wait = %v, want an *OperationError", err)
	}

	op, err = c.UpdateDatabaseDdl(ctx, &databasepb.UpdateDatabaseDdlRequest{Database: db, Statements: again})
	if err != nil {
		t.Fatal(err)
	}
	if theirs := c.UpdateDatabaseDdlOperation(op.Name()).Wait(ctx); theirs == nil || theirs.Error() != oe.Err.Error() {
		t.Errorf("the wrapper's own Wait = %v, want the operation's error as gcpwait saw it: %v", theirs, oe.Err)
	}
}
