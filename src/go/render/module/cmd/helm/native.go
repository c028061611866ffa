//go:build !js

package main

import "tazuna-action/render/internal/objects"

// checksDisk: natively no engine-side file bridge confines the loader's reads, so the program
// checks a local chart itself before loading it (helm.CheckChart).
const checksDisk = true

// documents decodes the output for the engine (bridge.Options.Documents), as the native
// kustomize program does.
var documents = objects.Documents
