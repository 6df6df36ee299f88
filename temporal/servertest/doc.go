// Package servertest holds what of package temporal runs a real Temporal
// server in process (go.temporal.io/server's temporaltest): the tests
// against it (a worker restarted or killed mid-wait, a durable wait for a
// table of the dynalite DynamoDB emulator, cancellation, replay of
// recorded histories, a group with a failing member), the example, the
// README's program, the concurrency benchmark and the scale command
// (cmd/scale). It is a module of its own so that a user of package
// temporal does not get the Temporal server in the module graph.
package servertest
