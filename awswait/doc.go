// Package awswait makes aws-sdk-go-v2 clients first-class peers of
// Waitable's waiters: one line from a client's operation method to AWS's
// own waiter for it.
//
//	client := ec2.NewFromConfig(cfg)
//	w, err := awswait.New(client.DescribeInstances, "InstanceRunning")
//	out, err := w.Wait(ctx, &ec2.DescribeInstancesInput{InstanceIds: ids}, 10*time.Minute)
//
// [New] finds the waiter among the definitions AWS publishes (embedded:
// the waiters of every AWS Smithy model, and botocore's for the services
// whose Smithy model is not published with them, EC2 among them), checks
// its paths against the SDK's Go types, and calls the method through [Op]:
// each poll is exactly one HTTP request, because the client's own retries
// are turned off for the waiter's calls (the Smithy RFC on waiters asks
// that the waiter's schedule replace them). Errors no acceptor matches
// go to the waiter's retry strategy instead: the standard one with the
// service's published defaults (DynamoDB's 25ms base and 4 attempts), so
// a throttle is retried on the waiter's schedule, never sooner than the
// response's Retry-After or x-amz-retry-after. The calls carry the
// user-agent feature the SDK's generated waiters send.
//
// The waiters judge each response as aws-sdk-go-v2's generated ones do:
// the parity test runs 15 of them across DynamoDB, S3, EKS, RDS,
// CloudFormation and EC2 against both, on the same scripted responses, and
// lists where the SDK departs from the Smithy specification. Their timing
// differs on purpose, in two ways. Errors no acceptor matches (a throttle,
// a 503) are retried within the budget where the SDK's waiter fails.
// And the final poll: the SDK's waiter follows the specification's first
// last-attempt rule and polls MinDelay before the deadline, even when
// that breaks the MinDelay spacing; Waitable follows the current rule and
// makes its final poll at the end of the budget, less the latency it has
// seen (see waiter.WithFinalReserve). Both make the same number of
// requests; a resource that becomes ready early in a long last delay is
// seen later by Waitable (DynamoDB's TableExists with a 30s budget, the
// table ACTIVE at +3s: Waitable reports success at about 29.98s, the
// SDK's waiter at 10s, each with 2 requests). waiter.WithFinalReserve(
// MinDelay) gives the SDK's rule. It and the other tests that need the SDK's service
// clients are in the module awswait/sdktest, so that this module's
// go.mod requires none: its users get only the clients they import.
//
// The waiters' expressions read the SDK's Go types by the models' member
// names, as AWS's waiters are written: keys(), values(), merge() and
// to_string list EKS's cluster and status, EC2's Reservations, not the
// Go names; the output's ResultMetadata is no member. Each definition
// carries them as its waiter.Model, for [New] and for waiter.New given a
// [Definition]. The names come from a table made from AWS's service models
// at build time (go generate; see names.go), not from the SDK's types,
// which do not carry them.
//
// What it does not do: it does not wrap the SDK's clients or generate
// code. Any operation method fits [Op] (it is generic over the method's
// input, output and options), and [waiter.New] takes any definition.
package awswait
