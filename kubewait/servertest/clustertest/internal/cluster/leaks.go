package cluster

import (
	"go.uber.org/goleak"

	"github.com/waitable/waitable/kubewait/servertest/internal/apiserver"
)

// LeakOptions are the goleak options of a test package that starts
// clusters, for its TestMain: goleak.VerifyTestMain(m, LeakOptions()...).
// Every cluster a test starts stops with it; the goroutines that outlive
// any are named here: those of [apiserver.LeakOptions].
func LeakOptions() []goleak.Option {
	return apiserver.LeakOptions()
}
