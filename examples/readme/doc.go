// Package readme holds the Go programs of the repository's README, one per
// folder, each byte for byte the block that follows its
// <!-- program: examples/readme/NAME --> comment there. Its tests check
// that the two agree, then build each program and run it against a local
// fake of the service it calls, on its success path and on its timeout
// path.
package readme
