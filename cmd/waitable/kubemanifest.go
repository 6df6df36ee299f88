package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/yaml"
)

// manifestObject is one object that a manifest (-f) names.
type manifestObject struct {
	gvk             schema.GroupVersionKind
	namespace, name string
	// source says where it is written: "app.yaml: document 2", with
	// ", item 3" for an item of a List.
	source string
}

// manifestExtensions are the files of a directory that -f reads, as
// kubectl's: a file named on the command line is read whatever its name.
var manifestExtensions = []string{".json", ".yaml", ".yml"}

// readManifests reads the objects of -f's paths, as kubectl's -f does: a
// file; a directory's .json, .yaml and .yml files (with recursive, as
// kubectl wait's -R is by default, its subdirectories' too), in lexical
// order; - for stdin; a path that does
// not exist as a glob pattern. A file holds YAML documents or JSON values,
// each an object or a List (any kind with items) of them. Bad input (a
// missing file, a YAML error, a document with no kind or name) is a
// usageError naming every file and document at fault.
func readManifests(paths []string, recursive bool, stdin io.Reader) ([]manifestObject, error) {
	var objs []manifestObject
	var errs []error
	stdinRead := false
	read := func(name string, r io.Reader) {
		o, err := readManifest(name, r)
		objs = append(objs, o...)
		if err != nil {
			errs = append(errs, err)
		}
	}
	for _, p := range paths {
		switch {
		case p == "-" && stdinRead:
			errs = append(errs, errors.New("-f -: standard input is given twice"))
		case p == "-":
			stdinRead = true
			read("standard input", stdin)
		case strings.HasPrefix(p, "http://") || strings.HasPrefix(p, "https://"):
			errs = append(errs, fmt.Errorf("-f %s: waitable reads files and standard input, not URLs (curl -sS URL | waitable kube -f - ...)", p))
		default:
			files, err := manifestFiles(p, recursive)
			if err != nil {
				errs = append(errs, err)
			}
			for _, name := range files {
				f, err := os.Open(name)
				if err != nil {
					errs = append(errs, fmt.Errorf("-f %s: %w", p, err))
					continue
				}
				read(name, f)
				f.Close()
			}
		}
	}
	if len(errs) == 0 && len(objs) == 0 {
		errs = append(errs, fmt.Errorf("-f %s: no objects", strings.Join(paths, ", ")))
	}
	if len(errs) > 0 {
		return nil, usageError{errors.Join(errs...)}
	}
	return objs, nil
}

// manifestFiles returns the files that -f path names.
func manifestFiles(path string, recursive bool) ([]string, error) {
	roots := []string{path}
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		roots, _ = filepath.Glob(path) // kubectl reads a pattern that names no file
		if len(roots) == 0 {
			return nil, fmt.Errorf("-f %s: no such file or directory", path)
		}
	}
	var files []string
	for _, root := range roots {
		err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			switch {
			case err != nil:
				return err
			case d.IsDir() && p != root && !recursive:
				return filepath.SkipDir
			case d.IsDir():
				return nil
			case p != root && !slices.Contains(manifestExtensions, filepath.Ext(p)):
				return nil
			}
			files = append(files, p)
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("-f %s: %w", path, err)
		}
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("-f %s: no %s file", path, strings.Join(manifestExtensions, ", "))
	}
	return files, nil
}

// readManifest reads the objects of one file (name as the errors call it):
// YAML documents or JSON values, in the order written, Lists flattened.
func readManifest(name string, r io.Reader) ([]manifestObject, error) {
	var objs []manifestObject
	var errs []error
	d := yaml.NewYAMLOrJSONDecoder(r, 4096)
	for doc := 1; ; doc++ {
		var raw runtime.RawExtension
		if err := d.Decode(&raw); err == io.EOF {
			break
		} else if err != nil {
			// The decoder cannot go on past a syntax error.
			errs = append(errs, fmt.Errorf("%s: document %d: %w", name, doc, err))
			break
		}
		b := bytes.TrimSpace(raw.Raw)
		if len(b) == 0 || string(b) == "null" {
			continue // an empty document, or only comments
		}
		where := fmt.Sprintf("%s: document %d", name, doc)
		var obj map[string]any
		if err := json.Unmarshal(b, &obj); err != nil {
			errs = append(errs, fmt.Errorf("%s: not an object (want apiVersion, kind and metadata.name)", where))
			continue
		}
		o, err := manifestObjects(obj, where)
		objs = append(objs, o...)
		if err != nil {
			errs = append(errs, err)
		}
	}
	return objs, errors.Join(errs...)
}

// manifestObjects returns obj, or the items of a List (any kind with
// items, as kubectl flattens them), each with its kind, namespace and
// name.
func manifestObjects(obj map[string]any, where string) ([]manifestObject, error) {
	u := &unstructured.Unstructured{Object: obj}
	if u.IsList() {
		items, _ := obj["items"].([]any)
		var objs []manifestObject
		var errs []error
		for i, item := range items {
			itemWhere := fmt.Sprintf("%s, item %d", where, i+1)
			m, ok := item.(map[string]any)
			if !ok {
				errs = append(errs, fmt.Errorf("%s: not an object", itemWhere))
				continue
			}
			o, err := manifestObjects(m, itemWhere)
			objs = append(objs, o...)
			if err != nil {
				errs = append(errs, err)
			}
		}
		return objs, errors.Join(errs...)
	}
	var missing []string
	if u.GetAPIVersion() == "" {
		missing = append(missing, "apiVersion")
	}
	if u.GetKind() == "" {
		missing = append(missing, "kind")
	}
	if u.GetName() == "" {
		missing = append(missing, "metadata.name")
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("%s: no %s (waitable waits for objects by kind and name)", where, strings.Join(missing, ", "))
	}
	gv, err := schema.ParseGroupVersion(u.GetAPIVersion())
	if err == nil && gv.Version == "" {
		err = errors.New("no version (want GROUP/VERSION, or VERSION for the core group)")
	}
	if err != nil {
		return nil, fmt.Errorf("%s: apiVersion %q: %w", where, u.GetAPIVersion(), err)
	}
	return []manifestObject{{gvk: gv.WithKind(u.GetKind()), namespace: u.GetNamespace(), name: u.GetName(), source: where}}, nil
}
