package awswait

import (
	"reflect"
	"unicode"
	"unicode/utf8"

	"github.com/aws/smithy-go/middleware"

	"github.com/waitable/waitable/jmespath"
)

//go:generate go test -run TestMemberNamesTable -update

// The member names of AWS's shapes.
//
// AWS's waiters are written against the Smithy models' member names (EKS's
// cluster.status, EC2's Reservations), and so must be what keys(),
// values(), merge() and to_string list. aws-sdk-go-v2's Go types do not
// carry those names: a field is the member's name with its first letter
// upper-cased (member status, field Status; member DBInstances, field
// DBInstances), so the Go name alone does not say whether the member was
// status or Status.
//
// The names are in the services' models, which awswait does not embed
// (EC2's alone is megabytes). But within a service they follow its
// protocol's habit: the services that write JSON name members
// lowerCamelCase, those that write query or EC2 XML UpperCamelCase. So
// awswait keeps, for each service it has waiters for, one rule (lower the
// Go name's first letter, or keep it) and the few members that break it,
// made from the member names of every shape the service's waiters read
// (their operations' inputs and outputs and what those reach), as
// botocore's service-2.json gives them (../testdata/aws/members.json, made
// by ../testdata/aws/extract-members.go): memberRules, in names_table.go,
// written by go generate (TestMemberNamesTable -update). That test fails
// if the table does not match the models; TestMemberRulesMatchModels
// applies the rule to every member of those shapes; and the module
// awswait/sdktest checks, against the SDK's own Go types of six services,
// that the rule gives every field reached the name the model's shapes do.
// The alternative, embedding the shapes themselves (2,000 structures and
// 9,000 members for these services), would be exact by construction but
// forty times the size, for the same answers.
//
// The fields that stand for no member are not listed: every output's
// ResultMetadata, and the few fields the SDK adds to a service's shapes
// (sdkOnly). Types outside the service's package and its types package
// keep package jmespath's Go rule.

// memberRule is how a service's member names follow from aws-sdk-go-v2's
// field names.
type memberRule struct {
	// lower: a member's name is the field's with its first letter
	// lowered; else it is the field's.
	lower bool
	// fields are the members whose names break the rule, by field name,
	// where the field's name says which member it is throughout the
	// service's shapes.
	fields map[string]string
	// types are the members whose names break the rule where it does
	// not ("Type.Field": the Go type's name and the field's).
	types map[string]string
}

// name returns the member name of field field of the Go type named typ.
func (r memberRule) name(typ, field string) string {
	if n, ok := r.types[typ+"."+field]; ok {
		return n
	}
	if n, ok := r.fields[field]; ok {
		return n
	}
	if r.lower {
		return lowerFirst(field)
	}
	return field
}

func lowerFirst(s string) string {
	r, n := utf8.DecodeRuneInString(s)
	if r == utf8.RuneError {
		return s
	}
	return string(unicode.ToLower(r)) + s[n:]
}

var metadataType = reflect.TypeFor[middleware.Metadata]()

// sdkOnly are the fields aws-sdk-go-v2 adds to the Go types of the shapes
// awswait's waiters read ("Type.Field", by package), which stand for no
// member of the model: S3's ExpiresString, the Expires header as sent
// (the SDK's customization of S3's Expires). The module awswait/sdktest
// finds them: they are the fields of the SDK's types that the models do
// not have.
var sdkOnly = map[string]map[string]bool{
	"s3": {"HeadObjectOutput.ExpiresString": true, "GetObjectOutput.ExpiresString": true},
}

// awsModel is the waiter.Model of a service's waiters: the member names
// of the Go types of its aws-sdk-go-v2 package pkg.
type awsModel struct{ pkg string }

// MemberNames names the fields of the struct types of the packages of in
// and out (the service's package) and of their types packages by the
// service's rule; other types keep the Go rule. A service with no rule
// (none of awswait's waiters is of it) gives nil.
func (m awsModel) MemberNames(in, out reflect.Type) (jmespath.MemberNames, error) {
	rule, ok := memberRules[m.pkg]
	if !ok {
		return nil, nil
	}
	bases := map[string]bool{}
	for _, t := range []reflect.Type{in, out} {
		for t != nil && t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		if t != nil && t.PkgPath() != "" {
			bases[t.PkgPath()] = true
		}
	}
	return func(t reflect.Type, f reflect.StructField) string {
		p := t.PkgPath()
		switch {
		case bases[p]:
			if f.Name == "ResultMetadata" && f.Type == metadataType {
				return "-"
			}
		case len(p) > len("/types") && p[len(p)-len("/types"):] == "/types" && bases[p[:len(p)-len("/types")]]:
		default:
			return ""
		}
		if sdkOnly[m.pkg][t.Name()+"."+f.Name] {
			return "-"
		}
		return rule.name(t.Name(), f.Name)
	}, nil
}
