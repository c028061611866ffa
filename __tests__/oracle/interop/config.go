package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"text/template"

	"sigs.k8s.io/yaml"
)

// manifest is the part of a spec.manifests[] entry the oracle reads itself; the whole entry is
// kept as Raw and handed to the build oracle as its case.json "manifest".
type manifest struct {
	Name      string   `json:"name"`
	Type      string   `json:"type"`
	Tags      []string `json:"tags"`
	DependsOn []string `json:"dependsOn"`
	Includes  []struct {
		Path string `json:"path"`
	} `json:"includes"`
	Raw json.RawMessage `json:"-"`
}

type tazunaDoc struct {
	Spec struct {
		Manifests []json.RawMessage `json:"manifests"`
		Providers []json.RawMessage `json:"providers"`
	} `json:"spec"`
}

// config is a loaded tazuna.yaml: its manifests after include expansion
// (docs/compatibility.md#includes) and providers.
type config struct {
	Dir       string
	Manifests []manifest
	Providers []json.RawMessage
}

// loadConfig follows docs/compatibility.md#config-loading and docs/compatibility.md#includes:
// render the file as a Go text/template (missingkey=error, only .Environment), unmarshal with
// sigs.k8s.io/yaml (YAML 1.1 via go-yaml v2, then encoding/json), and splice in the manifests of
// include files, which are rendered the same way and resolved against the directory of the
// top-level file.
func loadConfig(file, environment string) (config, error) {
	dir := filepath.Dir(file)
	doc, err := renderDoc(file, environment)
	if err != nil {
		return config{}, err
	}
	out := config{Dir: dir, Providers: doc.Spec.Providers}
	for _, raw := range doc.Spec.Manifests {
		m, err := decodeManifest(raw)
		if err != nil {
			return config{}, err
		}
		if len(m.Includes) == 0 {
			out.Manifests = append(out.Manifests, m)
			continue
		}
		for _, inc := range m.Includes {
			included, err := renderDoc(filepath.Join(dir, inc.Path), environment)
			if err != nil {
				return config{}, err
			}
			for _, raw := range included.Spec.Manifests {
				im, err := decodeManifest(raw)
				if err != nil {
					return config{}, err
				}
				if len(im.Includes) > 0 {
					return config{}, fmt.Errorf("nested includes are not allowed in include file: %s", inc.Path)
				}
				out.Manifests = append(out.Manifests, im)
			}
		}
	}
	return out, nil
}

func renderDoc(file, environment string) (tazunaDoc, error) {
	raw, err := os.ReadFile(file)
	if err != nil {
		return tazunaDoc{}, err
	}
	tmpl, err := template.New(filepath.Base(file)).Option("missingkey=error").Parse(string(raw))
	if err != nil {
		return tazunaDoc{}, fmt.Errorf("failed to parse %s as a Go template: %w", file, err)
	}
	var buf bytes.Buffer
	data := struct{ Environment string }{environment}
	if err := tmpl.Execute(&buf, data); err != nil {
		return tazunaDoc{}, fmt.Errorf("failed to render %s as a Go template: %w", file, err)
	}
	var doc tazunaDoc
	if err := yaml.Unmarshal(buf.Bytes(), &doc); err != nil {
		return tazunaDoc{}, fmt.Errorf("%s: %w", file, err)
	}
	return doc, nil
}

func decodeManifest(raw json.RawMessage) (manifest, error) {
	var m manifest
	if err := json.Unmarshal(raw, &m); err != nil {
		return manifest{}, err
	}
	m.Raw = raw
	return m, nil
}

// selectedByTags is docs/compatibility.md#tags: no filter selects everything, otherwise any shared
// tag.
func selectedByTags(m manifest, filter []string) bool {
	if len(filter) == 0 {
		return true
	}
	for _, f := range filter {
		for _, t := range m.Tags {
			if f == t {
				return true
			}
		}
	}
	return false
}
