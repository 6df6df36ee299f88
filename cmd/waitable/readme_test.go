package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// transcript is one "$ waitable …" of the README and what it prints.
type transcript struct {
	args []string
	want string
	code int
}

// readmeTranscripts returns the commands of the README's "A session"
// section and their output: each fenced line that starts with
// "$ waitable", the lines up to the next "$ ", and the status a following
// "$ echo $?" shows (0 when none does).
func readmeTranscripts(t *testing.T) []transcript {
	t.Helper()
	data, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(data), "\n## A session\n")
	if !ok {
		t.Fatal(`the README has no "## A session" section`)
	}
	section, _, _ = strings.Cut(section, "\n## ")
	var out []transcript
	in, cur, indent := false, -1, ""
	for line := range strings.SplitSeq(section, "\n") {
		if fence := strings.TrimLeft(line, " "); strings.HasPrefix(fence, "```") {
			in, cur, indent = !in, -1, line[:len(line)-len(fence)] // blocks in lists are indented
			continue
		}
		line = strings.TrimPrefix(line, indent)
		switch {
		case !in:
		case strings.HasPrefix(line, "$ waitable "):
			args, err := shellWords(strings.TrimPrefix(line, "$ waitable "))
			if err != nil {
				t.Fatalf("README: %s: %v", line, err)
			}
			out = append(out, transcript{args: args})
			cur = len(out) - 1
		case line == "$ echo $?":
			cur = -len(out) - 1 // the next line is the status of the last command
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
	return out
}

// shellWords splits a command line as sh does for words in single or
// double quotes (no expansions).
func shellWords(s string) ([]string, error) {
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

// durations matches what a run's timing changes: Go durations.
var durations = regexp.MustCompile(`\b\d+(\.\d+)?(ns|µs|ms|s|m|h)(\d+(\.\d+)?(ms|s|m))*\b`)

// TestReadmeShell runs each command the README's "A session" section
// shows, from the repository's root, and holds its output to what the
// README prints: exactly for schedule (its seeds are fixed), and but for
// durations for a wait, which the test runs with 5ms delays (against a
// ./job.sh whose job-42 is done at its third call and job-43 fails at its
// second, and for aws against an AWS CLI that answers as the README's
// did) so that it waits on no real time. The waitable kube commands
// need an API server: kubewait/servertest's TestReadmeKube runs them.
func TestReadmeShell(t *testing.T) {
	ts := readmeTranscripts(t)
	if len(ts) < 2 {
		t.Fatalf("the README shows %d waitable commands in its A session section, want a wait and a schedule", len(ts))
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range ts {
		if tt.args[0] == "kube" {
			continue // it needs an API server: kubewait/servertest's TestReadmeKube runs it against one
		}
		t.Run(strings.Join(tt.args[:1], " "), func(t *testing.T) {
			args, dir, exact := tt.args, root, true
			var env []string
			if args[0] == "aws" {
				// The AWS CLI, as in the README's session: the table
				// DELETING, then gone.
				env, _ = fakeCLI(t, deleting, notFound)
				exact, dir = false, t.TempDir()
				dash := slices.Index(args, "--")
				args = append(append(append([]string{}, args[:dash]...), "--min-delay", "5ms", "--max-delay", "5ms"), args[dash:]...)
			}
			if args[0] == "exec" || args[0] == "http" {
				exact, dir = false, t.TempDir()
				// ./job.sh ID: job-42 is done at the third call, job-43 fails at the second.
				job := "#!/bin/sh\nid=${1:-job-42}; n=$(cat $id.count 2>/dev/null || echo 0); n=$((n+1)); echo $n > $id.count\n" +
					"state=running\n" +
					`if [ $id = job-42 ] && [ $n -ge 3 ]; then state=done; fi` + "\n" +
					`if [ $id = job-43 ] && [ $n -ge 2 ]; then state=failed; fi` + "\n" +
					`echo "{\"id\": \"$id\", \"state\": \"$state\"}"` + "\n"
				if err := os.WriteFile(filepath.Join(dir, "job.sh"), []byte(job), 0o755); err != nil {
					t.Fatal(err)
				}
				dash := slices.Index(args, "--")
				if dash < 0 {
					dash = len(args)
				}
				args = append(append(append([]string{}, args[:dash]...), "--min-delay", "5ms", "--max-delay", "5ms"), args[dash:]...)
			}
			ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
			defer cancel()
			cmd := exec.CommandContext(ctx, binary, args...)
			cmd.Dir = dir
			cmd.Env = append(os.Environ(), env...)
			var out bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &out // as a terminal shows them
			code := 0
			if err := cmd.Run(); err != nil {
				var ee *exec.ExitError
				if !errors.As(err, &ee) {
					t.Fatal(err)
				}
				code = ee.ExitCode()
			}
			got, want := out.String(), tt.want
			if !exact {
				got, want = durations.ReplaceAllString(got, "D"), durations.ReplaceAllString(want, "D")
			}
			if got != want || code != tt.code {
				t.Errorf("waitable %s: exit %d, printed\n%s\nthe README says exit %d and\n%s", strings.Join(tt.args, " "), code, got, tt.code, want)
			}
		})
	}
}

func TestShellWords(t *testing.T) {
	got, err := shellWords(`exec --success "state == 'done'" -- ./job.sh 'a b'`)
	want := []string{"exec", "--success", "state == 'done'", "--", "./job.sh", "a b"}
	if err != nil || strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("got %q, %v; want %q", got, err, want)
	}
	if _, err := shellWords(`"open`); err == nil {
		t.Error("an unterminated quote is accepted")
	}
}
