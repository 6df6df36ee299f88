module github.com/waitable/waitable/bench

go 1.25.0

require (
	github.com/aws/smithy-go v1.28.8
	github.com/cenkalti/backoff/v5 v5.0.3
	github.com/failsafe-go/failsafe-go v0.9.8
	github.com/waitable/waitable v0.0.0
	go.uber.org/goleak v1.3.0
)

require (
	github.com/benbjohnson/clock v1.3.5 // indirect
	github.com/bits-and-blooms/bitset v1.24.4 // indirect
	github.com/jmespath/go-jmespath v0.4.0 // indirect
)

replace github.com/waitable/waitable => ../
