//go:build js && wasm

// Command render is the WebAssembly entry point of the render module: it registers one
// JavaScript function, tazunaRender(requestJSON) → Promise<responseJSON>, on the global object
// it is given (the Node loader hands it a private one, see src/adapters/go-render-module.ts), and
// then waits for calls forever. Work runs on a goroutine: reading files goes through Node's
// asynchronous fs, which a synchronous call could not wait for.
package main

import (
	"encoding/json"
	"fmt"
	"syscall/js"
)

func main() {
	js.Global().Set("tazunaRender", js.FuncOf(renderFromJS))
	select {}
}

func renderFromJS(_ js.Value, args []js.Value) any {
	request := ""
	if len(args) == 1 {
		request = args[0].String()
	}
	var executor js.Func
	executor = js.FuncOf(func(_ js.Value, settle []js.Value) any {
		executor.Release()
		resolve := settle[0]
		go func() {
			resolve.Invoke(string(handle(request)))
		}()
		return nil
	})
	return js.Global().Get("Promise").New(executor)
}

// request is one call: Op selects the renderer, the other fields are its inputs.
type request struct {
	Op        string          `json:"op"`
	Kustomize *kustomizeInput `json:"kustomize,omitempty"`
	Helm      *helmInput      `json:"helm,omitempty"`
}

// response carries the rendered YAML text or the Go error text.
type response struct {
	Output   string            `json:"output,omitempty"`
	Error    string            `json:"error,omitempty"`
	Versions map[string]string `json:"versions,omitempty"`
}

func handle(raw string) []byte {
	var req request
	var res response
	if err := json.Unmarshal([]byte(raw), &req); err != nil {
		res.Error = fmt.Sprintf("render module: bad request: %v", err)
		return mustJSON(res)
	}
	var err error
	switch {
	case req.Op == "versions":
		res.Versions = versions()
	case req.Op == "kustomize" && req.Kustomize != nil:
		res.Output, err = buildKustomize(*req.Kustomize)
	case req.Op == "helm" && req.Helm != nil:
		res.Output, err = renderRelease(*req.Helm)
	default:
		err = fmt.Errorf("render module: unknown request %q", req.Op)
	}
	if err != nil {
		res.Error = err.Error()
	}
	return mustJSON(res)
}

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		return []byte(`{"error":"render module: cannot encode the response"}`)
	}
	return b
}
