package kustomize

import (
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"

	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/kyaml/filesys"

	"tazuna-action/render/internal/confine"
)

// Input is one `type: kustomize` manifest: the directory to build.
type Input struct {
	Dir string `json:"dir"`
}

// Build is Tazuna's kustomize Build (docs/compatibility.md#kustomize): krusty with
// MakeDefaultOptions() on the directory, output resMap.AsYaml() unchanged. In WebAssembly the
// disk is Node's file system as the loader hands it over, with the repository confinement
// applied there (policies nil); natively it is the disk, confined here to policies. It also
// returns every question krusty asked the file system (docs/renderers.md#reusing-a-render).
func Build(in Input, policies []confine.Policy) (string, [][2]string, error) {
	disk := &recordingFs{FileSystem: filesys.MakeFsOnDisk(), guard: confine.New(policies)}
	k := krusty.MakeKustomizer(krusty.MakeDefaultOptions())
	requestsBefore := requests.Load()
	resMap, err := k.Run(disk, in.Dir)
	if err != nil {
		return "", nil, err
	}
	out, err := resMap.AsYaml()
	reads := disk.noted()
	if requests.Load() != requestsBefore {
		reads = append(reads, [2]string{"net", ""})
	}
	return string(out), reads, err
}

// requests counts the HTTP requests of this process: krusty fetches a remote resource with an
// http.Client on Go's default transport, which is not a question to the file system, so a
// render during which any request went out (its own or, conservatively, another render's) notes
// "net" among its reads and is never reused or recorded (docs/renderers.md#reusing-a-render).
var requests atomic.Int64

type countingTransport struct{ next http.RoundTripper }

func (t countingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	requests.Add(1)
	return t.next.RoundTrip(r)
}

func init() {
	http.DefaultTransport = countingTransport{next: http.DefaultTransport}
}

// recordingFs is the disk as krusty sees it, noting each question krusty asks through it as
// [kind, path]: "file" (contents), "kind" (exists, is a directory), "list" (a directory's
// entries), "abs" (where a path resolves to) and "glob" / "walk" (questions the engine does not
// compare, so a render that asked one is never reused; nor is one that noted "net", see
// requests). krusty reads the disk only through it,
// so it is also where a native render's reads are confined (guard; nil: not here).
type recordingFs struct {
	filesys.FileSystem
	guard *confine.Guard
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
	if err := f.guard.Check("open", path, false); err != nil {
		return nil, err
	}
	return f.FileSystem.Open(path)
}

func (f *recordingFs) ReadFile(path string) ([]byte, error) {
	f.note("file", path)
	if err := f.guard.Check("open", path, false); err != nil {
		return nil, err
	}
	return f.FileSystem.ReadFile(path)
}

// IsDir and Exists answer false for a path the guard refuses, as a refused stat does in
// WebAssembly.
func (f *recordingFs) IsDir(path string) bool {
	f.note("kind", path)
	return f.guard.Check("stat", path, true) == nil && f.FileSystem.IsDir(path)
}

func (f *recordingFs) Exists(path string) bool {
	f.note("kind", path)
	return f.guard.Check("stat", path, true) == nil && f.FileSystem.Exists(path)
}

func (f *recordingFs) ReadDir(path string) ([]string, error) {
	f.note("list", path)
	if err := f.guard.Check("open", path, false); err != nil {
		return nil, err
	}
	return f.FileSystem.ReadDir(path)
}

func (f *recordingFs) CleanedAbs(path string) (filesys.ConfirmedDir, string, error) {
	f.note("abs", path)
	if err := f.guard.Check("lstat", path, true); err != nil {
		return "", "", err
	}
	return f.FileSystem.CleanedAbs(path)
}

// Glob keeps the matches the guard allows (in WebAssembly a refused directory has no entries).
func (f *recordingFs) Glob(pattern string) ([]string, error) {
	f.note("glob", pattern)
	matches, err := f.FileSystem.Glob(pattern)
	if f.guard == nil || err != nil {
		return matches, err
	}
	kept := matches[:0]
	for _, m := range matches {
		if f.guard.Check("open", m, false) == nil {
			kept = append(kept, m)
		}
	}
	return kept, nil
}

// Walk hands walkFn the guard's error for a path it refuses, and does not enter it.
func (f *recordingFs) Walk(path string, walkFn filepath.WalkFunc) error {
	f.note("walk", path)
	if f.guard == nil {
		return f.FileSystem.Walk(path, walkFn)
	}
	return f.FileSystem.Walk(path, func(p string, info os.FileInfo, err error) error {
		if refused := f.guard.Check("open", p, false); refused != nil {
			err := walkFn(p, nil, refused)
			if err == nil && info != nil && info.IsDir() {
				return filepath.SkipDir
			}
			return err
		}
		return walkFn(p, info, err)
	})
}
