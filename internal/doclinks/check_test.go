package doclinks_test

import (
	"fmt"
	"go/ast"
	"go/doc/comment"
	"go/token"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
)

// A checker finds the doc links of a repository that do not resolve.
type checker struct {
	root     string // the repository
	goroot   string // the standard library is under goroot/src
	modcache string // external modules are under modcache, as the go command puts them
	fset     *token.FileSet
	mods     []module          // innermost first
	pkgs     map[string]*pkg   // import path → package; nil: no package there
	byName   map[string]string // package name → import path in the repository; "": two have it
	problems []string
}

// A dir is the Go files of one directory of the repository.
type dir struct {
	path           string // import path
	mod            *module
	base           []*source         // the package
	tests, xtests  []*source         // its _test.go files, in the package and in package x_test
	imports        map[string]string // what base imports, by name
	pkg, withTests *pkg              // the declarations of base, and of base and tests
	xpkg           *pkg              // the declarations of xtests
}

// check returns every doc link under root that does not resolve, each as
//
//	file:line: [Link] does not resolve
//
// A doc link is what go/doc/comment makes a link of, with the lookup of
// symbols answering yes to everything, so that a link to a name that is
// gone is still a link:
//
//	[Name] [Name.Member] [pkg] [pkg.Name] [pkg.Name.Member]
//
// each maybe after a "*", where pkg is a package the file imports, this
// package's name, a package of the repository by its name, a
// single-element standard package, or an import path. Its target must
// exist: a package-level name, or a method or field of the type (promoted
// ones included), in the package linked. The package is read from the
// repository, from the standard library under goroot, or from the module
// cache for a module the file's go.mod requires. A link into a module that
// the go.mod does not require, or that is not in the module cache, is not
// checked: nothing here downloads.
func check(root, goroot, modcache string) ([]string, error) {
	c := &checker{root: root, goroot: goroot, modcache: modcache, fset: token.NewFileSet(),
		pkgs: map[string]*pkg{}, byName: map[string]string{}}
	mods, goFiles, err := readModules(root)
	if err != nil {
		return nil, err
	}
	c.mods = mods
	var dirs []*dir
	for _, name := range sortedKeys(goFiles) {
		d, err := c.readDir(name, goFiles[name])
		if err != nil {
			return nil, err
		}
		if d != nil {
			dirs = append(dirs, d)
		}
	}
	for _, d := range dirs {
		for _, s := range d.base {
			c.checkFile(d, s, d.pkg, d.imports)
		}
		for _, s := range d.tests {
			c.checkFile(d, s, d.withTests, d.imports)
		}
		for _, s := range d.xtests {
			c.checkFile(d, s, d.xpkg, nil)
		}
	}
	return c.problems, nil
}

// readDir parses the Go files of a directory and records its package.
func (c *checker) readDir(name string, files []string) (*dir, error) {
	mod := c.moduleOf(name)
	if mod == nil {
		return nil, nil
	}
	rel := name
	if mod.dir != "." {
		rel = strings.TrimPrefix(strings.TrimPrefix(name, mod.dir), "/")
	}
	d := &dir{path: path.Join(mod.path, rel), mod: mod, imports: map[string]string{}}
	baseName := ""
	for _, f := range files {
		s, err := parseFile(c.fset, c.root, f)
		if err != nil {
			return nil, err
		}
		n := s.file.Name.Name
		switch {
		case !strings.HasSuffix(f, "_test.go"):
			d.base, baseName = append(d.base, s), n
			for k, v := range s.imports {
				d.imports[k] = v
			}
		case strings.HasSuffix(n, "_test"):
			d.xtests = append(d.xtests, s)
		default:
			d.tests, baseName = append(d.tests, s), n
		}
	}
	d.pkg, d.withTests = newPkg(d.path, baseName), newPkg(d.path, baseName)
	d.xpkg = newPkg(d.path+"_test", baseName+"_test")
	for _, s := range d.base {
		d.pkg.add(s.file, s.imports)
		d.withTests.add(s.file, s.imports)
	}
	for _, s := range d.tests {
		d.withTests.add(s.file, s.imports)
	}
	for _, s := range d.xtests {
		d.xpkg.add(s.file, s.imports)
	}
	if len(d.base) > 0 {
		c.pkgs[d.path] = d.pkg
		if _, dup := c.byName[baseName]; dup {
			c.byName[baseName] = "" // two packages of this name: a link must say which
		} else {
			c.byName[baseName] = d.path
		}
	}
	return d, nil
}

// moduleOf returns the module a directory of the repository belongs to.
func (c *checker) moduleOf(dir string) *module {
	for i := range c.mods {
		m := &c.mods[i]
		if m.dir == "." || dir == m.dir || strings.HasPrefix(dir, m.dir+"/") {
			return m
		}
	}
	return nil
}

// checkFile checks the doc links in the doc comments of s: the package
// doc, the doc of every declaration, exported or not, of every method,
// struct field and interface method.
func (c *checker) checkFile(d *dir, s *source, scope *pkg, pkgImports map[string]string) {
	p := &comment.Parser{
		LookupPackage: func(name string) (string, bool) {
			if p, ok := s.imports[name]; ok {
				return p, true
			}
			if p, ok := pkgImports[name]; ok {
				return p, true
			}
			if name == scope.name {
				return scope.path, true
			}
			if p := c.byName[name]; p != "" {
				return p, true
			}
			return "", false
		},
		LookupSym: func(recv, name string) bool { return true },
	}
	for _, cg := range docComments(s.file) {
		var links []*comment.DocLink
		collectLinks(p.Parse(cg.Text()).Content, &links)
		cur := cursor{}
		for _, l := range links {
			text := linkText(l)
			line := cur.find(c.fset, cg, "["+text+"]")
			if !c.resolves(d, scope, l) {
				c.problems = append(c.problems, fmt.Sprintf("%s:%d: [%s] does not resolve", s.name, line, text))
			}
		}
	}
}

// resolves reports whether the target of l exists, or cannot be checked.
func (c *checker) resolves(d *dir, scope *pkg, l *comment.DocLink) bool {
	target := scope
	if l.ImportPath != "" && l.ImportPath != scope.path {
		var known bool
		target, known = c.load(l.ImportPath, d.mod)
		if !known {
			return true
		}
		if l.ImportPath == d.path && scope == d.xpkg {
			target = d.withTests // package x_test sees x's export_test.go
		}
	}
	switch {
	case target == nil:
		return false
	case l.Name == "":
		return true
	case l.Recv == "":
		return target.top[l.Name]
	default:
		return c.hasMember(target, l.Recv, l.Name, d.mod, 0)
	}
}

// hasMember reports whether typ in p has a method or field name, its own
// or promoted from a type it embeds.
func (c *checker) hasMember(p *pkg, typ, name string, mod *module, depth int) bool {
	if p.members[typ][name] {
		return true
	}
	if depth > 10 {
		return false
	}
	for _, e := range p.embeds[typ] {
		target, known := p, e.path != "?"
		if known && e.path != "" {
			target, known = c.load(e.path, mod)
		}
		if !known {
			return true // promoted from a package not checked here
		}
		if target != nil && c.hasMember(target, e.name, name, mod, depth+1) {
			return true
		}
	}
	return false
}

// load returns the package at importPath: known is false when it is
// neither in the repository, nor in the standard library, nor in a module
// that mod requires and that is in the module cache.
func (c *checker) load(importPath string, mod *module) (p *pkg, known bool) {
	if p, ok := c.pkgs[importPath]; ok {
		return p, true
	}
	for _, m := range c.mods {
		if importPath == m.path || strings.HasPrefix(importPath, m.path+"/") {
			return nil, true // the repository's packages are read already
		}
	}
	var dir string
	if first, _, _ := strings.Cut(importPath, "/"); !strings.Contains(first, ".") {
		dir = filepath.Join(c.goroot, "src", filepath.FromSlash(importPath))
	} else {
		modPath := ""
		for m := range mod.requires {
			if (importPath == m || strings.HasPrefix(importPath, m+"/")) && len(m) > len(modPath) {
				modPath = m
			}
		}
		if modPath == "" || c.modcache == "" {
			return nil, false
		}
		modDir := filepath.Join(c.modcache, escape(modPath)+"@"+escape(mod.requires[modPath]))
		if _, err := os.Stat(modDir); err != nil {
			return nil, false
		}
		dir = filepath.Join(modDir, filepath.FromSlash(strings.TrimPrefix(importPath, modPath)))
	}
	p = readDeclarations(c.fset, dir, importPath)
	c.pkgs[importPath] = p
	return p, true
}

// docComments returns the doc comments of f: the package doc, and the doc
// and line comments of every declaration and of every field and method in
// the types it declares.
func docComments(f *ast.File) []*ast.CommentGroup {
	var out []*ast.CommentGroup
	add := func(cgs ...*ast.CommentGroup) {
		for _, cg := range cgs {
			if cg != nil {
				out = append(out, cg)
			}
		}
	}
	add(f.Doc)
	for _, decl := range f.Decls {
		switch d := decl.(type) {
		case *ast.FuncDecl:
			add(d.Doc)
		case *ast.GenDecl:
			add(d.Doc)
			for _, spec := range d.Specs {
				switch s := spec.(type) {
				case *ast.ValueSpec:
					add(s.Doc, s.Comment)
				case *ast.TypeSpec:
					add(s.Doc, s.Comment)
					ast.Inspect(s.Type, func(n ast.Node) bool {
						if f, ok := n.(*ast.Field); ok {
							add(f.Doc, f.Comment)
						}
						return true
					})
				}
			}
		}
	}
	return out
}

// collectLinks appends the doc links in blocks to links. Code blocks hold
// none.
func collectLinks(blocks []comment.Block, links *[]*comment.DocLink) {
	texts := func(ts []comment.Text) {
		for _, t := range ts {
			if l, ok := t.(*comment.DocLink); ok {
				*links = append(*links, l)
			}
		}
	}
	for _, b := range blocks {
		switch b := b.(type) {
		case *comment.Paragraph:
			texts(b.Text)
		case *comment.Heading:
			texts(b.Text)
		case *comment.List:
			for _, item := range b.Items {
				collectLinks(item.Content, links)
			}
		}
	}
}

// linkText is the text of a doc link as written, between its brackets.
func linkText(l *comment.DocLink) string {
	var b strings.Builder
	for _, t := range l.Text {
		switch t := t.(type) {
		case comment.Plain:
			b.WriteString(string(t))
		case comment.Italic:
			b.WriteString(string(t))
		}
	}
	return b.String()
}

// A cursor walks through a comment group to find the line of each link in
// turn.
type cursor struct{ comment, offset int }

// find returns the line of the next occurrence of s in cg, or the line cg
// starts on.
func (cur *cursor) find(fset *token.FileSet, cg *ast.CommentGroup, s string) int {
	for ci, off := cur.comment, cur.offset; ci < len(cg.List); ci, off = ci+1, 0 {
		c := cg.List[ci]
		if i := strings.Index(c.Text[off:], s); i >= 0 {
			i += off
			cur.comment, cur.offset = ci, i+len(s)
			return fset.Position(c.Slash).Line + strings.Count(c.Text[:i], "\n")
		}
	}
	return fset.Position(cg.Pos()).Line
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
