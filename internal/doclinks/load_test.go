package doclinks_test

import (
	"bufio"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"unicode"
)

// A module is a directory with a go.mod.
type module struct {
	path     string            // module path
	dir      string            // directory, relative to the repository root
	requires map[string]string // required module path → version
}

// A source is one parsed Go file of the repository.
type source struct {
	name    string // path relative to the repository root, with slashes
	file    *ast.File
	imports map[string]string // package name or last path element → import path
}

// A pkg is what doc links name in one package: its declarations, the
// members of each of its types, and the types each type embeds.
type pkg struct {
	path    string                     // import path
	name    string                     // package name
	top     map[string]bool            // package-level types, funcs, consts and vars
	members map[string]map[string]bool // type → its methods and fields
	embeds  map[string][]typeRef       // type → the types it embeds or aliases
}

// A typeRef names a type: path is its package's import path, "" for the
// package itself, "?" for a package that cannot be found.
type typeRef struct{ path, name string }

func newPkg(importPath, name string) *pkg {
	return &pkg{path: importPath, name: name, top: map[string]bool{},
		members: map[string]map[string]bool{}, embeds: map[string][]typeRef{}}
}

// readModules walks the repository from root and returns every module,
// innermost first (a directory belongs to the first whose dir contains
// it), and the Go files of each directory. It skips .git, vendor,
// testdata and node_modules, but not the other directories the go command
// leaves out of "./...": .ci holds a program of the root module.
func readModules(root string) ([]module, map[string][]string, error) {
	var mods []module
	goFiles := map[string][]string{} // dir → its .go files
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			n := d.Name()
			if rel != "." && (n == ".git" || n == "vendor" || n == "testdata" || n == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		switch {
		case d.Name() == "go.mod":
			m, err := readGoMod(p)
			if err != nil {
				return err
			}
			m.dir = path.Dir(rel)
			mods = append(mods, m)
		case strings.HasSuffix(d.Name(), ".go"):
			goFiles[path.Dir(rel)] = append(goFiles[path.Dir(rel)], rel)
		}
		return nil
	})
	sort.Slice(mods, func(i, j int) bool { return len(mods[i].dir) > len(mods[j].dir) })
	return mods, goFiles, err
}

// readGoMod reads the module path and the requirements of a go.mod.
func readGoMod(file string) (module, error) {
	m := module{requires: map[string]string{}}
	f, err := os.Open(file)
	if err != nil {
		return m, err
	}
	defer f.Close()
	inRequire := false
	for s := bufio.NewScanner(f); s.Scan(); {
		line, _, _ := strings.Cut(s.Text(), "//")
		fields := strings.Fields(line)
		switch {
		case len(fields) == 0:
		case fields[0] == "module" && len(fields) == 2:
			m.path = strings.Trim(fields[1], `"`)
		case fields[0] == "require" && len(fields) == 2 && fields[1] == "(":
			inRequire = true
		case inRequire && fields[0] == ")":
			inRequire = false
		case inRequire && len(fields) == 2:
			m.requires[fields[0]] = fields[1]
		case fields[0] == "require" && len(fields) == 3:
			m.requires[fields[1]] = fields[2]
		}
	}
	return m, nil
}

// parseFile parses a file of the repository with its comments.
func parseFile(fset *token.FileSet, root, name string) (*source, error) {
	f, err := parser.ParseFile(fset, filepath.Join(root, filepath.FromSlash(name)), nil,
		parser.ParseComments|parser.SkipObjectResolution)
	if err != nil {
		return nil, err
	}
	s := &source{name: name, file: f, imports: map[string]string{}}
	for _, spec := range f.Imports {
		p, err := strconv.Unquote(spec.Path.Value)
		if err != nil {
			continue
		}
		if spec.Name != nil && spec.Name.Name != "_" && spec.Name.Name != "." {
			s.imports[spec.Name.Name] = p
		}
		s.imports[path.Base(p)] = p
		s.imports[assumedName(p)] = p
	}
	return s, nil
}

// assumedName is the name a package is imported as when the import does
// not name it: its last path element, before a major version suffix,
// without a "go-" prefix, up to its first character that cannot be in an
// identifier.
func assumedName(importPath string) string {
	base := path.Base(importPath)
	if v := strings.TrimPrefix(base, "v"); v != base && path.Dir(importPath) != "." {
		if _, err := strconv.Atoi(v); err == nil {
			base = path.Base(path.Dir(importPath))
		}
	}
	base = strings.TrimPrefix(base, "go-")
	if i := strings.IndexFunc(base, func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '_'
	}); i >= 0 {
		base = base[:i]
	}
	return base
}

// add records the declarations of f in p. imports resolves the package
// of an embedded type from another package.
func (p *pkg) add(f *ast.File, imports map[string]string) {
	for _, decl := range f.Decls {
		switch d := decl.(type) {
		case *ast.FuncDecl:
			if d.Recv == nil || len(d.Recv.List) == 0 {
				p.top[d.Name.Name] = true
				continue
			}
			if t := baseType(d.Recv.List[0].Type, imports); t.path == "" {
				p.member(t.name, d.Name.Name)
			}
		case *ast.GenDecl:
			for _, spec := range d.Specs {
				switch s := spec.(type) {
				case *ast.ValueSpec:
					for _, n := range s.Names {
						p.top[n.Name] = true
					}
				case *ast.TypeSpec:
					p.top[s.Name.Name] = true
					p.member(s.Name.Name, "") // the type exists, maybe with no members
					if s.Assign.IsValid() {
						p.embeds[s.Name.Name] = append(p.embeds[s.Name.Name], baseType(s.Type, imports))
					}
					p.addMembers(s.Name.Name, s.Type, imports)
				}
			}
		}
	}
}

// addMembers records the fields of a struct type or the methods of an
// interface type, and what it embeds.
func (p *pkg) addMembers(typ string, expr ast.Expr, imports map[string]string) {
	var fields *ast.FieldList
	switch t := expr.(type) {
	case *ast.StructType:
		fields = t.Fields
	case *ast.InterfaceType:
		fields = t.Methods
	default:
		return
	}
	for _, f := range fields.List {
		if len(f.Names) == 0 { // embedded: its name is its type's
			ref := baseType(f.Type, imports)
			if ref.name != "" {
				p.member(typ, ref.name)
				p.embeds[typ] = append(p.embeds[typ], ref)
			}
			continue
		}
		for _, n := range f.Names {
			p.member(typ, n.Name)
		}
	}
}

func (p *pkg) member(typ, name string) {
	if p.members[typ] == nil {
		p.members[typ] = map[string]bool{}
	}
	if name != "" {
		p.members[typ][name] = true
	}
}

// baseType names the type in a receiver or an embedded field: T, *T,
// T[A, B] or pkg.T. A type of an unknown package has the path "?"; an
// expression that names no type has no name.
func baseType(expr ast.Expr, imports map[string]string) typeRef {
	for {
		switch e := expr.(type) {
		case *ast.Ident:
			return typeRef{name: e.Name}
		case *ast.StarExpr:
			expr = e.X
		case *ast.ParenExpr:
			expr = e.X
		case *ast.IndexExpr:
			expr = e.X
		case *ast.IndexListExpr:
			expr = e.X
		case *ast.SelectorExpr:
			x, ok := e.X.(*ast.Ident)
			if !ok {
				return typeRef{}
			}
			p, ok := imports[x.Name]
			if !ok {
				p = "?"
			}
			return typeRef{path: p, name: e.Sel.Name}
		default:
			return typeRef{}
		}
	}
}

// readDeclarations reads the declarations of the package in dir, without
// its tests; nil if dir holds no Go package. Of the files of other
// packages a directory may hold (a generator in package main behind a
// build constraint), it reads those of the package named as the import
// path says, or else of the package with the most files.
func readDeclarations(fset *token.FileSet, dir, importPath string) *pkg {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	files := map[string][]*ast.File{} // package name → its files
	for _, e := range entries {
		n := e.Name()
		if e.IsDir() || !strings.HasSuffix(n, ".go") || strings.HasSuffix(n, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, filepath.Join(dir, n), nil, parser.SkipObjectResolution)
		if err == nil {
			files[f.Name.Name] = append(files[f.Name.Name], f)
		}
	}
	name := assumedName(importPath)
	if files[name] == nil {
		for _, n := range sortedKeys(files) {
			if len(files[n]) > len(files[name]) {
				name = n
			}
		}
	}
	if files[name] == nil {
		return nil
	}
	p := newPkg(importPath, name)
	for _, f := range files[name] {
		imports := map[string]string{}
		for _, spec := range f.Imports {
			ip := strings.Trim(spec.Path.Value, `"`)
			imports[assumedName(ip)] = ip
			if spec.Name != nil {
				imports[spec.Name.Name] = ip
			}
		}
		p.add(f, imports)
	}
	return p
}

// escape writes a module path or version as the module cache does: an
// upper-case letter becomes "!" and its lower case.
func escape(s string) string {
	var b strings.Builder
	for _, r := range s {
		if unicode.IsUpper(r) {
			b.WriteByte('!')
			r = unicode.ToLower(r)
		}
		b.WriteRune(r)
	}
	return b.String()
}
