package main

import (
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// lintLines runs lint and returns its exit status and its lines of output.
func lintLines(t *testing.T, args ...string) (int, []string) {
	t.Helper()
	r := runBinary(t, nil, append([]string{"lint"}, args...)...)
	return r.code, strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n")
}

// wantLines compares lint's lines with the wanted ones.
func wantLines(t *testing.T, code int, got []string, wantCode int, want ...string) {
	t.Helper()
	if code != wantCode || !slices.Equal(got, want) {
		t.Errorf("exit %d, lines:\n%s\nwant exit %d, lines:\n%s", code, strings.Join(got, "\n"), wantCode, strings.Join(want, "\n"))
	}
}

// TestLintChecksPaths: a Smithy model's paths are checked against its
// shapes (a misspelt name, a number compared with stringEquals, a string
// given to abs, inputOutput, a message, a quoted name with escapes), each
// problem at the line and column of the part at fault in the file, with
// its waiter and acceptor. Today's lint said "1 waiter, ok".
func TestLintChecksPaths(t *testing.T) {
	code, lines := lintLines(t, "testdata/typos-smithy.json")
	wantLines(t, code, lines, exitLint,
		`testdata/typos-smithy.json:6:62: waiter ThingReady: acceptor 0: path: statsu: type error at offset 0: field "statsu" does not exist on example#GetThingOutput (did you mean status?)`,
		`testdata/typos-smithy.json:7:61: waiter ThingReady: acceptor 1: path: length(items): stringEquals needs a string, but the path gives a number`,
		`testdata/typos-smithy.json:8:71: waiter ThingReady: acceptor 2: path: input.nmae == output.name: type error at offset 6: input.nmae: field "nmae" does not exist on example#GetThingInput (did you mean name?)`,
		"testdata/typos-smithy.json:9:76: waiter ThingReady: acceptor 3: path: length(items[?stauts == 'BROKEN']) > `0`: type error at offset 14: field \"stauts\" does not exist on example#Item (did you mean status?)",
		"testdata/typos-smithy.json:10:66: waiter ThingReady: acceptor 4: path: abs(status) > `1`: type error at offset 4: argument 1 of abs() must be a number, but status is a string (smithy.api#String)",
		`testdata/typos-smithy.json:11:70: waiter ThingReady: acceptor 5: path: items[]."i\u0064s": type error at offset 8: field "ids" does not exist on example#Item (did you mean id?)`,
		`testdata/typos-smithy.json:11:150: waiter ThingReady: acceptor 5: message: staus: type error at offset 0: field "staus" does not exist on example#GetThingOutput (did you mean status?)`,
	)
}

// TestLintBotocore: a botocore document is checked against the service
// model beside it (service-2.json) or given with --service; without one,
// what needs no shapes is still checked (a pathAll on a boolean).
func TestLintBotocore(t *testing.T) {
	want := func(file string) []string {
		return []string{
			file + `:6:86: waiter TableTypo: acceptor 0: path: Table.TableStatsu: type error at offset 6: field "TableStatsu" does not exist on TableDescription (did you mean TableStatus?)`,
			file + ":7:78: waiter TableTypo: acceptor 1: path: length(Table.Replicas) > `0`: pathAll matches an array (botocore: a list), but the argument gives a boolean: it never matches",
			file + `:8:70: waiter TableTypo: acceptor 2: path: Table.TableName: expected 3 is a number, but the argument gives a string (TableName): the path matcher never matches`,
			file + `:9:93: waiter TableTypo: acceptor 3: path: Table.Replicas[].RegionNmae: type error at offset 17: field "RegionNmae" does not exist on Replica (did you mean RegionName?)`,
			file + `:10:43: waiter IndexGone: operation: testdata/botocore/service-2.json has no operation "DescribeTabel" (did you mean DescribeTable?)`,
		}
	}
	code, lines := lintLines(t, "testdata/botocore/waiters-2.json")
	wantLines(t, code, lines, exitLint, want("testdata/botocore/waiters-2.json")...)

	// Under another name, the service model is not looked for beside it.
	doc, err := os.ReadFile("testdata/botocore/waiters-2.json")
	if err != nil {
		t.Fatal(err)
	}
	other := filepath.Join(t.TempDir(), "dynamodb-waiters.json")
	if err := os.WriteFile(other, doc, 0o644); err != nil {
		t.Fatal(err)
	}
	code, lines = lintLines(t, other)
	wantLines(t, code, lines, exitLint, want(other)[1])
	code, lines = lintLines(t, "--service", "testdata/botocore/service-2.json", other)
	wantLines(t, code, lines, exitLint, want(other)...)

	// A document with no problem says whether its paths met shapes.
	ok := filepath.Join(t.TempDir(), "ok.json")
	if err := os.WriteFile(ok, []byte(`{"version": 2, "waiters": {"TableExists": {"delay": 20, "operation": "DescribeTable", "maxAttempts": 25,
		"acceptors": [{"expected": "ACTIVE", "matcher": "path", "state": "success", "argument": "Table.TableStatus"}]}}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	code, lines = lintLines(t, ok)
	wantLines(t, code, lines, exitSuccess, ok+": 1 waiter, ok (paths not checked against shapes: no service model; see --service)")
	code, lines = lintLines(t, "--service", "testdata/botocore/service-2.json", ok)
	wantLines(t, code, lines, exitSuccess, ok+": 1 waiter, ok")

	// A service model that is not one is bad input.
	r := runBinary(t, nil, "lint", "--service", "testdata/typos-smithy.json", ok)
	if r.code != exitUsage || !strings.Contains(r.stderr, `has "operations" and "shapes"`) {
		t.Errorf("--service with a Smithy model: exit %d, %q", r.code, r.stderr)
	}
}

// TestLintEveryDecodingProblem: a file's decoding problems are each
// reported where they are, with the problems of its other waiters and
// shapes, not only the first.
func TestLintEveryDecodingProblem(t *testing.T) {
	code, lines := lintLines(t, "testdata/decoding-smithy.json")
	wantLines(t, code, lines, exitLint,
		`testdata/decoding-smithy.json:5:34: waiter ThingReady: minDelay: a string where an integer is expected`,
		`testdata/decoding-smithy.json:5:40: waiter ThingReady: unknown field "maxDelai"`,
		`testdata/decoding-smithy.json:6:19: waiter ThingReady: acceptor 0: classify: unknown acceptor state "sucess" (want success, failure or retry)`,
		`testdata/decoding-smithy.json:7:41: waiter ThingReady: acceptor 1: matcher: unknown member "outptu" (want output, inputOutput, success or errorType)`,
		`testdata/decoding-smithy.json:8:124: waiter ThingReady: acceptor 2: unknown field "mesage"`,
		`testdata/decoding-smithy.json:10:62: waiter ThingGone: acceptor 0: path: stauts: type error at offset 0: field "stauts" does not exist on example#GetThingOutput (did you mean status?)`,
		`testdata/decoding-smithy.json:12:54: shapes["example#Broken"]: members: an array where an object is expected`,
		`testdata/decoding-smithy.json:12:68: shapes["example#Broken"]: traits: an array where an object is expected`,
	)
}

// corpusFindings are what lint finds in AWS's published waiters, each a
// real problem, with the reason.
var corpusFindings = map[string]string{
	"ec2/2015-10-01/waiters-2.json: waiter KeyPairExists: acceptor 0: path: length(KeyPairs[].KeyName) > `0`: pathAll matches an array (botocore: a list), but the argument gives a boolean: it never matches": "" +
		"botocore's pathAll matches only a non-empty list (botocore/waiter.py: \"if not isinstance(result, list) or " +
		"not result: return False\"), so the waiter's one success acceptor never matches; botocore's later EC2 " +
		"models (2016-04-01 on) say path instead of pathAll",
}

// TestLintCorpus: lint on every waiter of testdata/aws: the three whole
// Smithy models (against their shapes), each Smithy waiter in a model of
// its service (whose shapes the corpus does not hold), and each of
// botocore's 97 waiters-2.json files (whose service models it does not
// hold). What it finds is in corpusFindings.
func TestLintCorpus(t *testing.T) {
	dir := t.TempDir()
	var files []string
	models, _ := filepath.Glob("../../testdata/aws/models/*.json")
	files = append(files, models...)

	var smithy []struct {
		Service, Operation, Input, Output, WaiterName string
		Waiter                                        json.RawMessage
	}
	readJSON(t, "../../testdata/aws/smithy-waiters.json", &smithy)
	services := map[string]map[string]any{}
	for _, e := range smithy {
		shapes := services[e.Service]
		if shapes == nil {
			shapes = map[string]any{e.Service: map[string]any{"type": "service", "version": "1"}}
			services[e.Service] = shapes
		}
		op, _ := shapes[e.Operation].(map[string]any)
		if op == nil {
			op = map[string]any{"type": "operation", "traits": map[string]any{waitableTrait: map[string]json.RawMessage{}}}
			if e.Input != "" {
				op["input"] = map[string]string{"target": e.Input}
			}
			if e.Output != "" {
				op["output"] = map[string]string{"target": e.Output}
			}
			shapes[e.Operation] = op
			svc := shapes[e.Service].(map[string]any)
			ops, _ := svc["operations"].([]any)
			svc["operations"] = append(ops, map[string]string{"target": e.Operation})
		}
		op["traits"].(map[string]any)[waitableTrait].(map[string]json.RawMessage)[e.WaiterName] = e.Waiter
	}
	for svc, shapes := range services {
		files = append(files, writeFileJSON(t, filepath.Join(dir, "smithy", strings.NewReplacer("#", "_", ".", "_").Replace(svc)+".json"),
			map[string]any{"smithy": "2.0", "shapes": shapes}))
	}

	var botocore []struct {
		File, WaiterName string
		Waiter           json.RawMessage
	}
	readJSON(t, "../../testdata/aws/botocore-waiters.json", &botocore)
	docs := map[string]map[string]json.RawMessage{}
	for _, e := range botocore {
		if docs[e.File] == nil {
			docs[e.File] = map[string]json.RawMessage{}
		}
		docs[e.File][e.WaiterName] = e.Waiter
	}
	for file, waiters := range docs {
		files = append(files, writeFileJSON(t, filepath.Join(dir, strings.TrimPrefix(file, "botocore/data/")), map[string]any{"version": 2, "waiters": waiters}))
	}
	if len(services) != 57 || len(docs) != 97 {
		t.Fatalf("%d Smithy services and %d botocore files, want 57 and 97", len(services), len(docs))
	}
	lintCorpus(t, dir, files, 3+57+97)
}

// lintCorpus lints files and compares what it finds with corpusFindings;
// files must each be ok but for those.
func lintCorpus(t *testing.T, dir string, files []string, want int) {
	t.Helper()
	r := runBinary(t, nil, append([]string{"lint"}, files...)...)
	ok, found := 0, map[string]bool{}
	for _, line := range strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n") {
		if strings.HasSuffix(line, ", ok") || strings.Contains(line, ", ok (paths not checked") {
			ok++
			continue
		}
		// file:line:col: problem, with the file relative to dir.
		file, rest, _ := strings.Cut(strings.TrimPrefix(line, dir+string(filepath.Separator)), ":")
		_, rest, _ = strings.Cut(rest, ": ")
		key := filepath.ToSlash(file) + ": " + rest
		if _, known := corpusFindings[key]; !known {
			t.Errorf("a problem that is not a known finding (a false positive to fix, or a finding to document):\n%s", line)
		}
		found[key] = true
	}
	for f, why := range corpusFindings {
		if !found[f] {
			t.Errorf("lint no longer finds %q (%s)", f, why)
		}
	}
	if ok+len(found) != want || (len(found) > 0) != (r.code == exitLint) {
		t.Errorf("%d files ok, %d findings, exit %d; want %d files in all", ok, len(found), r.code, want)
	}
	t.Logf("%d files ok; findings: %d", ok, len(found))
}

// TestLintFullCorpus: lint on the whole models AWS publishes, with their
// shapes: every Smithy model of aws/api-models-aws under
// $WAITABLE_AWS_MODELS, and every waiters-2.json of boto/botocore under
// $WAITABLE_BOTOCORE_DATA (botocore/data, each beside its service-2.json).
// The repository does not hold them (hundreds of megabytes); the test runs
// when they are given.
func TestLintFullCorpus(t *testing.T) {
	models, data := os.Getenv("WAITABLE_AWS_MODELS"), os.Getenv("WAITABLE_BOTOCORE_DATA")
	if models == "" || data == "" {
		t.Skip("set WAITABLE_AWS_MODELS to a checkout of aws/api-models-aws and WAITABLE_BOTOCORE_DATA to botocore/data of boto/botocore")
	}
	var files []string
	filepath.WalkDir(models, func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(path, ".json") {
			if b, err := os.ReadFile(path); err == nil && strings.Contains(string(b), waitableTrait) {
				files = append(files, path)
			}
		}
		return nil
	})
	smithy := len(files)
	filepath.WalkDir(data, func(path string, d fs.DirEntry, err error) error {
		if err == nil && d.Name() == "waiters-2.json" {
			files = append(files, path)
		}
		return nil
	})
	if smithy == 0 || len(files) == smithy {
		t.Fatalf("%d Smithy models with waiters, %d botocore documents: none found", smithy, len(files)-smithy)
	}
	t.Logf("%d Smithy models, %d botocore documents", smithy, len(files)-smithy)
	lintCorpus(t, data, files, len(files))
}

func readJSON(t *testing.T, file string, v any) {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
}

func writeFileJSON(t *testing.T, file string, v any) string {
	t.Helper()
	b, err := json.MarshalIndent(v, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return file
}

// TestLintMessages: an acceptor's message (smithy-lang/smithy#3151) reads
// the operation's output and must resolve to a string or an array of
// strings, as Smithy's validator says: its valid cases (a string, an array
// of strings, an errorType failure's) pass, and its four refusals fail,
// each where it is.
func TestLintMessages(t *testing.T) {
	code, lines := lintLines(t, "testdata/messages-smithy.json")
	wantLines(t, code, lines, 0, "testdata/messages-smithy.json: 1 waiter, ok")
	code, lines = lintLines(t, "testdata/messages-invalid-smithy.json")
	f := "testdata/messages-invalid-smithy.json"
	wantLines(t, code, lines, exitLint,
		f+`:39:20: waiter MessageOnSuccess: acceptor 0: message: a message is allowed on failure acceptors only, not on success`,
		f+`:64:20: waiter MessageSyntax: acceptor 1: message: classify: JMESPath expression "reason.@@invalid": syntax error at offset 7: expected a name, "*", "[" or "{" after ".", found "@"`,
		f+`:89:20: waiter MessageBoolean: acceptor 1: message: done: a message must resolve to a string or an array of strings, but the expression gives a boolean (smithy.api#Boolean)`,
		f+`:114:20: waiter MessageArrayOfBooleans: acceptor 1: message: flags: a message must resolve to a string or an array of strings, but the expression gives an array (example#Booleans)`,
	)
}
