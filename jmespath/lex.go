package jmespath

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

type tokKind uint8

const (
	tEOF tokKind = iota
	tIdent
	tQuoted
	tNumber
	tRawString
	tLiteral
	tDot
	tStar
	tFlatten // []
	tFilter  // [?
	tLBracket
	tRBracket
	tLBrace
	tRBrace
	tLParen
	tRParen
	tComma
	tColon
	tPipe
	tOr
	tAnd
	tNot
	tEQ
	tNE
	tLT
	tLE
	tGT
	tGE
	tCurrent
	tExpref
)

var tokNames = [...]string{
	tEOF: "the end", tIdent: "an identifier", tQuoted: "a quoted identifier", tNumber: "a number",
	tRawString: "a raw string", tLiteral: "a JSON literal", tDot: `"."`, tStar: `"*"`, tFlatten: `"[]"`,
	tFilter: `"[?"`, tLBracket: `"["`, tRBracket: `"]"`, tLBrace: `"{"`, tRBrace: `"}"`, tLParen: `"("`,
	tRParen: `")"`, tComma: `","`, tColon: `":"`, tPipe: `"|"`, tOr: `"||"`, tAnd: `"&&"`, tNot: `"!"`,
	tEQ: `"=="`, tNE: `"!="`, tLT: `"<"`, tLE: `"<="`, tGT: `">"`, tGE: `">="`, tCurrent: `"@"`, tExpref: `"&"`,
}

func (k tokKind) String() string { return tokNames[k] }

type token struct {
	kind tokKind
	pos  int    // byte offset in the expression
	text string // identifier name, raw string, or literal's source
	num  int
}

// lex splits src into tokens.
func lex(src string) ([]token, error) {
	toks := make([]token, 0, len(src)/2+2)
	for i := 0; i < len(src); {
		c := src[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			i++
		case c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z':
			j := i + 1
			for j < len(src) && isIdentChar(src[j]) {
				j++
			}
			toks = append(toks, token{kind: tIdent, pos: i, text: src[i:j]})
			i = j
		case c == '-' || '0' <= c && c <= '9':
			j := i + 1
			for j < len(src) && '0' <= src[j] && src[j] <= '9' {
				j++
			}
			n, err := strconv.Atoi(src[i:j])
			if err != nil {
				return nil, syntaxErr(src, i, "bad number %q", src[i:j])
			}
			toks = append(toks, token{kind: tNumber, pos: i, text: src[i:j], num: n})
			i = j
		case c == '"':
			j, err := closing(src, i, '"')
			if err != nil {
				return nil, err
			}
			var name string
			if err := json.Unmarshal([]byte(src[i:j]), &name); err != nil {
				return nil, syntaxErr(src, i, "bad quoted identifier %s", src[i:j])
			}
			toks = append(toks, token{kind: tQuoted, pos: i, text: name})
			i = j
		case c == '\'':
			j, err := closing(src, i, '\'')
			if err != nil {
				return nil, err
			}
			toks = append(toks, token{kind: tRawString, pos: i, text: rawString(src[i+1 : j-1])})
			i = j
		case c == '`':
			j, err := closing(src, i, '`')
			if err != nil {
				return nil, err
			}
			toks = append(toks, token{kind: tLiteral, pos: i, text: strings.ReplaceAll(src[i+1:j-1], "\\`", "`")})
			i = j
		case i+1 < len(src) && twoChar(src[i], src[i+1]) != 0:
			toks = append(toks, token{kind: twoChar(src[i], src[i+1]), pos: i})
			i += 2
		case oneChar[c] != 0:
			toks = append(toks, token{kind: oneChar[c], pos: i})
			i++
		case c == '=':
			return nil, syntaxErr(src, i, `"=" is not an operator (use "==")`)
		default:
			r, _ := utf8.DecodeRuneInString(src[i:])
			return nil, syntaxErr(src, i, "unexpected character %q", r)
		}
	}
	return append(toks, token{kind: tEOF, pos: len(src)}), nil
}

var oneChar = [256]tokKind{'.': tDot, '*': tStar, '[': tLBracket, ']': tRBracket, '{': tLBrace, '}': tRBrace,
	'(': tLParen, ')': tRParen, ',': tComma, ':': tColon, '|': tPipe, '!': tNot, '<': tLT, '>': tGT, '@': tCurrent, '&': tExpref}

func twoChar(a, b byte) tokKind {
	switch string([]byte{a, b}) {
	case "[]":
		return tFlatten
	case "[?":
		return tFilter
	case "||":
		return tOr
	case "&&":
		return tAnd
	case "!=":
		return tNE
	case "==":
		return tEQ
	case "<=":
		return tLE
	case ">=":
		return tGE
	}
	return 0
}

func isIdentChar(c byte) bool {
	return c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}

// rawString returns what the body of a raw string literal denotes: \' is
// a quote, and a backslash before any other character is itself and that
// character, so \\ is two backslashes (the specification's compliance
// suite: "Backslash not followed by single quote is treated as any other
// character"). closing has already paired each backslash with the
// character after it, so every quote in a body is one that a backslash
// escapes.
func rawString(body string) string {
	if !strings.Contains(body, `\'`) {
		return body
	}
	var b strings.Builder
	b.Grow(len(body))
	for k := 0; k < len(body); k++ {
		if body[k] == '\\' && k+1 < len(body) {
			if body[k+1] != '\'' {
				b.WriteByte('\\')
			}
			k++
		}
		b.WriteByte(body[k])
	}
	return b.String()
}

// closing returns the offset just past the delimiter q that closes the one
// at src[i], skipping backslash escapes.
func closing(src string, i int, q byte) (int, error) {
	for j := i + 1; j < len(src); j++ {
		switch src[j] {
		case '\\':
			j++
		case q:
			return j + 1, nil
		}
	}
	return 0, syntaxErr(src, i, "unclosed %c", q)
}

// SyntaxError is an expression that does not parse: what is wrong and the
// byte offset where.
type SyntaxError struct {
	Expr   string
	Offset int
	Msg    string
}

// Error returns "syntax error at offset N: <problem>".
func (e *SyntaxError) Error() string {
	return fmt.Sprintf("syntax error at offset %d: %s", e.Offset, e.Msg)
}

func syntaxErr(src string, at int, format string, args ...any) error {
	return &SyntaxError{Expr: src, Offset: at, Msg: fmt.Sprintf(format, args...)}
}
