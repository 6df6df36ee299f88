// Package bench compares Waitable with its peers, side by side in the same
// process, so that the numbers that matter are ratios on the machine at
// hand. It is a module of its own so that the peers (the AWS SDK,
// cenkalti/backoff, failsafe-go, avast/retry-go, sethvargo/go-retry,
// Kubernetes' wait package) never enter the library's go.mod.
//
// The report, from this folder:
//
//	go run ./cmd/report
//
// measures every row by process CPU time (getrusage: user + system, every
// thread), with the sides of a row interleaved round by round, and prints
// the median and range of each side and of each ratio. Wall time is shown
// too, but on a shared machine it moves by ±50% between samples, so no
// ratio is computed from it. Rows in virtual time run in a testing/synctest
// bubble.
//
// After the CPU table come tables of what happens rather than what it
// costs: the memory of idle runs and, in virtual time, the fan-out
// scenario ([RunScenario]: 10,000 resources behind a throttling service,
// polled one at a time or in batches, or woken by events that poke their
// waits); the outage scenario ([RunOutage]: the share of waits that succeed
// against a service that refuses connections for the first 10% of each
// wait's budget and answers 503 for the next 10%, for Waitable, the AWS
// SDK's TableExistsWaiter, k8s wait and a hand-written loop); and the
// scaling of many concurrent waits. TestFanout and TestOutage print the
// fan-out and outage tables alone (at the report's size with -report):
//
//	go test -run '^TestFanout$' -v . -args -report
//	go test -run '^TestOutage$' -v . -args -report
//
// Each row's workload is a function of this package ([Side]), also run as a
// go test benchmark with sub-benchmarks named after the implementation
// ("impl=waitable", ...), for benchstat:
//
//	go test -run '^$' -bench . -count 10 . | benchstat -col /impl -
package bench
