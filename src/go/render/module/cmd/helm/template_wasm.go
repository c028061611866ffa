//go:build js && wasm

package main

import "tazuna-action/render/bridge"

// templates: none in WebAssembly, where the template engine is a program of its own (see
// template_native.go).
var templates = map[string]bridge.Handler{}
