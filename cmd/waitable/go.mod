// The command's module. It has no replace directive: go install
// github.com/waitable/waitable/cmd/waitable@latest refuses a module that
// has one. In a clone, go.work puts the repository's library (and
// kubewait) in place of the versions required here, which must be
// versions releases.txt records (.ci/check-release checks it). go mod
// tidy ignores go.work; tidy this file with the replaces added for the
// time it runs:
//
//	go mod edit -replace github.com/waitable/waitable=../..
//	go mod tidy
//	go mod edit -dropreplace github.com/waitable/waitable

module github.com/waitable/waitable/cmd/waitable

go 1.26.2

require (
	github.com/waitable/waitable v0.2.0
	go.uber.org/goleak v1.3.0
)

require (
	github.com/benbjohnson/clock v1.3.5 // indirect
	github.com/cespare/xxhash/v2 v2.3.0 // indirect
	github.com/go-logr/logr v1.4.4 // indirect
	github.com/go-logr/stdr v1.2.2 // indirect
	go.opentelemetry.io/auto/sdk v1.2.1 // indirect
	go.opentelemetry.io/otel v1.46.0 // indirect
	go.opentelemetry.io/otel/metric v1.46.0 // indirect
	go.opentelemetry.io/otel/trace v1.46.0 // indirect
	golang.org/x/time v0.15.0 // indirect
)
