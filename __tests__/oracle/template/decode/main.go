// Command decode unmarshals YAML documents with sigs.k8s.io/yaml into Go structs shaped like
// Tazuna's api/v1 types (written from the behaviour spec §2; type names as in
// src/config/schema-go.ts), as Tazuna loads tazuna.yaml after rendering it. Input: a JSON
// array of YAML texts; output: per text {"error"} (Go reports the first mismatch only) or
// {"value"} (the decoded struct, marshalled back to JSON).
package main

import (
	"encoding/json"
	"os"

	"sigs.k8s.io/yaml"

	v1 "tazuna-action/oracle/template/decode/v1"
)

type result struct {
	Error string          `json:"error,omitempty"`
	Value json.RawMessage `json:"value,omitempty"`
}

func main() {
	var texts []string
	if err := json.NewDecoder(os.Stdin).Decode(&texts); err != nil {
		os.Stderr.WriteString("decode oracle: " + err.Error() + "\n")
		os.Exit(2)
	}
	results := make([]result, len(texts))
	for i, text := range texts {
		var t v1.Tazuna
		if err := yaml.Unmarshal([]byte(text), &t); err != nil {
			results[i] = result{Error: err.Error()}
			continue
		}
		b, _ := json.Marshal(t)
		results[i] = result{Value: b}
	}
	_ = json.NewEncoder(os.Stdout).Encode(results)
}
