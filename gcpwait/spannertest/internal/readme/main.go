// Command readme is the README's gcpwait program: it adds a table to a
// Cloud Spanner database (a long-running operation) and waits for it with
// a Waitable waiter, printing the operation's progress at each poll. With
// SPANNER_EMULATOR_HOST set, the admin client talks to that emulator.
package main

import (
	"context"
	"fmt"
	"io"
	"log"
	"os"
	"time"

	database "cloud.google.com/go/spanner/admin/database/apiv1"
	"cloud.google.com/go/spanner/admin/database/apiv1/databasepb"

	"github.com/waitable/waitable/gcpwait"
)

func main() {
	ctx := context.Background()
	admin, err := database.NewDatabaseAdminClient(ctx)
	if err != nil {
		log.Fatal(err)
	}
	defer admin.Close()
	if err := run(ctx, admin, os.Args[1], os.Stdout); err != nil {
		log.Fatal(err)
	}
}

func run(ctx context.Context, admin *database.DatabaseAdminClient, db string, out io.Writer) error {
	op, err := admin.UpdateDatabaseDdl(ctx, &databasepb.UpdateDatabaseDdlRequest{Database: db,
		Statements: []string{"CREATE TABLE Jobs (ID INT64 NOT NULL) PRIMARY KEY (ID)"}})
	if err != nil {
		return err
	}
	w, err := gcpwait.NewEmpty(admin.UpdateDatabaseDdlOperation) // the operation's name is the wait's input
	if err != nil {
		return err
	}
	run := w.Start(ctx, op.Name(), 10*time.Minute)
	for a := range run.Events() { // one GetOperation each, its metadata in the output
		fmt.Fprintf(out, "poll %d: done %t, %d statements applied\n",
			a.Checkpoint.Attempts, a.Output.Done, len(a.Output.Metadata.GetCommitTimestamps()))
	}
	if _, err := run.Result(); err != nil {
		return err
	}
	fmt.Fprintln(out, "table Jobs created")
	return nil
}
