// Package objects decodes a rendered stream the way Tazuna's ConvertManifestsToObjects does
// (docs/compatibility.md#yaml-to-objects, step 1): apimachinery's YAMLOrJSONDecoder with a
// 4096-byte buffer, each document into a map[string]any (YAML 1.1 through sigs.k8s.io/yaml,
// numbers as float64). The engine takes the documents as JSON instead of parsing the YAML text
// again (docs/renderers.md#objects-from-the-native-program).
package objects

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"

	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
)

// Documents is the JSON array of the stream's documents in order, null for an empty one; nil
// when the stream does not decode (the engine then decodes the text itself, for its error
// message with line numbers) or a value has no JSON form.
func Documents(stream []byte) json.RawMessage {
	decoder := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(stream), 4096)
	documents := []map[string]any{}
	for {
		var data map[string]any
		if err := decoder.Decode(&data); err != nil {
			if errors.Is(err, io.EOF) {
				break
			}
			return nil
		}
		documents = append(documents, data)
	}
	out, err := json.Marshal(documents)
	if err != nil {
		return nil
	}
	return out
}
