// Command modproxy writes modules into a file-based Go module proxy (the
// layout GOPROXY=file:///dir reads) as if they had been tagged, so that a
// fresh module can `go get` them with no replace and no go.work.
//
// .ci/check-release runs it in a scratch module of its own (it needs
// golang.org/x/mod, which no module of the repository should require):
//
//	modproxy -out DIR -repo ROOT path@version=git:REV:SUBDIR ...
//	modproxy -out DIR -repo ROOT path@version=dir:SUBDIR ...
//
// git:REV:SUBDIR zips the module as committed at REV (what a tag at REV
// publishes; files outside version control are left out); dir:SUBDIR zips
// the working tree (what `.ci/tidy` needs before a commit). Nested modules
// are left out of a module's zip, as the go command does.
package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"golang.org/x/mod/module"
	"golang.org/x/mod/semver"
	"golang.org/x/mod/zip"
)

func main() {
	out := flag.String("out", "", "the proxy's directory (created if missing)")
	repo := flag.String("repo", ".", "the repository's root")
	flag.Parse()
	if *out == "" || flag.NArg() == 0 {
		fmt.Fprintln(os.Stderr, "usage: modproxy -out DIR -repo ROOT path@version=git:REV:SUBDIR|dir:SUBDIR ...")
		os.Exit(64)
	}
	root, err := filepath.Abs(*repo)
	if err == nil {
		for _, arg := range flag.Args() {
			if err = write(*out, root, arg); err != nil {
				break
			}
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "modproxy:", err)
		os.Exit(1)
	}
}

// write adds one module version, given as path@version=source, to the proxy.
func write(out, root, arg string) error {
	spec, source, ok := strings.Cut(arg, "=")
	path, version, ok2 := strings.Cut(spec, "@")
	if !ok || !ok2 {
		return fmt.Errorf("%q: want path@version=git:REV:SUBDIR or path@version=dir:SUBDIR", arg)
	}
	m := module.Version{Path: path, Version: version}
	if err := module.Check(path, version); err != nil {
		return err
	}
	escaped, err := module.EscapePath(path)
	if err != nil {
		return err
	}
	dir := filepath.Join(out, filepath.FromSlash(escaped), "@v")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	var zipped bytes.Buffer
	var gomod []byte
	when := time.Now().UTC()
	kind, rest, _ := strings.Cut(source, ":")
	switch kind {
	case "git":
		rev, subdir, _ := strings.Cut(rest, ":")
		subdir = strings.Trim(subdir, "/.")
		if err := zip.CreateFromVCS(&zipped, m, root, rev, subdir); err != nil {
			return err
		}
		if gomod, err = git(root, "show", rev+":"+filepath.ToSlash(filepath.Join(subdir, "go.mod"))); err != nil {
			return err
		}
		iso, err := git(root, "log", "-1", "--format=%cI", rev)
		if err != nil {
			return err
		}
		if when, err = time.Parse(time.RFC3339, strings.TrimSpace(string(iso))); err != nil {
			return err
		}
	case "dir":
		d := filepath.Join(root, rest)
		if err := zip.CreateFromDir(&zipped, m, d); err != nil {
			return err
		}
		if gomod, err = os.ReadFile(filepath.Join(d, "go.mod")); err != nil {
			return err
		}
	default:
		return fmt.Errorf("%q: the source must start with git: or dir:", arg)
	}
	info, err := json.Marshal(struct {
		Version string
		Time    time.Time
	}{version, when.UTC()})
	if err != nil {
		return err
	}
	for name, data := range map[string][]byte{".zip": zipped.Bytes(), ".mod": gomod, ".info": info} {
		if err := os.WriteFile(filepath.Join(dir, version+name), data, 0o644); err != nil {
			return err
		}
	}
	return addToList(filepath.Join(dir, "list"), version)
}

// addToList records version in the proxy's list of the module's versions.
func addToList(list, version string) error {
	data, err := os.ReadFile(list)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	seen := map[string]bool{version: true}
	for _, v := range strings.Fields(string(data)) {
		seen[v] = true
	}
	versions := make([]string, 0, len(seen))
	for v := range seen {
		versions = append(versions, v)
	}
	sort.Slice(versions, func(i, j int) bool { return semver.Compare(versions[i], versions[j]) < 0 })
	return os.WriteFile(list, []byte(strings.Join(versions, "\n")+"\n"), 0o644)
}

func git(root string, args ...string) ([]byte, error) {
	cmd := exec.Command("git", append([]string{"-C", root}, args...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("git %s: %v: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return out, nil
}
