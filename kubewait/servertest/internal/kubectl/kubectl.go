// Package kubectl gives the tests a kubectl to compare waitable with:
// [Path] is the machine's, if it is recent enough for every kubectl wait
// the tests run (v1.31, for --for=create), or else kubectl built here from
// k8s.io/kubectl at the version the module requires (cmd/kubectl), so
// that the tests need nothing installed but Go. A test that runs both
// takes [Machine] and [Built].
package kubectl

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// minMinor is the oldest kubectl the tests take from the machine: 1.31
// brought kubectl wait's --for=create.
const minMinor = 31

// built is the kubectl built from source, once per process.
var built struct {
	once  sync.Once
	dir   string
	path  string
	which string
	err   error
}

// Path returns the kubectl the tests run, and which it is ("the machine's
// kubectl v1.32.4" or "kubectl v1.37.2 built from k8s.io/kubectl
// v0.37.2"): the machine's if it is v1.31 or later, else [Built]'s.
func Path(t testing.TB) (string, string) {
	t.Helper()
	if p, v, ok := Machine(); ok && recent(v) {
		return p, "the machine's kubectl " + v
	}
	return Built(t)
}

// Built returns kubectl built from k8s.io/kubectl at the version the
// calling module requires (cmd/kubectl, built with the go command in the
// test's folder), and which it is. The first call in a process builds it
// (about 2 minutes with an empty build cache) into a temporary folder
// that [Cleanup] removes; a failure to build fails t.
func Built(t testing.TB) (string, string) {
	t.Helper()
	built.once.Do(func() {
		built.dir, built.err = os.MkdirTemp("", "waitable-kubectl-")
		if built.err == nil {
			built.path, built.which, built.err = build(built.dir)
		}
	})
	if built.err != nil {
		t.Fatal(built.err)
	}
	return built.path, built.which
}

// Machine returns the path of the kubectl on the PATH and the version it
// reports ("v1.32.4"), or false if there is none or it does not run.
func Machine() (path, version string, ok bool) {
	p, err := exec.LookPath("kubectl")
	if err != nil {
		return "", "", false
	}
	v, ok := clientVersion(p)
	return p, v, ok
}

// Cleanup removes the kubectl [Built] built, if it built one: TestMain
// calls it after the tests.
func Cleanup() {
	if built.dir != "" {
		os.RemoveAll(built.dir)
	}
}

// build builds kubectl into dir from k8s.io/kubectl at the version this
// module requires.
func build(dir string) (path, which string, err error) {
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Version}}", "k8s.io/kubectl").Output()
	if err != nil {
		return "", "", fmt.Errorf("kubectl: go list -m k8s.io/kubectl: %v", err)
	}
	version := strings.TrimSpace(string(out))
	path = filepath.Join(dir, "kubectl")
	// Stamp the version kubectl reports: k8s.io/kubectl v0.37.2 is
	// kubectl v1.37.2.
	v := strings.TrimPrefix(version, "v0.")
	const pkg = "k8s.io/component-base/version"
	ldflags := fmt.Sprintf("-X %[1]s.gitVersion=v1.%[2]s -X %[1]s.gitMajor=1 -X %[1]s.gitMinor=%[3]s",
		pkg, v, strings.SplitN(v, ".", 2)[0])
	cmd := exec.Command("go", "build", "-ldflags", ldflags, "-o", path,
		"github.com/waitable/waitable/kubewait/servertest/internal/kubectl/cmd/kubectl")
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", "", fmt.Errorf("building kubectl from k8s.io/kubectl %s: %v\n%s", version, err, out)
	}
	return path, "kubectl v1." + v + " built from k8s.io/kubectl " + version, nil
}

// clientVersion returns the version that the kubectl at p reports, and
// whether it ran.
func clientVersion(p string) (string, bool) {
	out, e := exec.Command(p, "version", "--client", "-o", "json").Output()
	if e != nil {
		return "", false
	}
	var v struct {
		ClientVersion struct{ GitVersion string }
	}
	if json.Unmarshal(out, &v) != nil || v.ClientVersion.GitVersion == "" {
		return "", false
	}
	return v.ClientVersion.GitVersion, true
}

// recent reports whether version ("v1.32.4", "v1.32.4-dispatcher") is
// 1.minMinor or later.
func recent(version string) bool {
	major, rest, _ := strings.Cut(strings.TrimPrefix(version, "v"), ".")
	minor, _, _ := strings.Cut(rest, ".")
	m, err := strconv.Atoi(minor)
	return major == "1" && err == nil && m >= minMinor
}
