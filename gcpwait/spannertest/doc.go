// Package spannertest runs gcpwait end to end against Google's own
// in-process fake of Cloud Spanner (cloud.google.com/go/spanner/spannertest),
// where UpdateDatabaseDdl is a real long-running operation of the
// generated database admin client. It is a module of its own, so that
// gcpwait's users do not get Spanner in their module graph, and it holds
// tests only.
package spannertest
