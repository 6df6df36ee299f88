// Package emulatortest runs awswait's waiters against AWS emulators that
// nobody on this project wrote: dynalite (DynamoDB) and kinesalite
// (Kinesis), which package emulators installs from npm at pinned versions and
// starts on 127.0.0.1, and kumo (S3, EC2, EKS, RDS), a Go module run in
// the test process. The command, waitable exec and waitable aws, runs
// against them too: waitable aws through every AWS CLI on the PATH (v1
// and v2 when both are installed). A module of its own, so that no user's
// module graph gets an emulator or a service client.
//
// The Node emulators need Node (20 or later) on the PATH, and the tests
// of waitable aws the AWS CLI; without them those tests skip, saying what
// to install, and under CI=true they fail. The first run installs the
// emulators with npm ci into the user's cache directory.
package emulatortest
