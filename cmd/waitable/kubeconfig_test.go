package main

import (
	"encoding/base64"
	"encoding/pem"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// kubeconfig writes a kubeconfig whose contexts are given as name,
// server, namespace triples (the first is the current context), each
// with the bearer token secret, and returns its path. An https server's
// certificate is ca's (one of httptest's servers; nil for none).
func kubeconfig(t *testing.T, ca *httptest.Server, contexts ...string) string {
	t.Helper()
	var clusters, ctxs strings.Builder
	for i := 0; i+2 < len(contexts); i += 3 {
		name, server, ns := contexts[i], contexts[i+1], contexts[i+2]
		fmt.Fprintf(&clusters, "- name: %s\n  cluster:\n    server: %s\n", name, server)
		if ca != nil {
			certPEM := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: ca.Certificate().Raw})
			fmt.Fprintf(&clusters, "    certificate-authority-data: %s\n", base64.StdEncoding.EncodeToString(certPEM))
		}
		fmt.Fprintf(&ctxs, "- name: %s\n  context:\n    cluster: %s\n    user: u\n", name, name)
		if ns != "" {
			fmt.Fprintf(&ctxs, "    namespace: %s\n", ns)
		}
	}
	cfg := "apiVersion: v1\nkind: Config\nclusters:\n" + clusters.String() + "contexts:\n" + ctxs.String() +
		"current-context: " + contexts[0] + "\nusers:\n- name: u\n  user:\n    token: secret\n"
	path := filepath.Join(t.TempDir(), "kubeconfig")
	if err := os.WriteFile(path, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// fakeAPI is an API server on loopback (https: a kubeconfig's
// credentials go only to one) that serves discovery (widgets,
// short name wd) and the widgets of namespace ns: a list, and a watch
// that sends nothing and stays open. watching receives a value when a
// watch begins.
type fakeAPI struct {
	*httptest.Server
	watching chan struct{}
	mu       sync.Mutex
	tokens   []string
	// fault, if set before the first request, answers a request whose
	// path it returns a status for with that status (0: none).
	fault func(path string) int
}

func newFakeAPI(t *testing.T, widgets ...string) *fakeAPI {
	api := &fakeAPI{watching: make(chan struct{}, 10)}
	answers := map[string]string{
		"/api":    `{"kind":"APIVersions","versions":["v1"],"serverAddressByClientCIDRs":[{"clientCIDR":"0.0.0.0/0","serverAddress":"127.0.0.1"}]}`,
		"/api/v1": `{"kind":"APIResourceList","groupVersion":"v1","resources":[]}`,
		"/apis": `{"kind":"APIGroupList","apiVersion":"v1","groups":[{"name":"waitable.test",` +
			`"versions":[{"groupVersion":"waitable.test/v1","version":"v1"}],"preferredVersion":{"groupVersion":"waitable.test/v1","version":"v1"}}]}`,
		"/apis/waitable.test/v1": `{"kind":"APIResourceList","apiVersion":"v1","groupVersion":"waitable.test/v1","resources":[` +
			`{"name":"widgets","singularName":"widget","namespaced":true,"kind":"Widget","verbs":["get","list","watch"],"shortNames":["wd"]}]}`,
		"/apis/waitable.test/v1/namespaces/ns/widgets": `{"apiVersion":"waitable.test/v1","kind":"WidgetList",` +
			`"metadata":{"resourceVersion":"7"},"items":[` + strings.Join(widgets, ",") + `]}`,
	}
	api.Server = httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		api.mu.Lock()
		api.tokens = append(api.tokens, r.Header.Get("Authorization"))
		api.mu.Unlock()
		if api.fault != nil {
			if code := api.fault(r.URL.Path); code != 0 {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(code)
				fmt.Fprintf(w, `{"kind":"Status","apiVersion":"v1","status":"Failure","message":"fault %d","code":%d}`, code, code)
				return
			}
		}
		body, ok := answers[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		if r.URL.Query().Get("watch") != "" {
			w.WriteHeader(http.StatusOK)
			w.(http.Flusher).Flush()
			api.watching <- struct{}{}
			<-r.Context().Done() // until the command ends the watch
			return
		}
		fmt.Fprint(w, body)
	}))
	t.Cleanup(api.Close)
	return api
}

func readyWidget(name, phase string) string {
	return fmt.Sprintf(`{"apiVersion":"waitable.test/v1","kind":"Widget","metadata":{"name":%q,"namespace":"ns","uid":"u-%s",`+
		`"resourceVersion":"7"},"status":{"phase":%q,"conditions":[{"type":"Ready","status":"True","reason":"Up","message":"all good"}]}}`,
		name, name, phase)
}

// TestKubeKubeconfig: waitable kube works against the API server of a
// kubeconfig given by --kubeconfig, by KUBECONFIG, or in ~/.kube/config,
// with its credentials; a kubeconfig that cannot be read is bad usage
// (64), a server that cannot be reached unavailable (69), one that does not
// answer within --timeout a timeout (2).
func TestKubeKubeconfig(t *testing.T) {
	api := newFakeAPI(t, readyWidget("a", "Running"))
	path := kubeconfig(t, api.Server, "fake", api.URL, "ns")
	r := runBinary(t, []string{"KUBECONFIG="}, "kube", "--kubeconfig", path, "--for", "condition=Ready", "widget/a")
	if r.code != exitSuccess || r.stdout != "widget.waitable.test/a condition met\n" {
		t.Errorf("--kubeconfig: exit %d, stdout %q, stderr %q; want 0 and the line", r.code, r.stdout, r.stderr)
	}
	r = runBinary(t, []string{"KUBECONFIG=" + path}, "kube", "--for", "jsonpath={.status.phase}=Running", "--quiet", "wd", "a")
	if r.code != exitSuccess || r.stdout != "widget.waitable.test/a condition met\n" || r.stderr != "" {
		t.Errorf("KUBECONFIG: exit %d, stdout %q, stderr %q; want 0 and the line", r.code, r.stdout, r.stderr)
	}
	home := t.TempDir()
	if err := os.MkdirAll(filepath.Join(home, ".kube"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(kubeconfig(t, api.Server, "fake", api.URL, "ns"), filepath.Join(home, ".kube", "config")); err != nil {
		t.Fatal(err)
	}
	r = runBinary(t, []string{"KUBECONFIG=", "HOME=" + home}, "kube", "--for", "condition=Ready", "widgets/a")
	if r.code != exitSuccess || r.stdout != "widget.waitable.test/a condition met\n" {
		t.Errorf("~/.kube/config: exit %d, stdout %q, stderr %q; want 0 and the line", r.code, r.stdout, r.stderr)
	}
	api.mu.Lock()
	for _, tok := range api.tokens {
		if tok != "Bearer secret" {
			t.Errorf("a request came with Authorization %q, want the kubeconfig's token", tok)
		}
	}
	api.mu.Unlock()

	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := "http://" + l.Addr().String()
	l.Close()
	hangs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() }))
	defer hangs.Close()
	for _, tt := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--kubeconfig", kubeconfig(t, nil, "slow", hangs.URL, ""), "--timeout", "300ms"}, exitTimeout,
			"waitable kube: timed out after 300ms: discovering the server's types: "},
		{[]string{"--kubeconfig", filepath.Join(t.TempDir(), "none")}, exitUsage, "waitable kube: kubeconfig: "},
		{[]string{"--kubeconfig", path, "--context", "other"}, exitUsage, `waitable kube: kubeconfig: context "other" does not exist`},
		{[]string{"--kubeconfig", kubeconfig(t, nil, "gone", closed, ""), "--timeout", "2s"}, exitUnavailable,
			"waitable kube: the API server " + closed + " could not be reached: "},
	} {
		r := runBinary(t, nil, append([]string{"kube", "--for", "condition=Ready", "widget/a"}, tt.args...)...)
		if r.code != tt.code || !strings.Contains(r.stderr, tt.want) {
			t.Errorf("%q: exit %d, stderr %q; want %d, %q", tt.args, r.code, r.stderr, tt.code, tt.want)
		}
	}
}
