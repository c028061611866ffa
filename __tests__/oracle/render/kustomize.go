package main

import (
	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/kyaml/filesys"
)

// buildKustomize is Tazuna's kustomize Build (docs/compatibility.md#kustomize): krusty with default
// options on the directory, output resMap.AsYaml() unchanged.
func buildKustomize(dir string) (string, error) {
	k := krusty.MakeKustomizer(krusty.MakeDefaultOptions())
	resMap, err := k.Run(filesys.MakeFsOnDisk(), dir)
	if err != nil {
		return "", libraryError{err}
	}
	out, err := resMap.AsYaml()
	return string(out), err
}
