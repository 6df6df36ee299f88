package bench

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"
)

var (
	reportFull    = flag.Bool("report", false, "measure every row at full size, as go run ./cmd/report does")
	reportMillion = flag.Bool("report.million", false, "with -report, add the 1,000,000-wait sizes")
	reportOut     = flag.String("report.out", "", "write the report to this file instead of the test log")
	reportRows    = flag.String("report.rows", "", "measure only these ratio rows, by id, comma-separated (3,3b), and leave out the other tables")
)

// TestReport runs the whole report: small sizes by default, so that every
// row keeps working; full sizes with -report.
func TestReport(t *testing.T) {
	o := QuickReport()
	if *reportFull {
		o = FullReport(*reportMillion)
	}
	if *reportRows != "" {
		o.Rows = strings.Split(*reportRows, ",")
		for _, id := range o.Rows {
			if !slices.ContainsFunc(ratioRows(), func(r ratioRow) bool { return r.id == id }) {
				t.Fatalf("-report.rows: no ratio row %q", id)
			}
		}
	}
	var buf bytes.Buffer
	Report(t, o, &buf)
	out := buf.String()
	for _, row := range ratioRows() {
		if (len(o.Rows) == 0 || slices.Contains(o.Rows, row.id)) && !strings.Contains(out, "| "+row.id+" | "+row.what+" |") {
			t.Errorf("the report has no row %s (%s)", row.id, row.what)
		}
	}
	for _, c := range OutageClients {
		if len(o.Rows) > 0 {
			break
		}
		if !strings.Contains(out, fmt.Sprintf("| %s | %d | ", c, o.OutageN)) {
			t.Errorf("the report's outage table has no row for %s", c)
		}
	}
	if _, ended, _ := strings.Cut(out, "Memory of ended runs:"); len(o.Rows) == 0 &&
		!strings.Contains(ended, fmt.Sprintf("|\n| %d | ", o.LongRuns[0])) {
		t.Errorf("the report has no table of ended runs with a row of %d runs", o.LongRuns[0])
	}
	for _, bad := range []string{"NaN", "+Inf", "missing"} {
		if strings.Contains(out, bad) {
			t.Errorf("the report contains %q:\n%s", bad, out)
		}
	}
	if *reportOut != "" {
		if err := os.WriteFile(*reportOut, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Log("\n" + out)
}

// TestMeasuredOnCountsOne: the report's first line on a machine of 1 CPU,
// measured in 1 round.
func TestMeasuredOnCountsOne(t *testing.T) {
	got := measuredOn("linux", "amd64", 1, "a CPU", "go1.26", 1, time.Millisecond)
	want := "Measured on linux/amd64, 1 CPU (a CPU), go1.26; 1 interleaved round of about 1ms of CPU per side."
	if got != want {
		t.Errorf("measuredOn = %q, want %q", got, want)
	}
}
