// Native oracles for the unit tests (see README.md): the same Go code the action runs as
// WebAssembly, compiled for the host instead.
module tazuna-action/oracle/template

go 1.26

require (
	sigs.k8s.io/yaml v1.6.0
	tazuna-action/gotemplate v0.0.0
)

require (
	dario.cat/mergo v1.0.1 // indirect
	github.com/Masterminds/goutils v1.1.1 // indirect
	github.com/Masterminds/semver/v3 v3.3.0 // indirect
	github.com/Masterminds/sprig/v3 v3.3.0 // indirect
	github.com/google/uuid v1.6.0 // indirect
	github.com/huandu/xstrings v1.5.0 // indirect
	github.com/mitchellh/copystructure v1.2.0 // indirect
	github.com/mitchellh/reflectwalk v1.0.2 // indirect
	github.com/shopspring/decimal v1.4.0 // indirect
	github.com/spf13/cast v1.7.0 // indirect
	go.yaml.in/yaml/v2 v2.4.2 // indirect
	golang.org/x/crypto v0.26.0 // indirect
)

replace tazuna-action/gotemplate => ../../../src/go/template/engine
