package servertest

import (
	"os"
	"testing"

	"go.uber.org/goleak"
	"k8s.io/apiserver/pkg/server/healthz"

	"github.com/waitable/waitable/kubewait/servertest/internal/waitcmd"
)

// TestMain checks that no test leaves a goroutine running, but for two of
// k8s.io/apiserver's that outlive a server (see the apiserver package's
// TestMain), and removes the waitable command that the tests built.
func TestMain(m *testing.M) {
	_ = healthz.LogHealthz.Check(nil)
	goleak.VerifyTestMain(m, goleak.IgnoreCurrent(),
		goleak.IgnoreTopFunction("k8s.io/apiserver/pkg/storage/cacher.(*watchCache).waitUntilFreshLocked.func2"),
		goleak.Cleanup(func(code int) {
			waitcmd.Cleanup()
			os.Exit(code)
		}))
}
