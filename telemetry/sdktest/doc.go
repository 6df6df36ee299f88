// Package sdktest holds the tests of package telemetry that need the
// OpenTelemetry SDK: the exact spans and metrics of a wait and of a
// retried call, and an example with the SDK's stdout exporter. It is a
// module of its own so that the library's go.mod never requires the SDK.
package sdktest
