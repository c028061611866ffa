// Command helm is the render program for `type: helmfile` releases: loaded by
// src/adapters/render/module.ts only when such a release renders (docs/renderers.md). Built to
// WebAssembly for every platform, and natively for Linux (docs/renderers.md#native-programs).
package main

import (
	"encoding/json"

	"tazuna-action/render/bridge"
	"tazuna-action/render/internal/confine"
	"tazuna-action/render/internal/helm"
	"tazuna-action/render/internal/schema"
)

func main() {
	handlers := map[string]bridge.Handler{"helm": render, "documents": decode, "schema": checkSchema}
	for op, handler := range templates {
		handlers[op] = handler
	}
	bridge.Serve(handlers)
}

// decode answers with the documents of any text, as Tazuna decodes them: a helmfile manifest's
// text is its releases' outputs trimmed and joined, which no single render decoded
// (docs/renderers.md#objects-from-the-native-program). None when the text does not decode.
func decode(payload json.RawMessage, _ bridge.Options) (bridge.Result, error) {
	var in struct {
		Text string `json:"text"`
	}
	if err := json.Unmarshal(payload, &in); err != nil {
		return bridge.Result{}, err
	}
	return bridge.Result{Documents: documents([]byte(in.Text))}, nil
}

func render(payload json.RawMessage, opts bridge.Options) (bridge.Result, error) {
	var in helm.Input
	if err := json.Unmarshal(payload, &in); err != nil {
		return bridge.Result{}, err
	}
	var reads [][2]string
	if checksDisk && in.ChartPath != "" {
		var err error
		if reads, err = helm.CheckChart(in.ChartPath, confine.New(opts.Policies)); err != nil {
			return bridge.Result{Reads: reads}, err
		}
	}
	out, err := helm.Render(in)
	// [] when none: the engine records only a render whose answer says so.
	volatile := append([]string{}, out.Volatile...)
	result := bridge.Result{Output: out.Manifest, Reads: reads, Volatile: volatile}
	if err == nil && opts.Documents {
		result.Documents = documents([]byte(out.Manifest))
	}
	return result, err
}

// checkSchema answers with the findings of objects against the cluster's OpenAPI documents, as
// the API server's server-side apply converts a patch (docs/risks.md#schema-findings): the
// program links the same apimachinery, kube-openapi and structured-merge-diff for Helm.
func checkSchema(payload json.RawMessage, _ bridge.Options) (bridge.Result, error) {
	var in schema.Input
	if err := json.Unmarshal(payload, &in); err != nil {
		return bridge.Result{}, err
	}
	out, err := schema.Check(in)
	if err != nil {
		return bridge.Result{}, err
	}
	text, err := json.Marshal(out)
	return bridge.Result{Output: string(text)}, err
}
