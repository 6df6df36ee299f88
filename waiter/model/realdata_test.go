package model_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/waitable/waitable/classify"
	"github.com/waitable/waitable/waiter"
	"github.com/waitable/waitable/waiter/model"
)

// ACM types as aws-sdk-go-v2 generates them.
type (
	DomainValidationStatus string
	CertificateStatus      string
	DomainValidation       struct {
		DomainName       *string
		ValidationStatus DomainValidationStatus
	}
	CertificateDetail struct {
		CertificateArn          *string
		Status                  CertificateStatus
		DomainValidationOptions []DomainValidation
		CreatedAt               *time.Time
	}
	DescribeCertificateInput  struct{ CertificateArn *string }
	DescribeCertificateOutput struct{ Certificate *CertificateDetail }
)

type ResourceNotFoundException struct{ Message *string }

func (e *ResourceNotFoundException) Error() string     { return "ResourceNotFoundException: " + *e.Message }
func (e *ResourceNotFoundException) ErrorCode() string { return "ResourceNotFoundException" }

func ptr[T any](v T) *T { return &v }

func cert(status CertificateStatus, validations ...DomainValidationStatus) *DescribeCertificateOutput {
	c := &CertificateDetail{CertificateArn: ptr("arn:aws:acm:cert/1"), Status: status, CreatedAt: ptr(time.Unix(1700000000, 0))}
	for _, v := range validations {
		c.DomainValidationOptions = append(c.DomainValidationOptions, DomainValidation{DomainName: ptr("example.com"), ValidationStatus: v})
	}
	return &DescribeCertificateOutput{Certificate: c}
}

// TestACMCertificateValidated runs the real CertificateValidated waiter from
// AWS's ACM model (allStringEquals and anyStringEquals over a projection,
// stringEquals, errorType) on typed outputs.
func TestACMCertificateValidated(t *testing.T) {
	c, err := model.LoadSmithy(bytes.NewReader(corpusFile(t, "models/acm-2015-12-08.json")))
	if err != nil {
		t.Fatal(err)
	}
	d, _ := c.Get("CertificateValidated")
	set, err := classify.Compile[*DescribeCertificateInput, *DescribeCertificateOutput](d.Acceptors)
	if err != nil {
		t.Fatal(err)
	}
	in := &DescribeCertificateInput{CertificateArn: ptr("arn:aws:acm:cert/1")}
	tests := []struct {
		name  string
		out   *DescribeCertificateOutput
		err   error
		index int
		state classify.State
	}{
		{"all validated", cert("ISSUED", "SUCCESS", "SUCCESS"), nil, 0, classify.Success},
		{"one pending", cert("PENDING_VALIDATION", "SUCCESS", "PENDING_VALIDATION"), nil, 1, classify.Retry},
		{"no validation options yet (nil slice)", cert("PENDING_VALIDATION"), nil, -1, classify.Retry},
		{"failed", cert("FAILED", "FAILED"), nil, 2, classify.Failure},
		{"no certificate", &DescribeCertificateOutput{}, nil, -1, classify.Retry},
		{"not found", nil, fmt.Errorf("operation error ACM: DescribeCertificate: %w", &ResourceNotFoundException{Message: ptr("no such cert")}), 3, classify.Failure},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := set.Match(in, tt.out, tt.err)
			if m.Index != tt.index || m.State != tt.state || m.Err != nil {
				t.Errorf("Match = %+v, want acceptor %d (%v)", m, tt.index, tt.state)
			}
		})
	}
}

// EC2 types as aws-sdk-go-v2 generates them.
type (
	InstanceStateName string
	InstanceState     struct {
		Code *int32
		Name InstanceStateName
	}
	Instance struct {
		InstanceId *string
		State      *InstanceState
		LaunchTime *time.Time
	}
	Reservation             struct{ Instances []Instance }
	DescribeInstancesInput  struct{ InstanceIds []string }
	DescribeInstancesOutput struct {
		Reservations []Reservation
		NextToken    *string
	}
)

type apiError struct{ code string }

func (e *apiError) Error() string     { return e.code }
func (e *apiError) ErrorCode() string { return e.code }

// TestBotocoreInstanceRunning runs botocore's EC2 InstanceRunning (pathAll
// and pathAny over a double projection, error) on typed outputs.
func TestBotocoreInstanceRunning(t *testing.T) {
	var entries []botocoreEntry
	if err := json.Unmarshal(corpusFile(t, "botocore-waiters.json"), &entries); err != nil {
		t.Fatal(err)
	}
	ws := map[string]json.RawMessage{}
	for _, e := range entries {
		if e.File == "botocore/data/ec2/2016-11-15/waiters-2.json" {
			ws[e.WaiterName] = e.Waiter
		}
	}
	doc, _ := json.Marshal(map[string]any{"version": 2, "waiters": ws})
	c, err := model.LoadBotocore(bytes.NewReader(doc))
	if err != nil {
		t.Fatal(err)
	}
	d, err := c.Get("InstanceRunning")
	if err != nil {
		t.Fatal(err)
	}
	if d.MinDelay != 15*time.Second || d.MaxPolls != 40 || d.Operation.ID != "DescribeInstances" {
		t.Errorf("InstanceRunning = delay %v, max polls %d, op %s", d.MinDelay, d.MaxPolls, d.Operation.ID)
	}
	set, err := classify.Compile[*DescribeInstancesInput, *DescribeInstancesOutput](d.Acceptors)
	if err != nil {
		t.Fatal(err)
	}
	out := func(states ...InstanceStateName) *DescribeInstancesOutput {
		o := &DescribeInstancesOutput{Reservations: []Reservation{{}}}
		for _, s := range states {
			o.Reservations[0].Instances = append(o.Reservations[0].Instances, Instance{InstanceId: ptr("i-1"), State: &InstanceState{Code: ptr(int32(0)), Name: s}})
		}
		return o
	}
	tests := []struct {
		name  string
		out   *DescribeInstancesOutput
		err   error
		state classify.State
	}{
		{"running", out("running", "running"), nil, classify.Success},
		{"pending", out("running", "pending"), nil, classify.Retry},
		{"terminated", out("pending", "terminated"), nil, classify.Failure},
		{"stopping", out("stopping"), nil, classify.Failure},
		{"not found yet", nil, &apiError{"InvalidInstanceID.NotFound"}, classify.Retry},
		{"access denied", nil, &apiError{"UnauthorizedOperation"}, classify.Failure},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := set.Match(&DescribeInstancesInput{}, tt.out, tt.err)
			if m.State != tt.state || m.Err != nil {
				t.Errorf("Match = %+v (acceptor %v), want %v", m, acceptorOf(d, m.Index), tt.state)
			}
		})
	}
}

func acceptorOf(d waiter.Definition, i int) string {
	if i < 0 {
		return "none"
	}
	return d.Acceptors[i].Matcher.String()
}
