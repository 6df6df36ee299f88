package suggest

import (
	"testing"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestNearest(t *testing.T) {
	names := []string{"ClusterActive", "ClusterDeleted", "NodegroupActive"}
	for _, tt := range []struct {
		name string
		max  int
		want string
	}{
		{"clusteractive", 0, "ClusterActive"},
		{"ClusterActiv", 2, "ClusterActive"},
		{"ClustrDeleted", 2, "ClusterDeleted"},
		{"Something", 2, ""},
	} {
		if got := Nearest(tt.name, names, tt.max); got != tt.want {
			t.Errorf("Nearest(%q, %d) = %q, want %q", tt.name, tt.max, got, tt.want)
		}
	}
	if d := Distance("kitten", "sitting"); d != 3 {
		t.Errorf("Distance(kitten, sitting) = %d, want 3", d)
	}
}
