package main

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/waitable/waitable/internal/suggest"
	"github.com/waitable/waitable/waiter"
	"github.com/waitable/waitable/waiter/model"
)

// awsWaitersJSON holds AWS's waiters as the AWS CLI has them: for each
// service, by the CLI's name for it, the newest waiters-2.json of
// botocore. TestEmbeddedAWSWaiters makes it from the repository's
// testdata/aws/botocore-waiters.json.
//
//go:embed aws-waiters.json
var awsWaitersJSON []byte

// cliService is the AWS CLI's name for a botocore service: the folder
// name of its data, but for the services the CLI renames.
func cliService(botocore string) string {
	switch botocore {
	case "s3":
		return "s3api" // the CLI's s3 is its own high-level commands
	case "codedeploy":
		return "deploy"
	case "config":
		return "configservice"
	}
	return botocore
}

// cliName is the AWS CLI's name for an operation or a waiter: its
// CamelCase name in lowercase words joined by '-', an acronym being one
// word (DBInstanceAvailable: db-instance-available).
func cliName(name string) string {
	name = name[strings.LastIndexByte(name, '#')+1:] // a Smithy shape ID's name
	var b strings.Builder
	for i := 0; i < len(name); i++ {
		c := name[i]
		if i > 0 && isUpper(c) {
			prev := name[i-1]
			// A word starts after a lowercase letter or a digit, and at
			// the last capital of an acronym followed by a lowercase letter.
			if isLower(prev) || isDigit(prev) || isUpper(prev) && i+1 < len(name) && isLower(name[i+1]) {
				b.WriteByte('-')
			}
		}
		if isUpper(c) {
			c += 'a' - 'A'
		}
		b.WriteByte(c)
	}
	return b.String()
}

func isUpper(c byte) bool { return 'A' <= c && c <= 'Z' }
func isLower(c byte) bool { return 'a' <= c && c <= 'z' }
func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// awsServices returns the embedded waiters-2.json documents, by the AWS
// CLI's service name.
func awsServices() map[string]json.RawMessage {
	var docs map[string]json.RawMessage
	if err := json.Unmarshal(awsWaitersJSON, &docs); err != nil {
		panic("waitable: aws-waiters.json: " + err.Error()) // TestEmbeddedAWSWaiters makes it
	}
	return docs
}

// awsWaiters returns the waiters of service: those of file when it is
// given, else AWS's as the CLI has them.
func awsWaiters(service, file string) ([]waiter.Definition, error) {
	if file != "" {
		return readWaiters(file)
	}
	docs := awsServices()
	doc, ok := docs[service]
	if !ok {
		return nil, unknownService(service, slices.Sorted(maps.Keys(docs)))
	}
	c, err := model.LoadBotocore(bytes.NewReader(doc))
	if err != nil {
		return nil, fmt.Errorf("AWS's waiters of %s: %w", service, err)
	}
	var defs []waiter.Definition
	for _, n := range c.Names() {
		d, _ := c.Get(n)
		defs = append(defs, d)
	}
	return defs, nil
}

// unknownService says that no waiter is known for service, and which
// name the CLI gives it if it is botocore's.
func unknownService(service string, known []string) error {
	if s := cliService(service); s != service && slices.Contains(known, s) {
		return fmt.Errorf("the AWS CLI names the service %s %s (waitable aws %s WAITER)", service, s, s)
	}
	if near := suggest.Nearest(service, known, len(service)/3); near != "" {
		return fmt.Errorf("no AWS service %q has waiters; did you mean %s? (waitable aws list lists them)", service, near)
	}
	return fmt.Errorf("no AWS service %q has waiters (waitable aws list lists those that do)", service)
}

// pickAWSWaiter returns the waiter of defs that the CLI calls name
// (table-exists), or whose own name is name (TableExists).
func pickAWSWaiter(defs []waiter.Definition, service, name string) (waiter.Definition, error) {
	var names []string
	for _, d := range defs {
		if cliName(d.Name) == name || d.Name == name {
			return d, nil
		}
		names = append(names, cliName(d.Name))
	}
	if near := suggest.Nearest(name, names, len(name)/3); near != "" {
		return waiter.Definition{}, fmt.Errorf("%s has no waiter %q; did you mean %s? (it has %s)", service, name, near, strings.Join(names, ", "))
	}
	return waiter.Definition{}, fmt.Errorf("%s has no waiter %q (it has %s)", service, name, strings.Join(names, ", "))
}

// budget is a waiter's own budget, as the AWS CLI's wait has it: its
// delay times its maxAttempts; 0 when it has no maxAttempts.
func budget(d waiter.Definition) time.Duration {
	return d.MinDelay * time.Duration(d.MaxPolls)
}
