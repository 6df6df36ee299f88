package servertest_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/util/retry"

	"github.com/waitable/waitable/kubewait/servertest/internal/apiserver"
	"github.com/waitable/waitable/kubewait/servertest/internal/waitcmd"
)

// kubeTranscript is one "$ waitable kube" of the README's "A session"
// section: its arguments, what it prints (standard output, then standard
// error, as a terminal shows them), and its exit status.
type kubeTranscript struct {
	args []string
	want string
	code int
}

// readmeKube returns the README's "A session" section's waitable kube
// commands, and its manifests: each ```yaml block whose first line is
// "# NAME", by NAME.
func readmeKube(t *testing.T) ([]kubeTranscript, map[string]string) {
	t.Helper()
	data, err := os.ReadFile("../../cmd/waitable/README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(data), "\n## A session\n")
	if !ok {
		t.Fatal(`the command's README has no "## A session" section`)
	}
	section, _, _ = strings.Cut(section, "\n## ")
	files := map[string]string{}
	var out []kubeTranscript
	block, file, cur := "", "", -1 // block: the fence's language while in one
	for line := range strings.SplitSeq(section, "\n") {
		switch {
		case strings.HasPrefix(line, "```") && block == "":
			block, file, cur = strings.TrimPrefix(line, "```")+" ", "", -1
		case strings.HasPrefix(line, "```"):
			block = ""
		case block == "":
		case block == "yaml " && file == "" && strings.HasPrefix(line, "# "):
			file = strings.TrimPrefix(line, "# ")
		case block == "yaml " && file != "":
			files[file] += line + "\n"
		case strings.HasPrefix(line, "$ waitable kube "):
			args, err := splitWords(strings.TrimPrefix(line, "$ waitable kube "))
			if err != nil {
				t.Fatalf("README: %s: %v", line, err)
			}
			out = append(out, kubeTranscript{args: args})
			cur = len(out) - 1
		case strings.HasPrefix(line, "$ echo $?"):
			cur = -len(out) - 1 // the next line is the status of the last command
		case strings.HasPrefix(line, "$ "):
			cur = -1
		case cur < -1:
			code, err := strconv.Atoi(line)
			if err != nil {
				t.Fatalf("README: after echo $?: %q", line)
			}
			out[-cur-2].code, cur = code, -1
		case cur >= 0:
			out[cur].want += line + "\n"
		}
	}
	return out, files
}

// splitWords splits a command line as sh does for words with single or
// double quotes in them (no expansions).
func splitWords(s string) ([]string, error) {
	var words []string
	var w strings.Builder
	inWord := false
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case ' ', '\t':
			if inWord {
				words, inWord = append(words, w.String()), false
				w.Reset()
			}
		case '\'', '"':
			end := strings.IndexByte(s[i+1:], c)
			if end < 0 {
				return nil, errors.New("unterminated quote")
			}
			w.WriteString(s[i+1 : i+1+end])
			i, inWord = i+1+end, true
		default:
			w.WriteByte(c)
			inWord = true
		}
	}
	if inWord {
		words = append(words, w.String())
	}
	return words, nil
}

// readmeDurations matches what a run's timing changes: Go durations.
var readmeDurations = regexp.MustCompile(`\b\d+(\.\d+)?(ns|µs|ms|s|m|h)(\d+(\.\d+)?(ms|s|m))*\b`)

// TestReadmeKube runs each waitable kube command of the command's README's "A
// session" section against an API server in process, in a folder holding
// the section's manifests, the objects as the README says they are (the
// widget web Ready and Done; the gadget cache Ready but Running), and
// holds what it prints and its exit status to what the README shows, but
// for durations.
func TestReadmeKube(t *testing.T) {
	ts, files := readmeKube(t)
	if len(ts) == 0 || files["app.yaml"] == "" {
		t.Fatalf("the command's README's A session section shows %d waitable kube commands and app.yaml %q: want a command with -f app.yaml",
			len(ts), files["app.yaml"])
	}
	srv := apiserver.Start(t, apiserver.Options{})
	env := waitcmd.NewEnv(t, srv.Kubeconfig)
	w := &world{t: t, srv: srv, ns: "default"}
	ready := func(w *world) { w.srv.SetCondition(w.t, w.ns, "web", "Ready", "True", "Up", "all replicas ready") }
	steps(create("web"), ready, field("web", "phase", "Done"),
		createGadget("cache"), gadgetCond("cache", "Ready", "True"), gadgetPhase("cache", "Running"))(w)
	dir := t.TempDir()
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, tt := range ts {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
			defer cancel()
			p, err := env.StartWith(ctx, waitcmd.Input{Dir: dir}, waitcmd.Waitable, tt.args...)
			if err != nil {
				t.Fatal(err)
			}
			res := p.Wait()
			var got strings.Builder
			for _, l := range append(res.Stdout, res.Stderr...) {
				got.WriteString(l.Text + "\n")
			}
			gotText, want := readmeDurations.ReplaceAllString(got.String(), "D"), readmeDurations.ReplaceAllString(tt.want, "D")
			if gotText != want || res.Code != tt.code {
				t.Errorf("%s: exit %d, printed\n%s\nthe README says exit %d and\n%s", res.Command(), res.Code, got.String(), tt.code, tt.want)
			}
		})
	}
}

// gadgetPhase sets the status.phase of the gadget name, as its controller
// would, keeping the rest of its status.
func gadgetPhase(name, phase string) step {
	return func(w *world) {
		gadgets := w.dynamicClient().Resource(apiserver.GadgetResource)
		err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
			g, err := gadgets.Get(context.Background(), name, metav1.GetOptions{})
			if err != nil {
				return err
			}
			if err := unstructured.SetNestedField(g.Object, phase, "status", "phase"); err != nil {
				return err
			}
			_, err = gadgets.UpdateStatus(context.Background(), g, metav1.UpdateOptions{})
			return err
		})
		if err != nil {
			w.t.Fatalf("gadget %s: update status: %v", name, err)
		}
	}
}
