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

// TestBuild builds kubectl from source, as Path does on a machine
// without one.
func TestBuild(t *testing.T) {
	if testing.Short() {
		t.Skip("builds kubectl: not in -short")
	}
	p, which := Built(t)
	t.Logf("built %s", which)
	checkWait(t, p)
}

func checkWait(t *testing.T, p string) {
	t.Helper()
	out, err := exec.Command(p, "wait", "--help").CombinedOutput()
	if err != nil || !strings.Contains(string(out), "--for=create") {
		t.Fatalf("%s wait --help: %v\n%s", p, err, out)
	}
	if v, ok := clientVersion(p); !ok || !recent(v) {
		t.Errorf("%s reports version %q, older than 1.%d", p, v, minMinor)
	}
}
