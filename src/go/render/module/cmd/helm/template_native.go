//go:build !js

package main

import (
	"encoding/json"

	gotemplate "tazuna-action/gotemplate/render"
	"tazuna-action/render/bridge"
)

// templates are the ops this program serves natively beside Helm's: a tazuna.yaml or helmfile
// Go template, rendered by the template engine's own Go code (src/go/template/engine). The
// program already links text/template, sprig and sigs.k8s.io/yaml for Helm, so natively a
// template costs this program's start instead of loading the engine's WebAssembly
// (docs/renderers.md#templates-in-the-native-helm-program).
var templates = map[string]bridge.Handler{"template": renderTemplate}

// renderTemplate takes what the WebAssembly engine's tazunaRenderGoTemplate takes, and answers
// its output, or its error verbatim with the phase that failed.
func renderTemplate(payload json.RawMessage, _ bridge.Options) (bridge.Result, error) {
	var in struct {
		Text     string `json:"text"`
		DataJSON string `json:"dataJson"`
		Mode     string `json:"mode"`
		Name     string `json:"name"`
	}
	if err := json.Unmarshal(payload, &in); err != nil {
		return bridge.Result{}, err
	}
	r := gotemplate.Render(in.Text, in.DataJSON, gotemplate.Options{Mode: in.Mode, Name: in.Name})
	if r.Error != "" {
		return bridge.Result{Phase: r.Phase}, bridge.VerbatimError(r.Error)
	}
	return bridge.Result{Output: r.Output}, nil
}
