package jmespath

import (
	"testing"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// compile is Compile for a test's expressions: one that fails to compile
// fails the test.
func compile(t testing.TB, src string, opts ...Option) *Expr {
	t.Helper()
	e, err := Compile(src, opts...)
	if err != nil {
		t.Fatalf("Compile(%q) = %v", src, err)
	}
	return e
}
