// Command kustomize is the render program for `type: kustomize` manifests: loaded by
// src/adapters/render/module.ts only when such a manifest renders (docs/renderers.md). Built
// to WebAssembly for every platform, and natively for Linux (docs/renderers.md#native-kustomize).
package main

import (
	"encoding/json"

	"tazuna-action/render/bridge"
	"tazuna-action/render/internal/kustomize"
)

func main() {
	bridge.Serve(map[string]bridge.Handler{
		"kustomize": func(payload json.RawMessage, opts bridge.Options) (bridge.Result, error) {
			var in kustomize.Input
			if err := json.Unmarshal(payload, &in); err != nil {
				return bridge.Result{}, err
			}
			out, reads, err := kustomize.Build(in, opts.Policies)
			result := bridge.Result{Output: out, Reads: reads}
			if err == nil && opts.Documents {
				result.Documents = documents([]byte(out))
			}
			return result, err
		},
	})
}
