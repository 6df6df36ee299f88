package main

import (
	"bytes"
	"errors"
	"fmt"
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
