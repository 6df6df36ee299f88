package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/waitable/waitable/classify"
)

// An answer of the fake AWS CLI: its exit status and what it prints.
type cliAnswer struct {
	Exit   int    `json:"exit"`
	Stdout string `json:"stdout"`
	Stderr string `json:"stderr"`
	// Hang, a FIFO's path, makes the run write its PID there and then
	// hang until it is killed.
	Hang string `json:"hang,omitempty"`
}

// cliRun is what the fake AWS CLI logs of each run.
type cliRun struct {
	Args []string          `json:"args"`
	Env  map[string]string `json:"env"`
}

// fakeAWS is the AWS CLI for the aws tests: the test binary, run as aws.
// It logs its arguments and its retry settings in WAITABLE_TEST_AWS_LOG,
// one line a run, and gives the answers of WAITABLE_TEST_AWS_ANSWERS in
// order, the last one again and again.
func fakeAWS() int {
	env := map[string]string{}
	for _, k := range []string{"AWS_MAX_ATTEMPTS", "AWS_RETRY_MODE", "AWS_PAGER"} {
		if v, ok := os.LookupEnv(k); ok {
			env[k] = v
		}
	}
	line, _ := json.Marshal(cliRun{Args: os.Args[1:], Env: env})
	log := os.Getenv("WAITABLE_TEST_AWS_LOG")
	f, err := os.OpenFile(log, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 99
	}
	fmt.Fprintf(f, "%s\n", line)
	f.Close()
	data, _ := os.ReadFile(log)
	n := bytes.Count(data, []byte("\n"))
	var answers []cliAnswer
	if err := json.Unmarshal([]byte(os.Getenv("WAITABLE_TEST_AWS_ANSWERS")), &answers); err != nil || len(answers) == 0 {
		fmt.Fprintln(os.Stderr, "WAITABLE_TEST_AWS_ANSWERS:", err)
		return 99
	}
	a := answers[min(n, len(answers))-1]
	if a.Hang != "" {
		os.WriteFile(a.Hang, []byte(strconv.Itoa(os.Getpid())), 0o600)
		time.Sleep(time.Hour)
	}
	fmt.Print(a.Stdout)
	fmt.Fprint(os.Stderr, a.Stderr)
	return a.Exit
}

// fakeCLI puts the fake AWS CLI on a PATH of its own, giving answers, and
// returns the environment to run waitable in and a function that returns
// the runs so far.
func fakeCLI(t *testing.T, answers ...cliAnswer) ([]string, func() []cliRun) {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.Symlink(self, filepath.Join(dir, "aws")); err != nil {
		t.Fatal(err)
	}
	a, _ := json.Marshal(answers)
	log := filepath.Join(dir, "runs.log")
	env := []string{"PATH=" + dir, "WAITABLE_TEST_AWS_LOG=" + log, "WAITABLE_TEST_AWS_ANSWERS=" + string(a)}
	return env, func() []cliRun {
		data, _ := os.ReadFile(log)
		var runs []cliRun
		for line := range strings.Lines(string(data)) {
			var r cliRun
			if err := json.Unmarshal([]byte(line), &r); err != nil {
				t.Fatalf("runs.log: %v", err)
			}
			runs = append(runs, r)
		}
		return runs
	}
}

// What the AWS CLI prints, v1 (1.45.11) and v2 (2.9.19), captured from
// them against dynalite and a proxy that answers with faults.
var (
	creating = cliAnswer{Stdout: `{"Table": {"TableName": "orders", "TableStatus": "CREATING"}}` + "\n"}
	active   = cliAnswer{Stdout: `{"Table": {"TableName": "orders", "TableStatus": "ACTIVE"}}` + "\n"}
	deleting = cliAnswer{Stdout: `{"Table": {"TableName": "orders", "TableStatus": "DELETING"}}` + "\n"}
	notFound = cliAnswer{Exit: 254, Stderr: "\nAn error occurred (ResourceNotFoundException) when calling the DescribeTable operation (reached max retries: 0): Requested resource not found: Table: orders not found\n"}
	throttle = cliAnswer{Exit: 255, Stderr: "\nAn error occurred (ThrottlingException) when calling the DescribeTable operation (reached max retries: 0): Rate exceeded\n"}
	status   = cliAnswer{Exit: 254, Stderr: "\nAn error occurred (503) when calling the DescribeTable operation (reached max retries: 0): Service Unavailable\n"}
	internal = cliAnswer{Exit: 255, Stderr: "\nAn error occurred (InternalServerError) when calling the DescribeTable operation (reached max retries: 0): boom\n"}
	dropped  = cliAnswer{Exit: 255, Stderr: "\nConnection was closed before we received a valid response from endpoint URL: \"http://127.0.0.1:4604/\".\n"}
	refused  = cliAnswer{Exit: 255, Stderr: "\nCould not connect to the endpoint URL: \"http://127.0.0.1:1/\"\n"}
	denied   = cliAnswer{Exit: 254, Stderr: "\nAn error occurred (AccessDeniedException) when calling the DescribeTable operation: User is not authorized\n"}
	v1Note   = "usage: Note: AWS CLI version 2, the latest major version of the AWS CLI, is now stable and recommended for general use. " +
		"For more information, see the AWS CLI version 2 installation instructions at: https://docs.aws.amazon.com/cli/latest/userguide/install-cliv2.html\n\n"
	v1Usage = cliAnswer{Exit: 255, Stderr: v1Note + "usage: aws [options] <command> <subcommand> [<subcommand> ...] [parameters]\n" +
		"To see help text, you can run:\n\n  aws help\n  aws <command> help\n  aws <command> <subcommand> help\n\nUnknown options: --bogus\n"}
	v1Required = cliAnswer{Exit: 2, Stderr: v1Note + "usage: aws [options] <command> <subcommand> [<subcommand> ...] [parameters]\n" +
		"To see help text, you can run:\n\n  aws help\n  aws <command> help\n  aws <command> <subcommand> help\n" +
		"aws: error: the following arguments are required: --table-name\n"}
	v1Creds  = cliAnswer{Exit: 255, Stderr: "Unable to locate credentials. You can configure credentials by running \"aws configure\".\n"}
	v1Region = cliAnswer{Exit: 255, Stderr: "You must specify a region. You can also configure your region by running \"aws configure\".\n"}
	v1Params = cliAnswer{Exit: 255, Stderr: "\nParameter validation failed:\nInvalid length for parameter TableName, value: 0, valid min length: 1\n"}
	v2Params = cliAnswer{Exit: 252, Stderr: "\nParameter validation failed:\nInvalid length for parameter TableName, value: 1, valid min length: 3\n"}
	v2Region = cliAnswer{Exit: 253, Stderr: "\nYou must specify a region. You can also configure your region by running \"aws configure\".\n"}
	// S3's HEAD answers carry no error code: botocore makes the status one.
	noBucket = cliAnswer{Exit: 254, Stderr: "\nAn error occurred (404) when calling the HeadBucket operation: Not Found\n"}
	bucket   = cliAnswer{Stdout: "{\n    \"BucketRegion\": \"us-east-1\"\n}\n"}
)

// TestAWSCommandLine: each poll runs aws SERVICE OPERATION ARGS --output
// json once, with the CLI's own retries off (AWS_MAX_ATTEMPTS=1,
// AWS_RETRY_MODE=standard), and the JSON it prints is the output the
// acceptors read and the command prints at the end.
func TestAWSCommandLine(t *testing.T) {
	env, runs := fakeCLI(t, creating, active)
	r := runBinary(t, env, "aws", "dynamodb", "table-exists", "--min-delay", "5ms", "--max-delay", "5ms", "--",
		"--table-name", "orders", "--region", "eu-west-1")
	if r.code != 0 || !strings.Contains(r.stdout, `"TableStatus": "ACTIVE"`) || !strings.Contains(r.stderr, "success after 2 polls") {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s\nwant 0, the ACTIVE table, after 2 polls", r.code, r.stdout, r.stderr)
	}
	want := cliRun{Args: []string{"dynamodb", "describe-table", "--table-name", "orders", "--region", "eu-west-1", "--output", "json"},
		Env: map[string]string{"AWS_MAX_ATTEMPTS": "1", "AWS_RETRY_MODE": "standard", "AWS_PAGER": ""}}
	got := runs()
	if len(got) != 2 {
		t.Fatalf("%d runs of the CLI for 2 polls, want one a poll", len(got))
	}
	for _, run := range got {
		if !slices.Equal(run.Args, want.Args) || fmt.Sprint(run.Env) != fmt.Sprint(want.Env) {
			t.Errorf("aws %q with %v, want aws %q with %v", run.Args, run.Env, want.Args, want.Env)
		}
	}
}

// TestAWSAnswers: the CLI's answers as the waiter reads them. The error
// code in what it prints on standard error is what errorType acceptors
// match and what the retry strategy classifies: throttles, 5xx and calls
// that reached no service are retried; other errors no acceptor matches
// fail the wait at once. A usage or configuration error (v2's 252 and
// 253, v1's usage text) ends the wait at once with status 64 and the
// CLI's message, printing no poll for it.
func TestAWSAnswers(t *testing.T) {
	for _, tt := range []struct {
		name    string
		waiter  string
		answers []cliAnswer
		code    int
		runs    int
		stderr  []string
	}{
		{"CREATING, then ACTIVE", "table-exists", []cliAnswer{creating, creating, active}, 0, 3, []string{"#2  ", "retry  (no condition held)", "success after 3 polls"}},
		{"an error code an acceptor matches: retry", "table-exists", []cliAnswer{notFound, active}, 0, 2, []string{"retry  (errorType: ResourceNotFoundException)"}},
		{"an error code an acceptor matches: success", "table-not-exists", []cliAnswer{deleting, notFound}, 0, 2, []string{"success  (errorType: ResourceNotFoundException)"}},
		{"a throttle is retried", "table-exists", []cliAnswer{throttle, active}, 0, 2, []string{"transient error, retried: ThrottlingException: Rate exceeded"}},
		{"a 503 is retried", "table-exists", []cliAnswer{status, active}, 0, 2, []string{"transient error, retried: 503: Service Unavailable"}},
		{"a transient code is retried", "table-exists", []cliAnswer{internal, active}, 0, 2, []string{"transient error, retried: InternalServerError: boom"}},
		{"a call that reached no service is retried", "table-exists", []cliAnswer{dropped, refused, active}, 0, 3,
			[]string{"transient error, retried: Connection was closed", "transient error, retried: Could not connect to the endpoint URL"}},
		{"an error no acceptor matches fails at once", "table-exists", []cliAnswer{denied, active}, 1, 1,
			[]string{"failure after 1 poll", "no acceptor matched the error", "AccessDeniedException: User is not authorized"}},
		{"v1: an unknown option", "table-exists", []cliAnswer{v1Usage}, 64, 1, []string{"exit 255, a usage or configuration error of the AWS CLI:\nusage: Note: AWS CLI version 2", "Unknown options: --bogus"}},
		{"v1: a missing argument", "table-exists", []cliAnswer{v1Required}, 64, 1, []string{"aws: error: the following arguments are required: --table-name"}},
		{"v1: no credentials", "table-exists", []cliAnswer{v1Creds}, 64, 1, []string{"Unable to locate credentials"}},
		{"v1: no region", "table-exists", []cliAnswer{v1Region}, 64, 1, []string{"exit 255", "You must specify a region"}},
		{"v1: an invalid parameter", "table-exists", []cliAnswer{v1Params}, 64, 1, []string{"exit 255", "Parameter validation failed:\nInvalid length for parameter TableName"}},
		{"v2: 252", "table-exists", []cliAnswer{v2Params}, 64, 1, []string{"exit 252", "Parameter validation failed:\nInvalid length for parameter TableName"}},
		{"v2: 253, after a poll", "table-exists", []cliAnswer{creating, v2Region}, 64, 2, []string{"#1  +0s  retry", "exit 253", "You must specify a region"}},
		{"a numeric code is the HTTP status", "s3api bucket-exists", []cliAnswer{noBucket, bucket}, 0, 2,
			[]string{"retry  (status: 404)", "success  (status: 200)", `"BucketRegion": "us-east-1"`}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			env, runs := fakeCLI(t, tt.answers...)
			service, waiter, ok := strings.Cut(tt.waiter, " ")
			if !ok {
				service, waiter = "dynamodb", tt.waiter
			}
			r := runBinary(t, env, "aws", service, waiter, "--min-delay", "5ms", "--max-delay", "5ms", "--max-wait", "1m", "--", "--table-name", "orders")
			polls := 0
			for line := range strings.Lines(r.stderr) {
				if strings.HasPrefix(line, "#") {
					polls++
				}
			}
			if r.code != tt.code || len(runs()) != tt.runs {
				t.Errorf("exit %d after %d runs of the CLI, want %d after %d\nstderr:\n%s", r.code, len(runs()), tt.code, tt.runs, r.stderr)
			}
			want := tt.runs
			if tt.code == exitUsage {
				want-- // the refused run is no poll
			}
			if polls != want {
				t.Errorf("%d polls printed for %d runs of the CLI, want %d\nstderr:\n%s", polls, tt.runs, want, r.stderr)
			}
			for _, s := range tt.stderr {
				if !strings.Contains(r.stderr+r.stdout, s) {
					t.Errorf("the output lacks %q:\n%s%s", s, r.stdout, r.stderr)
				}
			}
		})
	}
}

// TestAWSBudget: a waiter's own budget is its delay times its
// maxAttempts, as the AWS CLI's wait has it; --max-wait replaces it, and
// the polls are not counted: a waiter of 1 attempt polls until its
// condition holds. A waiter with no maxAttempts (a Smithy model's) runs
// with --max-wait, and is refused without (TestAWSUsage).
func TestAWSBudget(t *testing.T) {
	defs, err := awsWaiters("dynamodb", "")
	if err != nil {
		t.Fatal(err)
	}
	d, err := pickAWSWaiter(defs, "dynamodb", "table-exists")
	if got := budget(d); err != nil || got != 25*20*time.Second {
		t.Errorf("budget(dynamodb table-exists) = %v, %v; want 8m20s (20s × 25)", got, err)
	}
	file := filepath.Join(t.TempDir(), "waiters-2.json")
	os.WriteFile(file, []byte(`{"version": 2, "waiters": {"TableReady": {"delay": 1, "maxAttempts": 1, "operation": "DescribeTable",
		"acceptors": [{"matcher": "path", "argument": "Table.TableStatus", "expected": "ACTIVE", "state": "success"}]}}}`), 0o644)
	env, runs := fakeCLI(t, creating, creating, active)
	r := runBinary(t, env, "aws", "dynamodb", "table-ready", "--waiters", file, "--min-delay", "5ms", "--max-delay", "5ms", "--max-wait", "1m", "--", "--table-name", "orders")
	if r.code != 0 || len(runs()) != 3 {
		t.Errorf("a waiter of 1 attempt: exit %d after %d runs, want success after 3\nstderr:\n%s", r.code, len(runs()), r.stderr)
	}
	certificate := cliAnswer{Stdout: `{"Certificate": {"DomainValidationOptions": [{"ValidationStatus": "SUCCESS"}]}}`}
	env, runs = fakeCLI(t, certificate)
	r = runBinary(t, env, "aws", "acm", "certificate-validated", "--waiters", "../../testdata/aws/models/acm-2015-12-08.json", "--max-wait", "1m",
		"--", "--certificate-arn", "arn:aws:acm:us-east-1:1:certificate/1")
	if r.code != 0 || len(runs()) != 1 || runs()[0].Args[1] != "describe-certificate" {
		t.Errorf("a Smithy model's waiter, which has no maxAttempts, with --max-wait: exit %d after %d runs\n%s", r.code, len(runs()), r.stderr)
	}
	r = runBinary(t, env, "aws", "dynamodb", "table-ready", "--waiters", file, "--max-wait", "0s", "--", "--table-name", "orders")
	if r.code != exitUsage || !strings.Contains(r.stderr, "--max-wait 0s: want a positive duration") {
		t.Errorf("--max-wait 0s: exit %d, stderr %q; want %d", r.code, r.stderr, exitUsage)
	}
}

// TestAWSUsage: what waitable aws refuses before it runs the CLI, with
// status 64 (127 when there is no aws to run), and its help.
func TestAWSUsage(t *testing.T) {
	env, runs := fakeCLI(t, active)
	for _, tt := range []struct {
		args   []string
		code   int
		stderr string
	}{
		{[]string{"aws"}, 64, "want SERVICE WAITER (dynamodb table-exists)"},
		{[]string{"aws", "dynamodb"}, 64, "want SERVICE WAITER"},
		{[]string{"aws", "dynamo", "table-exists"}, 64, `no AWS service "dynamo" has waiters; did you mean dynamodb?`},
		{[]string{"aws", "s3", "bucket-exists"}, 64, "the AWS CLI names the service s3 s3api (waitable aws s3api WAITER)"},
		{[]string{"aws", "dynamodb", "table-exist"}, 64, `dynamodb has no waiter "table-exist"; did you mean table-exists? (it has contributor-insights-enabled,`},
		{[]string{"aws", "dynamodb", "table-exists", "--", "--table-name", "t", "--query", "Table"}, 64, "--query: the waiter's acceptors read"},
		{[]string{"aws", "dynamodb", "table-exists", "--max-wait", "-1s", "--", "--table-name", "t"}, 64, "--max-wait -1s: want a positive duration"},
		{[]string{"aws", "dynamodb", "table-exists", "--waiters", "testdata/trait.json", "--", "--table-name", "t"}, 64, "dynamodb has no waiter"},
		{[]string{"aws", "list", "dynamodb", "ec2"}, 64, "list takes one SERVICE at most"},
		{[]string{"aws", "jobs", "job-done", "--waiters", "testdata/trait.json", "--max-wait", "1m"}, 64, "waiter JobDone names no operation for the AWS CLI to run"},
		{[]string{"aws", "acm", "certificate-validated", "--waiters", "../../testdata/aws/models/acm-2015-12-08.json", "--", "--certificate-arn", "a"},
			64, "waiter CertificateValidated has no maxAttempts to make a budget of: give --max-wait"},
	} {
		r := runBinary(t, env, tt.args...)
		if r.code != tt.code || !strings.Contains(r.stderr, tt.stderr) {
			t.Errorf("waitable %s: exit %d, stderr %q; want %d and %q", strings.Join(tt.args, " "), r.code, r.stderr, tt.code, tt.stderr)
		}
	}
	if n := len(runs()); n != 0 {
		t.Errorf("the CLI ran %d times for command lines refused before any poll", n)
	}
	r := runBinary(t, []string{"PATH=" + t.TempDir()}, "aws", "dynamodb", "table-exists", "--", "--table-name", "t")
	if r.code != exitNotFound || !strings.Contains(r.stderr, "waitable aws: aws: command not found (install the AWS CLI") {
		t.Errorf("no aws on the PATH: exit %d, stderr %q; want %d, saying what to install", r.code, r.stderr, exitNotFound)
	}
	r = runBinary(t, nil, "aws", "-h")
	if r.code != 0 || !strings.Contains(r.stdout, "waitable aws list [--waiters FILE] [SERVICE]") || !strings.Contains(r.stdout, "--max-wait") || r.stderr != "" {
		t.Errorf("aws -h: exit %d, stdout %q, stderr %q; want the help on stdout", r.code, r.stdout, r.stderr)
	}
}

// TestAWSNames: a waiter and its service are named as the AWS CLI names
// them; the waiter's own name (TableExists) works too.
func TestAWSNames(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"TableExists", "table-exists"},
		{"DBInstanceAvailable", "db-instance-available"},
		{"DescribeDBClusterSnapshots", "describe-db-cluster-snapshots"},
		{"ImageScanComplete", "image-scan-complete"},
		{"InstanceStatusOk", "instance-status-ok"},
		{"NatGatewayAvailable", "nat-gateway-available"},
		{"CacheClusterAvailable", "cache-cluster-available"},
		{"VpcPeeringConnectionExists", "vpc-peering-connection-exists"},
		{"ServicesInactive", "services-inactive"},
		{"V2Thing", "v2-thing"},
		{"com.amazonaws.dynamodb#DescribeTable", "describe-table"},
	} {
		if got := cliName(tt.in); got != tt.want {
			t.Errorf("cliName(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	for _, tt := range []struct{ in, want string }{{"s3", "s3api"}, {"codedeploy", "deploy"}, {"config", "configservice"}, {"ec2", "ec2"}} {
		if got := cliService(tt.in); got != tt.want {
			t.Errorf("cliService(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	env, runs := fakeCLI(t, active)
	if r := runBinary(t, env, "aws", "dynamodb", "TableExists", "--", "--table-name", "orders"); r.code != 0 || len(runs()) != 1 || runs()[0].Args[1] != "describe-table" {
		t.Errorf("waitable aws dynamodb TableExists: exit %d\n%s", r.code, r.stderr)
	}
}

// TestAWSList: waitable aws list lists every waiter of every service,
// under the AWS CLI's names, with the operation each poll runs and the
// budget; with SERVICE, that service's; with --waiters, the file's.
func TestAWSList(t *testing.T) {
	r := runBinary(t, nil, "aws", "list")
	if r.code != 0 {
		t.Fatalf("aws list: exit %d %s", r.code, r.stderr)
	}
	golden(t, "aws-list.golden", r.stdout)
	services := map[string]bool{}
	for line := range strings.Lines(r.stdout) {
		services[strings.Fields(line)[0]] = true
	}
	if n := strings.Count(r.stdout, "\n") - 1; n != 378 || len(services)-1 != 70 {
		t.Errorf("aws list lists %d waiters of %d services, want the 378 of the newest waiters-2.json of each of the 70 services", n, len(services)-1)
	}
	r = runBinary(t, nil, "aws", "list", "kinesis")
	want := "SERVICE  WAITER             OPERATION        DELAY  ATTEMPTS  BUDGET\n" +
		"kinesis  stream-exists      describe-stream  10s    18        3m0s\n" +
		"kinesis  stream-not-exists  describe-stream  10s    18        3m0s\n"
	if r.code != 0 || r.stdout != want {
		t.Errorf("aws list kinesis: exit %d\n%s\nwant\n%s", r.code, r.stdout, want)
	}
	r = runBinary(t, nil, "aws", "list", "--waiters", "testdata/jobs-waiters-2.json", "jobs")
	if r.code != 0 || !strings.HasPrefix(r.stdout, "SERVICE  WAITER") || !strings.Contains(r.stdout, "\njobs  ") {
		t.Errorf("aws list --waiters FILE jobs: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}

// FuzzCLIError: whatever the CLI prints, cliError returns an error and
// never panics; a service's error line gives its code.
func FuzzCLIError(f *testing.F) {
	for _, a := range []cliAnswer{notFound, throttle, status, internal, dropped, refused, denied, v1Usage, v1Required, v1Creds, v1Region, v1Params, v2Params, v2Region, noBucket} {
		f.Add(a.Exit, a.Stderr)
	}
	f.Add(255, "An error occurred () when calling the X operation: ")
	f.Add(1, "An error occurred (Code")
	f.Fuzz(func(t *testing.T, exit int, stderr string) {
		err := cliError(exit, []byte(stderr))
		if err == nil {
			t.Fatalf("cliError(%d, %q) = nil", exit, stderr)
		}
		line := "An error occurred (Throttling) when calling the Describe operation: slow down"
		if exit != 252 && exit != 253 && strings.HasPrefix(stderr, line) {
			var ce *classify.CallError
			if !errors.As(err, &ce) || ce.Code != "Throttling" {
				t.Errorf("cliError(%d, %q) = %v, want the code Throttling", exit, stderr, err)
			}
		}
	})
}
