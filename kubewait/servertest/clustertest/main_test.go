package clustertest_test

import (
	"os"
	"testing"

	"go.uber.org/goleak"

	"github.com/waitable/waitable/kubewait/servertest/clustertest/internal/cluster"
	"github.com/waitable/waitable/kubewait/servertest/internal/kubectl"
)

// TestMain checks that no test leaves a goroutine running (but for those
// cluster.LeakOptions names), and removes the kubectl the tests built.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m, append(cluster.LeakOptions(), goleak.Cleanup(func(code int) {
		kubectl.Cleanup()
		os.Exit(code)
	}))...)
}
