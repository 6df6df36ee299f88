// Package bench compares Waitable with its peers, side by side in the same
// run, so that the numbers that matter are ratios on the machine at hand.
//
// It is a module of its own so that the peers (the AWS SDK's smithy-go and
// others) never enter the library's go.mod. Run it from this folder:
//
//	go test -run '^$' -bench . -benchmem ./...
//
// Each benchmark has sub-benchmarks named after the implementation measured
// ("waitable", "smithy-go", ...); compare them within one run, for example
// with benchstat's -col /impl.
package bench
