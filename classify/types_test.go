package classify_test

import "time"

// Types shaped like aws-sdk-go-v2's: pointer fields, typed string enums,
// time.Time, nil slices.

type InstanceStateName string

const (
	InstanceStatePending      InstanceStateName = "pending"
	InstanceStateRunning      InstanceStateName = "running"
	InstanceStateShuttingDown InstanceStateName = "shutting-down"
	InstanceStateTerminated   InstanceStateName = "terminated"
)

type InstanceState struct {
	Code *int32
	Name InstanceStateName
}

type Instance struct {
	InstanceId   *string
	State        *InstanceState
	LaunchTime   *time.Time
	EbsOptimized *bool
}

type Reservation struct {
	Instances     []Instance
	ReservationId *string
}

type DescribeInstancesInput struct {
	InstanceIds []string
}

type DescribeInstancesOutput struct {
	Reservations []Reservation
	NextToken    *string
}

type DBInstance struct {
	DBInstanceIdentifier *string
	DBInstanceStatus     *string
}

type DescribeDBInstancesOutput struct {
	DBInstances []DBInstance
}

// ECS-style output: lower-case Smithy member names (services, deployments)
// on upper-case Go fields.
type Deployment struct {
	Status       *string
	RunningCount int32
	DesiredCount int32
}

type Service struct {
	ServiceName  *string
	Status       *string
	Deployments  []Deployment
	RunningCount int32
	DesiredCount int32
}

type DescribeServicesOutput struct {
	Services []Service
}

func ptr[T any](v T) *T { return &v }

// instances builds a DescribeInstancesOutput with the given states spread
// over reservations of up to 3 instances.
func instances(states ...InstanceStateName) *DescribeInstancesOutput {
	out := &DescribeInstancesOutput{}
	for i, s := range states {
		if i%3 == 0 {
			out.Reservations = append(out.Reservations, Reservation{ReservationId: ptr("r-1")})
		}
		r := &out.Reservations[len(out.Reservations)-1]
		r.Instances = append(r.Instances, Instance{InstanceId: ptr("i-1"), State: &InstanceState{Code: ptr(int32(16)), Name: s}})
	}
	return out
}
