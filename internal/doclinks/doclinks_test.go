package doclinks_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

const goleakPath = "go.uber.org/goleak"

// goEnv returns GOROOT and GOMODCACHE as the go command sees them.
func goEnv(t *testing.T) (goroot, modcache string) {
	t.Helper()
	out, err := exec.Command("go", "env", "GOROOT", "GOMODCACHE").Output()
	if err != nil {
		t.Fatalf("go env: %v", err)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) != 2 {
		t.Fatalf("go env GOROOT GOMODCACHE printed %q, want two lines", out)
	}
	return lines[0], lines[1]
}

// TestDocLinksResolve checks every doc link of every package of every
// module of the repository: every directory with a go.mod under the root,
// two levels above this test's package.
func TestDocLinksResolve(t *testing.T) {
	root := filepath.Join("..", "..")
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("the repository root %s has no go.mod: %v", root, err)
	}
	goroot, modcache := goEnv(t)
	problems, err := check(root, goroot, modcache)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		t.Error(p)
	}
}

// TestCheckFindsBrokenLinks runs the check on a repository in testdata
// whose docs hold a broken link of each kind next to links that resolve
// and brackets that are no links.
func TestCheckFindsBrokenLinks(t *testing.T) {
	// Its links into a module go to goleak, at the version this test is
	// built with: one the module cache holds.
	root := filepath.Join("testdata", "repo")
	m, err := readGoMod(filepath.Join(root, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Version}}", goleakPath).Output()
	if err != nil {
		t.Fatalf("go list -m %s: %v", goleakPath, err)
	}
	if v := strings.TrimSpace(string(out)); v != m.requires[goleakPath] {
		t.Fatalf("%s/go.mod requires %s %s; this test is built with %s: require that",
			root, goleakPath, m.requires[goleakPath], v)
	}
	goroot, modcache := goEnv(t)
	got, err := check(root, goroot, modcache)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"a/a.go:3: [Missing] does not resolve",
		"a/a.go:4: [Exported] does not resolve",
		"a/a.go:5: [T.Missing] does not resolve",
		"a/a.go:6: [b.Missing] does not resolve",
		"a/a.go:7: [b.U.Missing] does not resolve",
		"a/a.go:8: [example.com/repo/nowhere] does not resolve",
		"a/a.go:9: [io.Missing] does not resolve",
		"a/a.go:10: [*strings.Builder.Missing] does not resolve",
		"a/a.go:11: [go.uber.org/goleak.Missing] does not resolve",
		"a/a.go:34: [Gone] does not resolve",
		"a/a.go:40: [T.Gone] does not resolve",
		"a/a_test.go:9: [a.Missing] does not resolve",
		"a/a_test.go:9: [Helper] does not resolve",
		"b/b.go:1: [a.Nope] does not resolve",
		"sub/sub.go:3: [example.com/repo/sub.S] does not resolve",
	}
	if !slices.Equal(got, want) {
		t.Errorf("check(testdata/repo) =\n\t%s\nwant\n\t%s", strings.Join(got, "\n\t"), strings.Join(want, "\n\t"))
	}
}
