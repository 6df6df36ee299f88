package cluster_test

import (
	"testing"

	"go.uber.org/goleak"

	"github.com/waitable/waitable/kubewait/servertest/clustertest/internal/cluster"
)

// TestMain checks that no test leaves a goroutine running, but for those
// cluster.LeakOptions names.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m, cluster.LeakOptions()...)
}
