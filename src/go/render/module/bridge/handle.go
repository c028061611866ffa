// Package bridge is what both render programs share: the request and response of one render,
// and Serve, which answers them — over one JavaScript function in WebAssembly (serve_js.go), or
// over standard input and output in the native build of the kustomize program (serve_native.go,
// docs/renderers.md#native-kustomize).
package bridge

import (
	"encoding/json"
	"fmt"

	"tazuna-action/render/internal/confine"
)

// Policy is where reads may resolve (src/config/confinement.ts).
type Policy = confine.Policy

// Handler renders one request's payload (the JSON of the renderer's input) to YAML text.
// policies is nil when this program does not confine reads itself: in WebAssembly the engine's
// file-system bridge does, and the renderers' own tests read anywhere.
type Handler func(payload json.RawMessage, policies []Policy) (Result, error)

// Result is a render's YAML text and, when the renderer can tell, every file-system question it
// asked, as [kind, path] pairs (see the kustomize program); the engine uses them to reuse a
// render for another checkout of the same files (docs/renderers.md#reusing-a-render).
type Result struct {
	Output string
	Reads  [][2]string
}

// request is one call: Op selects the handler, Input is its payload. ID and Policies are the
// native transport's (several calls share one pipe; the program confines its own reads).
type request struct {
	ID       int64           `json:"id,omitempty"`
	Op       string          `json:"op"`
	Input    json.RawMessage `json:"input"`
	Policies []Policy        `json:"policies,omitempty"`
}

// response carries the rendered YAML text or the Go error text.
type response struct {
	ID       int64             `json:"id,omitempty"`
	Output   string            `json:"output,omitempty"`
	Reads    [][2]string       `json:"reads,omitempty"`
	Error    string            `json:"error,omitempty"`
	Versions map[string]string `json:"versions,omitempty"`
}

func handle(raw []byte, handlers map[string]Handler, confining bool) []byte {
	var req request
	var res response
	if err := json.Unmarshal(raw, &req); err != nil {
		res.Error = fmt.Sprintf("render module: bad request: %v", err)
		return encode(res)
	}
	res.ID = req.ID
	if req.Op == "versions" {
		res.Versions = versions()
		return encode(res)
	}
	handler, ok := handlers[req.Op]
	if !ok {
		res.Error = fmt.Sprintf("render module: unknown request %q", req.Op)
		return encode(res)
	}
	var policies []Policy
	if confining {
		policies = req.Policies
	}
	out, err := handler(req.Input, policies)
	if err != nil {
		res.Error = errorText(err)
	}
	res.Output = out.Output
	res.Reads = out.Reads
	return encode(res)
}

func encode(v response) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		return []byte(`{"error":"render module: cannot encode the response"}`)
	}
	return b
}
