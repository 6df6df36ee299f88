package shapes

import (
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/waitable/waitable/jmespath"
)

// describe follows a path of members ("." for an element) from t and
// describes the type at its end.
func describe(t jmespath.Type, path ...string) string {
	for _, p := range path {
		if t == nil {
			return "nil"
		}
		if p == "." {
			t = t.Elem()
			continue
		}
		m, ok := t.Member(p)
		if !ok {
			return "no member " + p
		}
		t = m
	}
	return jmespath.Describe(t)
}

// TestSmithy: a whole model's shapes, as JMESPath reads their data.
func TestSmithy(t *testing.T) {
	data, err := os.ReadFile("../../testdata/aws/models/acm-2015-12-08.json")
	if err != nil {
		t.Fatal(err)
	}
	m, err := Smithy(data)
	if err != nil {
		t.Fatal(err)
	}
	in, out, ok := m.Operation("com.amazonaws.acm#DescribeCertificate")
	if !ok || in == nil || out == nil {
		t.Fatalf("DescribeCertificate: %v %v %v", in, out, ok)
	}
	for _, tt := range []struct {
		path []string
		want string
	}{
		{nil, "an object (com.amazonaws.acm#DescribeCertificateResponse)"},
		{[]string{"Certificate"}, "an object (com.amazonaws.acm#CertificateDetail)"},
		{[]string{"Certificate", "DomainValidationOptions"}, "an array (com.amazonaws.acm#DomainValidationList)"},
		{[]string{"Certificate", "DomainValidationOptions", ".", "ValidationStatus"}, "a string (com.amazonaws.acm#DomainStatus)"},
		{[]string{"Certificate", "DomainName"}, "a string (com.amazonaws.acm#DomainNameString)"},
		{[]string{"Certificate", "CreatedAt"}, "a number (com.amazonaws.acm#TStamp)"},
		{[]string{"Certificate", "InUseBy", "."}, "a string (com.amazonaws.acm#String)"},
		{[]string{"certificate"}, "no member certificate"}, // data has the model's names, exactly
	} {
		if got := describe(out, tt.path...); got != tt.want {
			t.Errorf("%v: %s, want %s", tt.path, got, tt.want)
		}
	}
	if _, out, _ := m.Operation("com.amazonaws.acm#DeleteCertificate"); out != nil {
		t.Errorf("an output of Unit is %v, want none", out)
	}
	if _, _, ok := m.Operation("com.amazonaws.acm#Nothing"); ok {
		t.Error("an operation the model does not have was found")
	}
	if ops := m.Operations(); len(ops) != 15 || ops[0] != "com.amazonaws.acm#AddTagsToCertificate" {
		t.Errorf("Operations() = %d, %v", len(ops), ops[:min(3, len(ops))])
	}
}

// TestSmithyShapes: the prelude, maps, documents, unions, mixins,
// targets the model lacks, and shapes that do not decode.
func TestSmithyShapes(t *testing.T) {
	m, err := Smithy([]byte(`{"smithy": "2.0", "shapes": {
		"ex#Op": {"type": "operation", "input": {"target": "smithy.api#Unit"}, "output": {"target": "ex#Out"}},
		"ex#Out": {"type": "structure", "mixins": [{"target": "ex#Base"}], "members": {
			"tags": {"target": "ex#Tags"}, "doc": {"target": "smithy.api#Document"}, "u": {"target": "ex#U"},
			"n": {"target": "smithy.api#PrimitiveLong"}, "b": {"target": "smithy.api#Blob"}, "ok": {"target": "smithy.api#Boolean"},
			"gone": {"target": "ex#Missing"}, "bad": {"target": "ex#Bad"}, "e": {"target": "ex#IntEnum"}}},
		"ex#Base": {"type": "structure", "members": {"id": {"target": "smithy.api#String"}}},
		"ex#Tags": {"type": "map", "key": {"target": "smithy.api#String"}, "value": {"target": "smithy.api#Integer"}},
		"ex#U": {"type": "union", "members": {"a": {"target": "smithy.api#String"}}},
		"ex#IntEnum": {"type": "intEnum", "members": {"A": {"target": "smithy.api#Unit"}}},
		"ex#Bad": {"type": "list", "member": ["ex#Out"]}
	}}`))
	var se *ShapeError
	if !errors.As(err, &se) || se.ID != "ex#Bad" || se.Field != "member" || se.Error() != "shape ex#Bad: member: an array where an object is expected" {
		t.Errorf("Smithy = %v, want a ShapeError for ex#Bad's member", err)
	}
	in, out, ok := m.Operation("ex#Op")
	if !ok || in != nil {
		t.Fatalf("Operation = %v, %v, %v", in, out, ok)
	}
	for _, tt := range []struct {
		path []string
		want string
	}{
		{[]string{"id"}, "a string (smithy.api#String)"}, // from the mixin
		{[]string{"tags", "."}, "a number (smithy.api#Integer)"},
		{[]string{"doc", "anything"}, "no member anything"},
		{[]string{"doc"}, "a value of unknown type"},
		{[]string{"u", "a"}, "a string (smithy.api#String)"},
		{[]string{"n"}, "a number (smithy.api#PrimitiveLong)"},
		{[]string{"b"}, "a string (smithy.api#Blob)"},
		{[]string{"ok"}, "a boolean (smithy.api#Boolean)"},
		{[]string{"e"}, "a number (ex#IntEnum)"},
		{[]string{"gone"}, "a value of unknown type"},
		{[]string{"bad"}, "a value of unknown type"},
	} {
		if got := describe(out, tt.path...); got != tt.want {
			t.Errorf("%v: %s, want %s", tt.path, got, tt.want)
		}
	}
	if got := strings.Join(out.Members(), ","); got != "id,b,bad,doc,e,gone,n,ok,tags,u" {
		t.Errorf("Members() = %s", got)
	}
	if _, err := Smithy([]byte(`{"smithy": "2.0", "shapes": []}`)); err == nil {
		t.Error("shapes that are an array: no error")
	}
}

// TestBotocore: a service model's operations and shapes.
func TestBotocore(t *testing.T) {
	m, err := Botocore([]byte(`{"version": "2.0", "metadata": {}, "operations": {
		"DescribeThing": {"name": "DescribeThing", "input": {"shape": "In"}, "output": {"shape": "Out"}},
		"DeleteThing": {"name": "DeleteThing", "input": {"shape": "In"}}},
	 "shapes": {
		"In": {"type": "structure", "members": {"Name": {"shape": "String"}}},
		"Out": {"type": "structure", "members": {"Thing": {"shape": "Thing"}, "Tags": {"shape": "Tags"}, "Doc": {"shape": "Doc"}}},
		"Thing": {"type": "structure", "members": {"Status": {"shape": "Status"}, "Created": {"shape": "Date"},
			"Size": {"shape": "Long"}, "Data": {"shape": "Blob"}, "Parts": {"shape": "Parts"}}},
		"Status": {"type": "string", "enum": ["A", "B"]},
		"String": {"type": "string"}, "Date": {"type": "timestamp"}, "Long": {"type": "long"}, "Blob": {"type": "blob"},
		"Parts": {"type": "list", "member": {"shape": "String"}},
		"Tags": {"type": "map", "key": {"shape": "String"}, "value": {"shape": "String"}},
		"Doc": {"type": "structure", "members": {}, "document": true}}}`))
	if err != nil {
		t.Fatal(err)
	}
	in, out, ok := m.Operation("DescribeThing")
	if !ok || in == nil || out == nil {
		t.Fatalf("Operation = %v %v %v", in, out, ok)
	}
	for _, tt := range []struct {
		path []string
		want string
	}{
		{[]string{"Thing", "Status"}, "a string (Status)"},
		{[]string{"Thing", "Created"}, "a number (Date)"},
		{[]string{"Thing", "Size"}, "a number (Long)"},
		{[]string{"Thing", "Data"}, "a string (Blob)"},
		{[]string{"Thing", "Parts", "."}, "a string (String)"},
		{[]string{"Tags", "."}, "a string (String)"},
		{[]string{"Doc"}, "a value of unknown type"},
		{[]string{"Thing", "status"}, "no member status"},
	} {
		if got := describe(out, tt.path...); got != tt.want {
			t.Errorf("%v: %s, want %s", tt.path, got, tt.want)
		}
	}
	if _, out, ok := m.Operation("DeleteThing"); !ok || out != nil {
		t.Errorf("DeleteThing's output = %v, %v; want none", out, ok)
	}
	for _, bad := range []string{`[]`, `{}`, `{"operations": {}, "shapes": []}`, `not json`} {
		if _, err := Botocore([]byte(bad)); err == nil {
			t.Errorf("Botocore(%s): no error", bad)
		}
	}
}
