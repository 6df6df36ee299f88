// Package waitcmd runs the two commands that wait for Kubernetes objects
// from a shell, kubectl wait and waitable kube, as processes against a
// test API server ([apiserver.Server]), and reads how they ended.
//
// [KubectlPath] finds the machine's kubectl (the reference;
// [Env.WithKubectl] runs another, such as a recent one for several
// --for), and [WaitablePath] builds the waitable command once per test
// process. [Env.Start] (or [Env.StartWith], with standard input and a
// folder) runs either with the same arguments and records its output line
// by line, each line with the time it arrived, so that a test can tell
// when a command reported an object; [Result.Class] reads the exit status
// and standard error of each the same way (success, failure, timeout,
// usage). [Track] tells the requests of the two commands apart at the
// server's proxy, by User-Agent, so that a test writes only once a
// command has read what it waits for, and counts each command's requests.
package waitcmd
