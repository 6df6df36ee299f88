package main

import (
	"strings"
	"testing"
)

// TestIndexJSON: every value's offset, paths as the waiter package writes
// them, and the offset in the file of a byte of a string's decoded value.
func TestIndexJSON(t *testing.T) {
	doc := "{\"shapes\": {\"ex#A\": {\"traits\": {\"smithy.waiters#waitable\": {\"A\": {\"acceptors\": [\n" +
		"  {\"state\": \"success\", \"matcher\": {\"output\": {\"path\": \"a.\\\"b\\u00e9\\\".\\ud83d\\ude00c\"}}}]}}}}}}"
	root, err := indexJSON([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	n, ok := root.path(`shapes["ex#A"].traits["smithy.waiters#waitable"].A.acceptors[0].matcher.output.path`)
	if !ok || doc[n.off] != '"' || doc[n.end-1] != '"' {
		t.Fatalf("path = %+v, %t", n, ok)
	}
	ls := newLines([]byte(doc))
	// The decoded path is a."bé".😀c: offset 8 is 😀 (é is two bytes),
	// offset 12 is c.
	for _, tt := range []struct {
		decoded int
		want    string
	}{{0, `a.`}, {2, `\"b`}, {4, `\u00e9`}, {8, `\ud83d`}, {12, `c"`}, {13, `"}}}]`}, {99, `"a.`}} {
		off := n.stringOffset([]byte(doc), tt.decoded)
		if !strings.HasPrefix(doc[off:], tt.want) {
			t.Errorf("decoded offset %d is at %q, want %q", tt.decoded, doc[off:min(off+8, len(doc))], tt.want)
		}
	}
	if line, col := ls.position(n.off); line != 2 || col != 55 {
		t.Errorf("the path is at %d:%d, want 2:55", line, col)
	}
	if got, ok := root.path(`shapes["ex#A"].traits["smithy.waiters#waitable"].B.acceptors[0]`); ok || got == nil || doc[got.off] != '{' {
		t.Errorf("a missing waiter: %+v, %t; want the deepest value found", got, ok)
	}
	for _, bad := range []string{`{"a": 1`, `{"a": 1} 2`, strings.Repeat("[", maxJSONDepth+2) + strings.Repeat("]", maxJSONDepth+2)} {
		if _, err := indexJSON([]byte(bad)); err == nil {
			t.Errorf("indexJSON(%.20s…): no error", bad)
		}
	}
}
