package servertest_test

import (
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/waitable/waitable/kubewait/servertest/internal/apiserver"
	"github.com/waitable/waitable/kubewait/servertest/internal/waitcmd"
)

// waitable kube completes, from a real API server, as kubectl completes
// kubectl wait: resource types from its discovery, names from a list of
// the type's objects.
func TestCompletionFromTheServer(t *testing.T) {
	t.Parallel()
	srv := apiserver.Start(t, apiserver.Options{})
	srv.CreateWidget(t, "complete", "a", nil)
	srv.CreateWidget(t, "complete", "b", nil)
	env := waitcmd.NewEnv(t, srv.Kubeconfig)
	complete := func(args ...string) []string {
		cmd := exec.CommandContext(t.Context(), waitcmd.WaitablePath(t), append([]string{"__complete", "kube"}, args...)...)
		cmd.Env = append(os.Environ(), "KUBECONFIG="+env.Kubeconfig, "KUBECACHEDIR="+env.CacheDir)
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("waitable __complete kube %q: %v", args, err)
		}
		var got []string
		for _, line := range strings.Split(string(out), "\n") {
			if line != "" && !strings.HasPrefix(line, ":") {
				got = append(got, line)
			}
		}
		return got
	}
	if types := complete(""); !slices.Contains(types, "widgets.waitable.test") || !slices.Contains(types, "gadgets.waitable.test") {
		t.Errorf("types %q, want the server's widgets and gadgets", types)
	}
	if got, want := complete("-n", "complete", "widget/"), []string{"widget/a", "widget/b"}; !slices.Equal(got, want) {
		t.Errorf("names %q, want %q", got, want)
	}
	if got, want := complete("-n", "complete", "wd", "a", ""), []string{"b"}; !slices.Equal(got, want) {
		t.Errorf("names after wd a: %q, want %q", got, want)
	}
}
