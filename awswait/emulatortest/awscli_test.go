package emulatortest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/kinesis"

	"github.com/waitable/waitable/awswait/emulatortest/emulators"
)

// awsCLI is an AWS CLI installed on the machine.
type awsCLI struct{ version, path string }

// awsMissing says what to install when there is no AWS CLI.
const awsMissing = "aws is not on the PATH: install the AWS CLI (Debian: apt-get install awscli) to run the tests of waitable aws"

var clis struct {
	once  sync.Once
	found []awsCLI
}

// awsCLIs returns every AWS CLI on the PATH, one per version (v1 and v2
// when both are installed), or skips the test (fails it under CI=true)
// when there is none.
func awsCLIs(t *testing.T) []awsCLI {
	t.Helper()
	clis.once.Do(func() {
		seen := map[string]bool{}
		for _, dir := range filepath.SplitList(os.Getenv("PATH")) {
			path := filepath.Join(dir, "aws")
			if _, err := exec.LookPath(path); err != nil {
				continue
			}
			out, _ := exec.Command(path, "--version").CombinedOutput()
			v, ok := strings.CutPrefix(strings.Fields(string(out) + " ")[0], "aws-cli/")
			if !ok || seen[v] {
				continue
			}
			seen[v] = true
			clis.found = append(clis.found, awsCLI{version: v, path: path})
		}
	})
	if len(clis.found) == 0 {
		if os.Getenv("CI") == "true" {
			t.Fatal(awsMissing)
		}
		t.Skip(awsMissing)
	}
	return clis.found
}

// eachCLI runs f as a parallel subtest for each of clis, named by its
// version (v1.45.11, v2.9.19).
func eachCLI(t *testing.T, clis []awsCLI, f func(t *testing.T, cli awsCLI)) {
	for _, cli := range clis {
		t.Run("v"+cli.version, func(t *testing.T) {
			t.Parallel()
			f(t, cli)
		})
	}
}

// cliRun is one run of waitable aws.
type cliRun struct {
	code           int
	stdout, stderr string
	processes      int // runs of the AWS CLI
}

// polls returns the attempts a --json run printed, each with its output.
func (r cliRun) polls(t *testing.T) []attemptLine {
	t.Helper()
	var out []attemptLine
	for line := range strings.Lines(r.stdout) {
		var a attemptLine
		if err := json.Unmarshal([]byte(line), &a); err != nil {
			t.Fatalf("a --json line is not JSON: %q", line)
		}
		if a.Attempt > 0 {
			out = append(out, a)
		}
	}
	return out
}

// attemptLine is the part of waitable's --json attempt record the tests read.
type attemptLine struct {
	Attempt int    `json:"attempt"`
	State   string `json:"state"`
	Error   string `json:"error"`
	Output  struct {
		Table             struct{ TableStatus string }
		StreamDescription struct{ StreamStatus string }
	} `json:"output"`
}

// runAWS runs bin (waitable) with args, cli as the only aws on the PATH
// through a wrapper that counts its runs, and dummy credentials in
// us-east-1, read from no configuration file.
func runAWS(t *testing.T, bin string, cli awsCLI, args ...string) cliRun {
	t.Helper()
	dir := t.TempDir()
	log := filepath.Join(dir, "runs.log")
	wrapper := fmt.Sprintf("#!/bin/sh\necho $$ >> '%s'\nexec '%s' \"$@\"\n", log, cli.path)
	if err := os.WriteFile(filepath.Join(dir, "aws"), []byte(wrapper), 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(t.Context(), bin, args...)
	cmd.Env = append(os.Environ(), "PATH="+dir+string(filepath.ListSeparator)+os.Getenv("PATH"),
		"AWS_ACCESS_KEY_ID=AKID", "AWS_SECRET_ACCESS_KEY=SECRET", "AWS_DEFAULT_REGION=us-east-1",
		"AWS_CONFIG_FILE="+filepath.Join(dir, "config"), "AWS_SHARED_CREDENTIALS_FILE="+filepath.Join(dir, "credentials"))
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	r := cliRun{stdout: stdout.String(), stderr: stderr.String()}
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		r.code = exit.ExitCode()
	case err != nil:
		t.Fatalf("waitable %s: %v", strings.Join(args, " "), err)
	}
	runs, _ := os.ReadFile(log)
	r.processes = bytes.Count(runs, []byte("\n"))
	return r
}

// TestAWSTableOnDynalite: waitable aws dynamodb table-exists, through
// the real AWS CLI against dynalite, waits through a real CREATING to
// ACTIVE, and table-not-exists through DELETING to the table gone (the
// CLI's ResourceNotFoundException, which the waiter's errorType acceptor
// matches), one CLI process a poll.
func TestAWSTableOnDynalite(t *testing.T) {
	clis := awsCLIs(t) // before the emulators start
	endpoint := emulators.Start(t, "dynalite", 6*time.Second)
	client := emulators.DynamoDB(endpoint, nil)
	bin := waitable(t)
	eachCLI(t, clis, func(t *testing.T, cli awsCLI) {
		table := "orders-" + cli.version
		createTable(t, client, table)
		fast := []string{"--json", "--min-delay", "500ms", "--max-delay", "500ms", "--max-wait", "1m", "--"}
		r := runAWS(t, bin, cli, append(append([]string{"aws", "dynamodb", "table-exists"}, fast...), "--table-name", table, "--endpoint-url", endpoint)...)
		polls := r.polls(t)
		if r.code != 0 || len(polls) < 2 || polls[0].Output.Table.TableStatus != "CREATING" || polls[len(polls)-1].Output.Table.TableStatus != "ACTIVE" {
			t.Fatalf("table-exists: exit %d\n%s%s\nwant 0, polls from CREATING to ACTIVE", r.code, r.stdout, r.stderr)
		}
		if r.processes != len(polls) {
			t.Errorf("table-exists: %d polls, %d runs of the CLI; want one a poll", len(polls), r.processes)
		}

		if _, err := client.DeleteTable(t.Context(), &dynamodb.DeleteTableInput{TableName: aws.String(table)}); err != nil {
			t.Fatal(err)
		}
		r = runAWS(t, bin, cli, append(append([]string{"aws", "dynamodb", "table-not-exists"}, fast...), "--table-name", table, "--endpoint-url", endpoint)...)
		polls = r.polls(t)
		if r.code != 0 || len(polls) < 2 || polls[0].Output.Table.TableStatus != "DELETING" ||
			!strings.Contains(polls[len(polls)-1].Error, "ResourceNotFoundException") || polls[len(polls)-1].State != "success" {
			t.Fatalf("table-not-exists: exit %d\n%s%s\nwant 0, polls from DELETING to ResourceNotFoundException", r.code, r.stdout, r.stderr)
		}
		if r.processes != len(polls) {
			t.Errorf("table-not-exists: %d polls, %d runs of the CLI; want one a poll", len(polls), r.processes)
		}
	})
}

// TestAWSStreamOnKinesalite: waitable aws kinesis stream-exists waits
// through kinesalite's real CREATING to ACTIVE, one CLI process a poll.
func TestAWSStreamOnKinesalite(t *testing.T) {
	clis := awsCLIs(t) // before the emulators start
	endpoint := emulators.Start(t, "kinesalite", 6*time.Second)
	client := kinesis.New(kinesis.Options{BaseEndpoint: aws.String(endpoint), Region: "us-east-1", Credentials: emulators.Credentials})
	bin := waitable(t)
	eachCLI(t, clis, func(t *testing.T, cli awsCLI) {
		stream := "clicks-" + strings.ReplaceAll(cli.version, ".", "-")
		if _, err := client.CreateStream(t.Context(), &kinesis.CreateStreamInput{StreamName: aws.String(stream), ShardCount: aws.Int32(1)}); err != nil {
			t.Fatal(err)
		}
		r := runAWS(t, bin, cli, "aws", "kinesis", "stream-exists", "--json", "--min-delay", "500ms", "--max-delay", "500ms", "--max-wait", "1m",
			"--", "--stream-name", stream, "--endpoint-url", endpoint)
		polls := r.polls(t)
		if r.code != 0 || len(polls) < 2 || polls[0].Output.StreamDescription.StreamStatus != "CREATING" ||
			polls[len(polls)-1].Output.StreamDescription.StreamStatus != "ACTIVE" {
			t.Fatalf("stream-exists: exit %d\n%s%s\nwant 0, polls from CREATING to ACTIVE", r.code, r.stdout, r.stderr)
		}
		if r.processes != len(polls) {
			t.Errorf("stream-exists: %d polls, %d runs of the CLI; want one a poll", len(polls), r.processes)
		}
	})
}

// timedOut reads the polls and the time of a timeout's summary.
var timedOut = regexp.MustCompile(`: timed out after (\d+) polls? in ([0-9.]+m?s)`)

// TestAWSTableNeverAppears: a table that never appears times out with
// status 2 within the budget, --max-wait's or, without it, the waiter's
// own: its delay times its maxAttempts (here a waiters file of the
// test's, of 2 s delays and 5 attempts, in which the wait polls more
// than once though each run of the CLI takes seconds).
func TestAWSTableNeverAppears(t *testing.T) {
	clis := awsCLIs(t) // before the emulators start
	endpoint := emulators.Start(t, "dynalite", 0)
	bin := waitable(t)
	file := filepath.Join(t.TempDir(), "waiters-2.json")
	if err := os.WriteFile(file, []byte(`{"version": 2, "waiters": {"TableExists": {"delay": 2, "maxAttempts": 5, "operation": "DescribeTable",
		"acceptors": [{"matcher": "path", "argument": "Table.TableStatus", "expected": "ACTIVE", "state": "success"},
		              {"matcher": "error", "expected": "ResourceNotFoundException", "state": "retry"}]}}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	eachCLI(t, clis, func(t *testing.T, cli awsCLI) {
		for _, tt := range []struct {
			name   string
			args   []string
			budget time.Duration
		}{
			{"--max-wait", []string{"--max-wait", "5s", "--min-delay", "1s", "--max-delay", "1s"}, 5 * time.Second},
			{"the waiter's budget", []string{"--waiters", file}, 10 * time.Second},
		} {
			args := append(append([]string{"aws", "dynamodb", "table-exists"}, tt.args...), "--", "--table-name", "nobody", "--endpoint-url", endpoint)
			r := runAWS(t, bin, cli, args...)
			m := timedOut.FindStringSubmatch(r.stderr)
			if r.code != 2 || m == nil || !strings.Contains(r.stderr, "ResourceNotFoundException") {
				t.Fatalf("%s: exit %d\n%s\nwant 2, timed out, the last error ResourceNotFoundException", tt.name, r.code, r.stderr)
			}
			// A run of the CLI in flight at the deadline is stopped then:
			// the wait ends within moments of it.
			elapsed, _ := time.ParseDuration(m[2])
			if elapsed > tt.budget+250*time.Millisecond {
				t.Errorf("%s: timed out after %v, want within the budget of %v", tt.name, elapsed, tt.budget)
			}
			if tt.budget == 10*time.Second && m[1] == "1" {
				t.Errorf("%s: timed out after 1 poll in %v; want more in a budget of %v", tt.name, elapsed, tt.budget)
			}
			if m[1] != fmt.Sprint(r.processes) {
				t.Errorf("%s: %s polls, %d runs of the CLI; want one a poll", tt.name, m[1], r.processes)
			}
		}
	})
}

// TestAWSFailureAcceptor: a failure acceptor ends the wait at once with
// status 1, after one poll, though the waiter's delay is 30 s: on an
// error code (a waiters file of the test's that fails on a missing
// table's ResourceNotFoundException) and on the output (one that fails on
// a table CREATING).
func TestAWSFailureAcceptor(t *testing.T) {
	clis := awsCLIs(t) // before the emulators start
	endpoint := emulators.Start(t, "dynalite", time.Minute)
	client := emulators.DynamoDB(endpoint, nil)
	bin := waitable(t)
	file := filepath.Join(t.TempDir(), "waiters-2.json")
	if err := os.WriteFile(file, []byte(`{"version": 2, "waiters": {
		"TableThere": {"delay": 30, "maxAttempts": 10, "operation": "DescribeTable",
			"acceptors": [{"matcher": "path", "argument": "Table.TableStatus", "expected": "ACTIVE", "state": "success"},
			              {"matcher": "error", "expected": "ResourceNotFoundException", "state": "failure"}]},
		"TableNotCreating": {"delay": 30, "maxAttempts": 10, "operation": "DescribeTable",
			"acceptors": [{"matcher": "path", "argument": "Table.TableStatus", "expected": "ACTIVE", "state": "success"},
			              {"matcher": "path", "argument": "Table.TableStatus", "expected": "CREATING", "state": "failure"}]}}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	eachCLI(t, clis, func(t *testing.T, cli awsCLI) {
		table := "creating-" + cli.version
		createTable(t, client, table) // CREATING for a minute
		for _, tt := range []struct{ waiter, table, want string }{
			{"table-there", "missing", "acceptor 1 matched (errorType: ResourceNotFoundException)"},
			{"table-not-creating", table, `acceptor 1 matched (output: Table.TableStatus stringEquals "CREATING")`},
		} {
			start := time.Now()
			r := runAWS(t, bin, cli, "aws", "dynamodb", tt.waiter, "--waiters", file, "--", "--table-name", tt.table, "--endpoint-url", endpoint)
			if r.code != 1 || !strings.Contains(r.stderr, "failure after 1 poll") || !strings.Contains(r.stderr, tt.want) || r.processes != 1 {
				t.Errorf("%s: exit %d after %d runs of the CLI in %v\n%s\nwant 1 after one, %s", tt.waiter, r.code, r.processes, time.Since(start), r.stderr, tt.want)
			}
		}
	})
}

// TestAWSThrottled: behind the fault proxy, which throttles
// (ThrottlingException), answers 503 and drops a connection before it
// lets requests through to dynalite, table-exists is retried through the
// three and succeeds: one CLI process a poll, and one request a process
// (the CLI's own retries are off).
func TestAWSThrottled(t *testing.T) {
	clis := awsCLIs(t) // before the emulators start
	target, err := url.Parse(emulators.Start(t, "dynalite", 0))
	if err != nil {
		t.Fatal(err)
	}
	createTable(t, emulators.DynamoDB(target.String(), nil), "orders")
	bin := waitable(t)
	eachCLI(t, clis, func(t *testing.T, cli awsCLI) {
		p := &faultProxy{faults: []string{"throttle", "unavailable", "drop"}, proxy: httputil.NewSingleHostReverseProxy(target)}
		front := httptest.NewServer(p)
		defer front.Close()
		r := runAWS(t, bin, cli, "aws", "dynamodb", "table-exists", "--min-delay", "200ms", "--max-delay", "200ms", "--max-wait", "1m",
			"--", "--table-name", "orders", "--endpoint-url", front.URL)
		for _, want := range []string{
			"#1  +0s  retry  (transient error, retried: ThrottlingException: Rate exceeded)",
			"#2  ", "retry  (transient error, retried: 503: Service Unavailable)",
			"#3  ", "retry  (transient error, retried: Connection was closed before we received a valid response",
			"#4  ", "success  (output: Table.TableStatus stringEquals \"ACTIVE\")",
		} {
			if !strings.Contains(r.stderr, want) {
				t.Errorf("stderr lacks %q", want)
			}
		}
		if requests := len(p.times()); r.code != 0 || r.processes != 4 || requests != 4 {
			t.Errorf("exit %d after %d runs of the CLI and %d requests; want 0 after 4 and 4: throttle, 503, dropped, ACTIVE\n%s",
				r.code, r.processes, requests, r.stderr)
		}
	})
}

// TestAWSBadArgument: an argument the CLI refuses ends the wait at once,
// after one run of the CLI, with status 64 and the CLI's message; no poll
// is printed for it.
func TestAWSBadArgument(t *testing.T) {
	clis := awsCLIs(t) // before the emulators start
	endpoint := emulators.Start(t, "dynalite", 0)
	bin := waitable(t)
	eachCLI(t, clis, func(t *testing.T, cli awsCLI) {
		for _, tt := range []struct {
			name string
			args []string
			want string
		}{
			{"an unknown option", []string{"--table-name", "orders", "--bogus"}, "Unknown options: --bogus"},
			{"a missing argument", nil, "the following arguments are required: --table-name"},
		} {
			r := runAWS(t, bin, cli, append(append([]string{"aws", "dynamodb", "table-exists", "--"}, tt.args...), "--endpoint-url", endpoint)...)
			if r.code != 64 || !strings.Contains(r.stderr, "a usage or configuration error of the AWS CLI") ||
				!strings.Contains(r.stderr, tt.want) || strings.Contains(r.stderr, "#1") || r.processes != 1 {
				t.Errorf("%s: exit %d after %d runs of the CLI\n%s\nwant 64 after 1, with %q and no poll", tt.name, r.code, r.processes, r.stderr, tt.want)
			}
		}
	})
}
