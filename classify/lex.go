package classify

import (
	"encoding/json"
	"fmt"
)

// token is one lexeme of a JMESPath expression, as far as this package
// needs to know: identifiers (field names), numbers, and punctuation.
// String literals and JSON literals are skipped as opaque.
type token struct {
	kind tokKind
	text string // identifier name (unquoted), number, or punctuation
}

type tokKind uint8

const (
	tokIdent tokKind = iota + 1
	tokFunc          // an identifier followed by '(': a function name
	tokNumber
	tokPunct
	tokLiteral // 'raw string' or `json literal`
)

// lex splits expr into tokens. It is lenient where go-jmespath is strict:
// go-jmespath compiles every expression first, and lex only runs on the
// ones it accepted.
func lex(expr string) ([]token, error) {
	var toks []token
	for i := 0; i < len(expr); {
		c := expr[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			i++
		case c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z':
			j := i + 1
			for j < len(expr) && (expr[j] == '_' || 'a' <= expr[j] && expr[j] <= 'z' || 'A' <= expr[j] && expr[j] <= 'Z' || '0' <= expr[j] && expr[j] <= '9') {
				j++
			}
			toks = append(toks, token{tokIdent, expr[i:j]})
			i = j
		case c == '"':
			j, err := closeQuote(expr, i, '"')
			if err != nil {
				return nil, err
			}
			var name string
			if err := json.Unmarshal([]byte(expr[i:j]), &name); err != nil {
				return nil, fmt.Errorf("quoted identifier %s: %w", expr[i:j], err)
			}
			toks = append(toks, token{tokIdent, name})
			i = j
		case c == '\'' || c == '`':
			j, err := closeQuote(expr, i, c)
			if err != nil {
				return nil, err
			}
			toks = append(toks, token{tokLiteral, expr[i:j]})
			i = j
		case c == '-' || '0' <= c && c <= '9':
			j := i + 1
			for j < len(expr) && '0' <= expr[j] && expr[j] <= '9' {
				j++
			}
			toks = append(toks, token{tokNumber, expr[i:j]})
			i = j
		default:
			toks = append(toks, token{tokPunct, expr[i : i+1]})
			i++
		}
	}
	// An identifier followed by '(' names a function, not a field.
	for k := 0; k+1 < len(toks); k++ {
		if toks[k].kind == tokIdent && toks[k+1].kind == tokPunct && toks[k+1].text == "(" {
			toks[k].kind = tokFunc
		}
	}
	return toks, nil
}

// closeQuote returns the index just past the quote that closes the one at
// expr[i], honouring backslash escapes.
func closeQuote(expr string, i int, q byte) (int, error) {
	for j := i + 1; j < len(expr); j++ {
		switch expr[j] {
		case '\\':
			j++
		case q:
			return j + 1, nil
		}
	}
	return 0, fmt.Errorf("unterminated %c at offset %d", q, i)
}

// node is the AST of a "simple path": field access, index, flatten and
// projections, the expressions that make up nearly every real waiter. It has
// the shape go-jmespath gives the same expression, so that evaluating it
// directly on Go values gives the same answer.
type node struct {
	op    nodeOp
	name  string // opField
	index int    // opIndex
	l, r  *node  // opSub: l then r; opIndex: l; opProject/opValues: l, then r per element; opFlatten: l
}

type nodeOp uint8

const (
	opIdentity nodeOp = iota
	opField
	opSub
	opIndex
	opProject // l is a list; r applied to each element, nulls dropped
	opValues  // l is an object; r applied to each value, nulls dropped
	opFlatten // l flattened one level
)

// projects reports whether n's result is a projection (a list made
// element by element).
func (n *node) projects() bool {
	return n.op == opProject || n.op == opValues || n.op == opFlatten
}

// parseSimple builds the AST of a simple path from its tokens, or returns
// nil if the expression uses anything else (functions, filters,
// comparisons, literals, multi-selects, pipes, slices...). Projections
// nested inside a projection's right-hand side (a[*].b[*]) are left to the
// general evaluator too: they build lists of lists.
func parseSimple(toks []token) *node {
	if len(toks) == 0 || toks[0].kind != tokIdent {
		return nil
	}
	cur := &node{op: opField, name: toks[0].text}
	for i := 1; i < len(toks); {
		t := toks[i]
		if t.kind != tokPunct {
			return nil
		}
		switch {
		case t.text == "." && i+1 < len(toks) && toks[i+1].kind == tokIdent:
			cur = within(cur, func(n *node) *node { return &node{op: opSub, l: n, r: &node{op: opField, name: toks[i+1].text}} })
			i += 2
		case t.text == "." && i+1 < len(toks) && toks[i+1].text == "*":
			if cur.projects() {
				return nil // nested projection
			}
			cur = &node{op: opValues, l: cur, r: &node{op: opIdentity}}
			i += 2
		case t.text == "[" && i+1 < len(toks) && toks[i+1].text == "]":
			cur = &node{op: opProject, l: &node{op: opFlatten, l: cur}, r: &node{op: opIdentity}}
			i += 2
		case t.text == "[" && i+2 < len(toks) && toks[i+1].text == "*" && toks[i+2].text == "]":
			if cur.projects() {
				return nil // nested projection
			}
			cur = &node{op: opProject, l: cur, r: &node{op: opIdentity}}
			i += 3
		case t.text == "[" && i+2 < len(toks) && toks[i+1].kind == tokNumber && toks[i+2].text == "]":
			var n int
			if _, err := fmt.Sscan(toks[i+1].text, &n); err != nil {
				return nil
			}
			cur = within(cur, func(l *node) *node { return &node{op: opIndex, l: l, index: n} })
			i += 3
		default:
			return nil
		}
	}
	return cur
}

// within applies f to the innermost right-hand side of a projection (where
// JMESPath applies steps that follow a projection), or to n itself.
func within(n *node, f func(*node) *node) *node {
	if n.op == opProject || n.op == opValues {
		n.r = within(n.r, f)
		return n
	}
	if n.op == opIdentity {
		return f(n).collapse()
	}
	return f(n)
}

// collapse removes an identity on the left of a subexpression or index
// (@.a is a), keeping trees small.
func (n *node) collapse() *node {
	if n.op == opSub && n.l.op == opIdentity {
		return n.r
	}
	return n
}
