// Command hash-oracle turns a rendered YAML stream into Tazuna state entries with Go's own
// libraries, so the TypeScript port can be checked against real Go behaviour.
//
// It is written from the behaviour spec (docs/compatibility.md#yaml-to-objects conversion,
// docs/compatibility.md#state-keys state key, docs/compatibility.md#contenthash content hash) on
// top of the libraries Tazuna uses: k8s.io/apimachinery's YAMLOrJSONDecoder (which decodes each
// YAML document with sigs.k8s.io/yaml, i.e. YAML 1.1 -> JSON -> encoding/json) and
// unstructured.Unstructured for apiVersion/kind/namespace/name.
//
// Usage:
//
//	go run . -manifest m -namespace ns < stream.yaml   # one JSON line per object
//	go run . -fixtures DIR                              # DIR/cases.json -> DIR/expected.json
package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
)

// entry is one object as Tazuna records it.
type entry struct {
	Key       string `json:"key"`
	Hash      string `json:"hash"`
	Canonical string `json:"canonical"`
}

// fixtureCase is one input of DIR/cases.json.
type fixtureCase struct {
	Name             string `json:"name"`
	File             string `json:"file"`
	Manifest         string `json:"manifest"`
	DefaultNamespace string `json:"defaultNamespace"`
	Note             string `json:"note,omitempty"`
}

// fixtureResult is one case of DIR/expected.json: the objects in order, or the Go error.
type fixtureResult struct {
	fixtureCase
	Objects []entry `json:"objects"`
	Error   string  `json:"error,omitempty"`
}

func main() {
	manifest := flag.String("manifest", "m", "manifest name used in state keys")
	namespace := flag.String("namespace", "", "default namespace (kustomize/helmfile defaultNamespace)")
	fixtures := flag.String("fixtures", "", "directory with cases.json; writes expected.json there")
	flag.Parse()

	if *fixtures != "" {
		if err := writeFixtures(*fixtures); err != nil {
			fmt.Fprintln(os.Stderr, "error:", err)
			os.Exit(1)
		}
		return
	}
	input, err := io.ReadAll(os.Stdin)
	if err != nil {
		fmt.Fprintln(os.Stderr, "error:", err)
		os.Exit(1)
	}
	entries, err := entriesOf(input, *manifest, *namespace)
	if err != nil {
		fmt.Fprintln(os.Stderr, "error:", err)
		os.Exit(1)
	}
	enc := json.NewEncoder(os.Stdout)
	enc.SetEscapeHTML(false)
	for _, e := range entries {
		if err := enc.Encode(e); err != nil {
			fmt.Fprintln(os.Stderr, "error:", err)
			os.Exit(1)
		}
	}
}

func writeFixtures(dir string) error {
	raw, err := os.ReadFile(filepath.Join(dir, "cases.json"))
	if err != nil {
		return err
	}
	var cases []fixtureCase
	if err := json.Unmarshal(raw, &cases); err != nil {
		return fmt.Errorf("cases.json: %w", err)
	}
	results := make([]fixtureResult, 0, len(cases))
	for _, c := range cases {
		input, err := os.ReadFile(filepath.Join(dir, c.File))
		if err != nil {
			return err
		}
		r := fixtureResult{fixtureCase: c, Objects: []entry{}}
		entries, err := entriesOf(input, c.Manifest, c.DefaultNamespace)
		if err != nil {
			r.Error = err.Error()
		} else {
			r.Objects = entries
		}
		results = append(results, r)
	}
	var out bytes.Buffer
	enc := json.NewEncoder(&out)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(results); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "expected.json"), out.Bytes(), 0o644)
}

func entriesOf(input []byte, manifest, namespace string) ([]entry, error) {
	objects, err := convert(input, namespace)
	if err != nil {
		return nil, err
	}
	entries := make([]entry, 0, len(objects))
	for _, obj := range objects {
		canonical, err := canonicalOf(obj.Object)
		if err != nil {
			return nil, err
		}
		sum := sha256.Sum256(canonical)
		entries = append(entries, entry{
			Key:       stateKey(manifest, obj),
			Hash:      hex.EncodeToString(sum[:]),
			Canonical: string(canonical),
		})
	}
	return entries, nil
}

// convert is docs/compatibility.md#yaml-to-objects: decode the stream, skip null and kind-less
// documents, expand List items, default metadata.namespace, then move CRDs to the front (stable).
func convert(input []byte, namespace string) ([]*unstructured.Unstructured, error) {
	var objects []*unstructured.Unstructured
	decoder := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(input), 4096)
	for {
		var data map[string]any
		if err := decoder.Decode(&data); err != nil {
			if errors.Is(err, io.EOF) {
				break
			}
			return nil, err
		}
		if data == nil {
			continue
		}
		if _, ok := data["kind"]; !ok {
			continue
		}
		if data["kind"] == "List" {
			if items, ok := data["items"].([]any); ok {
				for _, item := range items {
					itemData, ok := item.(map[string]any)
					if !ok {
						continue
					}
					if err := defaultNamespace(itemData, namespace); err != nil {
						return nil, err
					}
					objects = append(objects, &unstructured.Unstructured{Object: itemData})
				}
				continue
			}
		}
		if err := defaultNamespace(data, namespace); err != nil {
			return nil, err
		}
		objects = append(objects, &unstructured.Unstructured{Object: data})
	}
	var crds, rest []*unstructured.Unstructured
	for _, obj := range objects {
		gvk := obj.GroupVersionKind()
		if gvk.Group == "apiextensions.k8s.io" && gvk.Kind == "CustomResourceDefinition" {
			crds = append(crds, obj)
		} else {
			rest = append(rest, obj)
		}
	}
	return append(crds, rest...), nil
}

func defaultNamespace(data map[string]any, namespace string) error {
	if data["metadata"] == nil {
		data["metadata"] = map[string]any{}
	}
	metadata, ok := data["metadata"].(map[string]any)
	if !ok {
		return fmt.Errorf("metadata must be a mapping, got %T (kind: %v)", data["metadata"], data["kind"])
	}
	if metadata["namespace"] == nil && namespace != "" {
		metadata["namespace"] = namespace
	}
	return nil
}

// stateKey is docs/compatibility.md#state-keys, read through unstructured accessors like Tazuna
// does.
func stateKey(manifest string, obj *unstructured.Unstructured) string {
	gvk := obj.GroupVersionKind()
	if ns := obj.GetNamespace(); ns != "" {
		return fmt.Sprintf("%s/%s/%s/%s/%s/%s", manifest, gvk.Group, gvk.Version, gvk.Kind, ns, obj.GetName())
	}
	return fmt.Sprintf("%s/%s/%s/%s/%s", manifest, gvk.Group, gvk.Version, gvk.Kind, obj.GetName())
}

// canonicalOf is docs/compatibility.md#contenthash steps 1-4 without the final sha256: JSON round
// trip, drop the six server-side metadata fields and status, json.Marshal.
func canonicalOf(object map[string]any) ([]byte, error) {
	raw, err := json.Marshal(object)
	if err != nil {
		return nil, err
	}
	var copied map[string]any
	if err := json.Unmarshal(raw, &copied); err != nil {
		return nil, err
	}
	if metadata, ok := copied["metadata"].(map[string]any); ok {
		for _, f := range []string{"resourceVersion", "uid", "creationTimestamp", "generation", "managedFields", "selfLink"} {
			delete(metadata, f)
		}
	}
	delete(copied, "status")
	return json.Marshal(copied)
}
