package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/waitable/waitable/waiter"
)

// periodicServer answers {"state": "pending"} but every nth call, which
// answers {"state": "done"}: each wait of it takes n polls.
func periodicServer(t *testing.T, n int32) *httptest.Server {
	var calls atomic.Int32
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		st := "pending"
		if calls.Add(1)%n == 0 {
			st = "done"
		}
		fmt.Fprintf(w, `{"state": %q}`, st)
	}))
	t.Cleanup(s.Close)
	return s
}

// TestHistoryETA: run the same wait again and again with --history FILE,
// as a new user would: the first has nothing to say, the next ones say
// how many past waits they still need, and from the fifth (four before
// it) every progress line says how long the wait has left; --json says
// it too.
func TestHistoryETA(t *testing.T) {
	s := periodicServer(t, 4)
	file := filepath.Join(t.TempDir(), "history.db")
	args := []string{"http", s.URL, "--success", "state == 'done'", "--min-delay", "5ms", "--max-delay", "5ms", "--history", file}
	for run := 1; run <= 6; run++ {
		r := runBinary(t, nil, args...)
		if r.code != 0 {
			t.Fatalf("run %d: exit %d\n%s", run, r.code, r.stderr)
		}
		lines := strings.Split(r.stderr, "\n")
		switch {
		case run == 1 && strings.Contains(r.stderr, "ETA"):
			t.Errorf("run 1 speaks of an ETA:\n%s", r.stderr)
		case run > 1 && run <= waiter.MinHistory:
			want := fmt.Sprintf("no ETA: %d past wait", run-1)
			if !strings.Contains(lines[0], want) || strings.Contains(r.stderr, "; ETA ") {
				t.Errorf("run %d: want its first line to say %q, and no ETA:\n%s", run, want, r.stderr)
			}
		case run > waiter.MinHistory:
			for _, l := range lines[:3] { // the pending polls
				if !strings.Contains(l, "; ETA ") || !strings.Contains(l, "(p90 ") {
					t.Errorf("run %d: a pending poll's line says no ETA: %q\n%s", run, l, r.stderr)
				}
			}
		}
	}
	r := runBinary(t, nil, append(args, "--json")...)
	var first attemptJSON
	if err := json.Unmarshal([]byte(strings.SplitN(r.stdout, "\n", 2)[0]), &first); err != nil || first.ETA == nil || first.ETA.P90 < first.ETA.P10 {
		t.Errorf("--json: first attempt %+v (%v), want an eta", first, err)
	}
}

// TestHistoryShared: waitable processes that end together, all writing
// one history file, lose no sample; --history off writes none.
func TestHistoryShared(t *testing.T) {
	s := periodicServer(t, 1)
	file := filepath.Join(t.TempDir(), "history.db")
	const n = 8
	var wg sync.WaitGroup
	codes := make([]int, n)
	for i := range n {
		wg.Go(func() {
			codes[i] = runBinary(t, nil, "http", s.URL, "--success", "state == 'done'", "--history", file).code
		})
	}
	wg.Wait()
	runBinary(t, nil, "http", s.URL, "--success", "state == 'done'", "--history", "off")
	h := &fileHistory{path: file}
	samples, err := h.Load(context.Background(), "HTTP", s.URL)
	if err != nil || len(samples) != n {
		t.Errorf("the history holds %d samples (%v) after %d waits, codes %v: want %d", len(samples), err, n, codes, n)
	}
}

// TestHistoryBroken: a history file that is not a history (damaged, or
// its samples not samples) never fails a wait: it runs, its first line
// says why there is no estimate, and the command says the duration was
// not saved.
func TestHistoryBroken(t *testing.T) {
	s := periodicServer(t, 2)
	dir := t.TempDir()
	damaged := filepath.Join(dir, "damaged.db")
	if err := os.WriteFile(damaged, []byte("not a bolt file, nor anything else"), 0o600); err != nil {
		t.Fatal(err)
	}
	nonsense := filepath.Join(dir, "nonsense.db")
	db, err := bolt.Open(nonsense, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	err = db.Update(func(tx *bolt.Tx) error {
		b, err := tx.CreateBucket([]byte("HTTP"))
		if err != nil {
			return err
		}
		return b.Put([]byte(s.URL), []byte(`[{"pendingNs": NaN, "end": "success"}]`))
	})
	db.Close()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ file, first, saved string }{
		{damaged, "no ETA: the history could not be read", "was not saved in the history"},
		{nonsense, "no ETA: the history could not be read", ""},
	} {
		r := runBinary(t, nil, "http", s.URL, "--success", "state == 'done'", "--min-delay", "5ms", "--max-delay", "5ms", "--history", c.file)
		if r.code != 0 || !strings.Contains(strings.SplitN(r.stderr, "\n", 2)[0], c.first) || !strings.Contains(r.stderr, c.saved) {
			t.Errorf("%s: exit %d, want 0, the first line saying %q and %q:\n%s", filepath.Base(c.file), r.code, c.first, c.saved, r.stderr)
		}
	}
	h := &fileHistory{path: nonsense}
	if samples, err := h.Load(context.Background(), "HTTP", s.URL); err != nil || len(samples) != 1 {
		t.Errorf("after a wait, the damaged samples are replaced by its: %v, %v", samples, err)
	}
}

// TestScheduleLearned: with --past, waitable schedule shows the schedule
// learnt from those waits beside Smithy's, in the table and the SVG: for
// a resource ready as the past ones were, it sees it sooner in fewer
// polls; too few past waits, or ones that are not durations, are bad
// usage.
func TestScheduleLearned(t *testing.T) {
	svg := filepath.Join(t.TempDir(), "s.svg")
	past := "9m10s,9m40s,9m20s,10m2s,8m50s,9m35s,9m55s,9m5s,10m20s,9m28s"
	r := runBinary(t, nil, "schedule", "--min-delay", "30s", "--max-delay", "120s", "--max-wait", "30m", "--ready-at", "9m30s", "--past", past, "--svg", svg)
	parts := strings.Split(r.stdout, "the schedule learnt from 10 past waits")
	if r.code != 0 || len(parts) != 2 {
		t.Fatalf("exit %d, want 0 and a learned schedule:\n%s%s", r.code, r.stdout, r.stderr)
	}
	lagAndPolls := func(s string) (p90 time.Duration, polls float64) {
		i := strings.Index(s, "p90 ")
		if i < 0 {
			t.Fatalf("no p90 in %q", s)
		}
		p90, _ = time.ParseDuration(strings.TrimSuffix(strings.Fields(s[i:])[1], ","))
		fmt.Sscanf(s[strings.LastIndex(s, "; ")+2:], "%f polls", &polls)
		return p90, polls
	}
	smithyLag, smithyPolls := lagAndPolls(parts[0])
	learnedLag, learnedPolls := lagAndPolls(parts[1])
	if learnedLag > 35*time.Second || learnedLag >= smithyLag || learnedPolls > smithyPolls {
		t.Errorf("learned: p90 lag %v in %.1f polls; Smithy's %v in %.1f: want the learned at most 35s, in no more polls", learnedLag, learnedPolls, smithyLag, smithyPolls)
	}
	if b, err := os.ReadFile(svg); err != nil || !strings.Contains(string(b), `class="learned"`) {
		t.Errorf("the SVG draws no learned schedule (%v)", err)
	}
	for _, bad := range []string{"9m,9m10s,9m20s", "nine minutes", "5m..4m"} {
		if r := runBinary(t, nil, "schedule", "--past", bad); r.code != exitUsage {
			t.Errorf("--past %q: exit %d, want %d\n%s", bad, r.code, exitUsage, r.stderr)
		}
	}
}

// TestLearnedScheduleSVG: the README's picture of a learned schedule
// beside Smithy's (bench/learned-schedule.svg) is what waitable schedule
// draws (go test -run TestLearnedScheduleSVG -update rewrites it).
func TestLearnedScheduleSVG(t *testing.T) {
	file := filepath.Join("..", "..", "bench", "learned-schedule.svg")
	svg := filepath.Join(t.TempDir(), "s.svg")
	r := runBinary(t, nil, "schedule", "--min-delay", "30s", "--max-delay", "120s", "--max-wait", "30m", "--ready-at", "9m30s",
		"--past", "9m10s,9m40s,9m20s,10m2s,8m50s,9m35s,9m55s,9m5s,10m20s,9m28s", "--svg", svg)
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	got, err := os.ReadFile(svg)
	if err != nil {
		t.Fatal(err)
	}
	if *update {
		if err := os.WriteFile(file, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if want, err := os.ReadFile(file); err != nil || string(want) != string(got) {
		t.Errorf("%s is not what waitable schedule draws (%v): run go test -run TestLearnedScheduleSVG -update", file, err)
	}
}
