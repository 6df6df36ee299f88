package servertest_test

import (
	"context"
	"net"
	"net/http"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"k8s.io/client-go/tools/clientcmd"

	"github.com/waitable/waitable/kubewait/servertest/internal/apiserver"
	"github.com/waitable/waitable/kubewait/servertest/internal/proxy"
	"github.com/waitable/waitable/kubewait/servertest/internal/waitcmd"
)

// klogLine is a line klog writes (E1206 04:02:07.123456 ...).
var klogLine = regexp.MustCompile(`(?m)^[IWEF]\d{4} `)

// runKube runs waitable kube with args in env and returns how it ended.
func runKube(t *testing.T, env *waitcmd.Env, args ...string) waitcmd.Result {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	p, err := env.Start(ctx, waitcmd.Waitable, args...)
	if err != nil {
		t.Fatal(err)
	}
	res := p.Wait()
	t.Logf("%s: status %d after %v\n%s", res.Command(), res.Code, res.Elapsed(), res.StderrText())
	return res
}

// lastLine is the last line of res's standard error.
func lastLine(res waitcmd.Result) string {
	if len(res.Stderr) == 0 {
		return ""
	}
	return res.Stderr[len(res.Stderr)-1].Text
}

// TestKubeCommandUnreachable: a server that refuses connections (a
// closed loopback port) is exit status 69 (EX_UNAVAILABLE), the last
// line naming the server and the error, with no klog line (client-go's
// discovery logs "couldn't get current server API group list").
func TestKubeCommandUnreachable(t *testing.T) {
	srv := apiserver.Start(t, apiserver.Options{})
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := "https://" + l.Addr().String()
	l.Close()
	cfg, err := clientcmd.LoadFromFile(srv.Kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cfg.Clusters {
		c.Server = closed
	}
	path := filepath.Join(t.TempDir(), "kubeconfig")
	if err := clientcmd.WriteToFile(*cfg, path); err != nil {
		t.Fatal(err)
	}
	res := runKube(t, waitcmd.NewEnv(t, path), "wd/a", "-n", "unreachable", "--for=condition=Ready", "--timeout=10s")
	if last := lastLine(res); res.Code != 69 || !strings.Contains(last, closed) || !strings.Contains(last, "connection refused") {
		t.Errorf("%s: status %d, last line %q; want 69, naming %s and the refused connection", res.Command(), res.Code, last, closed)
	}
	if klogLine.MatchString(res.StderrText()) {
		t.Errorf("%s: klog lines on stderr:\n%s", res.Command(), res.StderrText())
	}
}

// TestKubeCommandServerFaults: through the proxy, a server that refuses
// the resource (403 to every request of widgets) is exit status 77
// (EX_NOPERM); one that answers them 503 until the deadline is 69. The
// last line names the server and the last answer.
func TestKubeCommandServerFaults(t *testing.T) {
	srv := apiserver.Start(t, apiserver.Options{})
	env := waitcmd.NewEnv(t, srv.Kubeconfig)
	for _, tt := range []struct {
		name   string
		status int
		code   int
		says   string
	}{
		{"forbidden", http.StatusForbidden, 77, "refused access"},
		{"unavailable", http.StatusServiceUnavailable, 69, "could not be reached"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ns := "fault-" + tt.name
			srv.CreateWidget(t, ns, "a", nil)
			srv.SetFault(func(r *http.Request) *proxy.Fault {
				if req := proxy.Classify(r); req.Resource == "widgets" && req.Namespace == ns {
					return &proxy.Fault{Status: tt.status}
				}
				return nil
			})
			defer srv.SetFault(nil)
			res := runKube(t, env, "wd/a", "-n", ns, "--for=condition=Ready", "--timeout=5s")
			last := lastLine(res)
			if res.Code != tt.code || !strings.Contains(last, tt.says) || !strings.Contains(last, srv.Config.Host) {
				t.Errorf("%s: status %d, last line %q; want %d, saying %q and naming %s", res.Command(), res.Code, last, tt.code, tt.says, srv.Config.Host)
			}
		})
	}
}
