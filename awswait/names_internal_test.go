package awswait

import (
	"encoding/json"
	"maps"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/aws/smithy-go/middleware"

	"github.com/waitable/waitable/awswait/internal/standin/eks"
	"github.com/waitable/waitable/jmespath"
)

// membersJSON is ../testdata/aws/members.json.
type membersJSON struct {
	Services []membersService `json:"services"`
}

type membersService struct {
	Package    string `json:"package"`
	File       string `json:"file"`
	Operations map[string]struct {
		Input  string `json:"input"`
		Output string `json:"output"`
	} `json:"operations"`
	Shapes map[string]struct {
		Type    string            `json:"type"`
		Members map[string]string `json:"members"`
	} `json:"shapes"`
}

func upperFirst(s string) string {
	r, n := utf8.DecodeRuneInString(s)
	return string(unicode.ToUpper(r)) + s[n:]
}

// TestMemberRulesMatchModels: for every member of every shape the waiters
// of a service read (../testdata/aws/members.json), the service's rule
// gives the member's name from its aws-sdk-go-v2 Go type and field, and
// every service awswait has waiters for has a rule.
func TestMemberRulesMatchModels(t *testing.T) {
	b, err := os.ReadFile("../testdata/aws/members.json")
	if err != nil {
		t.Fatal(err)
	}
	var m membersJSON
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	checked := 0
	packages := map[string]bool{}
	botocore := map[string]string{} // botocore name → package
	for _, s := range m.Services {
		packages[s.Package] = true
		botocore[strings.Split(s.File, "/")[2]] = s.Package
		rule, ok := memberRules[s.Package]
		if !ok {
			t.Errorf("%s: no rule", s.Package)
			continue
		}
		goTypes := map[string][]string{}
		for op, o := range s.Operations {
			goTypes[o.Input] = append(goTypes[o.Input], op+"Input")
			goTypes[o.Output] = append(goTypes[o.Output], op+"Output")
		}
		for id, sh := range s.Shapes {
			if sh.Type != "structure" && sh.Type != "union" {
				continue
			}
			for _, typ := range append([]string{upperFirst(id)}, goTypes[id]...) {
				for member := range sh.Members {
					checked++
					if got := rule.name(typ, upperFirst(member)); got != member {
						t.Errorf("%s: %s.%s is member %q, the rule says %q", s.Package, typ, upperFirst(member), member, got)
					}
				}
			}
		}
	}
	if checked < 9000 {
		t.Errorf("checked %d members, want the 9,000 and more of the waiters' shapes", checked)
	}
	var e embedded
	if err := json.Unmarshal(waitersJSON, &e); err != nil {
		t.Fatal(err)
	}
	for _, s := range e.Smithy {
		if !packages[packageName(s.SDKID)] {
			t.Errorf("%s (%s) has waiters and no member names", s.SDKID, packageName(s.SDKID))
		}
	}
	for _, name := range slices.Sorted(maps.Keys(e.Botocore)) {
		if _, ok := botocore[name]; !ok {
			t.Errorf("botocore's %s has waiters and no member names", name)
		}
	}
}

// TestAWSModel: the model names the fields of the service's types by its
// rule (EKS: lower-case), leaves out ResultMetadata, and leaves types of
// other packages to the Go rule.
func TestAWSModel(t *testing.T) {
	names, err := awsModel{"eks"}.MemberNames(reflect.TypeFor[*eks.DescribeClusterInput](), reflect.TypeFor[*eks.DescribeClusterOutput]())
	if err != nil || names == nil {
		t.Fatalf("MemberNames = %v, %v", names, err)
	}
	key := func(t reflect.Type) []string {
		var out []string
		for _, f := range jmespath.Fields(t, names) {
			out = append(out, f.Key)
		}
		return out
	}
	for typ, want := range map[reflect.Type][]string{
		reflect.TypeFor[eks.DescribeClusterOutput](): {"cluster"},
		reflect.TypeFor[eks.DescribeClusterInput]():  {"name"},
		reflect.TypeFor[eks.Cluster]():               {"name", "status"},
		reflect.TypeFor[struct{ Cluster string }]():  {"Cluster"},
		reflect.TypeFor[struct {
			ResultMetadata middleware.Metadata
		}](): {"ResultMetadata"},
	} {
		if got := key(typ); !slices.Equal(got, want) {
			t.Errorf("keys of %v = %v, want %v", typ, got, want)
		}
	}
	if names, err := (awsModel{"nosuchservice"}).MemberNames(nil, nil); names != nil || err != nil {
		t.Errorf("a service with no rule: MemberNames = %v, %v; want none", names, err)
	}
	if got := (memberRule{lower: true}).name("Cluster", "ClusterArn"); got != "clusterArn" {
		t.Errorf("the lower rule on ClusterArn = %q", got)
	}
	if got := (memberRule{types: map[string]string{"T.F": "x"}, fields: map[string]string{"F": "y"}}).name("T", "F"); got != "x" {
		t.Errorf("a type's exception = %q, want it before the field's", got)
	}
}

// TestMembersAgreeWithSmithyModels: botocore's member names, which
// members.json holds, are the Smithy models' (the three whole Smithy
// models in ../testdata/aws/models: ACM, Neptune Graph, OpsWorks): every
// member of the Smithy model's shape is one of botocore's, named alike
// (botocore's, newer, has members the Smithy models have not yet).
func TestMembersAgreeWithSmithyModels(t *testing.T) {
	b, err := os.ReadFile("../testdata/aws/members.json")
	if err != nil {
		t.Fatal(err)
	}
	var m membersJSON
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	compared := 0
	for pkg, file := range map[string]string{"acm": "acm-2015-12-08.json", "neptunegraph": "neptune-graph-2023-11-29.json", "opsworks": "opsworks-2013-02-18.json"} {
		data, err := os.ReadFile("../testdata/aws/models/" + file)
		if err != nil {
			t.Fatal(err)
		}
		var model struct {
			Shapes map[string]struct {
				Members map[string]json.RawMessage `json:"members"`
			} `json:"shapes"`
		}
		if err := json.Unmarshal(data, &model); err != nil {
			t.Fatal(err)
		}
		byName := map[string][]string{}
		for id, sh := range model.Shapes {
			byName[id[strings.IndexByte(id, '#')+1:]] = slices.Sorted(maps.Keys(sh.Members))
		}
		i := slices.IndexFunc(m.Services, func(s membersService) bool { return s.Package == pkg })
		if i < 0 {
			t.Fatalf("members.json has no %s", pkg)
		}
		for id, sh := range m.Services[i].Shapes {
			smithy, ok := byName[id]
			if sh.Type != "structure" || !ok {
				continue
			}
			for _, member := range smithy {
				compared++
				if _, ok := sh.Members[member]; !ok {
					t.Errorf("%s: %s's member %s of the Smithy model is not botocore's", pkg, id, member)
				}
			}
		}
	}
	if compared < 200 {
		t.Errorf("compared %d members, want the hundreds of the waiters' shapes of three services", compared)
	}
}
