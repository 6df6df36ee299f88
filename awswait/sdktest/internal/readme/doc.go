// Package readme holds, one per folder, the Go programs of the
// repository's README, so that building this module compiles them
// (TestREADMEBlocks keeps them identical to the README).
package readme
