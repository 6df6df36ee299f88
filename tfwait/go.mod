module github.com/waitable/waitable/tfwait

go 1.25.8

require (
	github.com/hashicorp/terraform-plugin-sdk/v2 v2.40.1
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

replace github.com/waitable/waitable => ../
