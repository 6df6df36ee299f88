//go:build ignore

// extract-members writes members.json: for every service awswait has
// waiters for (../../awswait/waiters.json), the operations its waiters
// poll and the aggregate shapes their inputs and outputs reach, with the
// member names of botocore's service-2.json (the same as the Smithy
// models'). Run it from this directory with a clone of boto/botocore:
//
//	go run extract-members.go -botocore /path/to/botocore/.git -commit 0e6e2404b85dc336dd2889814e089bde7d1a4c55
//
// A service whose model botocore has deleted by that commit is read at
// the commit before its deletion. Nothing here is code the repository
// runs: awswait's test TestMemberNamesTable reads the output.
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"maps"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strings"
)

type ref struct {
	Shape string `json:"shape"`
}

type serviceModel struct {
	Metadata struct {
		ServiceID  string `json:"serviceId"`
		APIVersion string `json:"apiVersion"`
	} `json:"metadata"`
	Operations map[string]struct {
		Input  *ref `json:"input"`
		Output *ref `json:"output"`
	} `json:"operations"`
	Shapes map[string]struct {
		Type    string         `json:"type"`
		Members map[string]ref `json:"members"`
		Member  *ref           `json:"member"`
		Value   *ref           `json:"value"`
		Union   bool           `json:"union"`
	} `json:"shapes"`
}

// shape is model.Shape's JSON.
type shape struct {
	Type    string            `json:"type"`
	Members map[string]string `json:"members,omitempty"`
	Member  string            `json:"member,omitempty"`
}

type operation struct {
	Input  string `json:"input,omitempty"`
	Output string `json:"output,omitempty"`
}

type service struct {
	Package    string               `json:"package"`
	ServiceID  string               `json:"serviceId"`
	File       string               `json:"file"`
	Commit     string               `json:"commit"`
	Operations map[string]operation `json:"operations"`
	Shapes     map[string]shape     `json:"shapes"`
}

var gitDir = flag.String("botocore", "", "the git directory of a clone of boto/botocore")
var commit = flag.String("commit", "", "the botocore commit to read")

func git(args ...string) []byte {
	out, err := exec.Command("git", append([]string{"--git-dir=" + *gitDir}, args...)...).Output()
	if err != nil {
		log.Fatalf("git %s: %v", strings.Join(args, " "), err)
	}
	return out
}

var notAlnum = regexp.MustCompile(`[^a-z0-9]`)

func main() {
	flag.Parse()
	if *gitDir == "" || *commit == "" {
		log.Fatal("usage: go run extract-members.go -botocore DIR -commit SHA")
	}
	*commit = strings.TrimSpace(string(git("rev-parse", *commit)))
	var embedded struct {
		Smithy []struct {
			SDKID     string `json:"sdkId"`
			Operation string `json:"operation"`
		} `json:"smithy"`
		Botocore map[string]json.RawMessage `json:"botocore"`
	}
	data, err := os.ReadFile("../../awswait/waiters.json")
	if err != nil {
		log.Fatal(err)
	}
	if err := json.Unmarshal(data, &embedded); err != nil {
		log.Fatal(err)
	}
	// The operations polled, by service ID (Smithy) or botocore name.
	bySID, byName := map[string][]string{}, map[string][]string{}
	for _, s := range embedded.Smithy {
		bySID[s.SDKID] = append(bySID[s.SDKID], s.Operation[strings.IndexByte(s.Operation, '#')+1:])
	}
	for name, doc := range embedded.Botocore {
		var f struct {
			Waiters map[string]struct {
				Operation string `json:"operation"`
			} `json:"waiters"`
		}
		if err := json.Unmarshal(doc, &f); err != nil {
			log.Fatal(err)
		}
		for _, w := range f.Waiters {
			byName[name] = append(byName[name], w.Operation)
		}
	}

	// Every service-2.json at the commit (the newest version of each
	// service), then those deleted before it, at their last commit.
	type file struct{ commit, path string }
	newest := map[string]file{} // botocore name → file
	for _, p := range strings.Fields(string(git("ls-tree", "-r", "--name-only", *commit, "botocore/data"))) {
		if parts := strings.Split(p, "/"); len(parts) == 5 && parts[4] == "service-2.json" && p > newest[parts[2]].path {
			newest[parts[2]] = file{*commit, p}
		}
	}
	deleted := git("log", "--diff-filter=D", "--format=commit %H", "--name-only", *commit, "--", "botocore/data")
	var at string
	for _, line := range strings.Split(string(deleted), "\n") {
		if c, ok := strings.CutPrefix(line, "commit "); ok {
			at = c + "^"
			continue
		}
		if parts := strings.Split(line, "/"); len(parts) == 5 && parts[4] == "service-2.json" {
			c := strings.TrimSpace(string(git("rev-parse", at)))
			if have, ok := newest[parts[2]]; !ok || have.commit == c && line > have.path {
				newest[parts[2]] = file{c, line}
			}
		}
	}
	var out []service
	found := map[string]bool{}
	for _, name := range slices.Sorted(maps.Keys(newest)) {
		f := newest[name]
		var m serviceModel
		if err := json.Unmarshal(git("show", f.commit+":"+f.path), &m); err != nil {
			log.Fatalf("%s: %v", f.path, err)
		}
		ops := append(bySID[m.Metadata.ServiceID], byName[name]...)
		if len(ops) == 0 || found[m.Metadata.ServiceID] {
			continue
		}
		found[m.Metadata.ServiceID], found[name] = true, true
		s := service{
			Package: notAlnum.ReplaceAllString(strings.ToLower(m.Metadata.ServiceID), ""), ServiceID: m.Metadata.ServiceID,
			File: f.path, Commit: f.commit, Operations: map[string]operation{}, Shapes: map[string]shape{},
		}
		var visit func(string)
		visit = func(n string) {
			if _, ok := s.Shapes[n]; ok {
				return
			}
			sh, ok := m.Shapes[n]
			if !ok {
				log.Fatalf("%s: shape %s is missing", f.path, n)
			}
			switch {
			case sh.Type == "structure":
				typ := "structure"
				if sh.Union {
					typ = "union"
				}
				members := map[string]string{}
				for name, r := range sh.Members {
					members[name] = r.Shape
				}
				s.Shapes[n] = shape{Type: typ, Members: members}
				for _, t := range slices.Sorted(maps.Values(members)) {
					visit(t)
				}
			case sh.Type == "list":
				s.Shapes[n] = shape{Type: "list", Member: sh.Member.Shape}
				visit(sh.Member.Shape)
			case sh.Type == "map":
				s.Shapes[n] = shape{Type: "map", Member: sh.Value.Shape}
				visit(sh.Value.Shape)
			}
		}
		for _, op := range ops {
			o, ok := m.Operations[op]
			if !ok {
				log.Fatalf("%s: operation %s is missing", f.path, op)
			}
			var e operation
			if o.Input != nil {
				e.Input = o.Input.Shape
				visit(e.Input)
			}
			if o.Output != nil {
				e.Output = o.Output.Shape
				visit(e.Output)
			}
			s.Operations[op] = e
		}
		out = append(out, s)
	}
	for sid := range bySID {
		if !found[sid] {
			log.Fatalf("no service-2.json has serviceId %q", sid)
		}
	}
	for name := range byName {
		if !found[name] {
			log.Fatalf("no service-2.json for botocore's %s", name)
		}
	}
	slices.SortFunc(out, func(a, b service) int { return strings.Compare(a.Package, b.Package) })

	// One service per block, one shape per line: diffs stay readable.
	var b bytes.Buffer
	fmt.Fprintf(&b, "{\"source\": \"https://github.com/boto/botocore\",\n\"commit\": %q,\n\"services\": [\n", *commit)
	for i, s := range out {
		head, _ := json.Marshal(map[string]any{"package": s.Package, "serviceId": s.ServiceID, "file": s.File, "commit": s.Commit})
		ops, _ := json.Marshal(s.Operations)
		fmt.Fprintf(&b, "%s,\n \"operations\": %s,\n \"shapes\": {\n", head[:len(head)-1], ops)
		for j, n := range slices.Sorted(maps.Keys(s.Shapes)) {
			sh, _ := json.Marshal(s.Shapes[n])
			sep := ","
			if j == len(s.Shapes)-1 {
				sep = ""
			}
			fmt.Fprintf(&b, "  %q: %s%s\n", n, sh, sep)
		}
		sep := ","
		if i == len(out)-1 {
			sep = ""
		}
		fmt.Fprintf(&b, " }}%s\n", sep)
	}
	b.WriteString("]}\n")
	var check any
	if err := json.Unmarshal(b.Bytes(), &check); err != nil {
		log.Fatalf("the output is not JSON: %v", err)
	}
	if err := os.WriteFile("members.json", b.Bytes(), 0o644); err != nil {
		log.Fatal(err)
	}
}
