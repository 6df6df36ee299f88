// Package sdktest holds the tests of package awswait that need
// aws-sdk-go-v2's service clients: the parity of awswait's waiters with
// the ones the SDK generates (DynamoDB, S3, EKS, RDS, CloudFormation and
// EC2, on the same scripted HTTP responses), one HTTP request per poll,
// Retry-After over a real client, and examples with real clients. (The
// README's programs are in examples/readme, whose tests run them.) It is a
// module of its own so that awswait's go.mod never requires the service
// clients: every requirement of a module's go.mod reaches the module graph
// of its users, test-only ones included.
package sdktest
