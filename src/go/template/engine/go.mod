// The Go text/template engine tazuna-action runs as WebAssembly (docs/compatibility.md#config-loading step 2, docs/compatibility.md#helmfile step 3,
// docs/compatibility.md#go-templates): Node has no faithful Go template implementation, so the renderer is Go's own.
// Sprig is pinned to Helm's version; sigs.k8s.io/yaml to Tazuna's (pepabo/tazuna:go.mod).
module tazuna-action/gotemplate

go 1.26

require (
	github.com/Masterminds/sprig/v3 v3.3.0
	sigs.k8s.io/yaml v1.6.0
)

require (
	dario.cat/mergo v1.0.1 // indirect
	github.com/Masterminds/goutils v1.1.1 // indirect
	github.com/Masterminds/semver/v3 v3.3.0 // indirect
	github.com/google/uuid v1.6.0 // indirect
	github.com/huandu/xstrings v1.5.0 // indirect
	github.com/mitchellh/copystructure v1.2.0 // indirect
	github.com/mitchellh/reflectwalk v1.0.2 // indirect
	github.com/shopspring/decimal v1.4.0 // indirect
	github.com/spf13/cast v1.7.0 // indirect
	go.yaml.in/yaml/v2 v2.4.2 // indirect
	golang.org/x/crypto v0.26.0 // indirect
)
