// Command report measures Waitable against its peers on this machine and
// prints the tables of bench/README.md. Run it from the bench folder:
//
//	go run ./cmd/report            # about two minutes on 2 cores
//	go run ./cmd/report -million   # adds the 1,000,000-wait sizes
//	go run ./cmd/report -rows 3,3b # only these rows of the CPU table
//
// Every side of a row runs in the same process, interleaved round by
// round, and is measured by the process's CPU time (getrusage), because
// wall time on a shared machine moves too much to compare. The rows are
// the bench package's TestReport at full size; their workloads are also
// go test benchmarks of that package, for benchstat.
package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
)

func main() {
	million := flag.Bool("million", false, "add the 1,000,000-wait sizes to the idle-memory and scaling rows")
	rows := flag.String("rows", "", "measure only these rows of the CPU table, by id, comma-separated (3,3b), and leave out the other tables")
	flag.Parse()
	dir, err := os.MkdirTemp("", "waitable-report")
	if err != nil {
		fail(err)
	}
	defer os.RemoveAll(dir)
	out := filepath.Join(dir, "report.md")
	args := []string{"test", "-run", "^TestReport$", "-count", "1", "-timeout", "30m", ".", "-args", "-report", "-report.out", out}
	if *million {
		args = append(args, "-report.million")
	}
	if *rows != "" {
		args = append(args, "-report.rows", *rows)
	}
	cmd := exec.Command("go", args...)
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		fail(err)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		fail(err)
	}
	os.Stdout.Write(b)
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "report:", err)
	os.Exit(1)
}
