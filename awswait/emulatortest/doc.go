// Package emulatortest runs awswait's waiters against AWS emulators that
// nobody on this project wrote: dynalite (DynamoDB) and kinesalite
// (Kinesis), which package emulators installs from npm at pinned versions and
// starts on 127.0.0.1, and kumo (S3, EC2, EKS, RDS), a Go module run in
// the test process. A module of its own, so that no user's module graph
// gets an emulator or a service client.
//
// The Node emulators need Node (20 or later) on the PATH; without it
// their tests skip, saying what to install, and under CI=true they fail.
// The first run installs them with npm ci into the user's cache directory.
package emulatortest
