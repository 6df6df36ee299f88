package anchor

import (
	"context"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/waitable/waitable/kubewait/servertest/internal/kubectl"
	"github.com/waitable/waitable/kubewait/servertest/internal/waitcmd"
)

// Kubectl is one kubectl a test runs.
type Kubectl struct {
	Path string
	// Which says which it is: "kubectl v1.37.2 built from
	// k8s.io/kubectl v0.37.2", "the machine's kubectl v1.32.4".
	Which string
}

// Kubectls returns the kubectls to run: the one built from
// k8s.io/kubectl at the version the module requires (the first call in a
// process builds it), then the machine's, if there is one on the PATH.
// Without one, the test logs that only the built one runs, or under
// CI=true fails, saying what to install.
func Kubectls(t testing.TB) []Kubectl {
	t.Helper()
	path, which := kubectl.Built(t)
	ks := []Kubectl{{Path: path, Which: which}}
	switch p, v, ok := kubectl.Machine(); {
	case ok:
		ks = append(ks, Kubectl{Path: p, Which: "the machine's kubectl " + v})
	case os.Getenv("CI") == "true":
		t.Fatal("anchor: no kubectl on the PATH (CI=true): install one (Debian's kubernetes-client, " +
			"or https://kubernetes.io/docs/tasks/tools/)")
	default:
		t.Log("anchor: no kubectl on the PATH, only the built one runs: install one " +
			"(Debian's kubernetes-client) to compare it too")
	}
	return ks
}

// RolloutStatus starts kubectl rollout status of resource ("deployment/web")
// in namespace, with the kubeconfig file kubeconfig and a discovery cache
// of the test's own, and kubectl's --timeout set to timeout. ctx bounds
// the command: when it ends, kubectl is killed. The caller must call
// [waitcmd.Proc.Wait], whose Result says how and when it ended: Success,
// Failure (exit 1, "exceeded its progress deadline"), or Timeout ("timed
// out waiting for the condition").
func RolloutStatus(ctx context.Context, t testing.TB, k Kubectl, kubeconfig, namespace, resource string,
	timeout time.Duration) (*waitcmd.Proc, error) {
	cmd := exec.CommandContext(ctx, k.Path, "rollout", "status", resource, "--namespace", namespace,
		"--timeout", timeout.String())
	cmd.Env = append(os.Environ(), "KUBECONFIG="+kubeconfig, "KUBECACHEDIR="+t.TempDir())
	return waitcmd.Exec(waitcmd.Kubectl, cmd)
}

// RolloutStatuses starts RolloutStatus with each of kubectls, in their
// order, and fails t if one does not start.
func RolloutStatuses(ctx context.Context, t testing.TB, kubectls []Kubectl, kubeconfig, namespace, resource string,
	timeout time.Duration) []*waitcmd.Proc {
	t.Helper()
	procs := make([]*waitcmd.Proc, 0, len(kubectls))
	for _, k := range kubectls {
		p, err := RolloutStatus(ctx, t, k, kubeconfig, namespace, resource, timeout)
		if err != nil {
			t.Fatal(err)
		}
		procs = append(procs, p)
	}
	return procs
}
