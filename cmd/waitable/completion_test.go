package main

import (
	"strings"
	"testing"
)

// TestCompletion: waitable completion bash|zsh|fish prints the shell's
// script, and the command the scripts call completes the commands and
// kube's flags (kubectl's global flags among them); another shell is bad
// usage.
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
		{[]string{"completion", "ksh"}, exitUsage, ""},
	} {
		r := runBinary(t, nil, tt.args...)
		if r.code != tt.code || !strings.Contains(r.stdout, tt.want) {
			t.Errorf("waitable %s: exit %d, stdout %.200q; want %d, %q", strings.Join(tt.args, " "), r.code, r.stdout, tt.code, tt.want)
		}
	}
}
