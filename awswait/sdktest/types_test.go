package sdktest_test

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/cloudformation"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	"github.com/aws/aws-sdk-go-v2/service/eks"
	"github.com/aws/aws-sdk-go-v2/service/rds"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/waitable/waitable/awswait"
	"github.com/waitable/waitable/classify"
	"github.com/waitable/waitable/waiter"
)

// sdkFindings are AWS's waiters that awswait.New refuses, with the reason:
// acceptors that can never match the SDK's output. There are none: the
// corpus's one such waiter (EC2's KeyPairExists of botocore's 2015-10-01
// EC2 model, waiter's TestBotocoreCorpus) is not the one awswait embeds,
// the 2016-11-15 model's.
var sdkFindings = map[string]string{}

// waitersOf builds, through awswait.New, every waiter of method's service
// that polls method, each checked against the SDK's Go types, records its
// name in built, and returns the number of its paths that typos checked.
func waitersOf[In, Out, Options any](t *testing.T, built map[string]bool, method awswait.Method[In, Out, Options]) (paths int) {
	t.Helper()
	pkg := reflect.TypeFor[In]().PkgPath()
	pkg = pkg[strings.LastIndexByte(pkg, '/')+1:]
	for _, name := range awswait.Names(method) {
		d, err := awswait.Definition(method, name)
		if err != nil {
			if strings.Contains(err.Error(), " polls ") {
				continue // another operation's waiter
			}
			t.Fatalf("%s: %v", name, err)
		}
		key := pkg + "." + name
		built[key] = true
		paths += typos(t, key, d, method)
		_, err = awswait.New(method, name)
		if why, ok := sdkFindings[key]; ok {
			if err == nil || !errors.Is(err, classify.ErrInvalidAcceptor) {
				t.Errorf("%s: New = %v, want it refused: %s", key, err, why)
			}
			t.Logf("%s: refused as it should be (%s): %v", key, why, err)
		} else if err != nil {
			t.Errorf("%s: %v", key, err)
		}
	}
	return paths
}

// TestEveryWaiterAgainstSDKTypes: every waiter AWS publishes for the
// services of this module's SDK clients (CloudFormation, DynamoDB, EC2 from
// botocore, EKS, RDS, S3: 77 waiters on 44 operations) has its paths
// checked against the SDK's Go types by awswait.New, and is accepted,
// but for the findings of sdkFindings.
func TestEveryWaiterAgainstSDKTypes(t *testing.T) {
	const region = "us-east-1"
	cfn := cloudformation.New(cloudformation.Options{Region: region})
	ddb := dynamodb.New(dynamodb.Options{Region: region})
	e := ec2.New(ec2.Options{Region: region})
	k := eks.New(eks.Options{Region: region})
	r := rds.New(rds.Options{Region: region})
	s := s3.New(s3.Options{Region: region})
	built, paths := map[string]bool{}, 0
	paths += waitersOf(t, built, cfn.DescribeChangeSet)
	paths += waitersOf(t, built, cfn.DescribeStackRefactor)
	paths += waitersOf(t, built, cfn.DescribeStacks)
	paths += waitersOf(t, built, cfn.DescribeTypeRegistration)
	paths += waitersOf(t, built, ddb.DescribeTable)
	paths += waitersOf(t, built, e.DescribeBundleTasks)
	paths += waitersOf(t, built, e.DescribeConversionTasks)
	paths += waitersOf(t, built, e.DescribeCustomerGateways)
	paths += waitersOf(t, built, e.DescribeExportTasks)
	paths += waitersOf(t, built, e.DescribeImageUsageReports)
	paths += waitersOf(t, built, e.DescribeImages)
	paths += waitersOf(t, built, e.DescribeImportSnapshotTasks)
	paths += waitersOf(t, built, e.DescribeInstanceStatus)
	paths += waitersOf(t, built, e.DescribeInstances)
	paths += waitersOf(t, built, e.DescribeInternetGateways)
	paths += waitersOf(t, built, e.DescribeKeyPairs)
	paths += waitersOf(t, built, e.DescribeNatGateways)
	paths += waitersOf(t, built, e.DescribeNetworkAcls)
	paths += waitersOf(t, built, e.DescribeNetworkInterfaces)
	paths += waitersOf(t, built, e.DescribeSecondaryNetworks)
	paths += waitersOf(t, built, e.DescribeSecondarySubnets)
	paths += waitersOf(t, built, e.DescribeSecurityGroupVpcAssociations)
	paths += waitersOf(t, built, e.DescribeSecurityGroups)
	paths += waitersOf(t, built, e.DescribeSnapshots)
	paths += waitersOf(t, built, e.DescribeSpotInstanceRequests)
	paths += waitersOf(t, built, e.DescribeStoreImageTasks)
	paths += waitersOf(t, built, e.DescribeSubnets)
	paths += waitersOf(t, built, e.DescribeVolumes)
	paths += waitersOf(t, built, e.DescribeVpcPeeringConnections)
	paths += waitersOf(t, built, e.DescribeVpcs)
	paths += waitersOf(t, built, e.DescribeVpnConnections)
	paths += waitersOf(t, built, e.GetConsoleOutput)
	paths += waitersOf(t, built, e.GetPasswordData)
	paths += waitersOf(t, built, k.DescribeAddon)
	paths += waitersOf(t, built, k.DescribeCluster)
	paths += waitersOf(t, built, k.DescribeFargateProfile)
	paths += waitersOf(t, built, k.DescribeNodegroup)
	paths += waitersOf(t, built, r.DescribeDBClusterSnapshots)
	paths += waitersOf(t, built, r.DescribeDBClusters)
	paths += waitersOf(t, built, r.DescribeDBInstances)
	paths += waitersOf(t, built, r.DescribeDBSnapshots)
	paths += waitersOf(t, built, r.DescribeTenantDatabases)
	paths += waitersOf(t, built, s.HeadBucket)
	paths += waitersOf(t, built, s.HeadObject)
	// Every waiter of the six services was built through one of the
	// operations above.
	all := map[string][]string{
		"cloudformation": awswait.Names(cfn.DescribeStacks), "dynamodb": awswait.Names(ddb.DescribeTable),
		"ec2": awswait.Names(e.DescribeInstances), "eks": awswait.Names(k.DescribeCluster),
		"rds": awswait.Names(r.DescribeDBInstances), "s3": awswait.Names(s.HeadBucket),
	}
	total := 0
	for svc, names := range all {
		for _, n := range names {
			total++
			if !built[svc+"."+n] {
				t.Errorf("%s.%s was not built: add its operation", svc, n)
			}
		}
	}
	if total < 77 {
		t.Errorf("%d waiters, want the six services' 77", total)
	}
	if paths < 150 {
		t.Errorf("%d paths misspelt, want every path of the 77 waiters", paths)
	}
	t.Logf("%d waiters checked against the SDK's types; %d paths misspelt and refused", total, paths)
}

// typos checks that the checks are not vacuous on the SDK's types: each
// path of d with its last name misspelt is refused.
func typos[In, Out, Options any](t *testing.T, key string, d waiter.Definition, method awswait.Method[In, Out, Options]) (checked int) {
	t.Helper()
	op, err := awswait.Op(method)
	if err != nil {
		t.Fatal(err)
	}
	for i, a := range d.Acceptors {
		p := a.Matcher.Output
		if p == nil {
			p = a.Matcher.InputOutput
		}
		if p == nil {
			continue
		}
		end := lastName(p.Path)
		if end == 0 {
			continue
		}
		typo := *p
		typo.Path = p.Path[:end] + "Typo" + p.Path[end:]
		bad := d
		bad.Acceptors = append([]classify.Acceptor(nil), d.Acceptors...)
		if a.Matcher.Output != nil {
			bad.Acceptors[i].Matcher.Output = &typo
		} else {
			bad.Acceptors[i].Matcher.InputOutput = &typo
		}
		if _, err := waiter.New(bad, op); err == nil || !strings.Contains(err.Error(), "does not exist on") {
			t.Errorf("%s: acceptor %d's path %s: New = %v, want the misspelt name refused", key, i, typo.Path, err)
		}
		checked++
	}
	return checked
}

// lastName returns the offset just past the last name of an expression
// that is not a function's, outside quotes and literals; 0 if none.
func lastName(expr string) int {
	end := 0
	for i := 0; i < len(expr); {
		switch c := expr[i]; {
		case c == '\'' || c == '`' || c == '"':
			j := i + 1
			for j < len(expr) && expr[j] != c {
				if expr[j] == '\\' {
					j++
				}
				j++
			}
			i = j + 1
		case c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z':
			j := i + 1
			for j < len(expr) && (expr[j] == '_' || 'a' <= expr[j] && expr[j] <= 'z' || 'A' <= expr[j] && expr[j] <= 'Z' || '0' <= expr[j] && expr[j] <= '9') {
				j++
			}
			if rest := strings.TrimLeft(expr[j:], " "); !strings.HasPrefix(rest, "(") {
				end = j
			}
			i = j
		default:
			i++
		}
	}
	return end
}

// TestEKSChecks: expressions beyond simple paths on
// eks.DescribeClusterOutput itself are checked: a misspelt name inside a
// function's argument inside a comparison, a number compared with
// stringEquals, a string where abs takes a number.
func TestEKSChecks(t *testing.T) {
	for _, tt := range []struct {
		path string
		cmp  classify.Comparator
		want []string
	}{
		{"length(cluster.statuss) > `0`", classify.BooleanEquals,
			[]string{"type error at offset 15: cluster.statuss: field \"statuss\" does not exist on types.Cluster (did you mean status?)"}},
		{"length(Items)", classify.StringEquals,
			[]string{"type error at offset 7: field \"Items\" does not exist on eks.DescribeClusterOutput", "stringEquals needs a string, but the path gives a number"}},
		{"length(cluster.tags)", classify.StringEquals, []string{"stringEquals needs a string, but the path gives a number"}},
		{"abs(Status)", classify.StringEquals, []string{"field \"Status\" does not exist on eks.DescribeClusterOutput"}},
		{"abs(cluster.status)", classify.BooleanEquals,
			[]string{"type error at offset 4: argument 1 of abs() must be a number, but cluster.status is a string (types.ClusterStatus)"}},
		{"cluster.status", classify.StringEquals, nil},
		{"length(cluster.health.issues[?code == 'AccessDenied']) > `0`", classify.BooleanEquals, nil},
	} {
		expected := "x"
		if tt.cmp == classify.BooleanEquals {
			expected = "true"
		}
		_, err := classify.Compile[*eks.DescribeClusterInput, *eks.DescribeClusterOutput]([]classify.Acceptor{
			{State: classify.Success, Matcher: classify.OnOutput(tt.path, tt.cmp, expected)},
		})
		if tt.want == nil && err != nil {
			t.Errorf("%s: %v", tt.path, err)
		}
		for _, w := range tt.want {
			if err == nil || !strings.Contains(err.Error(), w) {
				t.Errorf("%s: %v, want a problem containing %q", tt.path, err, w)
			}
		}
	}
}
