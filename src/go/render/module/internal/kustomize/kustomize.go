package kustomize

import (
	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/kyaml/filesys"
)

// Input is one `type: kustomize` manifest: the directory to build.
type Input struct {
	Dir string `json:"dir"`
}

// Build is Tazuna's kustomize Build (docs/compatibility.md#kustomize): krusty with
// MakeDefaultOptions() on the directory, output resMap.AsYaml() unchanged. The disk is Node's
// file system as the loader hands it over, with the repository confinement applied there.
func Build(in Input) (string, error) {
	k := krusty.MakeKustomizer(krusty.MakeDefaultOptions())
	resMap, err := k.Run(filesys.MakeFsOnDisk(), in.Dir)
	if err != nil {
		return "", err
	}
	out, err := resMap.AsYaml()
	return string(out), err
}
