// Package sub is a module of its own in the repository: [S],
// [example.com/sub.S] and [example.com/repo/a.T] resolve, but not
// [example.com/repo/sub.S]: it is no package of example.com/repo.
package sub

// S is a type.
type S struct{}
