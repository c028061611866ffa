//go:build !js

package main

import "tazuna-action/render/internal/objects"

// documents decodes the output for the engine (bridge.Options.Documents): natively only, where
// it costs little; the WebAssembly build leaves it to the engine and links no decoder.
var documents = objects.Documents
