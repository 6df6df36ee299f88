package jmespath

import (
	"encoding/json"
	"errors"
	"io"
	"strings"
)

// maxDepth is how deeply an expression may nest, as the package
// documentation states: deeper ones are a *SyntaxError rather than a parser
// that recurses without bound.
const maxDepth = 256

type op uint8

const (
	opIdentity op = iota // @, or nothing
	opField              // name
	opSub                // l.r
	opIndex              // [num], on l
	opSlice              // [a:b:c], on l; projects
	opProject            // l[*].r or l[].r (l flattens)
	opValues             // l.*.r
	opFilter             // l[?cond].r
	opFlatten            // l[]
	opLiteral            // `json` or 'raw'
	opList               // [a, b]
	opHash               // {k: a}
	opOr
	opAnd
	opNot
	opCmp
	opPipe
	opCall
	opExpref
)

// node is one node of a parsed expression.
type node struct {
	op       op
	name     string // field name, function name, or comparison
	num      int    // index
	slice    [3]*int
	lit      any // literal value (JSON data model)
	l, r     *node
	cond     *node   // filter condition
	args     []*node // list items, hash values, call arguments
	keys     []string
	fn       *function
	cmp      tokKind
	position int // byte offset of the node's token: a name, an operator, a bracket
	end      int // byte offset of the token after the node's expression, when known (0 if not)
}

// children returns n's sub-nodes.
func (n *node) children() []*node {
	out := make([]*node, 0, 3+len(n.args))
	for _, c := range []*node{n.l, n.r, n.cond} {
		if c != nil {
			out = append(out, c)
		}
	}
	return append(out, n.args...)
}

// height returns the depth of the tree under n, without recursion (a
// left-nested chain such as a.a.a… builds a deep tree from a flat loop).
func height(n *node) int {
	type item struct {
		n *node
		d int
	}
	maxD, stack := 0, []item{{n, 1}}
	for len(stack) > 0 {
		it := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		maxD = max(maxD, it.d)
		for _, c := range it.n.children() {
			stack = append(stack, item{c, it.d + 1})
		}
	}
	return maxD
}

var bindingPower = [...]int{
	tPipe: 1, tOr: 2, tAnd: 3, tEQ: 5, tNE: 5, tLT: 5, tLE: 5, tGT: 5, tGE: 5,
	tFlatten: 9, tStar: 20, tFilter: 21, tDot: 40, tNot: 45, tLBrace: 50, tLBracket: 55, tLParen: 60,
	tExpref: 0, tCurrent: 0, tEOF: 0,
}

const projectionStop = 10

type parser struct {
	src   string
	toks  []token
	i     int
	depth int
}

func parse(src string) (*node, error) {
	toks, err := lex(src)
	if err != nil {
		return nil, err
	}
	p := &parser{src: src, toks: toks}
	n, err := p.expression(0)
	if err != nil {
		return nil, err
	}
	if t := p.cur(); t.kind != tEOF {
		return nil, p.errAt(t, "unexpected %s", t.kind)
	}
	if height(n) > maxDepth {
		return nil, syntaxErr(src, 0, "expression nested deeper than %d levels", maxDepth)
	}
	return n, nil
}

func (p *parser) cur() token                              { return p.toks[p.i] }
func (p *parser) peek(k int) tokKind                      { return p.toks[min(p.i+k, len(p.toks)-1)].kind }
func (p *parser) advance() token                          { t := p.toks[p.i]; p.i = min(p.i+1, len(p.toks)-1); return t }
func (p *parser) errAt(t token, f string, a ...any) error { return syntaxErr(p.src, t.pos, f, a...) }

func (p *parser) expect(k tokKind) error {
	if t := p.cur(); t.kind != k {
		return p.errAt(t, "expected %s, found %s", k, t.kind)
	}
	p.advance()
	return nil
}

func (p *parser) expression(bp int) (*node, error) {
	p.depth++
	defer func() { p.depth-- }()
	if p.depth > maxDepth {
		return nil, p.errAt(p.cur(), "expression nested deeper than %d levels", maxDepth)
	}
	left, err := p.nud(p.advance())
	if err != nil {
		return nil, err
	}
	for steps := 1; bp < bindingPower[p.cur().kind]; steps++ {
		// Each step nests the tree one level deeper: a.a.a… is as deep
		// as it is long.
		if p.depth+steps > maxDepth {
			return nil, p.errAt(p.cur(), "expression nested deeper than %d levels", maxDepth)
		}
		if left, err = p.led(p.advance(), left); err != nil {
			return nil, err
		}
	}
	if left != identity && left.end == 0 {
		left.end = p.cur().pos // the innermost expression that ends here: (a) ends before ")"
	}
	return left, nil
}

var identity = &node{op: opIdentity}

func (p *parser) nud(t token) (*node, error) {
	switch t.kind {
	case tLiteral:
		v, err := parseLiteral(t.text)
		if err != nil {
			return nil, p.errAt(t, "bad JSON literal: %v", err)
		}
		return &node{op: opLiteral, lit: v, position: t.pos}, nil
	case tRawString:
		return &node{op: opLiteral, lit: t.text, position: t.pos}, nil
	case tIdent:
		return &node{op: opField, name: t.text, position: t.pos}, nil
	case tQuoted:
		if p.cur().kind == tLParen {
			return nil, p.errAt(t, "a quoted identifier cannot name a function")
		}
		return &node{op: opField, name: t.text, position: t.pos}, nil
	case tStar:
		if p.cur().kind == tRBracket {
			return &node{op: opValues, l: identity, r: identity, position: t.pos}, nil
		}
		r, err := p.projectionRHS(bindingPower[tStar])
		return &node{op: opValues, l: identity, r: r, position: t.pos}, err
	case tFilter:
		return p.filter(identity, t.pos)
	case tLBrace:
		return p.hash(t.pos)
	case tFlatten:
		r, err := p.projectionRHS(bindingPower[tFlatten])
		return &node{op: opProject, l: &node{op: opFlatten, l: identity, position: t.pos}, r: r, position: t.pos}, err
	case tLBracket:
		switch {
		case p.cur().kind == tNumber || p.cur().kind == tColon:
			return p.indexOrSlice(identity, t.pos)
		case p.cur().kind == tStar && p.peek(1) == tRBracket:
			p.advance()
			p.advance()
			r, err := p.projectionRHS(bindingPower[tStar])
			return &node{op: opProject, l: identity, r: r, position: t.pos}, err
		}
		return p.list(t.pos)
	case tCurrent:
		return &node{op: opIdentity, position: t.pos}, nil
	case tExpref:
		x, err := p.expression(bindingPower[tExpref])
		return &node{op: opExpref, l: x, position: t.pos}, err
	case tNot:
		x, err := p.expression(bindingPower[tNot])
		return &node{op: opNot, l: x, position: t.pos}, err
	case tLParen:
		x, err := p.expression(0)
		if err != nil {
			return nil, err
		}
		return x, p.expect(tRParen)
	}
	return nil, p.errAt(t, "unexpected %s", t.kind)
}

func (p *parser) led(t token, left *node) (*node, error) {
	switch t.kind {
	case tDot:
		if p.cur().kind == tStar {
			p.advance()
			r, err := p.projectionRHS(bindingPower[tDot])
			return &node{op: opValues, l: left, r: r, position: t.pos}, err
		}
		r, err := p.dotRHS(bindingPower[tDot])
		return &node{op: opSub, l: left, r: r, position: t.pos}, err
	case tPipe, tOr, tAnd:
		r, err := p.expression(bindingPower[t.kind])
		o := map[tokKind]op{tPipe: opPipe, tOr: opOr, tAnd: opAnd}[t.kind]
		return &node{op: o, l: left, r: r, position: t.pos}, err
	case tEQ, tNE, tLT, tLE, tGT, tGE:
		r, err := p.expression(bindingPower[t.kind])
		return &node{op: opCmp, cmp: t.kind, l: left, r: r, position: t.pos}, err
	case tLParen:
		if left.op != opField {
			return nil, p.errAt(t, "only a name can be called as a function")
		}
		call := &node{op: opCall, name: left.name, position: left.position}
		for p.cur().kind != tRParen {
			if len(call.args) > 0 {
				if err := p.expect(tComma); err != nil {
					return nil, err
				}
			}
			a, err := p.expression(0)
			if err != nil {
				return nil, err
			}
			call.args = append(call.args, a)
		}
		p.advance()
		return call, resolveCall(p.src, call)
	case tFilter:
		return p.filter(left, t.pos)
	case tFlatten:
		r, err := p.projectionRHS(bindingPower[tFlatten])
		return &node{op: opProject, l: &node{op: opFlatten, l: left, position: t.pos}, r: r, position: t.pos}, err
	case tLBracket:
		if k := p.cur().kind; k == tNumber || k == tColon {
			return p.indexOrSlice(left, t.pos)
		}
		if p.cur().kind != tStar {
			return nil, p.errAt(p.cur(), `expected a number, ":" or "*" after "[", found %s`, p.cur().kind)
		}
		p.advance()
		if err := p.expect(tRBracket); err != nil {
			return nil, err
		}
		r, err := p.projectionRHS(bindingPower[tStar])
		return &node{op: opProject, l: left, r: r, position: t.pos}, err
	}
	return nil, p.errAt(t, "unexpected %s", t.kind)
}

func (p *parser) projectionRHS(bp int) (*node, error) {
	switch k := p.cur().kind; {
	case bindingPower[k] < projectionStop:
		return identity, nil
	case k == tLBracket || k == tFilter:
		return p.expression(bp)
	case k == tDot:
		p.advance()
		return p.dotRHS(bp)
	}
	return nil, p.errAt(p.cur(), "unexpected %s after a projection", p.cur().kind)
}

func (p *parser) dotRHS(bp int) (*node, error) {
	switch p.cur().kind {
	case tIdent, tQuoted, tStar:
		return p.expression(bp)
	case tLBracket:
		return p.list(p.advance().pos)
	case tLBrace:
		return p.hash(p.advance().pos)
	}
	return nil, p.errAt(p.cur(), "expected a name, \"*\", \"[\" or \"{\" after \".\", found %s", p.cur().kind)
}

func (p *parser) filter(left *node, pos int) (*node, error) {
	cond, err := p.expression(0)
	if err != nil {
		return nil, err
	}
	if err := p.expect(tRBracket); err != nil {
		return nil, err
	}
	r := identity
	if p.cur().kind != tFlatten {
		if r, err = p.projectionRHS(bindingPower[tFilter]); err != nil {
			return nil, err
		}
	}
	return &node{op: opFilter, l: left, r: r, cond: cond, position: pos}, nil
}

func (p *parser) indexOrSlice(left *node, pos int) (*node, error) {
	if p.cur().kind == tNumber && p.peek(1) == tRBracket {
		n := p.advance().num
		p.advance()
		return &node{op: opIndex, l: left, num: n, position: pos}, nil
	}
	s := &node{op: opSlice, l: left, position: pos}
	part := 0
	for p.cur().kind != tRBracket {
		switch t := p.cur(); t.kind {
		case tColon:
			part++
			if part > 2 {
				return nil, p.errAt(t, "a slice has at most three parts")
			}
		case tNumber:
			if s.slice[part] != nil {
				return nil, p.errAt(t, "expected \":\" or \"]\", found a number")
			}
			n := t.num
			s.slice[part] = &n
		default:
			return nil, p.errAt(t, "expected a number, \":\" or \"]\" in a slice, found %s", t.kind)
		}
		p.advance()
	}
	p.advance()
	if s.slice[2] != nil && *s.slice[2] == 0 {
		return nil, syntaxErr(p.src, p.toks[p.i-1].pos, "a slice's step cannot be 0")
	}
	r, err := p.projectionRHS(bindingPower[tStar])
	if err != nil {
		return nil, err
	}
	return &node{op: opProject, l: s, r: r, position: pos}, nil
}

func (p *parser) list(pos int) (*node, error) {
	n := &node{op: opList, position: pos}
	for {
		x, err := p.expression(0)
		if err != nil {
			return nil, err
		}
		n.args = append(n.args, x)
		if p.cur().kind == tRBracket {
			p.advance()
			return n, nil
		}
		if err := p.expect(tComma); err != nil {
			return nil, err
		}
	}
}

func (p *parser) hash(pos int) (*node, error) {
	n := &node{op: opHash, position: pos}
	for {
		t := p.advance()
		if t.kind != tIdent && t.kind != tQuoted {
			return nil, p.errAt(t, "expected a key in a multi-select hash, found %s", t.kind)
		}
		if err := p.expect(tColon); err != nil {
			return nil, err
		}
		x, err := p.expression(0)
		if err != nil {
			return nil, err
		}
		n.keys = append(n.keys, t.text)
		n.args = append(n.args, x)
		if p.cur().kind == tRBrace {
			p.advance()
			return n, nil
		}
		if err := p.expect(tComma); err != nil {
			return nil, err
		}
	}
}

// parseLiteral decodes a JSON literal. The specification's deprecated
// form, text that is not JSON read as a string, is refused, as
// go-jmespath and the current specification do.
func parseLiteral(text string) (any, error) {
	d := json.NewDecoder(strings.NewReader(text))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, err
	}
	if _, err := d.Token(); err != io.EOF {
		return nil, errors.New("data after the JSON value")
	}
	return fromJSON(v), nil
}
