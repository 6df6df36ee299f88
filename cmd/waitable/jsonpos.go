package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"
)

// jsonNode is a value of a JSON document and where it is, so that a
// problem found in a decoded model can be shown at its line and column.
type jsonNode struct {
	off, end int // the value's bytes: data[off:end]
	keyOff   int // the offset of its key, for an object's member
	members  map[string]*jsonNode
	keys     []string // members' keys in document order
	elems    []*jsonNode
}

// maxJSONDepth bounds the nesting the index follows (encoding/json's own
// limit): deeper documents are refused, not followed down the stack.
const maxJSONDepth = 10000

// indexJSON reads the document's structure with the offsets of every
// value.
func indexJSON(data []byte) (*jsonNode, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	n, err := readNode(dec, data, 0)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err == nil {
		return nil, errors.New("data after the JSON value")
	}
	return n, nil
}

func readNode(dec *json.Decoder, data []byte, depth int) (*jsonNode, error) {
	if depth > maxJSONDepth {
		return nil, fmt.Errorf("nested deeper than %d levels", maxJSONDepth)
	}
	n := &jsonNode{off: tokenStart(data, int(dec.InputOffset())), keyOff: -1}
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch tok {
	case json.Delim('{'):
		n.members = map[string]*jsonNode{}
		for dec.More() {
			keyOff := tokenStart(data, int(dec.InputOffset()))
			k, err := dec.Token()
			if err != nil {
				return nil, err
			}
			key, _ := k.(string)
			v, err := readNode(dec, data, depth+1)
			if err != nil {
				return nil, err
			}
			v.keyOff = keyOff
			if _, dup := n.members[key]; !dup {
				n.keys = append(n.keys, key)
			}
			n.members[key] = v
		}
		if _, err := dec.Token(); err != nil {
			return nil, err
		}
	case json.Delim('['):
		for dec.More() {
			v, err := readNode(dec, data, depth+1)
			if err != nil {
				return nil, err
			}
			n.elems = append(n.elems, v)
		}
		if _, err := dec.Token(); err != nil {
			return nil, err
		}
	}
	n.end = int(dec.InputOffset())
	return n, nil
}

// tokenStart returns the offset of the token that follows off: past white
// space, commas and colons.
func tokenStart(data []byte, off int) int {
	for off < len(data) && strings.IndexByte(" \t\r\n,:", data[off]) >= 0 {
		off++
	}
	return off
}

// get returns the member key of an object, or nil.
func (n *jsonNode) get(key string) *jsonNode {
	if n == nil {
		return nil
	}
	return n.members[key]
}

// at returns element i of an array, or nil.
func (n *jsonNode) at(i int) *jsonNode {
	if n == nil || i < 0 || i >= len(n.elems) {
		return nil
	}
	return n.elems[i]
}

// path follows a path as the waiter package writes where a problem is:
// `shapes["ex#A"].traits["smithy.waiters#waitable"].A.acceptors[0].delay`.
// It returns the deepest value found on the way, and whether it found the
// whole path.
func (n *jsonNode) path(p string) (*jsonNode, bool) {
	cur := n
	for p != "" {
		var next *jsonNode
		switch {
		case p[0] == '.':
			p = p[1:]
			continue
		case strings.HasPrefix(p, `["`):
			end := strings.Index(p, `"]`)
			for end > 0 && p[end-1] == '\\' {
				if e := strings.Index(p[end+1:], `"]`); e >= 0 {
					end += e + 1
				} else {
					end = -1
				}
			}
			if end < 0 {
				return cur, false
			}
			key, err := strconv.Unquote(p[1 : end+1])
			if err != nil {
				return cur, false
			}
			next, p = cur.get(key), p[end+2:]
		case p[0] == '[':
			end := strings.IndexByte(p, ']')
			i, err := strconv.Atoi(p[1:max(end, 1)])
			if end < 0 || err != nil {
				return cur, false
			}
			next, p = cur.at(i), p[end+1:]
		default:
			end := strings.IndexAny(p, ".[")
			if end < 0 {
				end = len(p)
			}
			next, p = cur.get(p[:end]), p[end:]
		}
		if next == nil {
			return cur, false
		}
		cur = next
	}
	return cur, true
}

// stringOffset returns the offset in data of the byte at offset i of the
// decoded value of the string n (past its escapes): its closing quote for
// the end of the value, its opening quote if i is beyond it.
func (n *jsonNode) stringOffset(data []byte, i int) int {
	if n.off >= len(data) || data[n.off] != '"' {
		return n.off
	}
	raw := data[n.off+1 : max(n.end-1, n.off+1)]
	decoded := 0
	for j := 0; j < len(raw); {
		if decoded >= i {
			return n.off + 1 + j
		}
		if raw[j] != '\\' || j+1 >= len(raw) {
			j++
			decoded++
			continue
		}
		if raw[j+1] != 'u' {
			j += 2
			decoded++
			continue
		}
		r, size := utf8.RuneError, 6
		if v, err := strconv.ParseUint(string(raw[j+2:min(j+6, len(raw))]), 16, 32); err == nil {
			r = rune(v)
		}
		if r >= 0xD800 && r < 0xDC00 && j+12 <= len(raw) && raw[j+6] == '\\' && raw[j+7] == 'u' {
			if lo, err := strconv.ParseUint(string(raw[j+8:j+12]), 16, 32); err == nil && lo >= 0xDC00 && lo < 0xE000 {
				r, size = (r-0xD800)<<10+(rune(lo)-0xDC00)+0x10000, 12
			}
		}
		j += size
		decoded += utf8.RuneLen(r)
	}
	if decoded >= i {
		return n.off + 1 + len(raw) // the end of the string: its closing quote
	}
	return n.off
}

// lines turns offsets of a document into lines and columns.
type lines []int // the offset where each line begins

func newLines(data []byte) lines {
	ls := lines{0}
	for i, b := range data {
		if b == '\n' {
			ls = append(ls, i+1)
		}
	}
	return ls
}

// position returns the line and column (both from 1; columns in bytes) of
// offset off.
func (ls lines) position(off int) (line, col int) {
	i := sort.Search(len(ls), func(i int) bool { return ls[i] > off }) - 1
	return i + 1, off - ls[max(i, 0)] + 1
}
