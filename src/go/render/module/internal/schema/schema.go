// Package schema checks objects against the schema a cluster serves, with the code the API
// server's server-side apply decides with: apimachinery's managedfields.NewTypeConverter fed
// by the cluster's /openapi/v3 documents (kube-openapi spec3), and ObjectToTyped without
// duplicates allowed, as the server converts an apply patch. Its errors are the server's words
// (".spec.replica: field not declared in schema"), which the API server wraps as
// "failed to create typed patch object (<ns>/<name>; <gvk>): <error>"
// (docs/risks.md#schema-findings).
package schema

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"sort"
	"sync"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	k8sschema "k8s.io/apimachinery/pkg/runtime/schema"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	"k8s.io/apimachinery/pkg/util/managedfields"
	"k8s.io/kube-openapi/pkg/validation/spec"
	"sigs.k8s.io/structured-merge-diff/v6/typed"
)

// Input is one check: the /openapi/v3 documents of the group/versions the objects are of (by
// group/version, as JSON; only their components' schemas are read, and the engine sends those
// alone, docs/risks.md#cost-of-the-api-and-schema-checks), the CustomResourceDefinitions of the
// custom kinds among them (apiextensions.k8s.io/v1, as JSON), and the objects as JSON.
type Input struct {
	Schemas map[string]json.RawMessage `json:"schemas"`
	CRDs    []json.RawMessage          `json:"crds,omitempty"`
	Objects []json.RawMessage          `json:"objects"`
}

// Finding is one error of one object: its field path as the server writes it (".spec.replica")
// and the error as the server words it.
type Finding struct {
	Path    string `json:"path"`
	Message string `json:"message"`
}

// Result holds, for each object in order, its findings; null for an object of a kind neither a
// document nor a CRD declares (not checked).
type Result struct {
	Results []*[]Finding `json:"results"`
}

type converter struct {
	tc      managedfields.TypeConverter
	kinds   map[k8sschema.GroupVersionKind]bool
	schemas map[string]*spec.Schema
}

var (
	mu    sync.Mutex
	cache = map[[32]byte]*converter{}
)

// Check converts every object as the server converts an apply patch.
func Check(in Input) (Result, error) {
	c, err := converterOf(in.Schemas)
	if err != nil {
		return Result{}, err
	}
	crds := crdVersions(in.CRDs)
	crdTypes := crdTypeConverters(in.CRDs, c.schemas)
	out := Result{Results: make([]*[]Finding, len(in.Objects))}
	for i, raw := range in.Objects {
		var content map[string]interface{}
		if err := utiljson.Unmarshal(raw, &content); err != nil {
			return Result{}, fmt.Errorf("object %d: %w", i, err)
		}
		obj := &unstructured.Unstructured{Object: content}
		gvk := obj.GroupVersionKind()
		crd := crds[gvk]
		// A kind the input's CRD defines is converted as the server will convert it once that CRD
		// is applied (the Diff's own, which the cluster may not publish yet or publishes as it was),
		// or as it converts it now (the cluster's, whose published schema is the same:
		// crdtypes.go); another kind with the cluster's documents.
		tc := crdTypes[gvk]
		if tc == nil && c.kinds[gvk] {
			tc = c.tc
		}
		if tc == nil && crd == nil {
			continue
		}
		findings := []Finding{}
		if tc != nil {
			if _, err := tc.ObjectToTyped(obj); err != nil {
				if errs, ok := err.(typed.ValidationErrors); ok {
					for _, e := range errs {
						findings = append(findings, Finding{Path: e.Path, Message: e.Error()})
					}
				} else {
					findings = append(findings, Finding{Message: err.Error()})
				}
			}
		}
		// The server refuses an apply patch it cannot convert (500) before it validates the
		// custom resource the patch makes (422): only one of them is the server's answer.
		if len(findings) == 0 && crd != nil {
			findings = findingsOf(crd.validate(obj.DeepCopy().Object))
		}
		out.Results[i] = &findings
	}
	return out, nil
}

// converterOf builds (once per set of documents in this process) the type converter of the
// documents' component schemas merged, as client-go's openapi.NewTypeConverter does.
func converterOf(documents map[string]json.RawMessage) (*converter, error) {
	names := make([]string, 0, len(documents))
	for gv := range documents {
		names = append(names, gv)
	}
	sort.Strings(names)
	h := sha256.New()
	for _, gv := range names {
		fmt.Fprintf(h, "%s\x00%d\x00%s", gv, len(documents[gv]), documents[gv])
	}
	var key [32]byte
	copy(key[:], h.Sum(nil))
	mu.Lock()
	defer mu.Unlock()
	if c, ok := cache[key]; ok {
		return c, nil
	}
	schemas := map[string]*spec.Schema{}
	for _, gv := range names {
		// spec3.OpenAPI's components, without its paths (three quarters of a document's bytes),
		// which the converter does not read.
		var doc struct {
			Components *struct {
				Schemas map[string]*spec.Schema `json:"schemas"`
			} `json:"components"`
		}
		if err := json.Unmarshal(documents[gv], &doc); err != nil {
			return nil, fmt.Errorf("the OpenAPI document of %s: %w", gv, err)
		}
		if doc.Components == nil {
			continue
		}
		for name, s := range doc.Components.Schemas {
			schemas[name] = s
		}
	}
	tc, err := managedfields.NewTypeConverter(schemas, false)
	if err != nil {
		return nil, err
	}
	c := &converter{tc: tc, kinds: kindsOf(schemas), schemas: schemas}
	if len(cache) >= 8 {
		cache = map[[32]byte]*converter{}
	}
	cache[key] = c
	return c, nil
}

// kindsOf reads the x-kubernetes-group-version-kind extension of every schema, as
// NewTypeConverter indexes them.
func kindsOf(schemas map[string]*spec.Schema) map[k8sschema.GroupVersionKind]bool {
	kinds := map[k8sschema.GroupVersionKind]bool{}
	for _, s := range schemas {
		list, ok := s.Extensions["x-kubernetes-group-version-kind"].([]interface{})
		if !ok {
			continue
		}
		for _, item := range list {
			m, ok := item.(map[string]interface{})
			if !ok {
				continue
			}
			g, _ := m["group"].(string)
			v, _ := m["version"].(string)
			k, _ := m["kind"].(string)
			if k != "" {
				kinds[k8sschema.GroupVersionKind{Group: g, Version: v, Kind: k}] = true
			}
		}
	}
	return kinds
}
