package main

import (
	"bytes"
	"errors"
	"regexp"
	"testing"

	database "cloud.google.com/go/spanner/admin/database/apiv1"
	"cloud.google.com/go/spanner/spannertest"
	"go.uber.org/goleak"

	"github.com/waitable/waitable/gcpwait"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

const db = "projects/fake-proj/instances/fake-instance/databases/fake-db"

// TestREADMEProgram runs the README's gcpwait program against
// spannertest's server, through SPANNER_EMULATOR_HOST as a user would:
// the table is created; run again, the database refuses it, and the
// wait fails with the operation's error.
func TestREADMEProgram(t *testing.T) {
	srv, err := spannertest.NewServer("localhost:0")
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	srv.SetLogger(t.Logf)
	t.Setenv("SPANNER_EMULATOR_HOST", srv.Addr)
	admin, err := database.NewDatabaseAdminClient(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()

	var out bytes.Buffer
	if err := run(t.Context(), admin, db, &out); err != nil {
		t.Fatalf("run = %v\n%s", err, out.String())
	}
	if !regexp.MustCompile(`^(poll \d+: done (true|false), \d+ statements applied\n)+table Jobs created\n$`).Match(out.Bytes()) {
		t.Errorf("output:\n%s", out.String())
	}
	out.Reset()
	err = run(t.Context(), admin, db, &out)
	var oe *gcpwait.OperationError
	if !errors.As(err, &oe) {
		t.Errorf("run again = %v, want an *OperationError: the table exists", err)
	}
}
