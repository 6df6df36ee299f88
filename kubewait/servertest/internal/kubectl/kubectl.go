// Package kubectl gives the tests a kubectl to compare waitable with: the
// machine's, if it is recent enough for every kubectl wait the tests run
// (v1.31, for --for=create), or else kubectl built here from
// k8s.io/kubectl at the version this module requires (cmd/kubectl), so
// that the tests need nothing installed but Go. [AtLeast] gives one of a
// later minor version for the tests that need it (v1.36, for several
// --for that must all hold), built the same way when the machine's is
// older. A test that runs both takes [Machine] and [Built].
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

// A kubectl found on the machine, or built.
type found struct {
	path, which string
	err         error
}

var (
	mu sync.Mutex
	// machine is the machine's kubectl (its path, and "the machine's
	// kubectl v1.32.4"), looked up once; machineMinor its minor version
	// (-1: none, or unreadable).
	machine      *found
	machineMinor int
	// built is the kubectl built from k8s.io/kubectl, once, into dir.
	built *found
	dir   string
)

// Path returns the kubectl the tests run, and which it is ("the machine's
// kubectl v1.32.4" or "kubectl v1.37.2 built from k8s.io/kubectl
// v0.37.2"): [AtLeast] 1.31. The first call may build it (about 2 minutes
// with an empty build cache); a failure to build fails the test.
func Path(t testing.TB) (string, string) {
	t.Helper()
	return AtLeast(t, minMinor)
}

// AtLeast returns a kubectl of version 1.minor or later, and which it is:
// the machine's if it is recent enough, else the one built from
// k8s.io/kubectl (v1.37.2 for this module's v0.37.2), which it fails t
// unless it is recent enough either.
func AtLeast(t testing.TB, minor int) (string, string) {
	t.Helper()
	mu.Lock()
	defer mu.Unlock()
	if m := lookMachine(); machineMinor >= minor {
		return m.path, m.which
	}
	b := buildOnce(t)
	if _, m, _ := clientVersion(b.path); m < minor {
		t.Fatalf("%s is older than v1.%d, and the machine's kubectl too", b.which, minor)
	}
	return b.path, b.which
}

// Built returns kubectl built from k8s.io/kubectl at the version the
// calling module requires, and which it is. The first call in a process
// builds it (about 2 minutes with an empty build cache) into a temporary
// folder that [Cleanup] removes; a failure to build fails t.
func Built(t testing.TB) (string, string) {
	t.Helper()
	mu.Lock()
	defer mu.Unlock()
	b := buildOnce(t)
	return b.path, b.which
}

// Machine returns the path of the kubectl on the PATH and the version it
// reports ("v1.32.4"), or false if there is none or it does not run.
func Machine() (path, version string, ok bool) {
	mu.Lock()
	defer mu.Unlock()
	m := lookMachine()
	return m.path, strings.TrimPrefix(m.which, "the machine's kubectl "), m.path != "" && m.which != ""
}

// lookMachine looks the machine's kubectl up, once (mu held).
func lookMachine() *found {
	if machine == nil {
		machine, machineMinor = &found{}, -1
		if p, e := exec.LookPath("kubectl"); e == nil {
			if v, m, ok := clientVersion(p); ok || m >= 0 {
				machine.path, machine.which, machineMinor = p, "the machine's kubectl "+v, m
			}
		}
	}
	return machine
}

// buildOnce builds kubectl from source, once (mu held).
func buildOnce(t testing.TB) *found {
	t.Helper()
	if built == nil {
		built = &found{}
		dir, built.err = os.MkdirTemp("", "waitable-kubectl-")
		if built.err == nil {
			built.path, built.which, built.err = build(dir)
		}
	}
	if built.err != nil {
		t.Fatal(built.err)
	}
	return built
}

// Cleanup removes the kubectl AtLeast built, if it built one: TestMain
// calls it after the tests.
func Cleanup() {
	if dir != "" {
		os.RemoveAll(dir)
	}
}

// build builds kubectl into dir from k8s.io/kubectl at the version this
// module requires.
func build(dir string) (path, which string, err error) {
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Version}}", "k8s.io/kubectl").Output()
	if err != nil {
		return "", "", fmt.Errorf("kubectl: no kubectl recent enough on the PATH, and go list -m k8s.io/kubectl: %v", err)
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

// clientVersion returns the version of the kubectl at p, its minor
// version, and whether it is at least 1.minMinor.
func clientVersion(p string) (string, int, bool) {
	out, e := exec.Command(p, "version", "--client", "-o", "json").Output()
	if e != nil {
		return "", -1, false
	}
	var v struct {
		ClientVersion struct{ GitVersion, Minor string }
	}
	if json.Unmarshal(out, &v) != nil {
		return "", -1, false
	}
	minor, e := strconv.Atoi(strings.TrimRight(v.ClientVersion.Minor, "+"))
	if e != nil {
		return v.ClientVersion.GitVersion, -1, false
	}
	return v.ClientVersion.GitVersion, minor, minor >= minMinor
}
