package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"sigs.k8s.io/yaml"
)

// marshalCases handles `go run . -yaml DIR`: DIR/cases.json is a list of {name, value} where
// value is a map of strings, nulls and maps; DIR/expected.json gets, per case, the text
// sigs.k8s.io/yaml.Marshal writes for it (JSON first, then go-yaml v2, as for a corev1.Secret).
func marshalCases(dir string) error {
	raw, err := os.ReadFile(filepath.Join(dir, "cases.json"))
	if err != nil {
		return err
	}
	var cases []struct {
		Name  string         `json:"name"`
		Value map[string]any `json:"value"`
	}
	if err := json.Unmarshal(raw, &cases); err != nil {
		return err
	}
	type result struct {
		Name string `json:"name"`
		YAML string `json:"yaml"`
	}
	out := make([]result, 0, len(cases))
	for _, c := range cases {
		text, err := yaml.Marshal(c.Value)
		if err != nil {
			return fmt.Errorf("%s: %w", c.Name, err)
		}
		out = append(out, result{Name: c.Name, YAML: string(text)})
	}
	js, err := json.MarshalIndent(out, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "expected.json"), append(js, '\n'), 0o644)
}
