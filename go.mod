module github.com/waitable/waitable

go 1.25.0

require (
	github.com/benbjohnson/clock v1.3.5
	github.com/jmespath/go-jmespath v0.4.0
	go.uber.org/goleak v1.3.0
	golang.org/x/time v0.15.0
)

require golang.org/x/sync v0.22.0
