// Package emulatortest runs awswait's waiters against AWS emulators that
// nobody on this project wrote: dynalite (DynamoDB) and kinesalite
// (Kinesis), installed from npm at the versions package-lock.json pins and
// started on 127.0.0.1 by the tests. A module of its own, so that no
// user's module graph gets an emulator or a service client.
//
// The tests need Node (20 or later) on the PATH; without it they skip,
// saying what to install, and under CI=true they fail. The first run
// installs the emulators with npm ci into the user's cache directory.
package emulatortest
