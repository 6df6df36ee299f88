// Package readme holds the Go programs the repository's README (and the
// awswait module's) quote, one per folder. Its tests check that each Go
// block of the READMEs that follows an <!-- excerpt: PATH --> comment is
// lines of PATH, the modules' programs among them, then build each program
// of this folder and run it against a local fake of the service it calls,
// on its success path and on its timeout path.
package readme
