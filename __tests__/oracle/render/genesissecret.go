package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"
)

type genesisSecret struct {
	Spec struct {
		Provider string `json:"provider"`
		Secrets  []struct {
			URI         string `json:"uri"`
			PreferLabel bool   `json:"preferLabel"`
			Items       map[string]struct {
				MapTo string `json:"mapTo"`
			} `json:"items"`
		} `json:"secrets"`
		Static  map[string]string `json:"static"`
		Outputs []struct {
			Stdout           *struct{} `json:"stdout"`
			KubernetesSecret *struct {
				Namespace   string            `json:"namespace"`
				Name        string            `json:"name"`
				Labels      map[string]string `json:"labels"`
				Annotations map[string]string `json:"annotations"`
				Type        string            `json:"type"`
			} `json:"kubernetesSecret"`
		} `json:"outputs"`
	} `json:"spec"`
}

// opField is one entry of `op --format json item get` output's "fields".
type opField struct {
	ID    string `json:"id"`
	Label string `json:"label"`
	Value string `json:"value"`
}

var opName = regexp.MustCompile(`^[\p{L}\p{N}_.\- ]+$`)

// buildGenesisSecret follows docs/compatibility.md#genesissecret Build: fetch every secrets[] entry
// through the provider, map items (mapTo), merge (later wins), static on top; one v1 Secret per
// kubernetesSecret output, marshalled with sigs.k8s.io/yaml and joined with "---\n".
func buildGenesisSecret(dir, path string, c fixtureCase) (string, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	var gs genesisSecret
	if err := yaml.Unmarshal(raw, &gs); err != nil {
		return "", err
	}
	if len(gs.Spec.Outputs) == 0 {
		return "", fmt.Errorf("no outputs defined")
	}
	merged := map[string]string{}
	for _, s := range gs.Spec.Secrets {
		fetched, err := fetch(dir, gs.Spec.Provider, s.URI, s.PreferLabel, c)
		if err != nil {
			return "", err
		}
		for key, item := range s.Items {
			v, ok := fetched[key]
			if !ok {
				return "", fmt.Errorf("key %s not found in fetched data", key)
			}
			merged[item.MapTo] = v
		}
	}
	for k, v := range gs.Spec.Static {
		merged[k] = v
	}
	var docs []string
	for _, o := range gs.Spec.Outputs {
		if o.KubernetesSecret == nil {
			continue
		}
		t := o.KubernetesSecret.Type
		if t == "" {
			t = string(corev1.SecretTypeOpaque)
		}
		secret := corev1.Secret{
			TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Secret"},
			ObjectMeta: metav1.ObjectMeta{
				Name:        o.KubernetesSecret.Name,
				Namespace:   o.KubernetesSecret.Namespace,
				Labels:      o.KubernetesSecret.Labels,
				Annotations: o.KubernetesSecret.Annotations,
			},
			StringData: merged,
			Type:       corev1.SecretType(t),
		}
		out, err := yaml.Marshal(secret)
		if err != nil {
			return "", err
		}
		docs = append(docs, string(out))
	}
	return strings.Join(docs, "---\n"), nil
}

func fetch(dir, providerName, uri string, preferLabel bool, c fixtureCase) (map[string]string, error) {
	if providerName == "" || providerName == "default-op" {
		rest, ok := strings.CutPrefix(uri, "op://")
		parts := strings.Split(rest, "/")
		if !ok || len(parts) != 3 || parts[0] == "" || !opName.MatchString(parts[1]) || !opName.MatchString(parts[2]) {
			return nil, fmt.Errorf("invalid op uri %q", uri)
		}
		fields, err := readOpItem(dir, parts[1], parts[2])
		if err != nil {
			return nil, err
		}
		out := map[string]string{}
		for _, f := range fields {
			if preferLabel {
				out[f.Label] = f.Value
			} else {
				out[f.ID] = f.Value
			}
		}
		return out, nil
	}
	for _, p := range c.Providers {
		if p.Name == providerName && p.Type == "envfile" {
			raw, err := os.ReadFile(filepath.Join(dir, p.Envfile.Path))
			if err != nil {
				return nil, err
			}
			return parseDotenv(string(raw)), nil
		}
	}
	return nil, fmt.Errorf("provider %q not found", providerName)
}

// parseDotenv: trim lines, skip blanks and # lines, split at the first '=', trim key and value,
// strip one pair of matching quotes (docs/compatibility.md#genesissecret).
func parseDotenv(text string) map[string]string {
	out := map[string]string{}
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		if !ok {
			continue
		}
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		if len(v) >= 2 && (v[0] == '"' || v[0] == '\'') && v[len(v)-1] == v[0] {
			v = v[1 : len(v)-1]
		}
		out[k] = v
	}
	return out
}

// readOpItem reads the recorded `op --format json item get --vault V I` output that the fixture's
// stand-in op script prints: DIR/op-items/V/I.json.
func readOpItem(dir, vault, item string) ([]opField, error) {
	raw, err := os.ReadFile(filepath.Join(fixtureDir, "op-items", vault, item+".json"))
	if err != nil {
		return nil, err
	}
	var doc struct {
		Fields []opField `json:"fields"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		return nil, err
	}
	_ = dir
	return doc.Fields, nil
}
