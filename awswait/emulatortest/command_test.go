package emulatortest

import (
	"errors"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/waitable/waitable/awswait/emulatortest/emulators"
)

// describeTable is a node one-liner that describes a table of the dynalite
// at the port it is given, as a script would with any HTTP client, and
// prints the answer's JSON (a table, or an error's).
const describeTable = `
const [port, table] = process.argv.slice(1)
const req = require('http').request({host: '127.0.0.1', port, method: 'POST', headers: {
  'X-Amz-Target': 'DynamoDB_20120810.DescribeTable', 'Content-Type': 'application/x-amz-json-1.0',
  'X-Amz-Date': '20260101T000000Z',
  'Authorization': 'AWS4-HMAC-SHA256 Credential=AKID/20260101/us-east-1/dynamodb/aws4_request, SignedHeaders=host;x-amz-date, Signature=0'}},
  res => { let b = ''; res.on('data', d => b += d); res.on('end', () => console.log(b)) })
req.end(JSON.stringify({TableName: table}))
`

// waitable builds the waitable command.
func waitable(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "waitable")
	if out, err := exec.Command("go", "build", "-o", bin, "github.com/waitable/waitable/cmd/waitable").CombinedOutput(); err != nil {
		t.Fatalf("go build waitable: %v\n%s", err, out)
	}
	return bin
}

// run runs the command and returns its exit status and its output.
func run(t *testing.T, bin string, args ...string) (int, string) {
	t.Helper()
	out, err := exec.Command(bin, args...).CombinedOutput()
	var exit *exec.ExitError
	switch {
	case err == nil:
		return 0, string(out)
	case errors.As(err, &exit):
		return exit.ExitCode(), string(out)
	}
	t.Fatalf("waitable %s: %v", strings.Join(args, " "), err)
	return 0, ""
}

// TestCommandOnDynalite: `waitable exec` polls a node one-liner that
// describes a dynalite table until it is ACTIVE (exit 0), fails at once on
// a table that does not exist with a failure condition (exit 1), and
// times out on one that stays missing without it (exit 2); `waitable http`
// waits on the emulator's endpoint (exit 0), as the README documents.
func TestCommandOnDynalite(t *testing.T) {
	endpoint := emulators.Start(t, "dynalite", time.Second)
	bin := waitable(t)
	nodeBin := emulators.Node(t)
	port := endpoint[strings.LastIndexByte(endpoint, ':')+1:]
	direct := emulators.DynamoDB(endpoint, nil)
	createTable(t, direct, "orders")
	exists := []string{"exec", "--success", "Table.TableStatus == 'ACTIVE'", "--min-delay", "200ms", "--max-delay", "200ms"}

	code, out := run(t, bin, append(exists, "--max-wait", "30s", "--", nodeBin, "-e", describeTable, port, "orders")...)
	if code != 0 || !strings.Contains(out, `"TableStatus":"ACTIVE"`) || !strings.Contains(out, "waitable: success") {
		t.Errorf("exec on a table being created: exit %d\n%s\nwant exit 0, the table ACTIVE", code, out)
	}
	code, out = run(t, bin, append(exists, "--failure", "contains(__type, 'ResourceNotFound')", "--max-wait", "30s",
		"--", nodeBin, "-e", describeTable, port, "missing")...)
	if code != 1 || !strings.Contains(out, "failure after 1 poll") {
		t.Errorf("exec with a failure condition on a missing table: exit %d\n%s\nwant exit 1 after one poll", code, out)
	}
	code, out = run(t, bin, append(exists, "--max-wait", "1s", "--", nodeBin, "-e", describeTable, port, "missing")...)
	if code != 2 || !strings.Contains(out, "timed out") {
		t.Errorf("exec on a missing table: exit %d\n%s\nwant exit 2, a timeout", code, out)
	}
	code, out = run(t, bin, "http", endpoint, "--text", "--success", "contains(@, 'healthy')", "--max-wait", "10s")
	if code != 0 || !strings.Contains(out, "healthy") {
		t.Errorf("http on dynalite's endpoint: exit %d\n%s\nwant exit 0", code, out)
	}
}
