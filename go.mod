module github.com/waitable/waitable

go 1.25.0

require (
	github.com/benbjohnson/clock v1.3.5
	github.com/jmespath/go-jmespath v0.4.0
	go.uber.org/goleak v1.3.0
	golang.org/x/time v0.15.0
)

require (
	go.opentelemetry.io/otel v1.46.0
	go.opentelemetry.io/otel/metric v1.46.0
	go.opentelemetry.io/otel/trace v1.46.0
)

require (
	github.com/cespare/xxhash/v2 v2.3.0 // indirect
	github.com/go-logr/logr v1.4.4 // indirect
	github.com/go-logr/stdr v1.2.2 // indirect
	go.opentelemetry.io/auto/sdk v1.2.1 // indirect
)
