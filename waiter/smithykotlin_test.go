package waiter_test

// The waiter conformance suite of smithy-kotlin
// (github.com/smithy-lang/smithy-kotlin, tests/codegen/waiter-tests, at
// commit 6373a5f747998ea0b1d2c82b677952368d4307e1), ported to Go.
// Copyright Amazon.com, Inc. or its affiliates; Apache License 2.0. See
// testdata/smithy-kotlin-waiter-tests/NOTICE.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/waitable/waitable/clocktest"
	"github.com/waitable/waitable/telemetry"
	"github.com/waitable/waitable/waiter"
	"github.com/waitable/waitable/waiter/model"
)

// The suite's shapes (model/utils/structures.smithy) as Go types of the
// kind aws-sdk-go-v2 generates: fields named after the model's members with
// their first letter upper-cased, no tags. The model's member names reach
// the expressions only through the model, which is what the suite tests.
type (
	skEnum    string
	skIntEnum int32

	skGetEntityRequest struct {
		Name *string
	}
	skGetEntityResponse struct {
		Primitives          *skEntityPrimitives
		Lists               *skEntityLists
		TwoDimensionalLists *skTwoDimensionalEntityLists
		Maps                *skEntityMaps
		SampleValues        *skValues
		ObjectOne           *skValues
		ObjectTwo           *skValues
	}
	skEntityPrimitives struct {
		Boolean *bool
		String  *string
		Byte    *int8
		Short   *int16
		Integer *int32
		Long    *int64
		Float   *float32
		Double  *float64
		Enum    *skEnum
		IntEnum *skIntEnum
	}
	skEntityLists struct {
		Booleans []bool
		Strings  []string
		Shorts   []int16
		Integers []int32
		Longs    []int64
		Floats   []float32
		Doubles  []float64
		Enums    []skEnum
		IntEnums []skIntEnum
		Structs  []skStruct
	}
	skTwoDimensionalEntityLists struct {
		BooleansList [][]bool
	}
	skEntityMaps struct {
		Booleans map[string]bool
		Strings  map[string]string
		Integers map[string]int32
		Enums    map[string]skEnum
		IntEnums map[string]skIntEnum
		Structs  map[string]skStruct
	}
	skStruct struct {
		Primitives *skEntityPrimitives
		Strings    []string
		Integer    *int32
		String     *string
		Enums      []skEnum
		SubStructs []skSubStruct
	}
	skSubStruct struct {
		SubStructPrimitives *skEntityPrimitives
	}
	skValues struct {
		ValueOne   *string
		ValueTwo   *string
		ValueThree *string
	}
)

// skModel converts the suite's Smithy IDL files to a JSON AST model.
func skModel(t *testing.T) []byte {
	t.Helper()
	files := map[string]string{}
	dir := filepath.Join("testdata", "smithy-kotlin-waiter-tests", "model")
	for _, glob := range []string{"*.smithy", "utils/*.smithy"} {
		names, err := filepath.Glob(filepath.Join(dir, glob))
		if err != nil {
			t.Fatal(err)
		}
		for _, name := range names {
			b, err := os.ReadFile(name)
			if err != nil {
				t.Fatal(err)
			}
			files[strings.TrimPrefix(filepath.ToSlash(name), filepath.ToSlash(dir)+"/")] = string(b)
		}
	}
	if len(files) != 35 {
		t.Fatalf("read %d model files, want the suite's 35", len(files))
	}
	ast, err := idlToAST(files)
	if err != nil {
		t.Fatal(err)
	}
	return ast
}

// skCases are the suite's 155 cases: the Kotlin test (class.method), the
// waiter, and the responses its operation returns, in order, as JSON
// objects keyed by the model's member names. The Kotlin builders are
// transcribed literally: an enum is its value, a Kotlin number its JSON
// number; a member the builder leaves unset is absent.
var skCases = []struct {
	test, waiter string
	responses    []string
}{
	{"BooleanLogicTest.testAndEquals", "AndEquals", []string{`{"lists":{"booleans":[false,false]}}`, `{"lists":{"booleans":[false,true]}}`, `{"lists":{"booleans":[true,false]}}`, `{"lists":{"booleans":[true,true]}}`}},
	{"BooleanLogicTest.testOrEquals", "OrEquals", []string{`{"lists":{"booleans":[true,true]}}`, `{"lists":{"booleans":[true,false]}}`, `{"lists":{"booleans":[false,true]}}`, `{"lists":{"booleans":[false,false]}}`}},
	{"BooleanLogicTest.testNotEquals", "NotEquals", []string{`{"primitives":{"boolean":true}}`, `{"primitives":{"boolean":false}}`}},
	{"FunctionAbsTest.testAbsFunctionShortEquals", "AbsFunctionShortEquals", []string{`{"primitives":{"short":-1}}`, `{"primitives":{"short":1}}`, `{"primitives":{"short":2}}`}},
	{"FunctionAbsTest.testAbsFunctionIntegerEquals", "AbsFunctionIntegerEquals", []string{`{"primitives":{"integer":-1}}`, `{"primitives":{"integer":1}}`, `{"primitives":{"integer":2}}`}},
	{"FunctionAbsTest.testAbsFunctionLongEquals", "AbsFunctionLongEquals", []string{`{"primitives":{"long":-1}}`, `{"primitives":{"long":1}}`, `{"primitives":{"long":2}}`}},
	{"FunctionAbsTest.testAbsFunctionFloatEquals", "AbsFunctionFloatEquals", []string{`{"primitives":{"float":-1}}`, `{"primitives":{"float":1}}`, `{"primitives":{"float":2}}`}},
	{"FunctionAbsTest.testAbsFunctionDoubleEquals", "AbsFunctionDoubleEquals", []string{`{"primitives":{"double":-1.0}}`, `{"primitives":{"double":1.0}}`, `{"primitives":{"double":2.0}}`}},
	{"FunctionAvgTest.testEmptyIntegerListAvgNotEquals", "EmptyIntegerListAvgNotEquals", []string{`{"lists":{"integers":[]}}`}},
	{"FunctionAvgTest.testShortListAvgNotEquals", "ShortListAvgNotEquals", []string{`{"lists":{"shorts":[12,12,10,8,8]}}`, `{"lists":{"shorts":[10,10]}}`, `{"lists":{"shorts":[0]}}`}},
	{"FunctionAvgTest.testIntegerListAvgNotEquals", "IntegerListAvgNotEquals", []string{`{"lists":{"integers":[12,12,10,8,8]}}`, `{"lists":{"integers":[10,10]}}`, `{"lists":{"integers":[0]}}`}},
	{"FunctionAvgTest.testLongListAvgNotEquals", "LongListAvgNotEquals", []string{`{"lists":{"longs":[12,12,10,8,8]}}`, `{"lists":{"longs":[10,10]}}`, `{"lists":{"longs":[0]}}`}},
	{"FunctionAvgTest.testFloatListAvgNotEquals", "FloatListAvgNotEquals", []string{`{"lists":{"floats":[12,12,10,8,8]}}`, `{"lists":{"floats":[10,10]}}`, `{"lists":{"floats":[0]}}`}},
	{"FunctionAvgTest.testDoubleListAvgNotEquals", "DoubleListAvgNotEquals", []string{`{"lists":{"doubles":[12.0,12.0,10.0,8.0,8.0]}}`, `{"lists":{"doubles":[10.0,10.0]}}`, `{"lists":{"doubles":[0.0]}}`}},
	{"FunctionCeilTest.testCeilFunctionShortEquals", "CeilFunctionShortEquals", []string{`{"primitives":{"short":1}}`, `{"primitives":{"short":2}}`}},
	{"FunctionCeilTest.testCeilFunctionIntegerEquals", "CeilFunctionIntegerEquals", []string{`{"primitives":{"integer":1}}`, `{"primitives":{"integer":2}}`}},
	{"FunctionCeilTest.testCeilFunctionLongEquals", "CeilFunctionLongEquals", []string{`{"primitives":{"long":1}}`, `{"primitives":{"long":2}}`}},
	{"FunctionCeilTest.testCeilFunctionFloatEquals", "CeilFunctionFloatEquals", []string{`{"primitives":{"float":0.0001}}`, `{"primitives":{"float":0.9}}`, `{"primitives":{"float":1.0}}`, `{"primitives":{"float":2.0}}`}},
	{"FunctionCeilTest.testCeilFunctionDoubleEquals", "CeilFunctionDoubleEquals", []string{`{"primitives":{"double":0.0001}}`, `{"primitives":{"double":0.9}}`, `{"primitives":{"double":1.0}}`, `{"primitives":{"double":2.0}}`}},
	{"FunctionContainsTest.testBooleanListContains", "BooleanListContains", []string{`{"primitives":{"boolean":true},"lists":{"booleans":[false,false]}}`, `{"primitives":{"boolean":true},"lists":{"booleans":[false,true]}}`}},
	{"FunctionContainsTest.testBooleanListContainsIdentityProjection", "BooleanListContainsIdentityProjection", []string{`{"primitives":{"boolean":true},"lists":{"booleans":[false,false]}}`, `{"primitives":{"boolean":true},"lists":{"booleans":[false,true]}}`}},
	{"FunctionContainsTest.testStringListContains", "StringListContains", []string{`{"primitives":{"string":"bar"},"lists":{"strings":["foo","baz"]}}`, `{"primitives":{"string":"bar"},"lists":{"strings":["foo","bar"]}}`}},
	{"FunctionContainsTest.testIntegerListContains", "IntegerListContains", []string{`{"primitives":{"integer":10},"lists":{"integers":[8,9]}}`, `{"primitives":{"integer":10},"lists":{"integers":[9,10]}}`}},
	{"FunctionContainsTest.testEnumListContains", "EnumListContains", []string{`{"primitives":{"enum":"two"},"lists":{"enums":["one","one"]}}`, `{"primitives":{"enum":"two"},"lists":{"enums":["one","two"]}}`}},
	{"FunctionContainsTest.testIntEnumListContains", "IntEnumListContains", []string{`{"primitives":{"intEnum":2},"lists":{"intEnums":[1,1]}}`, `{"primitives":{"intEnum":2},"lists":{"intEnums":[1,2]}}`}},
	{"FunctionContainsTest.testBooleanMapContains", "BooleanMapContains", []string{`{"primitives":{"boolean":false},"maps":{"booleans":{"i":true,"j":true}}}`, `{"primitives":{"boolean":false},"maps":{"booleans":{"i":true,"j":false}}}`}},
	{"FunctionContainsTest.testStringMapContains", "StringMapContains", []string{`{"primitives":{"string":"bar"},"maps":{"strings":{"i":"foo","j":"baz"}}}`, `{"primitives":{"string":"bar"},"maps":{"strings":{"i":"foo","j":"bar"}}}`}},
	{"FunctionContainsTest.testIntegerMapContains", "IntegerMapContains", []string{`{"primitives":{"integer":10},"maps":{"integers":{"i":9,"j":11}}}`, `{"primitives":{"integer":10},"maps":{"integers":{"i":9,"j":10}}}`}},
	{"FunctionContainsTest.testEnumMapContains", "EnumMapContains", []string{`{"primitives":{"enum":"two"},"maps":{"enums":{"i":"one","j":"one"}}}`, `{"primitives":{"enum":"two"},"maps":{"enums":{"i":"one","j":"two"}}}`}},
	{"FunctionContainsTest.testIntEnumMapContains", "IntEnumMapContains", []string{`{"primitives":{"intEnum":2},"maps":{"intEnums":{"i":1,"j":1}}}`, `{"primitives":{"intEnum":2},"maps":{"intEnums":{"i":1,"j":2}}}`}},
	{"FunctionEndsWithTest.testStringEndsWithEquals", "StringEndsWithEquals", []string{`{"primitives":{"string":"foo"}}`, `{"primitives":{"string":"foobar"}}`, `{"primitives":{"string":"foobarbaz"}}`}},
	{"FunctionFloorTest.testFloorFunctionShortEquals", "FloorFunctionShortEquals", []string{`{"primitives":{"short":1}}`, `{"primitives":{"short":2}}`}},
	{"FunctionFloorTest.testFloorFunctionIntegerEquals", "FloorFunctionIntegerEquals", []string{`{"primitives":{"integer":1}}`, `{"primitives":{"integer":2}}`}},
	{"FunctionFloorTest.testFloorFunctionLongEquals", "FloorFunctionLongEquals", []string{`{"primitives":{"long":1}}`, `{"primitives":{"long":2}}`}},
	{"FunctionFloorTest.testFloorFunctionFloatEquals", "FloorFunctionFloatEquals", []string{`{"primitives":{"float":1.0001}}`, `{"primitives":{"float":1.9}}`, `{"primitives":{"float":1.0}}`, `{"primitives":{"float":2.0}}`}},
	{"FunctionFloorTest.testFloorFunctionDoubleEquals", "FloorFunctionDoubleEquals", []string{`{"primitives":{"double":1.0001}}`, `{"primitives":{"double":1.9}}`, `{"primitives":{"double":1.0}}`, `{"primitives":{"double":2.0}}`}},
	{"FunctionJoinTest.testStringListJoinEquals", "StringListJoinEquals", []string{`{"lists":{"strings":["f","o","x"]}}`, `{"lists":{"strings":["f","o","o"]}}`}},
	{"FunctionJoinTest.testStringListSeparatorJoinEquals", "StringListSeparatorJoinEquals", []string{`{"lists":{"strings":["bar","baz"]}}`, `{"lists":{"strings":["foo","bar"]}}`}},
	{"FunctionKeysTest.testKeysFunctionPrimitivesStringEquals", "KeysFunctionPrimitivesStringEquals", []string{`{"primitives":{}}`}},
	{"FunctionKeysTest.testKeysFunctionPrimitivesIntegerEquals", "KeysFunctionPrimitivesIntegerEquals", []string{`{"primitives":{}}`}},
	{"FunctionKeysTest.testKeysFunctionMapStringEquals", "KeysFunctionMapStringEquals", []string{`{"maps":{"strings":{"key":"value"}}}`}},
	{"FunctionLengthTest.testBooleanListLength", "BooleanListLength", []string{`{}`, `{"lists":{}}`, `{"lists":{"booleans":[]}}`, `{"lists":{"booleans":[true]}}`}},
	{"FunctionLengthTest.testStringListLength", "StringListLength", []string{`{}`, `{"lists":{}}`, `{"lists":{"strings":[]}}`, `{"lists":{"strings":["foo"]}}`}},
	{"FunctionLengthTest.testIntegerListLength", "IntegerListLength", []string{`{}`, `{"lists":{}}`, `{"lists":{"integers":[]}}`, `{"lists":{"integers":[0]}}`}},
	{"FunctionLengthTest.testEnumListLength", "EnumListLength", []string{`{}`, `{"lists":{}}`, `{"lists":{"enums":[]}}`, `{"lists":{"enums":["one"]}}`}},
	{"FunctionLengthTest.testIntEnumListLength", "IntEnumListLength", []string{`{}`, `{"lists":{}}`, `{"lists":{"intEnums":[]}}`, `{"lists":{"intEnums":[1]}}`}},
	{"FunctionLengthTest.testBooleanMapLength", "BooleanMapLength", []string{`{}`, `{"maps":{}}`, `{"maps":{"booleans":{}}}`, `{"maps":{"booleans":{"":true}}}`}},
	{"FunctionLengthTest.testStringMapLength", "StringMapLength", []string{`{}`, `{"maps":{}}`, `{"maps":{"strings":{}}}`, `{"maps":{"strings":{"":"foo"}}}`}},
	{"FunctionLengthTest.testIntegerMapLength", "IntegerMapLength", []string{`{}`, `{"maps":{}}`, `{"maps":{"integers":{}}}`, `{"maps":{"integers":{"":0}}}`}},
	{"FunctionLengthTest.testEnumMapLength", "EnumMapLength", []string{`{}`, `{"maps":{}}`, `{"maps":{"enums":{}}}`, `{"maps":{"enums":{"":"one"}}}`}},
	{"FunctionLengthTest.testIntEnumMapLength", "IntEnumMapLength", []string{`{}`, `{"maps":{}}`, `{"maps":{"intEnums":{}}}`, `{"maps":{"intEnums":{"":1}}}`}},
	{"FunctionLengthTest.testHasStructWithBoolean", "HasStructWithBoolean", []string{`{}`, `{"lists":{}}`, `{"lists":{"structs":[]}}`, `{"lists":{"structs":[{}]}}`, `{"lists":{"structs":[{"primitives":{"boolean":false}}]}}`, `{"lists":{"structs":[{"primitives":{"boolean":false}},{"primitives":{"boolean":true}}]}}`}},
	{"FunctionLengthTest.testHasStructWithString", "HasStructWithString", []string{`{}`, `{"lists":{}}`, `{"lists":{"structs":[]}}`, `{"lists":{"structs":[{}]}}`, `{"lists":{"structs":[{"primitives":{"string":"bar"}}]}}`, `{"lists":{"structs":[{"primitives":{"string":"bar"}},{"primitives":{"string":"foo"}}]}}`}},
	{"FunctionLengthTest.testHasStructWithInteger", "HasStructWithInteger", []string{`{}`, `{"lists":{}}`, `{"lists":{"structs":[]}}`, `{"lists":{"structs":[{}]}}`, `{"lists":{"structs":[{"primitives":{"integer":0}}]}}`, `{"lists":{"structs":[{"primitives":{"integer":0}},{"primitives":{"integer":1}}]}}`}},
	{"FunctionLengthTest.testHasStructWithEnum", "HasStructWithEnum", []string{`{}`, `{"lists":{}}`, `{"lists":{"structs":[]}}`, `{"lists":{"structs":[{}]}}`, `{"lists":{"structs":[{"primitives":{"enum":"two"}}]}}`, `{"lists":{"structs":[{"primitives":{"enum":"two"}},{"primitives":{"enum":"one"}}]}}`}},
	{"FunctionLengthTest.testHasStructWithIntEnum", "HasStructWithIntEnum", []string{`{}`, `{"lists":{}}`, `{"lists":{"structs":[]}}`, `{"lists":{"structs":[{}]}}`, `{"lists":{"structs":[{"primitives":{"intEnum":2}}]}}`, `{"lists":{"structs":[{"primitives":{"intEnum":2}},{"primitives":{"intEnum":1}}]}}`}},
	{"FunctionLengthTest.testHasStructWithStringInStringList", "HasStructWithStringInStringList", []string{`{}`, `{"lists":{}}`, `{"lists":{"structs":[]}}`, `{"lists":{"structs":[{}]}}`, `{"lists":{"structs":[{"strings":[]}]}}`, `{"lists":{"structs":[{"primitives":{"string":"qux"},"strings":[]}]}}`, `{"lists":{"structs":[{"primitives":{"string":"qux"},"strings":["baz"]}]}}`, `{"lists":{"structs":[{"primitives":{"string":"qux"},"strings":["baz","qux"]}]}}`}},
	{"FunctionLengthTest.testHasStructWithEnumInEnumList", "HasStructWithEnumInEnumList", []string{`{}`, `{"lists":{}}`, `{"lists":{"structs":[]}}`, `{"lists":{"structs":[{}]}}`, `{"lists":{"structs":[{"enums":[]}]}}`, `{"lists":{"structs":[{"primitives":{"enum":"one"},"enums":[]}]}}`, `{"lists":{"structs":[{"primitives":{"enum":"one"},"enums":["two"]}]}}`, `{"lists":{"structs":[{"primitives":{"enum":"one"},"enums":["two","one"]}]}}`}},
	{"FunctionLengthTest.testHasStructWithStringInEnumList", "HasStructWithStringInEnumList", []string{`{}`, `{"lists":{}}`, `{"lists":{"structs":[]}}`, `{"lists":{"structs":[{}]}}`, `{"lists":{"structs":[{"enums":[]}]}}`, `{"lists":{"structs":[{"primitives":{"string":"one"},"enums":[]}]}}`, `{"lists":{"structs":[{"primitives":{"string":"one"},"enums":["two"]}]}}`, `{"lists":{"structs":[{"primitives":{"string":"one"},"enums":["two","one"]}]}}`}},
	{"FunctionLengthTest.testHasStructWithEnumInStringList", "HasStructWithEnumInStringList", []string{`{}`, `{"lists":{}}`, `{"lists":{"structs":[]}}`, `{"lists":{"structs":[{}]}}`, `{"lists":{"structs":[{"enums":[]}]}}`, `{"lists":{"structs":[{"primitives":{"string":"one"},"enums":[]}]}}`, `{"lists":{"structs":[{"primitives":{"enum":"one"},"strings":["two"]}]}}`, `{"lists":{"structs":[{"primitives":{"enum":"one"},"strings":["two","one"]}]}}`}},
	{"FunctionMapTest.testMapStructEquals", "MapStructEquals", []string{`{"lists":{"structs":[{"string":"foo"},{"string":"foo"}]}}`}},
	{"FunctionMaxByTest.testMaxByNumberEquals", "MaxByNumberEquals", []string{`{"lists":{"structs":[{"integer":0},{"integer":100}]}}`}},
	{"FunctionMaxByTest.testMaxByStringEquals", "MaxByStringEquals", []string{`{"lists":{"structs":[{"string":"foo"},{"string":"bar"}]}}`}},
	{"FunctionMaxTest.testMaxFunctionShortListEquals", "MaxFunctionShortListEquals", []string{`{"lists":{"shorts":[10,20]}}`, `{"lists":{"shorts":[0,10]}}`}},
	{"FunctionMaxTest.testMaxFunctionIntegerListEquals", "MaxFunctionIntegerListEquals", []string{`{"lists":{"integers":[10,20]}}`, `{"lists":{"integers":[0,10]}}`}},
	{"FunctionMaxTest.testMaxFunctionLongListEquals", "MaxFunctionLongListEquals", []string{`{"lists":{"longs":[10,20]}}`, `{"lists":{"longs":[0,10]}}`}},
	{"FunctionMaxTest.testMaxFunctionFloatListEquals", "MaxFunctionFloatListEquals", []string{`{"lists":{"floats":[10,20]}}`, `{"lists":{"floats":[0,10]}}`}},
	{"FunctionMaxTest.testMaxFunctionDoubleListEquals", "MaxFunctionDoubleListEquals", []string{`{"lists":{"doubles":[10.0,20.0]}}`, `{"lists":{"doubles":[0.0,10.0]}}`}},
	{"FunctionMaxTest.testMaxFunctionStringListEquals", "MaxFunctionStringListEquals", []string{`{"lists":{"strings":["foo","fooooo"]}}`, `{"lists":{"strings":["bar","foo"]}}`}},
	{"FunctionMergeTest.testMergeFunctionOverrideObjectsOneEquals", "MergeFunctionOverrideObjectsOneEquals", []string{`{"objectOne":{"valueOne":"foo","valueTwo":"bar","valueThree":"baz"},"objectTwo":{"valueOne":"qux","valueTwo":"qux","valueThree":"qux"}}`, `{"objectOne":{"valueOne":"qux","valueTwo":"qux","valueThree":"qux"},"objectTwo":{"valueOne":"foo","valueTwo":"bar","valueThree":"baz"}}`}},
	{"FunctionMergeTest.testMergeFunctionOverrideObjectsTwoEquals", "MergeFunctionOverrideObjectsTwoEquals", []string{`{"objectOne":{"valueOne":"foo","valueTwo":"bar","valueThree":"baz"},"objectTwo":{"valueOne":"qux","valueTwo":"qux","valueThree":"qux"}}`, `{"objectOne":{"valueOne":"qux","valueTwo":"qux","valueThree":"qux"},"objectTwo":{"valueOne":"foo","valueTwo":"bar","valueThree":"baz"}}`}},
	{"FunctionMergeTest.testMergeFunctionOverrideObjectsThreeEquals", "MergeFunctionOverrideObjectsThreeEquals", []string{`{"objectOne":{"valueOne":"foo","valueTwo":"bar","valueThree":"baz"},"objectTwo":{"valueOne":"qux","valueTwo":"qux","valueThree":"qux"}}`, `{"objectOne":{"valueOne":"qux","valueTwo":"qux","valueThree":"qux"},"objectTwo":{"valueOne":"foo","valueTwo":"bar","valueThree":"baz"}}`}},
	{"FunctionMinByTest.testMinByNumberEquals", "MinByNumberEquals", []string{`{"lists":{"structs":[{"integer":100},{"integer":200}]}}`}},
	{"FunctionMinByTest.testMinByStringEquals", "MinByStringEquals", []string{`{"lists":{"structs":[{"string":"foo"},{"string":"qux"}]}}`}},
	{"FunctionMinTest.testMinFunctionShortListEquals", "MinFunctionShortListEquals", []string{`{"lists":{"shorts":[0,10]}}`, `{"lists":{"shorts":[10,20]}}`}},
	{"FunctionMinTest.testMinFunctionIntegerListEquals", "MinFunctionIntegerListEquals", []string{`{"lists":{"integers":[0,10]}}`, `{"lists":{"integers":[10,20]}}`}},
	{"FunctionMinTest.testMinFunctionLongListEquals", "MinFunctionLongListEquals", []string{`{"lists":{"longs":[0,10]}}`, `{"lists":{"longs":[10,20]}}`}},
	{"FunctionMinTest.testMinFunctionFloatListEquals", "MinFunctionFloatListEquals", []string{`{"lists":{"floats":[0,10]}}`, `{"lists":{"floats":[10,20]}}`}},
	{"FunctionMinTest.testMinFunctionDoubleListEquals", "MinFunctionDoubleListEquals", []string{`{"lists":{"doubles":[0.0,10.0]}}`, `{"lists":{"doubles":[10.0,20.0]}}`}},
	{"FunctionMinTest.testMinFunctionStringListEquals", "MinFunctionStringListEquals", []string{`{"lists":{"strings":["bar","foo"]}}`, `{"lists":{"strings":["foo","fooooo"]}}`}},
	{"FunctionNotNullTest.testNotNullFunctionStringEquals", "NotNullFunctionStringEquals", []string{`{"primitives":{"string":"foo","integer":10},"lists":{"strings":["baz"]}}`, `{"primitives":{"string":"foo","integer":10},"lists":{}}`}},
	{"FunctionReverseTest.testReverseFunctionStringListEquals", "ReverseFunctionStringListEquals", []string{`{"lists":{"strings":["foo","bar"]}}`, `{"lists":{"strings":["bar","foo"]}}`}},
	{"FunctionReverseTest.testReverseFunctionStringEquals", "ReverseFunctionStringEquals", []string{`{"primitives":{"string":"foo"}}`, `{"primitives":{"string":"oof"}}`}},
	{"FunctionSortByTest.testSortedByNumberEquals", "SortByNumberEquals", []string{`{"lists":{"structs":[{"integer":3},{"integer":2},{"integer":1}]}}`}},
	{"FunctionSortByTest.testSortByStringEquals", "SortByStringEquals", []string{`{"lists":{"structs":[{"string":"foo"},{"string":"bar"},{"string":"baz"}]}}`}},
	{"FunctionSortTest.testSortNumberEquals", "SortNumberEquals", []string{`{"lists":{"integers":[4,1,3,2,0]}}`}},
	{"FunctionSortTest.testSortStringEquals", "SortStringEquals", []string{`{"lists":{"strings":["foo","bar","baz"]}}`}},
	{"FunctionStartsWithTest.testStringStartsWithEquals", "StringStartsWithEquals", []string{`{"primitives":{"string":"baz"}}`, `{"primitives":{"string":"barbaz"}}`, `{"primitives":{"string":"foobarbaz"}}`}},
	{"FunctionSumTest.testShortListSumNotEquals", "ShortListSumNotEquals", []string{`{"lists":{"shorts":[1,2,3,4]}}`, `{"lists":{"shorts":[10]}}`, `{"lists":{"shorts":[0]}}`}},
	{"FunctionSumTest.testIntegerListSumNotEquals", "IntegerListSumNotEquals", []string{`{"lists":{"integers":[1,2,3,4]}}`, `{"lists":{"integers":[10]}}`, `{"lists":{"integers":[0]}}`}},
	{"FunctionSumTest.testLongListSumNotEquals", "LongListSumNotEquals", []string{`{"lists":{"longs":[1,2,3,4]}}`, `{"lists":{"longs":[10]}}`, `{"lists":{"longs":[0]}}`}},
	{"FunctionSumTest.testFloatListSumNotEquals", "FloatListSumNotEquals", []string{`{"lists":{"floats":[1,2,3,4]}}`, `{"lists":{"floats":[10]}}`, `{"lists":{"floats":[0]}}`}},
	{"FunctionSumTest.testDoubleListSumNotEquals", "DoubleListSumNotEquals", []string{`{"lists":{"doubles":[1.0,2.0,3.0,4.0]}}`, `{"lists":{"doubles":[10.0]}}`, `{"lists":{"doubles":[0.0]}}`}},
	{"FunctionToArrayTest.testToArrayFunctionStringListEquals", "ToArrayFunctionStringListEquals", []string{`{"lists":{"strings":["foo","baz"]}}`, `{"lists":{"strings":["foo","foo"]}}`}},
	{"FunctionToArrayTest.testToArrayFunctionBooleanEquals", "ToArrayFunctionBooleanEquals", []string{`{"primitives":{"boolean":false}}`, `{"primitives":{"boolean":true}}`}},
	{"FunctionToNumberTest.testToNumberFunctionStringEquals", "ToNumberFunctionStringEquals", []string{`{"primitives":{"string":"20"}}`, `{"primitives":{"string":"10"}}`}},
	{"FunctionToNumberTest.testToNumberFunctionIntegerEquals", "ToNumberFunctionIntegerEquals", []string{`{"primitives":{"integer":20}}`, `{"primitives":{"integer":10}}`}},
	{"FunctionToStringTest.testToStringFunctionStringEquals", "ToStringFunctionStringEquals", []string{`{"primitives":{"string":"baz"}}`, `{"primitives":{"string":"foo"}}`}},
	{"FunctionToStringTest.testToStringFunctionBooleanEquals", "ToStringFunctionBooleanEquals", []string{`{"primitives":{"boolean":false}}`, `{"primitives":{"boolean":true}}`}},
	{"FunctionTypeTest.testTypeFunctionStringEquals", "TypeFunctionStringEquals", []string{`{"primitives":{"string":"foo"}}`}},
	{"FunctionTypeTest.testTypeFunctionBooleanEquals", "TypeFunctionBooleanEquals", []string{`{"primitives":{"boolean":true}}`}},
	{"FunctionTypeTest.testTypeFunctionArrayEquals", "TypeFunctionArrayEquals", []string{`{"lists":{"booleans":[true]}}`}},
	{"FunctionTypeTest.testTypeFunctionShortEquals", "TypeFunctionShortEquals", []string{`{"primitives":{"short":1}}`}},
	{"FunctionTypeTest.testTypeFunctionIntegerEquals", "TypeFunctionIntegerEquals", []string{`{"primitives":{"integer":1}}`}},
	{"FunctionTypeTest.testTypeFunctionLongEquals", "TypeFunctionLongEquals", []string{`{"primitives":{"long":1}}`}},
	{"FunctionTypeTest.testTypeFunctionFloatEquals", "TypeFunctionFloatEquals", []string{`{"primitives":{"float":1}}`}},
	{"FunctionTypeTest.testTypeFunctionDoubleEquals", "TypeFunctionDoubleEquals", []string{`{"primitives":{"double":1.0}}`}},
	{"FunctionTypeTest.testTypeFunctionObjectEquals", "TypeFunctionObjectEquals", []string{`{"primitives":{}}`}},
	{"FunctionTypeTest.testTypeFunctionMergedObjectEquals", "TypeFunctionMergedObjectEquals", []string{`{"primitives":{}}`}},
	{"FunctionTypeTest.testTypeFunctionNullEquals", "TypeFunctionNullEquals", []string{`{"primitives":{"boolean":null}}`}},
	{"FunctionValuesTest.testValuesFunctionSampleValuesEquals", "ValuesFunctionSampleValuesEquals", []string{`{"sampleValues":{"valueOne":"baz","valueTwo":"baz","valueThree":"baz"}}`, `{"sampleValues":{"valueOne":"foo","valueTwo":"foo","valueThree":"foo"}}`}},
	{"FunctionValuesTest.testValuesFunctionAnySampleValuesEquals", "ValuesFunctionAnySampleValuesEquals", []string{`{"sampleValues":{"valueOne":"bar","valueTwo":"baz","valueThree":"qux"}}`, `{"sampleValues":{"valueOne":"foo","valueTwo":"bar","valueThree":"baz"}}`}},
	{"ListOperationsTest.testBooleanListIndexZeroEquals", "BooleanListIndexZeroEquals", []string{`{"lists":{"booleans":[false]}}`, `{"lists":{"booleans":[true]}}`}},
	{"ListOperationsTest.testBooleanListIndexOneEquals", "BooleanListIndexOneEquals", []string{`{"lists":{"booleans":[false,false]}}`, `{"lists":{"booleans":[true,false]}}`, `{"lists":{"booleans":[false,true]}}`}},
	{"ListOperationsTest.testBooleanListIndexNegativeTwoEquals", "BooleanListIndexNegativeTwoEquals", []string{`{"lists":{"booleans":[false,false]}}`, `{"lists":{"booleans":[false,true]}}`, `{"lists":{"booleans":[true,false]}}`}},
	{"ListOperationsTest.testTwoDimensionalBooleanListIndexZeroZeroEquals", "TwoDimensionalBooleanListIndexZeroZeroEquals", []string{`{"twoDimensionalLists":{"booleansList":[[false]]}}`, `{"twoDimensionalLists":{"booleansList":[[true]]}}`}},
	{"ListOperationsTest.testStructListIndexOneStringsIndexZeroEquals", "StructListIndexOneStringsIndexZeroEquals", []string{`{"lists":{"structs":[{"strings":["bar"]},{"strings":["bar"]}]}}`, `{"lists":{"structs":[{"strings":["bar"]},{"strings":["foo"]}]}}`}},
	{"ListOperationsTest.testStructListIndexOneSubStructsIndexZeroSubStructPrimitivesBooleanEquals", "StructListIndexOneSubStructsIndexZeroSubStructPrimitivesBooleanEquals", []string{`{"lists":{"structs":[{},{"subStructs":[{"subStructPrimitives":{"boolean":false}}]}]}}`, `{"lists":{"structs":[{},{"subStructs":[{"subStructPrimitives":{"boolean":true}}]}]}}`}},
	{"ListOperationsTest.testStringListStepSlicingEquals", "StringListStepSlicingEquals", []string{`{"lists":{"strings":["bar","foo","bar","foo"]}}`, `{"lists":{"strings":["foo","bar","foo","bar"]}}`}},
	{"ListOperationsTest.testStringListStopSlicingEquals", "StringListStopSlicingEquals", []string{`{"lists":{"strings":["bar","bar","foo","foo"]}}`, `{"lists":{"strings":["foo","foo","bar","bar"]}}`}},
	{"ListOperationsTest.testStringListStartSlicingEquals", "StringListStartSlicingEquals", []string{`{"lists":{"strings":["foo","foo","bar","bar"]}}`, `{"lists":{"strings":["bar","bar","foo","foo"]}}`}},
	{"ListOperationsTest.testStringListStopStepSlicingEquals", "StringListStopStepSlicingEquals", []string{`{"lists":{"strings":["bar","foo","bar","foo","foo","foo","foo","foo"]}}`, `{"lists":{"strings":["foo","bar","foo","bar","bar","bar","bar","bar"]}}`}},
	{"ListOperationsTest.testStringListStartStepSlicingEquals", "StringListStartStepSlicingEquals", []string{`{"lists":{"strings":["foo","foo","bar","foo","foo","bar"]}}`, `{"lists":{"strings":["bar","bar","foo","bar","bar","foo"]}}`}},
	{"ListOperationsTest.testStringListStartStopSlicingEquals", "StringListStartStopSlicingEquals", []string{`{"lists":{"strings":["foo","foo","foo","bar","foo","foo"]}}`, `{"lists":{"strings":["bar","bar","bar","foo","bar","bar"]}}`}},
	{"ListOperationsTest.testStringListStartStopStepSlicingEquals", "StringListStartStopStepSlicingEquals", []string{`{"lists":{"strings":["foo","foo","bar","foo","bar","foo"]}}`, `{"lists":{"strings":["bar","bar","foo","bar","foo","bar"]}}`}},
	{"ListOperationsTest.testStringListNegativeStartStopSlicingEquals", "StringListNegativeStartStopSlicingEquals", []string{`{"lists":{"strings":["foo","foo","bar","foo"]}}`, `{"lists":{"strings":["bar","bar","foo","bar"]}}`}},
	{"ListOperationsTest.testStringListStartNegativeStopSlicingEquals", "StringListStartNegativeStopSlicingEquals", []string{`{"lists":{"strings":["foo","bar","foo","foo"]}}`, `{"lists":{"strings":["bar","foo","bar","bar"]}}`}},
	{"ListOperationsTest.testStringListStopNegativeStartSlicingEquals", "StringListStopNegativeStartSlicingEquals", []string{`{"lists":{"strings":["foo","bar","bar","foo"]}}`, `{"lists":{"strings":["bar","foo","foo","bar"]}}`}},
	{"MultiSelectHashTest.testStructListStringMultiSelectHash", "StructListStringMultiSelectHash", []string{`{"lists":{"structs":[{"primitives":{"string":"bar"}},{"primitives":{"string":"foo"}}]}}`, `{"lists":{"structs":[{"primitives":{"string":"foo"}},{"primitives":{"string":"bar"}}]}}`}},
	{"MultiSelectHashTest.testStructListStringsMultiSelectHash", "StructListStringsMultiSelectHash", []string{`{"lists":{"structs":[{"primitives":{"string":"bar"},"strings":["bar"]},{"primitives":{"string":"bar"},"strings":["bar"]}]}}`, `{"lists":{"structs":[{"primitives":{"string":"bar"},"strings":["bar"]},{"primitives":{"string":"bar"},"strings":["foo"]}]}}`}},
	{"MultiSelectHashTest.testStructListStringsAnyMultiSelectHash", "StructListStringsAnyMultiSelectHash", []string{`{"lists":{"structs":[{"primitives":{"string":"bar"},"strings":["bar"]},{"primitives":{"string":"bar"},"strings":["bar"]}]}}`, `{"lists":{"structs":[{"primitives":{"string":"bar"},"strings":["bar"]},{"primitives":{"string":"bar"},"strings":["bar","bar","foo"]}]}}`}},
	{"MultiSelectHashTest.testStructListSubStructPrimitivesBooleanMultiSelectHash", "StructListSubStructPrimitivesBooleanMultiSelectHash", []string{`{"lists":{"structs":[{"subStructs":[{"subStructPrimitives":{"boolean":false}}]},{"subStructs":[{"subStructPrimitives":{"boolean":true}}]}]}}`, `{"lists":{"structs":[{"subStructs":[{"subStructPrimitives":{"boolean":true}}]},{"subStructs":[{"subStructPrimitives":{"boolean":false}}]}]}}`}},
	{"MultiSelectListTest.testStructListStringMultiSelectList", "StructListStringMultiSelectList", []string{`{"lists":{"structs":[{"primitives":{"string":"bar"}},{"primitives":{"string":"foo"}}]}}`, `{"lists":{"structs":[{"primitives":{"string":"foo"}},{"primitives":{"string":"bar"}}]}}`}},
	{"MultiSelectListTest.testStructListStringListMultiSelectList", "StructListStringListMultiSelectList", []string{`{"lists":{"structs":[{"primitives":{"string":"foo"}},{"primitives":{"string":"bar"}}]}}`, `{"lists":{"structs":[{"primitives":{"string":"bar"}},{"primitives":{"string":"foo"}}]}}`}},
	{"MultiSelectListTest.testStructListSubStructPrimitivesBooleanMultiSelectList", "StructListSubStructPrimitivesBooleanMultiSelectList", []string{`{"lists":{"structs":[{"subStructs":[{"subStructPrimitives":{"boolean":true}}]},{"subStructs":[{"subStructPrimitives":{"boolean":false}}]}]}}`, `{"lists":{"structs":[{"subStructs":[{"subStructPrimitives":{"boolean":false}}]},{"subStructs":[{"subStructPrimitives":{"boolean":true}}]}]}}`}},
	{"PrimitiveEqualityTest.testBooleanEquals", "BooleanEquals", []string{`{"primitives":{"boolean":false}}`, `{"primitives":{"boolean":true}}`}},
	{"PrimitiveEqualityTest.testBooleanEqualsByCompare", "BooleanEqualsByCompare", []string{`{"primitives":{"boolean":false}}`, `{"primitives":{"boolean":true}}`}},
	{"PrimitiveEqualityTest.testStringEquals", "StringEquals", []string{`{"primitives":{"string":"bar"}}`, `{"primitives":{"string":"foo"}}`}},
	{"PrimitiveEqualityTest.testStringEqualsByCompare", "StringEqualsByCompare", []string{`{"primitives":{"string":"bar"}}`, `{"primitives":{"string":"foo"}}`}},
	{"PrimitiveEqualityTest.testByteEquals", "ByteEquals", []string{`{"primitives":{"byte":0}}`, `{"primitives":{"byte":1}}`}},
	{"PrimitiveEqualityTest.testShortEquals", "ShortEquals", []string{`{"primitives":{"short":1}}`, `{"primitives":{"short":2}}`}},
	{"PrimitiveEqualityTest.testIntegerEquals", "IntegerEquals", []string{`{"primitives":{"integer":2}}`, `{"primitives":{"integer":3}}`}},
	{"PrimitiveEqualityTest.testLongEquals", "LongEquals", []string{`{"primitives":{"long":3}}`, `{"primitives":{"long":4}}`}},
	{"PrimitiveEqualityTest.testFloatEquals", "FloatEquals", []string{`{"primitives":{"float":4}}`, `{"primitives":{"float":5}}`}},
	{"PrimitiveEqualityTest.testDoubleEquals", "DoubleEquals", []string{`{"primitives":{"double":5.0}}`, `{"primitives":{"double":6.0}}`}},
	{"PrimitiveEqualityTest.testEnumEquals", "EnumEquals", []string{`{"primitives":{"enum":"two"}}`, `{"primitives":{"enum":"one"}}`}},
	{"PrimitiveEqualityTest.testEnumEqualsByCompare", "EnumEqualsByCompare", []string{`{"primitives":{"enum":"two"}}`, `{"primitives":{"enum":"one"}}`}},
	{"PrimitiveEqualityTest.testIntEnumEquals", "IntEnumEquals", []string{`{"primitives":{"intEnum":2}}`, `{"primitives":{"intEnum":1}}`}},
	{"StringEqualsTest.testStringListAnyListStringEquals", "StringListAnyStringEquals", []string{`{"lists":{"strings":["bar","baz"]}}`, `{"lists":{"strings":["foo","bar"]}}`}},
	{"StringEqualsTest.testEnumListAnyStringEquals", "EnumListAnyStringEquals", []string{`{"lists":{"enums":["two","two"]}}`, `{"lists":{"enums":["two","one"]}}`}},
	{"StringEqualsTest.testStringListAllStringEquals", "StringListAllStringEquals", []string{`{"lists":{"strings":["foo","bar"]}}`, `{"lists":{"strings":["foo","foo"]}}`}},
	{"StringEqualsTest.testEnumListAllStringEquals", "EnumListAllStringEquals", []string{`{"lists":{"enums":["one","two"]}}`, `{"lists":{"enums":["one","one"]}}`}},
	{"SubFieldProjectionTest.testHasStructWithStringByProjection", "HasStructWithStringByProjection", []string{`{}`, `{"lists":{}}`, `{"lists":{"structs":[]}}`, `{"lists":{"structs":[{}]}}`, `{"lists":{"structs":[{"primitives":{"string":"bar"}}]}}`, `{"lists":{"structs":[{"primitives":{"string":"bar"}},{"primitives":{"string":"foo"}}]}}`}},
	{"SubFieldProjectionTest.testHasStructWithSubstructWithStringByProjection", "HasStructWithSubstructWithStringByProjection", []string{`{}`, `{"lists":{}}`, `{"lists":{"structs":[]}}`, `{"lists":{"structs":[{"subStructs":[{}]}]}}`, `{"lists":{"structs":[{"subStructs":[{"subStructPrimitives":{"string":"bar"}}]},{"subStructs":[{}]}]}}`, `{"lists":{"structs":[{"subStructs":[{"subStructPrimitives":{"string":"bar"}},{"subStructPrimitives":{"string":"baz"}}]},{"subStructs":[{"subStructPrimitives":{"string":"foo"}}]}]}}`}},
	{"SubFieldProjectionTest.testHasFilteredSubStruct", "HasFilteredSubStruct", []string{`{}`, `{"lists":{}}`, `{"lists":{"structs":[]}}`, `{"lists":{"structs":[{"subStructs":[{}]}]}}`, `{"lists":{"structs":[{"subStructs":[{"subStructPrimitives":{"string":"foo"}}]}]}}`, `{"lists":{"structs":[{"subStructs":[{"subStructPrimitives":{"string":"foo","integer":-1}}]},{"subStructs":[{"subStructPrimitives":{"string":"bar","integer":2}}]}]}}`, `{"lists":{"structs":[{"subStructs":[{"subStructPrimitives":{"string":"foo","integer":-1}},{"subStructPrimitives":{"string":"bar","integer":2}}]},{"subStructs":[{"subStructPrimitives":{"string":"foo","integer":2}}]}]}}`}},
}

// TestSmithyKotlinWaiterSuite runs each case as smithy-kotlin's successTest
// does: the waiter, loaded from the suite's model with LoadSmithy, polls an
// operation that returns the case's responses one by one, and must succeed
// on the last, after exactly as many calls as there are responses. Time is
// virtual (clocktest.Run): the delays between polls take none.
func TestSmithyKotlinWaiterSuite(t *testing.T) {
	cat, err := model.LoadSmithy(bytes.NewReader(skModel(t)))
	if err != nil {
		t.Fatal(err)
	}
	if got := len(cat.Names()); got != 155 || len(skCases) != 155 {
		t.Fatalf("the model has %d waiters and the suite %d cases; want 155 of each", got, len(skCases))
	}
	seen := map[string]bool{}
	for _, tc := range skCases {
		t.Run(tc.test, func(t *testing.T) {
			if seen[tc.waiter] {
				t.Fatalf("waiter %s is tested twice", tc.waiter)
			}
			seen[tc.waiter] = true
			def, err := cat.Get(tc.waiter)
			if err != nil {
				t.Fatal(err)
			}
			var outs []*skGetEntityResponse
			for i, r := range tc.responses {
				d := json.NewDecoder(strings.NewReader(r))
				d.DisallowUnknownFields()
				out := new(skGetEntityResponse)
				if err := d.Decode(out); err != nil {
					t.Fatalf("response %d %s: %v", i, r, err)
				}
				outs = append(outs, out)
			}
			clocktest.Run(t, func(t *testing.T) {
				calls := 0
				op := func(_ context.Context, in *skGetEntityRequest) (*skGetEntityResponse, error) {
					if in == nil || in.Name == nil || *in.Name != "test" {
						return nil, fmt.Errorf("input %+v, want name test", in)
					}
					if calls == len(outs) {
						calls++
						return nil, fmt.Errorf("call %d: the case has only %d responses", calls, len(outs))
					}
					calls++
					return outs[calls-1], nil
				}
				w, err := waiter.New(def, op, waiter.WithClock(clocktest.Clock()), waiter.WithTelemetry(telemetry.Settings{Off: true}))
				if err != nil {
					t.Fatal(err)
				}
				name := "test"
				out, err := w.Wait(context.Background(), &skGetEntityRequest{Name: &name}, time.Hour)
				if err != nil || calls != len(outs) || out != outs[len(outs)-1] {
					t.Fatalf("Wait = %+v, %v after %d calls; want success on response %d", out, err, calls, len(outs))
				}
			})
		})
	}
}
