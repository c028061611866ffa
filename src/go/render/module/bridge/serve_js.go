//go:build js && wasm

package bridge

import "syscall/js"

// Serve registers tazunaRender(requestJSON) → Promise<responseJSON> with the handlers by op
// ("versions" is built in) on the global object the Node loader hands over (a private one, see
// src/adapters/render/go-wasm.ts), and waits for calls forever. Work runs on a goroutine:
// reading files goes through Node's asynchronous fs, which a synchronous call could not wait
// for. Reads are confined by that fs bridge, so handlers get no policies.
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
			go func() { resolve.Invoke(string(handle([]byte(raw), handlers, false))) }()
			return nil
		})
		return js.Global().Get("Promise").New(executor)
	}))
	select {}
}
