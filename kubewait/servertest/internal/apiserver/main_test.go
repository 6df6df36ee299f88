package apiserver_test

import (
	"os"
	"testing"

	"go.uber.org/goleak"

	kubectlbin "github.com/waitable/waitable/kubewait/servertest/internal/kubectl"
	"k8s.io/apiserver/pkg/server/healthz"
)

// TestMain checks that no test leaves a goroutine running: every server
// that a test starts stops, with its etcd and its proxy, when the test
// ends. It ignores two goroutines of k8s.io/apiserver's:
//   - the klog flusher of the /healthz log check, started once per process
//     for all servers, with no way to stop it (TestMain starts it first);
//   - the watch cache's wake-up for a read that waited for the cache to
//     catch up with etcd: it sleeps out its three-second timeout, on a
//     timer, after the server has stopped.
func TestMain(m *testing.M) {
	_ = healthz.LogHealthz.Check(nil)
	goleak.VerifyTestMain(m, goleak.IgnoreCurrent(),
		goleak.IgnoreTopFunction("k8s.io/apiserver/pkg/storage/cacher.(*watchCache).waitUntilFreshLocked.func2"),
		goleak.Cleanup(func(code int) {
			kubectlbin.Cleanup() // a kubectl the tests built
			os.Exit(code)
		}))
}
