package servertest_test

import (
	"os"
	"testing"

	"go.uber.org/goleak"

	"github.com/waitable/waitable/kubewait/servertest/internal/apiserver"
	"github.com/waitable/waitable/kubewait/servertest/internal/waitcmd"
)

// TestMain checks that no test leaves a goroutine running (but for
// those of k8s.io/apiserver's that apiserver.LeakOptions names), and
// removes the commands that the tests built.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m, append(apiserver.LeakOptions(), goleak.Cleanup(func(code int) {
		waitcmd.Cleanup()
		os.Exit(code)
	}))...)
}
