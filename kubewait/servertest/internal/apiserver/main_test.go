package apiserver_test

import (
	"os"
	"testing"

	"go.uber.org/goleak"

	"github.com/waitable/waitable/kubewait/servertest/internal/apiserver"
	kubectlbin "github.com/waitable/waitable/kubewait/servertest/internal/kubectl"
)

// TestMain checks that no test leaves a goroutine running (but for
// those of k8s.io/apiserver's that apiserver.LeakOptions names), and
// removes a kubectl the tests built.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m, append(apiserver.LeakOptions(), goleak.Cleanup(func(code int) {
		kubectlbin.Cleanup()
		os.Exit(code)
	}))...)
}
