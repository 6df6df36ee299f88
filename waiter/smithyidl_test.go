package waiter_test

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"unicode"
)

// idlToAST converts Smithy IDL 2.0 files into one Smithy JSON AST model,
// for the subset of the IDL the smithy-kotlin waiter suite is written in:
// control statements, a namespace, use statements, traits (annotations,
// node values and structured bodies), and structure, union, list, map,
// enum, intEnum, service and operation shapes whose bodies are plain
// members or node values. Anything else is an error naming the file and
// line, never a silently different model.
func idlToAST(files map[string]string) ([]byte, error) {
	c := idlConverter{shapes: map[string]map[string]any{}}
	for _, name := range slices.Sorted(maps.Keys(files)) {
		if err := c.file(name, files[name]); err != nil {
			return nil, err
		}
	}
	if err := c.resolve(); err != nil {
		return nil, err
	}
	return json.MarshalIndent(map[string]any{"smithy": "2.0", "shapes": c.shapes}, "", "  ")
}

// idlRef is a shape name as written, resolved once every file is read.
type idlRef struct {
	name, ns string
	uses     map[string]string
	where    string
}

type idlConverter struct {
	shapes map[string]map[string]any
	refs   []map[string]any // objects whose "target" is an *idlRef
}

type idlTok struct {
	kind byte // 'i' identifier, 's' string, 'n' number, or the punctuation itself
	text string
	line int
}

func idlLex(src string) ([]idlTok, error) {
	var toks []idlTok
	line := 1
	for i := 0; i < len(src); {
		c := src[i]
		switch {
		case c == '\n':
			line++
			i++
		case c == ' ' || c == '\t' || c == '\r' || c == ',':
			i++ // commas are whitespace in the IDL
		case strings.HasPrefix(src[i:], "//"):
			for i < len(src) && src[i] != '\n' {
				i++
			}
		case c == '"':
			if strings.HasPrefix(src[i:], `"""`) {
				return nil, fmt.Errorf("line %d: text blocks are outside the subset", line)
			}
			j := i + 1
			for j < len(src) && src[j] != '"' {
				if src[j] == '\\' {
					j++
				}
				if j < len(src) && src[j] == '\n' {
					line++
				}
				j++
			}
			if j >= len(src) {
				return nil, fmt.Errorf("line %d: unterminated string", line)
			}
			s, err := strconv.Unquote(src[i : j+1])
			if err != nil {
				return nil, fmt.Errorf("line %d: string %s: %v", line, src[i:j+1], err)
			}
			toks = append(toks, idlTok{'s', s, line})
			i = j + 1
		case c == '-' || c >= '0' && c <= '9':
			j := i + 1
			for j < len(src) && strings.ContainsRune("0123456789.eE+-", rune(src[j])) {
				j++
			}
			toks = append(toks, idlTok{'n', src[i:j], line})
			i = j
		case c == '$' || c == '_' || unicode.IsLetter(rune(c)):
			j := i + 1
			for j < len(src) && (src[j] == '_' || src[j] == '.' || src[j] == '#' || unicode.IsLetter(rune(src[j])) || unicode.IsDigit(rune(src[j]))) {
				j++
			}
			toks = append(toks, idlTok{'i', src[i:j], line})
			i = j
		case strings.IndexByte("{}[]():=@", c) >= 0:
			toks = append(toks, idlTok{c, string(c), line})
			i++
		default:
			return nil, fmt.Errorf("line %d: unexpected %q", line, c)
		}
	}
	return toks, nil
}

// idlParser reads one file.
type idlParser struct {
	c    *idlConverter
	file string
	toks []idlTok
	pos  int
	ns   string
	uses map[string]string
}

func (p *idlParser) peek() idlTok {
	if p.pos < len(p.toks) {
		return p.toks[p.pos]
	}
	return idlTok{kind: 0, line: -1}
}

func (p *idlParser) next() idlTok { t := p.peek(); p.pos++; return t }

func (p *idlParser) errf(t idlTok, format string, args ...any) error {
	return fmt.Errorf("%s:%d: %s", p.file, t.line, fmt.Sprintf(format, args...))
}

func (p *idlParser) expect(kind byte) (idlTok, error) {
	t := p.next()
	if t.kind != kind {
		return t, p.errf(t, "want %q, got %q", kind, t.text)
	}
	return t, nil
}

func (c *idlConverter) file(name, src string) error {
	toks, err := idlLex(src)
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	p := &idlParser{c: c, file: name, toks: toks, uses: map[string]string{}}
	for p.peek().kind == 'i' && strings.HasPrefix(p.peek().text, "$") {
		p.next()
		if _, err := p.expect(':'); err != nil {
			return err
		}
		if _, err := p.value(); err != nil {
			return err
		}
	}
	if t := p.next(); t.text != "namespace" {
		return p.errf(t, "want namespace, got %q", t.text)
	}
	ns, err := p.expect('i')
	if err != nil {
		return err
	}
	p.ns = ns.text
	for p.peek().text == "use" {
		p.next()
		id, err := p.expect('i')
		if err != nil {
			return err
		}
		p.uses[id.text[strings.IndexByte(id.text, '#')+1:]] = id.text
	}
	for p.pos < len(p.toks) {
		if err := p.shape(); err != nil {
			return err
		}
	}
	return nil
}

// traits reads the traits before a shape or a member.
func (p *idlParser) traits() (map[string]any, error) {
	traits := map[string]any{}
	for p.peek().kind == '@' {
		p.next()
		id, err := p.expect('i')
		if err != nil {
			return nil, err
		}
		var v any = map[string]any{}
		if p.peek().kind == '(' {
			p.next()
			switch {
			case p.peek().kind == ')':
			case p.pos+1 < len(p.toks) && (p.peek().kind == 'i' || p.peek().kind == 's') && p.toks[p.pos+1].kind == ':':
				obj := map[string]any{}
				for p.peek().kind != ')' {
					k := p.next()
					if _, err := p.expect(':'); err != nil {
						return nil, err
					}
					if obj[k.text], err = p.value(); err != nil {
						return nil, err
					}
				}
				v = obj
			default:
				if v, err = p.value(); err != nil {
					return nil, err
				}
			}
			if _, err := p.expect(')'); err != nil {
				return nil, err
			}
		}
		traits[p.traitID(id.text)] = v
	}
	return traits, nil
}

func (p *idlParser) traitID(name string) string {
	if strings.Contains(name, "#") {
		return name
	}
	if id, ok := p.uses[name]; ok {
		return id
	}
	return "smithy.api#" + name
}

// value reads a node value; an unquoted identifier is a string (a shape ID).
func (p *idlParser) value() (any, error) {
	t := p.next()
	switch t.kind {
	case 's':
		return t.text, nil
	case 'n':
		return json.Number(t.text), nil
	case 'i':
		switch t.text {
		case "true", "false":
			return t.text == "true", nil
		case "null":
			return nil, nil
		}
		return t.text, nil
	case '[':
		list := []any{}
		for p.peek().kind != ']' {
			v, err := p.value()
			if err != nil {
				return nil, err
			}
			list = append(list, v)
		}
		p.next()
		return list, nil
	case '{':
		obj := map[string]any{}
		for p.peek().kind != '}' {
			k := p.next()
			if k.kind != 'i' && k.kind != 's' {
				return nil, p.errf(k, "want a key, got %q", k.text)
			}
			if _, err := p.expect(':'); err != nil {
				return nil, err
			}
			v, err := p.value()
			if err != nil {
				return nil, err
			}
			obj[k.text] = v
		}
		p.next()
		return obj, nil
	}
	return nil, p.errf(t, "want a node value, got %q", t.text)
}

func (p *idlParser) ref(name string, line int) map[string]any {
	r := map[string]any{"target": &idlRef{name: name, ns: p.ns, uses: p.uses, where: fmt.Sprintf("%s:%d", p.file, line)}}
	p.c.refs = append(p.c.refs, r)
	return r
}

func (p *idlParser) shape() error {
	traits, err := p.traits()
	if err != nil {
		return err
	}
	kind, err := p.expect('i')
	if err != nil {
		return err
	}
	name, err := p.expect('i')
	if err != nil {
		return err
	}
	shape := map[string]any{"type": kind.text}
	if len(traits) > 0 {
		shape["traits"] = traits
	}
	if _, err := p.expect('{'); err != nil {
		return err
	}
	switch kind.text {
	case "structure", "union", "list", "map":
		members := map[string]any{}
		for p.peek().kind != '}' {
			mt, err := p.traits()
			if err != nil {
				return err
			}
			m, err := p.expect('i')
			if err != nil {
				return err
			}
			if _, err := p.expect(':'); err != nil {
				return err
			}
			target, err := p.expect('i')
			if err != nil {
				return err
			}
			member := p.ref(target.text, target.line)
			if len(mt) > 0 {
				member["traits"] = mt
			}
			members[m.text] = member
		}
		if kind.text == "list" || kind.text == "map" {
			for k, v := range members {
				if kind.text == "list" && k != "member" || kind.text == "map" && k != "key" && k != "value" {
					return p.errf(name, "%s %s has member %q", kind.text, name.text, k)
				}
				shape[k] = v
			}
		} else {
			shape["members"] = members
		}
	case "enum", "intEnum":
		members := map[string]any{}
		for p.peek().kind != '}' {
			m, err := p.expect('i')
			if err != nil {
				return err
			}
			member := map[string]any{"target": "smithy.api#Unit"}
			if p.peek().kind == '=' {
				p.next()
				v, err := p.value()
				if err != nil {
					return err
				}
				member["traits"] = map[string]any{"smithy.api#enumValue": v}
			}
			members[m.text] = member
		}
		shape["members"] = members
	case "service", "operation":
		for p.peek().kind != '}' {
			k, err := p.expect('i')
			if err != nil {
				return err
			}
			if _, err := p.expect(':'); err != nil {
				return err
			}
			switch k.text {
			case "input", "output":
				t, err := p.expect('i')
				if err != nil {
					return err
				}
				shape[k.text] = p.ref(t.text, t.line)
			case "errors", "operations", "resources":
				if _, err := p.expect('['); err != nil {
					return err
				}
				var list []any
				for p.peek().kind != ']' {
					t, err := p.expect('i')
					if err != nil {
						return err
					}
					list = append(list, p.ref(t.text, t.line))
				}
				p.next()
				shape[k.text] = list
			default:
				v, err := p.value()
				if err != nil {
					return err
				}
				shape[k.text] = v
			}
		}
	default:
		return p.errf(kind, "shape type %q is outside the subset", kind.text)
	}
	p.next() // '}'
	id := p.ns + "#" + name.text
	if _, dup := p.c.shapes[id]; dup {
		return p.errf(name, "%s is defined twice", id)
	}
	p.c.shapes[id] = shape
	return nil
}

// prelude is the Smithy prelude's simple shapes the IDL may name bare.
var prelude = map[string]bool{
	"Blob": true, "Boolean": true, "String": true, "Byte": true, "Short": true, "Integer": true, "Long": true,
	"Float": true, "Double": true, "BigInteger": true, "BigDecimal": true, "Timestamp": true, "Document": true, "Unit": true,
}

// resolve turns every reference into an absolute shape ID: a use, a shape
// of the namespace, or the prelude.
func (c *idlConverter) resolve() error {
	for _, m := range c.refs {
		r := m["target"].(*idlRef)
		var id string
		switch {
		case strings.Contains(r.name, "#"):
			id = r.name
		case r.uses[r.name] != "":
			id = r.uses[r.name]
		case c.shapes[r.ns+"#"+r.name] != nil:
			id = r.ns + "#" + r.name
		case prelude[r.name]:
			id = "smithy.api#" + r.name
		default:
			return fmt.Errorf("%s: shape %s is not defined", r.where, r.name)
		}
		m["target"] = id
	}
	return nil
}
