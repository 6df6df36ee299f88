package kubewait

import (
	"fmt"
	"strconv"
	"strings"
)

// jmesOf translates one of kubectl's JSONPath expressions, as `kubectl
// wait --for=jsonpath=` takes them ({.status.phase}, with or without the
// braces and the leading dot), into a JMESPath expression over the object.
// It returns the expression and whether it is a projection (a [*] or a
// filter), which gives a list of values rather than one.
//
// The subset is the one kubectl wait accepts: fields (.a.b, with \. for a
// dot inside a name, or ['a.b']), indexes ([0], [-1]), [*], and filters
// of one comparison ([?(@.type=="Ready")], ==, !=, <, <=, >, >=, or a
// path alone for presence). Recursive descent (..), slices, unions and
// range are refused, as kubectl wait refuses them or has no JMESPath
// equivalent.
func jmesOf(expr string) (path string, projection bool, err error) {
	s := strings.TrimSpace(expr)
	if strings.HasPrefix(s, "{") {
		end := strings.LastIndexByte(s, '}')
		switch {
		case end < 0:
			return "", false, fmt.Errorf("jsonpath %q: no closing brace", expr)
		case end < len(s)-1:
			return "", false, fmt.Errorf("jsonpath %q: %q after the closing brace", expr, s[end+1:])
		}
		s = s[1 : len(s)-1]
	}
	s = strings.TrimSpace(s)
	if s == "" || s == "." || s == "@" {
		return "@", false, nil
	}
	if !strings.HasPrefix(s, ".") && !strings.HasPrefix(s, "[") {
		s = "." + s // kubectl's relaxed form: status.phase
	}
	p := jsonpathParser{src: expr, s: s}
	out, err := p.path(false)
	if err != nil {
		return "", false, err
	}
	return out, p.projection, nil
}

type jsonpathParser struct {
	src        string // the expression as given, for errors
	s          string // what is left to read
	projection bool
}

func (p *jsonpathParser) errorf(format string, args ...any) error {
	return fmt.Errorf("jsonpath %q: %s", p.src, fmt.Sprintf(format, args...))
}

// path reads a run of fields, indexes, wildcards and filters. inFilter
// stops it at a comparison operator or the filter's closing parenthesis.
func (p *jsonpathParser) path(inFilter bool) (string, error) {
	var b strings.Builder
	for p.s != "" {
		switch {
		case strings.HasPrefix(p.s, ".."):
			return "", p.errorf("recursive descent (..) is not supported")
		case p.s[0] == '.':
			p.s = p.s[1:]
			name, err := p.name()
			if err != nil {
				return "", err
			}
			if name == "*" {
				if b.Len() > 0 {
					b.WriteByte('.')
				}
				b.WriteString("*")
				p.projection = true
				continue
			}
			if b.Len() > 0 {
				b.WriteByte('.')
			}
			b.WriteString(quoteName(name))
		case p.s[0] == '[':
			if err := p.bracket(&b); err != nil {
				return "", err
			}
		case inFilter:
			return b.String(), nil
		default:
			return "", p.errorf("unexpected %q", p.s)
		}
	}
	return b.String(), nil
}

// name reads a field name after a dot: up to the next unescaped dot or
// bracket (or, in a filter, operator or parenthesis); \. is a dot in it.
func (p *jsonpathParser) name() (string, error) {
	var b strings.Builder
	i := 0
	for i < len(p.s) {
		c := p.s[i]
		if c == '\\' && i+1 < len(p.s) {
			b.WriteByte(p.s[i+1])
			i += 2
			continue
		}
		if strings.IndexByte(".[]()=!<> &|", c) >= 0 {
			break
		}
		b.WriteByte(c)
		i++
	}
	p.s = p.s[i:]
	if b.Len() == 0 {
		return "", p.errorf("a field name is missing")
	}
	return b.String(), nil
}

// bracket reads [..]: an index, [*], a quoted name or a filter.
func (p *jsonpathParser) bracket(b *strings.Builder) error {
	end := strings.IndexByte(p.s, ']')
	if strings.HasPrefix(p.s, "[?(") {
		return p.filter(b)
	}
	if end < 0 {
		return p.errorf("no closing bracket")
	}
	inner := strings.TrimSpace(p.s[1:end])
	p.s = p.s[end+1:]
	switch {
	case inner == "*":
		b.WriteString("[*]")
		p.projection = true
	case len(inner) >= 2 && (inner[0] == '\'' || inner[0] == '"') && inner[len(inner)-1] == inner[0]:
		if b.Len() > 0 {
			b.WriteByte('.')
		}
		b.WriteString(quoteName(inner[1 : len(inner)-1]))
	case strings.ContainsAny(inner, ":,"):
		return p.errorf("slices and unions ([%s]) are not supported", inner)
	default:
		n, err := strconv.Atoi(inner)
		if err != nil {
			return p.errorf("[%s] is not an index", inner)
		}
		fmt.Fprintf(b, "[%d]", n)
	}
	return nil
}

// filter reads [?(@.path op value)] into JMESPath's [?path op value].
func (p *jsonpathParser) filter(b *strings.Builder) error {
	p.s = strings.TrimLeft(p.s[3:], " ")
	if !strings.HasPrefix(p.s, "@") {
		return p.errorf("a filter must start with @")
	}
	p.s = p.s[1:]
	outer := p.projection
	left, err := p.path(true)
	if err != nil {
		return err
	}
	p.projection = outer
	if left == "" {
		left = "@"
	}
	p.s = strings.TrimLeft(p.s, " ")
	cond := left
	for _, op := range []string{"==", "!=", "<=", ">=", "<", ">"} {
		if !strings.HasPrefix(p.s, op) {
			continue
		}
		p.s = strings.TrimLeft(p.s[len(op):], " ")
		lit, err := p.literal()
		if err != nil {
			return err
		}
		cond = left + op + lit
		break
	}
	p.s = strings.TrimLeft(p.s, " ")
	if !strings.HasPrefix(p.s, ")]") {
		return p.errorf("a filter must end with )]")
	}
	p.s = p.s[2:]
	b.WriteString("[?" + cond + "]")
	p.projection = true
	return nil
}

// literal reads a filter's value: a quoted string, a number, true, false
// or null, as JMESPath writes it.
func (p *jsonpathParser) literal() (string, error) {
	if p.s == "" {
		return "", p.errorf("a filter's value is missing")
	}
	if q := p.s[0]; q == '"' || q == '\'' {
		end := strings.IndexByte(p.s[1:], q)
		if end < 0 {
			return "", p.errorf("an unterminated string")
		}
		v := p.s[1 : end+1]
		p.s = p.s[end+2:]
		return "'" + strings.ReplaceAll(v, "'", `\'`) + "'", nil
	}
	i := strings.IndexAny(p.s, ") ")
	if i < 0 {
		i = len(p.s)
	}
	v := p.s[:i]
	p.s = p.s[i:]
	if _, err := strconv.ParseFloat(v, 64); err != nil && v != "true" && v != "false" && v != "null" {
		return "", p.errorf("%q is not a string, number, true, false or null", v)
	}
	return "`" + v + "`", nil
}

// quoteName writes a field name as a JMESPath identifier: bare when it
// can be, else quoted.
func quoteName(name string) string {
	bare := name != ""
	for i, c := range name {
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && c >= '0' && c <= '9') {
			bare = false
			break
		}
	}
	if bare {
		return name
	}
	return strconv.Quote(name)
}
