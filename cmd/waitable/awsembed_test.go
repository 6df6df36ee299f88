package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"slices"
	"testing"
)

// TestEmbeddedAWSWaiters: aws-waiters.json, which the binary embeds, is
// what the repository's copy of botocore's definitions makes: for each
// service, its newest waiters-2.json, under the AWS CLI's name for the
// service, each waiter as botocore writes it.
func TestEmbeddedAWSWaiters(t *testing.T) {
	want := makeAWSWaiters(t)
	if *update {
		if err := os.WriteFile("aws-waiters.json", want, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile("aws-waiters.json")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatal("aws-waiters.json differs from ../../testdata/aws/botocore-waiters.json: run go test -run TestEmbeddedAWSWaiters -update")
	}
}

// makeAWSWaiters writes aws-waiters.json from the repository's botocore
// waiters: one line per service, {"version":2,"waiters":{...}} as a
// waiters-2.json file holds them.
func makeAWSWaiters(t *testing.T) []byte {
	t.Helper()
	data, err := os.ReadFile("../../testdata/aws/botocore-waiters.json")
	if err != nil {
		t.Fatal(err)
	}
	var all []struct {
		Service    string          `json:"service"`
		APIVersion string          `json:"apiVersion"`
		WaiterName string          `json:"waiterName"`
		Waiter     json.RawMessage `json:"waiter"`
	}
	if err := json.Unmarshal(data, &all); err != nil {
		t.Fatal(err)
	}
	newest := map[string]string{} // the CLI uses a service's newest API version
	for _, w := range all {
		newest[w.Service] = max(newest[w.Service], w.APIVersion)
	}
	byService := map[string][]string{}
	for _, w := range all {
		if w.APIVersion != newest[w.Service] {
			continue
		}
		name, _ := json.Marshal(w.WaiterName)
		var compact bytes.Buffer
		if err := json.Compact(&compact, w.Waiter); err != nil {
			t.Fatal(err)
		}
		s := cliService(w.Service)
		byService[s] = append(byService[s], fmt.Sprintf("%s:%s", name, compact.Bytes()))
	}
	var b bytes.Buffer
	b.WriteString("{\n")
	services := slices.Sorted(maps.Keys(byService))
	for i, s := range services {
		waiters := byService[s]
		slices.Sort(waiters)
		fmt.Fprintf(&b, "%q: {\"version\":2,\"waiters\":{", s)
		for j, w := range waiters {
			if j > 0 {
				b.WriteByte(',')
			}
			b.WriteString(w)
		}
		b.WriteString("}}")
		if i < len(services)-1 {
			b.WriteByte(',')
		}
		b.WriteByte('\n')
	}
	b.WriteString("}\n")
	return b.Bytes()
}
