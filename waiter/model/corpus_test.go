package model_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/waitable/waitable/classify"
	"github.com/waitable/waitable/waiter"
	"github.com/waitable/waitable/waiter/model"
)

// corpusDir holds AWS's published waiter definitions (see its README for
// their provenance). It is part of the repository: a missing file fails the
// test rather than skipping it.
const corpusDir = "../../testdata/aws"

func corpusFile(t *testing.T, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(corpusDir, name))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

type smithyEntry struct {
	Service    string          `json:"service"`
	Operation  string          `json:"operation"`
	Errors     []string        `json:"errors"`
	WaiterName string          `json:"waiterName"`
	Waiter     json.RawMessage `json:"waiter"`
}

// TestSmithyCorpus loads all 246 waiters from AWS's Smithy models: every one
// parses, validates, and compiles for untyped input and output.
func TestSmithyCorpus(t *testing.T) {
	var entries []smithyEntry
	if err := json.Unmarshal(corpusFile(t, "smithy-waiters.json"), &entries); err != nil {
		t.Fatal(err)
	}
	acceptors, warnings := 0, 0
	for _, e := range entries {
		trait, _ := json.Marshal(map[string]json.RawMessage{e.WaiterName: e.Waiter})
		defs, err := model.ParseWaitable(trait)
		if err != nil {
			t.Errorf("%s %s: %v", e.Service, e.WaiterName, err)
			continue
		}
		d := defs[0]
		if _, err := classify.Compile[any, any](d.Acceptors); err != nil {
			t.Errorf("%s %s: compile: %v", e.Service, e.WaiterName, err)
		}
		acceptors += len(d.Acceptors)
		d.Operation = waiter.Operation{ID: e.Operation, Errors: e.Errors}
		warnings += len(model.WarningsOf(d))
	}
	if len(entries) != 246 || acceptors != 816 {
		t.Errorf("loaded %d waiters with %d acceptors, want 246 and 816", len(entries), acceptors)
	}
	// 42 errorType values name an error the operation does not model.
	if warnings != 42 {
		t.Errorf("%d warnings for errorTypes outside the operation's errors, want 42", warnings)
	}
}

type botocoreEntry struct {
	Service    string          `json:"service"`
	File       string          `json:"file"`
	WaiterName string          `json:"waiterName"`
	Waiter     json.RawMessage `json:"waiter"`
}

// botocoreFindings are the corpus's acceptors that can never match, which
// Compile refuses even on untyped output, each with the reason.
var botocoreFindings = map[string]string{
	"botocore/data/ec2/2015-10-01/waiters-2.json KeyPairExists": "acceptor 0 is a pathAll on " +
		"length(KeyPairs[].KeyName) > `0`, a boolean: botocore's pathAll matches only a non-empty list " +
		"(botocore/waiter.py: \"if not isinstance(result, list) or not result: return False\"), so the " +
		"waiter's one success acceptor never matches, in boto3 as in its translation here",
}

// TestBotocoreCorpus rebuilds each of the 97 waiters-2.json files of the
// corpus and loads it: all 617 waiters and 1,623 acceptors. Every waiter
// compiles for untyped input and output but those of botocoreFindings.
func TestBotocoreCorpus(t *testing.T) {
	var entries []botocoreEntry
	if err := json.Unmarshal(corpusFile(t, "botocore-waiters.json"), &entries); err != nil {
		t.Fatal(err)
	}
	files := map[string]map[string]json.RawMessage{}
	for _, e := range entries {
		if files[e.File] == nil {
			files[e.File] = map[string]json.RawMessage{}
		}
		files[e.File][e.WaiterName] = e.Waiter
	}
	waiters, acceptors, found := 0, 0, 0
	for file, ws := range files {
		doc, _ := json.Marshal(map[string]any{"version": 2, "waiters": ws})
		c, err := model.LoadBotocore(bytes.NewReader(doc))
		if err != nil {
			t.Errorf("%s: %v", file, err)
			continue
		}
		for _, n := range c.Names() {
			d, _ := c.Get(n)
			_, err := classify.Compile[any, any](d.Acceptors)
			if why, ok := botocoreFindings[file+" "+n]; ok {
				if err == nil {
					t.Errorf("%s %s compiles, want it refused: %s", file, n, why)
				}
				found++
			} else if err != nil {
				t.Errorf("%s %s: compile: %v", file, n, err)
			}
			acceptors += len(d.Acceptors)
		}
		waiters += len(c.Names())
	}
	if len(files) != 97 || waiters != 617 || acceptors != 1623 || found != len(botocoreFindings) {
		t.Errorf("loaded %d files, %d waiters, %d acceptors, %d findings; want 97, 617, 1623, %d", len(files), waiters, acceptors, found, len(botocoreFindings))
	}
}

// TestSmithyModels loads the three whole Smithy models.
func TestSmithyModels(t *testing.T) {
	for _, tt := range []struct {
		file    string
		waiters int
		service string
	}{
		{"models/acm-2015-12-08.json", 1, "com.amazonaws.acm#CertificateManager"},
		{"models/neptune-graph-2023-11-29.json", 10, "com.amazonaws.neptunegraph#AmazonNeptuneGraph"},
		{"models/opsworks-2013-02-18.json", 6, "com.amazonaws.opsworks#OpsWorks_20130218"},
	} {
		c, err := model.LoadSmithy(bytes.NewReader(corpusFile(t, tt.file)))
		if err != nil {
			t.Errorf("%s: %v", tt.file, err)
			continue
		}
		if n := len(c.Names()); n != tt.waiters {
			t.Errorf("%s: %d waiters, want %d: %v", tt.file, n, tt.waiters, c.Names())
		}
		for _, n := range c.Names() {
			d, _ := c.Get(n)
			if d.Operation.Service != tt.service || !strings.Contains(d.Operation.ID, "#") || d.Operation.Output == "" {
				t.Errorf("%s %s: operation %+v", tt.file, n, d.Operation)
			}
		}
	}
	c, err := model.LoadSmithy(bytes.NewReader(corpusFile(t, "models/acm-2015-12-08.json")))
	if err != nil {
		t.Fatal(err)
	}
	d, err := c.Get("CertificateValidated")
	if err != nil {
		t.Fatal(err)
	}
	want := waiter.Operation{
		ID: "com.amazonaws.acm#DescribeCertificate", Service: "com.amazonaws.acm#CertificateManager",
		Input: "com.amazonaws.acm#DescribeCertificateRequest", Output: "com.amazonaws.acm#DescribeCertificateResponse",
		Errors: []string{"com.amazonaws.acm#InvalidArnException", "com.amazonaws.acm#ResourceNotFoundException"},
	}
	if d.Operation.ID != want.ID || d.Operation.Service != want.Service || d.Operation.Input != want.Input || d.Operation.Output != want.Output || strings.Join(d.Operation.Errors, ",") != strings.Join(want.Errors, ",") {
		t.Errorf("CertificateValidated operation = %+v, want %+v", d.Operation, want)
	}
	if d.MinDelay.Seconds() != 60 || d.MaxDelay != 0 || d.Schedule().MaxDelay.Seconds() != 120 || len(d.Acceptors) != 4 {
		t.Errorf("CertificateValidated = %+v", d)
	}
}
