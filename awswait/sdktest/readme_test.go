package sdktest_test

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"testing"
)

var update = flag.Bool("update", false, "rewrite internal/readme from the README's Go blocks")

// TestREADMEBlocks: every Go block of the repository's README is kept,
// byte for byte, as a program under internal/readme, where go vet and
// go build (which CI runs over this module) compile it. The test fails
// when the two differ; -update rewrites the programs from the README.
func TestREADMEBlocks(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	blocks := regexp.MustCompile("(?s)```go\n(.*?)```").FindAllSubmatch(readme, -1)
	if len(blocks) == 0 {
		t.Fatal("the README has no Go block")
	}
	for i, b := range blocks {
		path := filepath.Join("internal", "readme", fmt.Sprintf("block%d", i+1), "main.go")
		if *update {
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, b[1], 0o644); err != nil {
				t.Fatal(err)
			}
		}
		got, err := os.ReadFile(path)
		if err != nil || !bytes.Equal(got, b[1]) {
			t.Errorf("README Go block %d differs from %s (%v): run go test -run TestREADMEBlocks -update", i+1, path, err)
		}
	}
	extra, _ := filepath.Glob(filepath.Join("internal", "readme", fmt.Sprintf("block%d", len(blocks)+1)))
	if len(extra) > 0 {
		t.Errorf("%s has no block in the README any more: remove it", extra[0])
	}
}
