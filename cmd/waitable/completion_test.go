package main

import (
	"bytes"
	"io"
	"slices"
	"strings"
	"testing"
)

// TestCompletion: waitable completion bash|zsh|fish prints the shell's
// script, and the command the scripts call completes the commands, every
// command's flags (kube's with kubectl's global flags) and the shells;
// another shell is bad usage.
func TestCompletion(t *testing.T) {
	for _, tt := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"completion", "bash"}, exitSuccess, "# bash completion V2 for waitable"},
		{[]string{"completion", "zsh"}, exitSuccess, "#compdef waitable"},
		{[]string{"completion", "fish"}, exitSuccess, "complete -c waitable"},
		{[]string{"__complete", "ku"}, exitSuccess, "kube\tWait for Kubernetes objects"},
		{[]string{"__complete", "kube", "--serv"}, exitSuccess, "--server\t"},
		{[]string{"__complete", "kube", "--fo"}, exitSuccess, "--for\t"},
		{[]string{"__complete", "http", "--suc"}, exitSuccess, "--success\t"},
		{[]string{"__complete", "exec", "--max-w"}, exitSuccess, "--max-wait\t"},
		{[]string{"__complete", "aws", "--wait"}, exitSuccess, "--waiters\t"},
		{[]string{"__complete", "schedule", "--ready"}, exitSuccess, "--ready-at\t"},
		{[]string{"__complete", "lint", "--serv"}, exitSuccess, "--service\t"},
		{[]string{"__complete", "list", "--warn"}, exitSuccess, "--warnings\t"},
		{[]string{"__complete", "completion", ""}, exitSuccess, "zsh"},
		{[]string{"__complete", "kube", "--for", ""}, exitSuccess, "condition=\ta status condition"},
		{[]string{"__complete", "kube", "--fail-on", ""}, exitSuccess, "kstatus=Failed\t"},
		{[]string{"completion", "ksh"}, exitUsage, ""},
	} {
		r := runBinary(t, nil, tt.args...)
		if r.code != tt.code || !strings.Contains(r.stdout, tt.want) {
			t.Errorf("waitable %s: exit %d, stdout %.200q; want %d, %q", strings.Join(tt.args, " "), r.code, r.stdout, tt.code, tt.want)
		}
	}
}

// TestHelpAndFlagErrors: every command's help goes to standard output
// with status 0 (-h, --help, waitable help COMMAND); a flag the command
// does not take is status 64, said once in pflag's GNU style with the
// hint of where the help is.
func TestHelpAndFlagErrors(t *testing.T) {
	for _, c := range []struct{ name, flag string }{
		{"http", "--success"}, {"exec", "--success"}, {"aws", "--waiters"}, {"kube", "--for"},
		{"schedule", "--ready-at"}, {"lint", "--service"}, {"list", "--warnings"},
	} {
		for _, args := range [][]string{{c.name, "-h"}, {c.name, "--help"}, {"help", c.name}} {
			r := runBinary(t, nil, args...)
			if r.code != exitSuccess || !strings.Contains(r.stdout, "waitable "+c.name) || !strings.Contains(r.stdout, c.flag) || r.stderr != "" {
				t.Errorf("waitable %s: exit %d, stdout %.300q, stderr %q; want 0 and the help, naming %s", strings.Join(args, " "), r.code, r.stdout, r.stderr, c.flag)
			}
		}
		r := runBinary(t, nil, c.name, "--bogus")
		want := "waitable " + c.name + ": unknown flag: --bogus\nSee 'waitable " + c.name + " --help' for usage.\n"
		if r.code != exitUsage || r.stderr != want || r.stdout != "" {
			t.Errorf("waitable %s --bogus: exit %d, stdout %q, stderr %q; want 64 and %q", c.name, r.code, r.stdout, r.stderr, want)
		}
	}
	r := runBinary(t, nil, "bogus")
	if r.code != exitUsage || !strings.Contains(r.stderr, `unknown command "bogus"`) {
		t.Errorf("waitable bogus: exit %d, stderr %q; want 64, unknown command", r.code, r.stderr)
	}
}

// TestKubeCompletion: waitable kube completes as kubectl does: --for and
// --fail-on with the kinds of rule, TYPE with the server's resource
// types (its discovery), TYPE/NAME and, after TYPE, NAME with the names
// of the objects of that type (a list of them), in the namespace of -n
// or the context, less the names already given.
func TestKubeCompletion(t *testing.T) {
	c := newFakeCluster(t, widget("a", nil), widget("b", nil), object("Widget", "other", "c", nil),
		object("Gizmo", "", "g", nil))
	for _, tt := range []struct {
		args []string
		want []string
	}{
		{[]string{"--for", ""}, []string{"condition=", "jsonpath=", "create", "delete", "kstatus=Current", "kstatus=Failed", "rollout"}},
		{[]string{""}, []string{"gizmos.waitable.test", "pods", "widgets.waitable.test"}},
		{[]string{"widget/"}, []string{"widget/a", "widget/b"}},
		{[]string{"-n", "other", "wd/"}, []string{"wd/c"}},
		{[]string{"widgets", ""}, []string{"a", "b"}},
		{[]string{"wd", "a", ""}, []string{"b"}},
		{[]string{"gizmo/"}, []string{"gizmo/g"}},
		{[]string{"things/"}, nil},
	} {
		var out bytes.Buffer
		cl := &cli{stdin: strings.NewReader(""), stdout: &out, stderr: io.Discard, connect: c.connect}
		if _, _, err := cl.execute(t.Context(), append([]string{"__complete", "kube"}, tt.args...)); err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
			if line != "" && !strings.HasPrefix(line, ":") {
				name, _, _ := strings.Cut(line, "\t")
				got = append(got, name)
			}
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("waitable __complete kube %q = %q, want %q", tt.args, got, tt.want)
		}
	}
}
