package main

import (
	"runtime/debug"
	"strings"
)

// versionLine says which waitable this is, from the binary's build
// information (ok false: it has none): "waitable v0.1.0" for a release
// (go install …@v0.1.0); from a checkout, the version the go command gave
// it ("(devel)", or a pseudo-version), the commit it was built from with
// "-dirty" if it had uncommitted changes (unless the version already says
// both), and the Go version.
func versionLine(info *debug.BuildInfo, ok bool) string {
	if !ok || info == nil {
		return "waitable (unknown version: the binary carries no build information)"
	}
	version := info.Main.Version
	if version == "" {
		version = "(devel)"
	}
	var rev string
	dirty := false
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value[:min(len(s.Value), 12)]
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if version != "(devel)" && rev == "" {
		return "waitable " + version
	}
	line := "waitable " + version
	if rev != "" && !strings.Contains(version, rev) {
		line += " " + rev
		if dirty {
			line += "-dirty"
		}
	}
	return line + " " + info.GoVersion
}
