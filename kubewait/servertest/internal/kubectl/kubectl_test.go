package kubectl

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"go.uber.org/goleak"
)

// TestMain checks for leaked goroutines, and removes a kubectl the tests
// built.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m, goleak.Cleanup(func(code int) {
		Cleanup()
		os.Exit(code)
	}))
}

// TestPath gives a kubectl that runs and is recent enough for kubectl
// wait --for=create.
func TestPath(t *testing.T) {
	p, which := Path(t)
	t.Logf("kubectl: %s (%s)", p, which)
	checkWait(t, p)
}

// TestAtLeast gives a kubectl of v1.36 or later, which waits for every
// --for of several: built from k8s.io/kubectl unless the machine's is as
// recent.
func TestAtLeast(t *testing.T) {
	p, which := AtLeast(t, 36)
	t.Logf("kubectl: %s (%s)", p, which)
	if _, minor, _ := clientVersion(p); minor < 36 {
		t.Errorf("%s: minor version %d, want 36 or later", which, minor)
	}
	checkWait(t, p)
}

// TestBuild builds kubectl as Path does on a machine without one (when
// Path took the machine's: otherwise TestPath has built it).
func TestBuild(t *testing.T) {
	if _, which := Path(t); strings.Contains(which, "built from") {
		t.Skip("Path built kubectl: TestPath checked it")
	}
	if testing.Short() {
		t.Skip("builds kubectl: not in -short")
	}
	p, which, err := build(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("built %s", which)
	checkWait(t, p)
}

func checkWait(t *testing.T, p string) {
	t.Helper()
	out, err := exec.Command(p, "wait", "--help").CombinedOutput()
	if err != nil || !strings.Contains(string(out), "--for=create") {
		t.Fatalf("%s wait --help: %v\n%s", p, err, out)
	}
	if v, _, ok := clientVersion(p); !ok {
		t.Errorf("%s reports version %q, older than 1.%d", p, v, minMinor)
	}
}

// TestMachineAndBuilt: Built is kubectl built from source, whatever the
// machine has; Machine the one on the PATH, if any.
func TestMachineAndBuilt(t *testing.T) {
	p, which := Built(t)
	if !strings.Contains(which, "built from k8s.io/kubectl") {
		t.Errorf("Built = %s, %q: not one built from source", p, which)
	}
	if mp, v, ok := Machine(); ok {
		t.Logf("the machine's kubectl: %s %s", mp, v)
		if !strings.HasPrefix(v, "v1.") {
			t.Errorf("Machine's version %q", v)
		}
	}
}
