package awswait_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"regexp"
	"sort"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite waiters.json from ../testdata/aws")

// TestEmbeddedWaiters: waiters.json is what the repository's copy of AWS's
// published definitions makes: every Smithy waiter, and the newest
// botocore waiters-2.json of each service that has no Smithy model there.
func TestEmbeddedWaiters(t *testing.T) {
	want := makeEmbedded(t)
	if *update {
		if err := os.WriteFile("waiters.json", want, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile("waiters.json")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatal("waiters.json differs from ../testdata/aws: run go test -run TestEmbeddedWaiters -update")
	}
}

func makeEmbedded(t *testing.T) []byte {
	t.Helper()
	var smithy []struct {
		SDKID      string          `json:"sdkId"`
		Operation  string          `json:"operation"`
		Output     *string         `json:"output"`
		Errors     []string        `json:"errors"`
		WaiterName string          `json:"waiterName"`
		Waiter     json.RawMessage `json:"waiter"`
	}
	var botocore []struct {
		Service    string          `json:"service"`
		APIVersion string          `json:"apiVersion"`
		WaiterName string          `json:"waiterName"`
		Waiter     json.RawMessage `json:"waiter"`
	}
	read := func(name string, v any) {
		b, err := os.ReadFile("../testdata/aws/" + name)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(b, v); err != nil {
			t.Fatal(err)
		}
	}
	read("smithy-waiters.json", &smithy)
	read("botocore-waiters.json", &botocore)
	norm := regexp.MustCompile(`[^a-z0-9]`)
	type entry struct {
		SDKID     string          `json:"sdkId"`
		Operation string          `json:"operation"`
		Output    string          `json:"output,omitempty"`
		Errors    []string        `json:"errors"`
		Name      string          `json:"name"`
		Waiter    json.RawMessage `json:"waiter"`
	}
	out := struct {
		Smithy   []entry                    `json:"smithy"`
		Botocore map[string]json.RawMessage `json:"botocore"`
	}{Botocore: map[string]json.RawMessage{}}
	haveSmithy := map[string]bool{}
	for _, s := range smithy {
		e := entry{SDKID: s.SDKID, Operation: s.Operation, Errors: s.Errors, Name: s.WaiterName, Waiter: s.Waiter}
		if s.Output != nil {
			e.Output = *s.Output
		}
		out.Smithy = append(out.Smithy, e)
		haveSmithy[norm.ReplaceAllString(strings.ToLower(s.SDKID), "")] = true
	}
	newest := map[string]string{}
	for _, b := range botocore {
		if b.APIVersion > newest[b.Service] {
			newest[b.Service] = b.APIVersion
		}
	}
	files := map[string]map[string]json.RawMessage{}
	for _, b := range botocore {
		if haveSmithy[norm.ReplaceAllString(b.Service, "")] || b.APIVersion != newest[b.Service] {
			continue
		}
		if files[b.Service] == nil {
			files[b.Service] = map[string]json.RawMessage{}
		}
		files[b.Service][b.WaiterName] = b.Waiter
	}
	for svc, ws := range files {
		doc, _ := json.Marshal(map[string]any{"version": 2, "waiters": ws})
		out.Botocore[svc] = doc
	}
	sort.Slice(out.Smithy, func(i, j int) bool {
		a, b := out.Smithy[i], out.Smithy[j]
		return a.SDKID < b.SDKID || a.SDKID == b.SDKID && a.Name < b.Name
	})
	b, err := json.Marshal(out)
	if err != nil {
		t.Fatal(err)
	}
	return append(b, '\n')
}
