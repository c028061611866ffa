package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"text/template"

	"github.com/Masterminds/sprig/v3"
	"helm.sh/helm/v3/pkg/action"
	"helm.sh/helm/v3/pkg/chart/loader"
	"helm.sh/helm/v3/pkg/chartutil"
	"sigs.k8s.io/yaml"
)

type helmfileOptions struct {
	Vars             map[string]helmfileVar `json:"vars"`
	IncludeCRDs      bool                   `json:"includeCRDs"`
	DefaultNamespace string                 `json:"defaultNamespace"`
	ExtraValueFiles  []string               `json:"extraValueFiles"`
	KubeVersion      string                 `json:"kubeVersion"`
}

type helmfileVar struct {
	From        string            `json:"from"`
	Env         string            `json:"env"`
	Static      string            `json:"static"`
	StaticSlice []string          `json:"staticSlice"`
	StaticMap   map[string]string `json:"staticMap"`
	Op          *struct {
		Key   string `json:"key"`
		Vault string `json:"vault"`
		Item  string `json:"item"`
		Field string `json:"field"`
	} `json:"op"`
}

type helmfileDoc struct {
	Releases []helmRelease `json:"releases"`
}

type helmRelease struct {
	Name      string `json:"name"`
	Namespace string `json:"namespace"`
	Chart     string `json:"chart"`
	Version   string `json:"version"`
	Values    []any  `json:"values"`
}

// buildHelmfile follows docs/compatibility.md#helmfile for local charts: vars, file resolution, Go
// template with sprig (minus env/expandenv, plus Helm's YAML/JSON functions, missingkey=zero), then
// one client-only Helm install dry run per release; outputs trimmed and joined with "\n---\n".
func buildHelmfile(path string, opts helmfileOptions, c fixtureCase) (string, error) {
	vars, err := resolveVars(opts.Vars, c, filepath.Dir(path))
	if err != nil {
		return "", err
	}
	if err := applyHintDefaults(filepath.Dir(path), vars); err != nil {
		return "", err
	}
	file, err := resolveHelmfile(path)
	if err != nil {
		return "", err
	}
	rendered, err := renderHelmfile(file, vars, c.Environment)
	if err != nil {
		return "", err
	}
	var doc helmfileDoc
	if err := yaml.Unmarshal(rendered, &doc); err != nil {
		return "", err
	}
	var outputs []string
	for _, r := range doc.Releases {
		out, err := renderRelease(filepath.Dir(file), r, opts, c.Capabilities)
		if err != nil {
			return "", fmt.Errorf("release %s: %w", r.Name, err)
		}
		if s := strings.TrimSpace(out); s != "" {
			outputs = append(outputs, s)
		}
	}
	return strings.Join(outputs, "\n---\n"), nil
}

func resolveVars(vars map[string]helmfileVar, c fixtureCase, dir string) (map[string]any, error) {
	out := map[string]any{}
	for name, v := range vars {
		switch v.From {
		case "env":
			val, ok := c.Env[v.Env]
			if !ok {
				return nil, fmt.Errorf("env %s is not set", v.Env)
			}
			out[name] = val
		case "static":
			switch {
			case v.StaticSlice != nil:
				out[name] = v.StaticSlice
			case v.StaticMap != nil:
				out[name] = v.StaticMap
			default:
				out[name] = v.Static
			}
		case "op":
			fields, err := readOpItem(dir, v.Op.Vault, v.Op.Item)
			if err != nil {
				return nil, err
			}
			found := false
			for _, f := range fields {
				if (v.Op.Key == "id" && f.ID == v.Op.Field) || (v.Op.Key == "label" && f.Label == v.Op.Field) {
					out[name], found = f.Value, true
					break
				}
			}
			if !found {
				return nil, fmt.Errorf("field %s not found", v.Op.Field)
			}
		}
	}
	return out, nil
}

func resolveHelmfile(path string) (string, error) {
	info, err := os.Stat(path)
	if err != nil {
		return "", err
	}
	if !info.IsDir() {
		return path, nil
	}
	for _, name := range []string{"helmfile.yaml.gotmpl", "helmfile.yaml", "helmfile.yml.gotmpl", "helmfile.yml"} {
		if _, err := os.Stat(filepath.Join(path, name)); err == nil {
			return filepath.Join(path, name), nil
		}
	}
	return "", fmt.Errorf("no helmfile in %s", path)
}

func renderHelmfile(file string, vars map[string]any, environment string) ([]byte, error) {
	raw, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	funcs := sprig.TxtFuncMap()
	delete(funcs, "env")
	delete(funcs, "expandenv")
	funcs["toYaml"] = func(v any) string {
		b, err := yaml.Marshal(v)
		if err != nil {
			return ""
		}
		return strings.TrimSuffix(string(b), "\n")
	}
	funcs["fromYaml"] = func(s string) map[string]any {
		m := map[string]any{}
		if err := yaml.Unmarshal([]byte(s), &m); err != nil {
			m["Error"] = err.Error()
		}
		return m
	}
	funcs["toJson"] = func(v any) string {
		b, err := json.Marshal(v)
		if err != nil {
			return ""
		}
		return string(b)
	}
	funcs["fromJson"] = func(s string) map[string]any {
		m := map[string]any{}
		if err := json.Unmarshal([]byte(s), &m); err != nil {
			m["Error"] = err.Error()
		}
		return m
	}
	tmpl, err := template.New(filepath.Base(file)).Funcs(funcs).Option("missingkey=zero").Parse(string(raw))
	if err != nil {
		return nil, err
	}
	name := environment
	if name == "" {
		name = "default"
	}
	data := map[string]any{"StateValues": vars, "Values": vars, "Environment": map[string]any{"Name": name}}
	var buf bytes.Buffer
	if err := tmpl.Execute(&buf, data); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func renderRelease(dir string, r helmRelease, opts helmfileOptions, caps *capabilities) (string, error) {
	vals := map[string]any{}
	for _, v := range r.Values {
		m, err := valuesEntry(dir, v)
		if err != nil {
			return "", err
		}
		vals = mergeMaps(vals, m)
	}
	for _, f := range opts.ExtraValueFiles {
		m, err := valuesEntry(dir, f)
		if err != nil {
			return "", err
		}
		vals = mergeMaps(vals, m)
	}
	chrt, err := loader.Load(filepath.Join(dir, r.Chart))
	if err != nil {
		return "", libraryError{err}
	}
	cfg := &action.Configuration{Log: func(string, ...any) {}}
	install := action.NewInstall(cfg)
	install.DryRun = true
	install.DryRunOption = "client"
	install.ClientOnly = true
	install.Replace = true
	install.ReleaseName = r.Name
	install.Namespace = r.Namespace
	install.Version = r.Version
	install.IncludeCRDs = opts.IncludeCRDs
	switch {
	case opts.KubeVersion != "":
		kv, err := chartutil.ParseKubeVersion(opts.KubeVersion)
		if err != nil {
			return "", err
		}
		install.KubeVersion = kv
	case caps != nil:
		kv, err := chartutil.ParseKubeVersion(caps.KubeVersion)
		if err != nil {
			return "", err
		}
		install.KubeVersion = kv
		install.APIVersions = caps.APIVersions
	}
	rel, err := install.Run(chrt, vals)
	if err != nil {
		return "", libraryError{err}
	}
	return rel.Manifest, nil
}

// valuesEntry reads one values[] entry: a file relative to the helmfile dir, an inline map, or null.
func valuesEntry(dir string, v any) (map[string]any, error) {
	switch t := v.(type) {
	case nil:
		return map[string]any{}, nil
	case map[string]any:
		return t, nil
	case string:
		raw, err := os.ReadFile(filepath.Join(dir, t))
		if err != nil {
			return nil, err
		}
		m := map[string]any{}
		if err := yaml.Unmarshal(raw, &m); err != nil {
			return nil, err
		}
		return m, nil
	}
	return nil, fmt.Errorf("unsupported values entry %T", v)
}

// mergeMaps is Helm's deep merge (helm.sh/helm/v3/pkg/cli/values): later wins, maps recurse.
func mergeMaps(a, b map[string]any) map[string]any {
	out := make(map[string]any, len(a))
	for k, v := range a {
		out[k] = v
	}
	for k, v := range b {
		if v, ok := v.(map[string]any); ok {
			if bv, ok := out[k]; ok {
				if bv, ok := bv.(map[string]any); ok {
					out[k] = mergeMaps(bv, v)
					continue
				}
			}
		}
		out[k] = v
	}
	return out
}

// applyHintDefaults gives every var declared in DIR/tazuna.hint.yaml and not provided its
// default or typed zero value (docs/compatibility.md#hint-files; validation is unit-tested on the
// TypeScript side). DIR is dir(path) as in Tazuna (docs/compatibility.md#hint-file-lookup), the
// parent directory when path is a directory.
func applyHintDefaults(dir string, vars map[string]any) error {
	raw, err := os.ReadFile(filepath.Join(dir, "tazuna.hint.yaml"))
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		return err
	}
	var hint struct {
		Vars map[string]struct {
			Type    string `json:"type"`
			Default any    `json:"default"`
		} `json:"vars"`
	}
	if err := yaml.Unmarshal(raw, &hint); err != nil {
		return err
	}
	for name, v := range hint.Vars {
		if _, ok := vars[name]; ok {
			continue
		}
		switch {
		case v.Default != nil:
			vars[name] = v.Default
		case v.Type == "slice":
			vars[name] = []any{}
		case v.Type == "map":
			vars[name] = map[string]any{}
		default:
			vars[name] = ""
		}
	}
	return nil
}
