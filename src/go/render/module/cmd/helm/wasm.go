//go:build js && wasm

package main

import "encoding/json"

// checksDisk: in WebAssembly the engine's file bridge confines every read (see native.go).
const checksDisk = false

// documents: never asked of the WebAssembly build (see native.go).
func documents([]byte) json.RawMessage { return nil }
