package kustomize

import (
	"path/filepath"
	"sync"

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
// It also returns every question krusty asked the file system (docs/renderers.md#reusing-a-render).
func Build(in Input) (string, [][2]string, error) {
	disk := &recordingFs{FileSystem: filesys.MakeFsOnDisk()}
	k := krusty.MakeKustomizer(krusty.MakeDefaultOptions())
	resMap, err := k.Run(disk, in.Dir)
	if err != nil {
		return "", nil, err
	}
	out, err := resMap.AsYaml()
	return string(out), disk.noted(), err
}

// recordingFs is the disk as krusty sees it, noting each question krusty asks through it as
// [kind, path]: "file" (contents), "kind" (exists, is a directory), "list" (a directory's
// entries), "abs" (where a path resolves to) and "glob" / "walk" (questions the engine does not
// compare, so a render that asked one is never reused). krusty reads the disk only through it.
type recordingFs struct {
	filesys.FileSystem
	mu    sync.Mutex
	reads [][2]string
}

func (f *recordingFs) note(kind, path string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.reads = append(f.reads, [2]string{kind, path})
}

func (f *recordingFs) noted() [][2]string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.reads
}

func (f *recordingFs) Open(path string) (filesys.File, error) {
	f.note("file", path)
	return f.FileSystem.Open(path)
}

func (f *recordingFs) ReadFile(path string) ([]byte, error) {
	f.note("file", path)
	return f.FileSystem.ReadFile(path)
}

func (f *recordingFs) IsDir(path string) bool {
	f.note("kind", path)
	return f.FileSystem.IsDir(path)
}

func (f *recordingFs) Exists(path string) bool {
	f.note("kind", path)
	return f.FileSystem.Exists(path)
}

func (f *recordingFs) ReadDir(path string) ([]string, error) {
	f.note("list", path)
	return f.FileSystem.ReadDir(path)
}

func (f *recordingFs) CleanedAbs(path string) (filesys.ConfirmedDir, string, error) {
	f.note("abs", path)
	return f.FileSystem.CleanedAbs(path)
}

func (f *recordingFs) Glob(pattern string) ([]string, error) {
	f.note("glob", pattern)
	return f.FileSystem.Glob(pattern)
}

func (f *recordingFs) Walk(path string, walkFn filepath.WalkFunc) error {
	f.note("walk", path)
	return f.FileSystem.Walk(path, walkFn)
}
