module github.com/waitable/waitable/bench

go 1.25

require (
	github.com/aws/smithy-go v1.28.8
	github.com/waitable/waitable v0.0.0
	go.uber.org/goleak v1.3.0
)

replace github.com/waitable/waitable => ../
