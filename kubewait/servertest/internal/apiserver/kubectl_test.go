package apiserver_test

import (
	"bytes"
	"context"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/waitable/waitable/kubewait/servertest/internal/apiserver"
	kubectlbin "github.com/waitable/waitable/kubewait/servertest/internal/kubectl"
	"github.com/waitable/waitable/kubewait/servertest/internal/proxy"
)

// kubectlPath returns the path of the machine's kubectl if it is recent
// enough, or of one built from k8s.io/kubectl (package kubectl).
func kubectlPath(t *testing.T) string {
	t.Helper()
	path, which := kubectlbin.Path(t)
	t.Logf("kubectl: %s", which)
	return path
}

// kubectl returns a command that runs the kubectl at path with args
// against s through its proxy, with a discovery cache of the test's own.
func kubectl(t *testing.T, ctx context.Context, path string, s *apiserver.Server, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, path, args...)
	cmd.Env = append(os.Environ(), "KUBECONFIG="+s.Kubeconfig, "KUBECACHEDIR="+t.TempDir())
	return cmd
}

// TestKubectlAPIResources checks that kubectl finds the custom resources
// through discovery.
func TestKubectlAPIResources(t *testing.T) {
	t.Parallel()
	path := kubectlPath(t)
	s := apiserver.Start(t, apiserver.Options{})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	out, err := kubectl(t, ctx, path, s, "api-resources", "--api-group=waitable.test", "--no-headers").CombinedOutput()
	if err != nil {
		t.Fatalf("kubectl api-resources: %v\n%s", err, out)
	}
	for _, want := range []string{"widgets", "wd", "Widget", "gadgets", "gd", "Gadget"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("kubectl api-resources = %q, want it to name %s", out, want)
		}
	}
}

// TestKubectlWait checks that kubectl wait, through the proxy, waits for a
// condition, a JSONPath value and a deletion, and exits 0 when a
// controller's write (SetCondition, SetStatusField, DeleteWidget) meets
// it.
func TestKubectlWait(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name string
		args []string
		meet func(t *testing.T, s *apiserver.Server)
	}{
		{"condition", []string{"--for=condition=Ready"}, func(t *testing.T, s *apiserver.Server) {
			s.SetCondition(t, "default", "w1", "Ready", "True", "Started", "")
		}},
		{"jsonpath", []string{"--for=jsonpath={.status.phase}=Running"}, func(t *testing.T, s *apiserver.Server) {
			s.SetStatusField(t, "default", "w1", "phase", "Running")
		}},
		{"delete", []string{"--for=delete"}, func(t *testing.T, s *apiserver.Server) {
			s.DeleteWidget(t, "default", "w1")
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			path := kubectlPath(t)
			s := apiserver.Start(t, apiserver.Options{})
			s.CreateWidget(t, "default", "w1", nil)
			s.SetCondition(t, "default", "w1", "Ready", "False", "Starting", "")
			s.SetStatusField(t, "default", "w1", "phase", "Pending")

			// kubectl has read the widget and waits when it watches it.
			watching := make(chan struct{})
			var once sync.Once
			s.SetFault(func(r *http.Request) *proxy.Fault {
				if req := proxy.Classify(r); req.Verb == "WATCH" && req.Resource == "widgets" {
					once.Do(func() { close(watching) })
				}
				return nil
			})

			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			cmd := kubectl(t, ctx, path, s, append([]string{"wait", "widget/w1", "--timeout=25s"}, c.args...)...)
			var out bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &out
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			exited := make(chan error, 1)
			go func() { exited <- cmd.Wait() }()
			select {
			case <-watching:
			case err := <-exited:
				t.Fatalf("kubectl wait %s exited before the widget met it: %v\n%s", c.args[0], err, out.String())
			}
			c.meet(t, s)
			if err := <-exited; err != nil {
				t.Fatalf("kubectl wait %s: %v\n%s", c.args[0], err, out.String())
			}
		})
	}
}
