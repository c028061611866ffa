module github.com/tazuna-action/oracle/dockercreds

go 1.26

require (
	github.com/opencontainers/go-digest v1.0.0 // indirect
	github.com/opencontainers/image-spec v1.1.1 // indirect
	golang.org/x/sync v0.14.0 // indirect
	oras.land/oras-go/v2 v2.6.0 // indirect
)
