package main

import (
	"bytes"
	"strings"
	"testing"
	"testing/synctest"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// TestQuickstart runs the example in virtual time: it must end with the
// cluster ACTIVE, after a transient throttle.
func TestQuickstart(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var out bytes.Buffer
		if err := run(t.Context(), &out); err != nil {
			t.Fatalf("run: %v\n%s", err, out.String())
		}
		s := out.String()
		for _, want := range []string{"waiter ClusterActive on com.amazonaws.eks#DescribeCluster", "ThrottlingException", "retry (transient error)", `success (acceptor 2: output: cluster.status stringEquals "ACTIVE")`, "cluster demo is ACTIVE"} {
			if !strings.Contains(s, want) {
				t.Errorf("output lacks %q:\n%s", want, s)
			}
		}
	})
}
