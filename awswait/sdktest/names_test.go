package sdktest

import (
	"encoding/json"
	"math/big"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/cloudformation"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	"github.com/aws/aws-sdk-go-v2/service/eks"
	"github.com/aws/aws-sdk-go-v2/service/rds"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/smithy-go"
	"github.com/aws/smithy-go/document"

	"github.com/waitable/waitable/awswait"
	"github.com/waitable/waitable/jmespath"
	"github.com/waitable/waitable/waiter/model"
)

// members is ../../testdata/aws/members.json: the shapes AWS's waiters
// read, with botocore's member names.
type members map[string]struct {
	Operations map[string]struct {
		Input  string `json:"input"`
		Output string `json:"output"`
	} `json:"operations"`
	Shapes map[string]model.Shape `json:"shapes"`
}

func readMembers(t *testing.T) members {
	t.Helper()
	b, err := os.ReadFile("../../testdata/aws/members.json")
	if err != nil {
		t.Fatal(err)
	}
	var raw struct {
		Services []json.RawMessage `json:"services"`
	}
	if err := json.Unmarshal(b, &raw); err != nil {
		t.Fatal(err)
	}
	m := members{}
	for _, s := range raw.Services {
		var head struct {
			Package string `json:"package"`
		}
		if err := json.Unmarshal(s, &head); err != nil {
			t.Fatal(err)
		}
		v := m[head.Package]
		if err := json.Unmarshal(s, &v); err != nil {
			t.Fatal(err)
		}
		m[head.Package] = v
	}
	return m
}

// TestMemberNamesAgreeWithModels: for every operation the waiters of six
// services poll, awswait's member names for the SDK's own Go types (its
// compact rule, see awswait's names.go) are those the model's shapes give
// every field they reach, mapped onto the types by model.Shapes, and,
// for the services whose SDK serializes by smithy-go schemas (DynamoDB,
// EKS), those of the SDK's own schemas: the rule is right, the SDK's
// fields are the members' names with the first letter upper-cased, and
// the fields that stand for no member (ResultMetadata, awswait's sdkOnly)
// are not listed. Fields the SDK has and members.json not (the SDK's
// modules are newer) are logged; on schema services they are checked.
func TestMemberNamesAgreeWithModels(t *testing.T) {
	m := readMembers(t)
	cfg := aws.Config{Region: "us-east-1"}
	cf, ddb, e, k, r, s := cloudformation.NewFromConfig(cfg), dynamodb.NewFromConfig(cfg), ec2.NewFromConfig(cfg), eks.NewFromConfig(cfg), rds.NewFromConfig(cfg), s3.NewFromConfig(cfg)
	fields := 0
	for _, check := range []func() int{
		agree(t, m, cf.DescribeChangeSet, "ChangeSetCreateComplete"),
		agree(t, m, cf.DescribeStackRefactor, "StackRefactorCreateComplete"),
		agree(t, m, cf.DescribeStacks, "StackCreateComplete"),
		agree(t, m, cf.DescribeTypeRegistration, "TypeRegistrationComplete"),
		agree(t, m, ddb.DescribeTable, "TableExists"),
		agree(t, m, e.DescribeBundleTasks, "BundleTaskComplete"),
		agree(t, m, e.DescribeConversionTasks, "ConversionTaskCancelled"),
		agree(t, m, e.DescribeCustomerGateways, "CustomerGatewayAvailable"),
		agree(t, m, e.DescribeExportTasks, "ExportTaskCancelled"),
		agree(t, m, e.DescribeImageUsageReports, "ImageUsageReportAvailable"),
		agree(t, m, e.DescribeImages, "ImageAvailable"),
		agree(t, m, e.DescribeImportSnapshotTasks, "SnapshotImported"),
		agree(t, m, e.DescribeInstanceStatus, "InstanceStatusOk"),
		agree(t, m, e.DescribeInstances, "InstanceExists"),
		agree(t, m, e.DescribeInternetGateways, "InternetGatewayExists"),
		agree(t, m, e.DescribeKeyPairs, "KeyPairExists"),
		agree(t, m, e.DescribeNatGateways, "NatGatewayAvailable"),
		agree(t, m, e.DescribeNetworkInterfaces, "NetworkInterfaceAvailable"),
		agree(t, m, e.DescribeSecondaryNetworks, "SecondaryNetworkCreateComplete"),
		agree(t, m, e.DescribeSecondarySubnets, "SecondarySubnetCreateComplete"),
		agree(t, m, e.DescribeSecurityGroupVpcAssociations, "SecurityGroupVpcAssociationAssociated"),
		agree(t, m, e.DescribeSecurityGroups, "SecurityGroupExists"),
		agree(t, m, e.DescribeSnapshots, "SnapshotCompleted"),
		agree(t, m, e.DescribeSpotInstanceRequests, "SpotInstanceRequestFulfilled"),
		agree(t, m, e.DescribeStoreImageTasks, "StoreImageTaskComplete"),
		agree(t, m, e.DescribeSubnets, "SubnetAvailable"),
		agree(t, m, e.DescribeVolumes, "VolumeAvailable"),
		agree(t, m, e.DescribeVpcPeeringConnections, "VpcPeeringConnectionDeleted"),
		agree(t, m, e.DescribeVpcs, "VpcAvailable"),
		agree(t, m, e.DescribeVpnConnections, "VpnConnectionAvailable"),
		agree(t, m, e.GetPasswordData, "PasswordDataAvailable"),
		agree(t, m, k.DescribeAddon, "AddonActive"),
		agree(t, m, k.DescribeCluster, "ClusterActive"),
		agree(t, m, k.DescribeFargateProfile, "FargateProfileActive"),
		agree(t, m, k.DescribeNodegroup, "NodegroupActive"),
		agree(t, m, r.DescribeDBClusterSnapshots, "DBClusterSnapshotAvailable"),
		agree(t, m, r.DescribeDBClusters, "DBClusterAvailable"),
		agree(t, m, r.DescribeDBInstances, "DBInstanceAvailable"),
		agree(t, m, r.DescribeDBSnapshots, "DBSnapshotAvailable"),
		agree(t, m, r.DescribeTenantDatabases, "TenantDatabaseAvailable"),
		agree(t, m, s.HeadBucket, "BucketExists"),
		agree(t, m, s.HeadObject, "ObjectExists"),
	} {
		fields += check()
	}
	if fields+schemaFields < 2000 {
		t.Errorf("compared %d fields, want the thousands the waiters' outputs reach", fields+schemaFields)
	}
	t.Logf("compared %d fields with members.json, %d with the SDK's own schemas; %d of the SDK's are not in members.json", fields, schemaFields, newer)
	if schemaFields < 100 {
		t.Errorf("checked %d fields against the SDK's schemas, want the hundreds of DynamoDB's and EKS's", schemaFields)
	}
}

// agree returns a check that awswait's names and the model's agree on
// every field of the service's struct types that the operation's input
// and output reach; it returns the number of fields compared.
func agree[In, Out, Options any](t *testing.T, m members, method awswait.Method[In, Out, Options], name string) func() int {
	return func() int {
		t.Helper()
		def, err := awswait.Definition(method, name)
		if err != nil {
			t.Fatal(err)
		}
		in, out := reflect.TypeFor[*In](), reflect.TypeFor[*Out]()
		ours, err := def.Operation.Model.MemberNames(in, out)
		if err != nil || ours == nil {
			t.Fatalf("%s: awswait's names: %v", name, err)
		}
		base := out.Elem().PkgPath()
		pkg := base[strings.LastIndexByte(base, '/')+1:]
		op := strings.TrimSuffix(out.Elem().Name(), "Output")
		shapes, ok := m[pkg]
		if !ok || shapes.Operations[op].Output == "" && shapes.Operations[op].Input == "" {
			t.Fatalf("members.json has no %s.%s", pkg, op)
		}
		sm := &model.Shapes{Input: shapes.Operations[op].Input, Output: shapes.Operations[op].Output, Shapes: shapes.Shapes}
		theirs, err := sm.MemberNames(in, out)
		if err != nil || theirs == nil {
			t.Fatalf("%s: the model's names: %v", name, err)
		}
		compared := 0
		seen := map[reflect.Type]bool{}
		var walk func(t reflect.Type)
		walk = func(typ reflect.Type) {
			for typ.Kind() == reflect.Pointer || typ.Kind() == reflect.Slice || typ.Kind() == reflect.Array || typ.Kind() == reflect.Map {
				typ = typ.Elem()
			}
			if typ.Kind() != reflect.Struct || seen[typ] {
				return
			}
			seen[typ] = true
			if p := typ.PkgPath(); p != base && p != base+"/types" {
				return
			}
			schema := schemaOf(typ)
			for _, f := range jmespath.Fields(typ, nil) {
				a, b := ours(typ, f.StructField), theirs(typ, f.StructField)
				if schema != nil {
					// The SDK's own schema of the type (services on
					// smithy-go's schema-serde): its member names are
					// the model's of the SDK's version.
					want := "-"
					for name := range schema.Members() {
						if upperFirst(name) == f.Name {
							want = name
						}
					}
					schemaFields++
					if a != want {
						t.Errorf("%s.%s: %v.%s is %q to awswait, %q to the SDK's schema", pkg, op, typ, f.Name, a, want)
					}
					if b != "" && b != "-" && b != want {
						t.Errorf("%s.%s: %v.%s is %q to the SDK's schema, %q to members.json", pkg, op, typ, f.Name, want, b)
					}
					walk(f.Type)
					continue
				}
				switch {
				case b == "" && a != "" && a != "-":
					// A type the model's shapes do not reach (through a
					// member newer than members.json): not compared.
					continue
				case b == "-" && a != "-":
					// No member of the model's shape at members.json's
					// commit: a member the SDK's model has since (the
					// SDK's modules may be newer), or a field of the
					// SDK's own that awswait lists (sdkOnly must list it).
					t.Logf("%s.%s: %v.%s (%q to awswait) is not in members.json", pkg, op, typ, f.Name, a)
					newer++
					continue
				}
				compared++
				if a != b {
					t.Errorf("%s.%s: %v.%s is %q to awswait, %q to the model", pkg, op, typ, f.Name, a, b)
				}
				walk(f.Type)
			}
		}
		walk(in)
		walk(out)
		return compared
	}
}

// newer counts the fields of the SDK's types that members.json does not
// have; schemaFields those checked against the SDK's own schemas.
var newer, schemaFields int

func upperFirst(s string) string { return strings.ToUpper(s[:1]) + s[1:] }

// schemaOf returns the smithy-go schema of struct type t, if the SDK
// serializes it by schema (Serialize(smithy.ShapeSerializer) writes it
// first), or nil.
func schemaOf(t reflect.Type) *smithy.Schema {
	v, ok := reflect.New(t).Interface().(interface{ Serialize(smithy.ShapeSerializer) })
	if !ok {
		return nil
	}
	var r schemaRecorder
	v.Serialize(&r)
	return r.schema
}

// schemaRecorder is a smithy.ShapeSerializer that keeps the first
// struct's schema and writes nothing.
type schemaRecorder struct{ schema *smithy.Schema }

func (r *schemaRecorder) WriteStruct(s *smithy.Schema) {
	if r.schema == nil {
		r.schema = s
	}
}
func (*schemaRecorder) Bytes() []byte                                { return nil }
func (*schemaRecorder) WriteInt8(*smithy.Schema, int8)               {}
func (*schemaRecorder) WriteInt16(*smithy.Schema, int16)             {}
func (*schemaRecorder) WriteInt32(*smithy.Schema, int32)             {}
func (*schemaRecorder) WriteInt64(*smithy.Schema, int64)             {}
func (*schemaRecorder) WriteFloat32(*smithy.Schema, float32)         {}
func (*schemaRecorder) WriteFloat64(*smithy.Schema, float64)         {}
func (*schemaRecorder) WriteBool(*smithy.Schema, bool)               {}
func (*schemaRecorder) WriteString(*smithy.Schema, string)           {}
func (*schemaRecorder) WriteBigInt(*smithy.Schema, *big.Int)         {}
func (*schemaRecorder) WriteBigFloat(*smithy.Schema, *big.Float)     {}
func (*schemaRecorder) WriteBlob(*smithy.Schema, []byte)             {}
func (*schemaRecorder) WriteTime(*smithy.Schema, time.Time)          {}
func (*schemaRecorder) WriteUnion(_, _ *smithy.Schema)               {}
func (*schemaRecorder) CloseUnion()                                  {}
func (*schemaRecorder) WriteDocument(*smithy.Schema, document.Value) {}
func (*schemaRecorder) WriteNil(*smithy.Schema)                      {}
func (*schemaRecorder) CloseStruct()                                 {}
func (*schemaRecorder) WriteList(*smithy.Schema)                     {}
func (*schemaRecorder) CloseList()                                   {}
func (*schemaRecorder) WriteMap(*smithy.Schema)                      {}
func (*schemaRecorder) WriteKey(*smithy.Schema, string)              {}
func (*schemaRecorder) CloseMap()                                    {}
