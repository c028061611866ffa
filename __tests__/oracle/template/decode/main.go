// Command decode unmarshals YAML documents with sigs.k8s.io/yaml into Go structs shaped like
// Tazuna's types (written from docs/compatibility.md#schema, #helmfile and
// docs/compatibility.md#genesissecret; type names as in src/config/schema-go.ts and
// src/render/helmfile-spec.ts), as Tazuna loads tazuna.yaml after rendering it, a GenesisSecret
// file or a rendered helmfile. Input: a JSON array whose items are either a YAML text (decoded as
// tazuna.yaml) or {"type": "GenesisSecret" | "Helmfile", "text": ...}; output: per item {"error"}
// (Go reports the first mismatch only) or {"value"} (the decoded struct, marshalled back to JSON).
package main

import (
	"encoding/json"
	"fmt"
	"os"

	"sigs.k8s.io/yaml"

	v1 "tazuna-action/oracle/template/decode/v1"
)

type result struct {
	Error string          `json:"error,omitempty"`
	Value json.RawMessage `json:"value,omitempty"`
}

type typedText struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

func main() {
	var items []json.RawMessage
	if err := json.NewDecoder(os.Stdin).Decode(&items); err != nil {
		fail(err)
	}
	results := make([]result, len(items))
	for i, item := range items {
		input := typedText{Type: "Tazuna"}
		if err := json.Unmarshal(item, &input.Text); err != nil {
			if err := json.Unmarshal(item, &input); err != nil {
				fail(err)
			}
		}
		target, err := targetFor(input.Type)
		if err != nil {
			fail(err)
		}
		if err := yaml.Unmarshal([]byte(input.Text), target); err != nil {
			results[i] = result{Error: err.Error()}
			continue
		}
		b, _ := json.Marshal(target)
		results[i] = result{Value: b}
	}
	_ = json.NewEncoder(os.Stdout).Encode(results)
}

func targetFor(name string) (any, error) {
	switch name {
	case "Tazuna":
		return &v1.Tazuna{}, nil
	case "GenesisSecret":
		return &v1.GenesisSecret{}, nil
	case "Helmfile":
		return &v1.Helmfile{}, nil
	}
	return nil, fmt.Errorf("unknown type %q", name)
}

func fail(err error) {
	os.Stderr.WriteString("decode oracle: " + err.Error() + "\n")
	os.Exit(2)
}
