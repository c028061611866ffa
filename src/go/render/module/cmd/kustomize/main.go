//go:build js && wasm

// Command kustomize is the render program for `type: kustomize` manifests: loaded by
// src/adapters/go-render-module.ts only when such a manifest renders (docs/renderers.md).
package main

import (
	"encoding/json"

	"tazuna-action/render/bridge"
	"tazuna-action/render/internal/kustomize"
)

func main() {
	bridge.Serve(map[string]bridge.Handler{
		"kustomize": func(payload json.RawMessage) (bridge.Result, error) {
			var in kustomize.Input
			if err := json.Unmarshal(payload, &in); err != nil {
				return bridge.Result{}, err
			}
			out, reads, err := kustomize.Build(in)
			return bridge.Result{Output: out, Reads: reads}, err
		},
	})
}
