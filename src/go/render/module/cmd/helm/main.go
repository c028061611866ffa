//go:build js && wasm

// Command helm is the render program for `type: helm` (helmfile releases) manifests: loaded by
// src/adapters/go-render-module.ts only when such a manifest renders (docs/renderers.md).
package main

import (
	"encoding/json"

	"tazuna-action/render/bridge"
	"tazuna-action/render/internal/helm"
)

func main() {
	bridge.Serve(map[string]bridge.Handler{
		"helm": func(payload json.RawMessage, _ bridge.Options) (bridge.Result, error) {
			var in helm.Input
			if err := json.Unmarshal(payload, &in); err != nil {
				return bridge.Result{}, err
			}
			out, err := helm.Render(in)
			return bridge.Result{Output: out}, err
		},
	})
}
