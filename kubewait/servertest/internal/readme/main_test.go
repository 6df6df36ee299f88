package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"

	"go.uber.org/goleak"

	"github.com/waitable/waitable/kubewait"
	"github.com/waitable/waitable/kubewait/servertest/internal/apiserver"
	"github.com/waitable/waitable/waiter"
)

// TestMain checks that no test leaves a goroutine running (but for
// those of k8s.io/apiserver's that apiserver.LeakOptions names).
func TestMain(m *testing.M) { goleak.VerifyTestMain(m, apiserver.LeakOptions()...) }

// TestREADMEProgram runs the README's kubewait program against an API
// server in process, while widgets are created and become ready (or one
// fails) as a controller would do it.
func TestREADMEProgram(t *testing.T) {
	for _, tc := range []struct {
		name string
		fail bool
	}{{"ready", false}, {"failed", true}} {
		t.Run(tc.name, func(t *testing.T) {
			srv := apiserver.Start(t, apiserver.Options{})
			wrote := make(chan struct{})
			go func() { // a controller, meanwhile
				defer close(wrote)
				for i := range 3 {
					name := fmt.Sprintf("web-%d", i)
					srv.CreateWidget(t, "default", name, map[string]string{"app": "web"})
					if tc.fail && i == 1 {
						srv.SetCondition(t, "default", name, "Failed", "True", "CrashLoop", "the widget keeps crashing")
						continue
					}
					srv.SetCondition(t, "default", name, "Ready", "True", "Up", "")
					srv.SetStatusField(t, "default", name, "phase", "Running")
				}
			}()
			var out bytes.Buffer
			err := run(t.Context(), srv.Config, &out)
			<-wrote
			t.Logf("output:\n%s", out.String())
			var ke *kubewait.Error
			switch {
			case !tc.fail && err != nil:
				t.Fatal(err)
			case !tc.fail && !strings.Contains(out.String(), "3 widgets ready in"):
				t.Errorf("output lacks the summary")
			case tc.fail && (!errors.Is(err, waiter.ErrFailure) || !errors.As(err, &ke) || ke.Objects[0].Name != "web-1" || ke.Objects[0].Reason != "CrashLoop"):
				t.Errorf("err = %v, want web-1's failure, CrashLoop", err)
			}
			if !strings.Contains(out.String(), "default/web-1: ") {
				t.Errorf("no event for web-1")
			}
		})
	}
}

// TestREADMEExcerpt: the Go block of kubewait's README is this program's:
// its lines, blank ones aside, found in main.go in order, line for line
// (leading white space aside).
func TestREADMEExcerpt(t *testing.T) {
	readme, err := os.ReadFile("../../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile("(?ms)^<!-- excerpt: kubewait/servertest/internal/readme/main.go -->\n```go\n(.*?)^```$").
		FindSubmatch(readme)
	if m == nil {
		t.Fatal("kubewait/README.md has no excerpt of kubewait/servertest/internal/readme/main.go")
	}
	program, err := os.ReadFile("main.go")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(program), "\n")
	at := 0
	for _, want := range strings.Split(string(m[1]), "\n") {
		want = strings.TrimSpace(want)
		if want == "" {
			continue
		}
		for at < len(lines) && strings.TrimSpace(lines[at]) != want {
			at++
		}
		if at == len(lines) {
			t.Fatalf("the README's line %q is not in main.go, after the lines before it", want)
		}
		at++
	}
}
