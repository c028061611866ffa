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
type Handler func(payload json.RawMessage, opts Options) (Result, error)

// Options are what the native transport adds to a request; WebAssembly calls have none.
type Options struct {
	// Policies confine the render's reads; nil when this program does not confine them itself:
	// in WebAssembly the engine's file-system bridge does, and the renderers' own tests read
	// anywhere.
	Policies []Policy
	// Documents asks for the output decoded as Tazuna decodes it too (Result.Documents).
	Documents bool
}

// Result is a render's YAML text and, when the renderer can tell, every file-system question it
// asked, as [kind, path] pairs (see the kustomize program); the engine uses them to reuse a
// render for another checkout of the same files (docs/renderers.md#reusing-a-render). Documents,
// when asked for and the text decodes, is the JSON array of its documents as Tazuna's
// ConvertManifestsToObjects decodes them (docs/renderers.md#objects-from-the-native-program).
// Volatile, from the Helm program, names the functions its chart calls whose result is not a
// function of the render's inputs (docs/renderers.md#volatile-templates); sent only with a
// successful render, as [] when none (nil: not sent, as by the kustomize program).
type Result struct {
	Output    string
	Reads     [][2]string
	Documents json.RawMessage
	Volatile  []string
	// Phase, from the template op, says where a template failed: "parse" or "execute".
	Phase string
}

// VerbatimError is an error whose text reaches the engine as it is, not reworded as Go on
// Linux words file-system errors (errorText): a template's error is Go's text/template's own,
// which the engine shows as the WebAssembly template engine gives it.
type VerbatimError string

func (e VerbatimError) Error() string { return string(e) }

// request is one call: Op selects the handler, Input is its payload. ID, Policies and
// Documents are the native transport's (several calls share one pipe; see Options).
type request struct {
	ID        int64           `json:"id,omitempty"`
	Op        string          `json:"op"`
	Input     json.RawMessage `json:"input"`
	Policies  []Policy        `json:"policies,omitempty"`
	Documents bool            `json:"documents,omitempty"`
}

// response carries the rendered YAML text or the Go error text.
type response struct {
	ID        int64             `json:"id,omitempty"`
	Output    string            `json:"output,omitempty"`
	Reads     [][2]string       `json:"reads,omitempty"`
	Documents json.RawMessage   `json:"documents,omitempty"`
	Volatile  []string          `json:"volatile,omitzero"`
	Error     string            `json:"error,omitempty"`
	Phase     string            `json:"phase,omitempty"`
	Versions  map[string]string `json:"versions,omitempty"`
}

func handle(raw []byte, handlers map[string]Handler, native bool) []byte {
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
	var opts Options
	if native {
		opts = Options{Policies: req.Policies, Documents: req.Documents}
	}
	out, err := handler(req.Input, opts)
	if verbatim, ok := err.(VerbatimError); ok {
		res.Error = string(verbatim)
		res.Phase = out.Phase
	} else if err != nil {
		res.Error = errorText(err)
	} else {
		res.Documents = out.Documents
		res.Volatile = out.Volatile
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
