package servertest

import (
	"testing"

	"go.uber.org/goleak"
	"k8s.io/apiserver/pkg/server/healthz"
)

// TestMain checks that no test leaves a goroutine running, but for two of
// k8s.io/apiserver's that outlive a server (see the apiserver package's
// TestMain).
func TestMain(m *testing.M) {
	_ = healthz.LogHealthz.Check(nil)
	goleak.VerifyTestMain(m, goleak.IgnoreCurrent(),
		goleak.IgnoreTopFunction("k8s.io/apiserver/pkg/storage/cacher.(*watchCache).waitUntilFreshLocked.func2"))
}
