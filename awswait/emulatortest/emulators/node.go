// Package emulators installs and starts the AWS emulators that run on
// Node, dynalite (DynamoDB) and kinesalite (Kinesis), at the versions this
// folder's package-lock.json pins, and counts the requests their clients
// make. The tests of awswait/emulatortest and temporal/servertest use it,
// and so does the command cmd/lag.
//
// The emulators need Node (20 or later) on the PATH; without it a test
// that asks for one skips, saying what to install, and under CI=true it
// fails. The first run installs the emulators with npm ci into the user's
// cache directory, one folder per lockfile, never into the repository.
package emulators

import (
	"bufio"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// pinned are the versions to install.
//
//go:embed package.json package-lock.json
var pinned embed.FS

// startScript starts the emulator named by its first argument, in memory,
// keeping each resource in its transitional state (CREATING, DELETING)
// for the milliseconds of its second, on a free port of 127.0.0.1, and
// prints the port. kinesalite's command line has no host flag: the script
// listens on loopback for both.
const startScript = `
const [name, ms] = process.argv.slice(1)
const n = Number(ms)
const server = require(name)({createTableMs: n, deleteTableMs: n, updateTableMs: n,
  createStreamMs: n, deleteStreamMs: n, updateStreamMs: n})
server.listen(0, '127.0.0.1', () => console.log(server.address().port))
`

// nodeMissing says what to install when node is missing.
const nodeMissing = "node is not on the PATH: install Node 20 or later (Debian: apt-get install nodejs npm) to run the emulator tests"

// installed guards the one npm ci of a process.
var installed struct {
	once sync.Once
	dir  string
	err  error
}

// Node returns the path of node, or skips the test (fails it under
// CI=true) when there is none.
func Node(t testing.TB) string {
	t.Helper()
	path, err := exec.LookPath("node")
	if err == nil {
		return path
	}
	if os.Getenv("CI") == "true" {
		t.Fatal(nodeMissing)
	}
	t.Skip(nodeMissing)
	return ""
}

// install returns the folder where the pinned emulators are installed,
// installing them with npm ci the first time: in the user's cache, one
// folder per lockfile, never in the repository.
func install() (string, error) {
	installed.once.Do(func() {
		lock, err := pinned.ReadFile("package-lock.json")
		if err != nil {
			installed.err = err
			return
		}
		sum := sha256.Sum256(lock)
		cache, err := os.UserCacheDir()
		if err != nil {
			cache = os.TempDir()
		}
		dir := filepath.Join(cache, "waitable-emulators", hex.EncodeToString(sum[:6]))
		installed.dir = dir
		if _, err := os.Stat(filepath.Join(dir, "node_modules", "kinesalite", "package.json")); err == nil {
			return // installed by an earlier run
		}
		if installed.err = os.MkdirAll(dir, 0o755); installed.err != nil {
			return
		}
		for _, f := range []string{"package.json", "package-lock.json"} {
			b, err := pinned.ReadFile(f)
			if err == nil {
				err = os.WriteFile(filepath.Join(dir, f), b, 0o644)
			}
			if err != nil {
				installed.err = err
				return
			}
		}
		npm, err := exec.LookPath("npm")
		if err != nil {
			installed.err = fmt.Errorf("npm is not on the PATH (Debian: apt-get install npm): %w", err)
			return
		}
		cmd := exec.Command(npm, "ci", "--no-audit", "--no-fund")
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			installed.err = fmt.Errorf("npm ci in %s: %w\n%s", dir, err, out)
		}
	})
	return installed.dir, installed.err
}

// Launch starts an emulator ("dynalite" or "kinesalite") whose resources
// stay in their transitional states for transition, installing it first
// if need be, and returns its endpoint and the function that stops it (by
// the PID it started).
func Launch(name string, transition time.Duration) (endpoint string, stop func(), err error) {
	node, err := exec.LookPath("node")
	if err != nil {
		return "", nil, fmt.Errorf("%s: %w", nodeMissing, err)
	}
	dir, err := install()
	if err != nil {
		return "", nil, err
	}
	cmd := exec.Command(node, "-e", startScript, name, strconv.FormatInt(transition.Milliseconds(), 10))
	cmd.Dir = dir
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return "", nil, err
	}
	if err := cmd.Start(); err != nil {
		return "", nil, err
	}
	stop = func() {
		cmd.Process.Kill()
		cmd.Wait()
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	port, perr := strconv.Atoi(strings.TrimSpace(line))
	if err != nil || perr != nil {
		stop()
		return "", nil, fmt.Errorf("%s did not print its port: %q, %v", name, line, err)
	}
	return fmt.Sprintf("http://127.0.0.1:%d", port), stop, nil
}

// Start is Launch for a test: it skips the test when node is missing
// (fails it under CI=true), fails it when the emulator does not start, and
// stops the emulator when the test ends.
func Start(t testing.TB, name string, transition time.Duration) string {
	t.Helper()
	Node(t)
	endpoint, stop, err := Launch(name, transition)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(stop)
	return endpoint
}
