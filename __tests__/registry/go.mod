module github.com/tazuna-action/test-registry

go 1.26

require github.com/google/go-containerregistry v0.22.1
