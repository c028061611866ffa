//go:build js && wasm

// Package bridge is what both render programs share: one JavaScript function,
// tazunaRender(requestJSON) → Promise<responseJSON>, registered on the global object the Node
// loader hands over (a private one, see src/adapters/go-render-module.ts). Work runs on a
// goroutine: reading files goes through Node's asynchronous fs, which a synchronous call could
// not wait for.
package bridge

import (
	"encoding/json"
	"fmt"
	"syscall/js"
)

// Handler renders one request's payload (the JSON of the renderer's input) to YAML text.
type Handler func(payload json.RawMessage) (Result, error)

// Result is a render's YAML text and, when the renderer can tell, every file-system question it
// asked, as [kind, path] pairs (see the kustomize program); the engine uses them to reuse a
// render for another checkout of the same files (docs/renderers.md#reusing-a-render).
type Result struct {
	Output string
	Reads  [][2]string
}

// request is one call: Op selects the handler, Input is its payload.
type request struct {
	Op    string          `json:"op"`
	Input json.RawMessage `json:"input"`
}

// response carries the rendered YAML text or the Go error text.
type response struct {
	Output   string            `json:"output,omitempty"`
	Reads    [][2]string       `json:"reads,omitempty"`
	Error    string            `json:"error,omitempty"`
	Versions map[string]string `json:"versions,omitempty"`
}

// Serve registers tazunaRender with the handlers by op ("versions" is built in) and waits
// for calls forever.
func Serve(handlers map[string]Handler) {
	js.Global().Set("tazunaRender", js.FuncOf(func(_ js.Value, args []js.Value) any {
		raw := ""
		if len(args) == 1 {
			raw = args[0].String()
		}
		var executor js.Func
		executor = js.FuncOf(func(_ js.Value, settle []js.Value) any {
			executor.Release()
			resolve := settle[0]
			go func() { resolve.Invoke(string(handle(raw, handlers))) }()
			return nil
		})
		return js.Global().Get("Promise").New(executor)
	}))
	select {}
}

func handle(raw string, handlers map[string]Handler) []byte {
	var req request
	var res response
	if err := json.Unmarshal([]byte(raw), &req); err != nil {
		res.Error = fmt.Sprintf("render module: bad request: %v", err)
		return encode(res)
	}
	if req.Op == "versions" {
		res.Versions = versions()
		return encode(res)
	}
	handler, ok := handlers[req.Op]
	if !ok {
		res.Error = fmt.Sprintf("render module: unknown request %q", req.Op)
		return encode(res)
	}
	out, err := handler(req.Input)
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
