package gcpwait

import "testing"

// percentMeta has a ProgressPercent, as many services' metadata do.
type percentMeta struct{ p int32 }

func (m *percentMeta) GetProgressPercent() int32 { return m.p }

// nestedMeta has a Progress with one (Spanner's RestoreDatabaseMetadata).
type nestedMeta struct{ p *percentMeta }

func (m *nestedMeta) GetProgress() *percentMeta { return m.p }

// listMeta has a list of them (Spanner's UpdateDatabaseDdlMetadata).
type listMeta struct{ ps []*percentMeta }

func (m *listMeta) GetProgress() []*percentMeta { return m.ps }

// computeMeta's Progress is a percent (Compute Engine's Operation).
type computeMeta struct{ p int32 }

func (m *computeMeta) GetProgress() int32 { return m.p }

// otherMeta has a Progress of another kind: no progress read.
type otherMeta struct{}

func (m *otherMeta) GetProgress() string { return "half" }

// TestProgressOf: each shape of a metadata's progress percent reads as a
// fraction, a nil metadata or an empty list as none (-1), a percent out
// of range as none; a metadata with no such shape has no reader.
func TestProgressOf(t *testing.T) {
	check := func(name string, got, want float64) {
		t.Helper()
		if got != want {
			t.Errorf("%s: progress %v, want %v", name, got, want)
		}
	}
	pp := progressOf[*percentMeta]()
	check("ProgressPercent 40", pp(&percentMeta{40}), 0.4)
	check("nil metadata", pp(nil), -1)
	check("ProgressPercent 140", pp(&percentMeta{140}), -1)
	np := progressOf[*nestedMeta]()
	check("Progress.ProgressPercent 25", np(&nestedMeta{&percentMeta{25}}), 0.25)
	check("Progress nil", np(&nestedMeta{}), -1)
	lp := progressOf[*listMeta]()
	check("a list, 100 and 50", lp(&listMeta{[]*percentMeta{{100}, {50}, nil}}), 0.75)
	check("an empty list", lp(&listMeta{}), -1)
	check("compute's Progress 30", progressOf[*computeMeta]()(&computeMeta{30}), 0.3)
	if progressOf[*otherMeta]() != nil || progressOf[struct{}]() != nil {
		t.Error("progressOf of a metadata with no progress percent is not nil")
	}
}
