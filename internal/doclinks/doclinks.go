// Package doclinks holds the test that every doc link of the repository
// resolves, in every package of every module: a link to a name, to a
// method or field of a type, to a package or to a name in it, as
// go/doc/comment reads them. A rename or a removal that leaves a doc naming
// the old identifier fails it:
//
//	go test ./internal/doclinks
//
// The package has no API: everything is in its tests.
package doclinks
