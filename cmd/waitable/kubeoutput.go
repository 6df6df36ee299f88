package main

import (
	"encoding/json"
	"fmt"
	"io"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/yaml"

	"github.com/waitable/waitable/kubewait"
)

// kubeOutput prints the objects that met --for on standard output, as
// kubectl wait's printers do: by default kubectl's line
// (widget.waitable.test/a condition met); with -o name the name
// (widget.waitable.test/a); with -o json the object as indented JSON, and
// with -o yaml as YAML documents separated by ---, without its
// managedFields (kubectl's --show-managed-fields=false).
type kubeOutput struct {
	format  string // "", "name", "json" or "yaml"
	w       io.Writer
	printed int
}

// print prints obj, whose kind is gvk, once.
func (o *kubeOutput) print(gvk schema.GroupVersionKind, obj kubewait.ObjectResult) {
	defer func() { o.printed++ }()
	switch o.format {
	case "name":
		fmt.Fprintf(o.w, "%s/%s\n", kindName(gvk), obj.Name)
		return
	case "json", "yaml":
	default:
		fmt.Fprintf(o.w, "%s/%s condition met\n", kindName(gvk), obj.Name)
		return
	}
	object := obj.Object
	if object == nil { // never seen: an object already gone when a delete wait began
		meta := map[string]any{"name": obj.Name}
		if obj.Namespace != "" {
			meta["namespace"] = obj.Namespace
		}
		object = map[string]any{"apiVersion": gvk.GroupVersion().String(), "kind": gvk.Kind, "metadata": meta}
	}
	// An object read as JSON marshals again.
	if o.format == "json" {
		b, _ := json.MarshalIndent(object, "", "    ")
		fmt.Fprintf(o.w, "%s\n", b)
		return
	}
	b, _ := yaml.Marshal(object)
	if o.printed > 0 {
		fmt.Fprint(o.w, "---\n")
	}
	o.w.Write(b) //nolint:errcheck // standard output: nothing to do about an error
}
