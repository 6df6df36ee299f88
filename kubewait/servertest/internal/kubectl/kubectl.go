// Package kubectl gives the tests a kubectl to compare waitable with: the
// machine's, if it is recent enough for every kubectl wait the tests run
// (v1.31, for --for=create), or else kubectl built here from
// k8s.io/kubectl at the version this module requires (cmd/kubectl), so
// that the tests need nothing installed but Go.
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

var (
	once  sync.Once
	dir   string
	path  string
	which string
	err   error
)

// Path returns the kubectl the tests run, and which it is ("the machine's
// kubectl v1.32.4" or "kubectl v0.37.2 built from k8s.io/kubectl"). The
// first call may build it (about 2 minutes with an empty build cache); a
// failure to build fails the test.
func Path(t testing.TB) (string, string) {
	t.Helper()
	once.Do(find)
	if err != nil {
		t.Fatal(err)
	}
	return path, which
}

// Cleanup removes the kubectl Path built, if it built one: TestMain calls
// it after the tests.
func Cleanup() {
	if dir != "" {
		os.RemoveAll(dir)
	}
}

func find() {
	if p, e := exec.LookPath("kubectl"); e == nil {
		if v, ok := clientVersion(p); ok {
			path, which = p, "the machine's kubectl "+v
			return
		}
	}
	dir, err = os.MkdirTemp("", "waitable-kubectl-")
	if err == nil {
		path, which, err = build(dir)
	}
}

// build builds kubectl into dir from k8s.io/kubectl at the version this
// module requires.
func build(dir string) (path, which string, err error) {
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Version}}", "k8s.io/kubectl").Output()
	if err != nil {
		return "", "", fmt.Errorf("kubectl: no kubectl v1.%d or later on the PATH, and go list -m k8s.io/kubectl: %v", minMinor, err)
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

// clientVersion returns the version of the kubectl at p, and whether it is
// at least 1.minMinor.
func clientVersion(p string) (string, bool) {
	out, e := exec.Command(p, "version", "--client", "-o", "json").Output()
	if e != nil {
		return "", false
	}
	var v struct {
		ClientVersion struct{ GitVersion, Minor string }
	}
	if json.Unmarshal(out, &v) != nil {
		return "", false
	}
	minor, e := strconv.Atoi(strings.TrimRight(v.ClientVersion.Minor, "+"))
	return v.ClientVersion.GitVersion, e == nil && minor >= minMinor
}
