//go:build js && wasm

// Command gotemplate is the WebAssembly entry point: it registers one JavaScript function on
// the global object it is given (the Node loader hands it a private one, see
// src/adapters/go-template-engine.ts) and then waits for calls forever.
package main

import (
	"syscall/js"

	"tazuna-action/gotemplate/render"
)

func main() {
	js.Global().Set("tazunaRenderGoTemplate", js.FuncOf(renderFromJS))
	select {}
}

// renderFromJS(text, dataJSON, mode, name) → {output} | {error, phase}
func renderFromJS(_ js.Value, args []js.Value) any {
	if len(args) != 4 {
		return map[string]any{"error": "tazunaRenderGoTemplate needs 4 arguments", "phase": "call"}
	}
	r := render.Render(args[0].String(), args[1].String(), render.Options{
		Mode: args[2].String(),
		Name: args[3].String(),
	})
	if r.Error != "" {
		return map[string]any{"error": r.Error, "phase": r.Phase}
	}
	return map[string]any{"output": r.Output}
}
