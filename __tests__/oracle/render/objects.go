package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
)

// stateObject is one desired object as Tazuna records it.
type stateObject struct {
	Key    string         `json:"key"`
	Hash   string         `json:"hash"`
	Object map[string]any `json:"object"`
}

// convertManifestsToObjects follows docs/compatibility.md#yaml-to-objects: YAMLOrJSONDecoder
// (buffer 4096) into map[string]any, skip null and kind-less documents, expand List items, inject
// the default namespace when metadata.namespace is missing or null (cluster-scoped kinds too), CRDs
// first (stable).
func convertManifestsToObjects(text []byte, defaultNamespace string) ([]map[string]any, error) {
	dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(text), 4096)
	var objects []map[string]any
	for {
		var doc map[string]any
		if err := dec.Decode(&doc); err != nil {
			if errors.Is(err, io.EOF) {
				break
			}
			return nil, err
		}
		if doc == nil {
			continue
		}
		if _, ok := doc["kind"]; !ok {
			continue
		}
		if items, ok := doc["items"].([]any); ok && doc["kind"] == "List" {
			for _, item := range items {
				if m, ok := item.(map[string]any); ok {
					if err := applyDefaultNamespace(m, defaultNamespace); err != nil {
						return nil, err
					}
					objects = append(objects, m)
				}
			}
			continue
		}
		if err := applyDefaultNamespace(doc, defaultNamespace); err != nil {
			return nil, err
		}
		objects = append(objects, doc)
	}
	var crds, rest []map[string]any
	for _, o := range objects {
		if o["kind"] == "CustomResourceDefinition" && strings.HasPrefix(fmt.Sprint(o["apiVersion"]), "apiextensions.k8s.io/") {
			crds = append(crds, o)
		} else {
			rest = append(rest, o)
		}
	}
	return append(crds, rest...), nil
}

func applyDefaultNamespace(obj map[string]any, ns string) error {
	meta, present := obj["metadata"]
	if !present || meta == nil {
		meta = map[string]any{}
		obj["metadata"] = meta
	}
	m, ok := meta.(map[string]any)
	if !ok {
		return fmt.Errorf("metadata must be a mapping, got %T (kind: %v)", meta, obj["kind"])
	}
	if v, has := m["namespace"]; (!has || v == nil) && ns != "" {
		m["namespace"] = ns
	}
	return nil
}

// stateObjects computes docs/compatibility.md#state-keys keys and docs/compatibility.md#contenthash
// hashes.
func stateObjects(manifest string, objects []map[string]any) []stateObject {
	out := make([]stateObject, 0, len(objects))
	for _, o := range objects {
		out = append(out, stateObject{Key: stateKey(manifest, o), Hash: contentHash(o), Object: o})
	}
	return out
}

func stateKey(manifest string, o map[string]any) string {
	apiVersion, _ := o["apiVersion"].(string)
	group, version := "", apiVersion
	if i := strings.LastIndex(apiVersion, "/"); i >= 0 {
		group, version = apiVersion[:i], apiVersion[i+1:]
	}
	kind, _ := o["kind"].(string)
	meta, _ := o["metadata"].(map[string]any)
	ns, _ := meta["namespace"].(string)
	name, _ := meta["name"].(string)
	if ns == "" {
		return strings.Join([]string{manifest, group, version, kind, name}, "/")
	}
	return strings.Join([]string{manifest, group, version, kind, ns, name}, "/")
}

func contentHash(o map[string]any) string {
	raw, _ := json.Marshal(o)
	var c map[string]any
	_ = json.Unmarshal(raw, &c)
	if meta, ok := c["metadata"].(map[string]any); ok {
		for _, f := range []string{"resourceVersion", "uid", "creationTimestamp", "generation", "managedFields", "selfLink"} {
			delete(meta, f)
		}
	}
	delete(c, "status")
	canonical, _ := json.Marshal(c)
	sum := sha256.Sum256(canonical)
	return hex.EncodeToString(sum[:])
}
