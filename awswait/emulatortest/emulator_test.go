package emulatortest

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	// kumo starts a reaper of DynamoDB items when its package is loaded,
	// and never stops it: it is kumo's, not a test's.
	goleak.VerifyTestMain(m, goleak.IgnoreTopFunction("github.com/sivchari/kumo/internal/service/dynamodb.(*MemoryStorage).ttlReaper"))
}

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

// installed guards the one npm ci of a test run.
var installed struct {
	once sync.Once
	dir  string
	err  error
}

// node returns the path of node, or skips the test (fails it under
// CI=true) when there is none.
func node(t *testing.T) string {
	t.Helper()
	path, err := exec.LookPath("node")
	if err == nil {
		return path
	}
	const how = "node is not on the PATH: install Node 20 or later (Debian: apt-get install nodejs npm) to run the emulator tests"
	if os.Getenv("CI") == "true" {
		t.Fatal(how)
	}
	t.Skip(how)
	return ""
}

// emulators returns the folder where the pinned emulators are installed,
// installing them with npm ci the first time: in the user's cache, one
// folder per lockfile, never in the repository.
func emulators(t *testing.T) string {
	t.Helper()
	node(t)
	installed.once.Do(func() {
		lock, err := os.ReadFile("package-lock.json")
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
			b, err := os.ReadFile(f)
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
	if installed.err != nil {
		t.Fatal(installed.err)
	}
	return installed.dir
}

// start starts an emulator ("dynalite" or "kinesalite") whose resources
// stay in their transitional states for transition, and returns its
// endpoint. The emulator is stopped, by the PID the test started, when the
// test ends.
func start(t *testing.T, name string, transition time.Duration) string {
	t.Helper()
	dir := emulators(t)
	cmd := exec.Command(node(t), "-e", startScript, name, strconv.FormatInt(transition.Milliseconds(), 10))
	cmd.Dir = dir
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	line, err := bufio.NewReader(out).ReadString('\n')
	port, perr := strconv.Atoi(strings.TrimSpace(line))
	if err != nil || perr != nil {
		t.Fatalf("%s did not print its port: %q, %v", name, line, err)
	}
	return fmt.Sprintf("http://127.0.0.1:%d", port)
}

// counter counts the HTTP requests a client makes, by the target (the
// X-Amz-Target header: "DynamoDB_20120810.DescribeTable").
type counter struct {
	mu   sync.Mutex
	n    map[string]int
	then func() // run once, after the next response is read
}

func (c *counter) RoundTrip(r *http.Request) (*http.Response, error) {
	target := r.Header.Get("X-Amz-Target")
	c.mu.Lock()
	if c.n == nil {
		c.n = map[string]int{}
	}
	c.n[target[strings.LastIndexByte(target, '.')+1:]]++
	then := c.then
	c.then = nil
	c.mu.Unlock()
	resp, err := http.DefaultTransport.RoundTrip(r)
	if then == nil || err != nil {
		return resp, err
	}
	// The whole answer is read before the change, so it is the state
	// from before the change.
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		return nil, err
	}
	resp.Body = io.NopCloser(bytes.NewReader(body))
	then()
	return resp, nil
}

// afterNext makes change, with another client, once the next request of
// this one is answered: the wait sees the old state on its first poll and
// the new one on a later poll, on no timing of the test's.
func (c *counter) afterNext(t *testing.T, change func(ctx context.Context) error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.then = func() {
		if err := change(context.Background()); err != nil {
			t.Error(err)
		}
	}
}

// requests returns how many requests of operation op were made.
func (c *counter) requests(op string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n[op]
}

// pending reports whether a change of afterNext waits for a request.
func (c *counter) pending() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.then != nil
}

// client is the HTTP client of a service client, counting its requests.
func (c *counter) client() *http.Client { return &http.Client{Transport: c} }

// creds are the emulators' credentials: any will do.
var creds = aws.NewCredentialsCache(credentials.NewStaticCredentialsProvider("AKID", "SECRET", ""))
