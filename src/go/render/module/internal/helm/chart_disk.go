package helm

import (
	"os"
	"path/filepath"

	"tazuna-action/render/internal/confine"
)

// CheckChart is what a native render checks before Helm's loader.Load reads a local chart
// (docs/renderers.md#native-programs): the loader reads the disk through the os package, with
// no file system to wrap as krusty's, so the chart path and every entry below a chart
// directory — symlinks followed, as the loader's walk follows them — must resolve inside the
// policies (guard nil: anywhere). The loader itself is not re-implemented: this walk only asks
// where each entry leads, and the loader reads the chart afterwards. It returns the questions
// the load will ask, as [kind, path] pairs (docs/renderers.md#reusing-a-render): "kind" of the
// chart path, "list" of each directory, "file" of each file, .helmignore'd entries included.
func CheckChart(chartPath string, guard *confine.Guard) ([][2]string, error) {
	w := &chartWalk{guard: guard, reads: [][2]string{{"kind", chartPath}}}
	if err := guard.Check("stat", chartPath, false); err != nil {
		return w.reads, err
	}
	info, err := os.Stat(chartPath)
	if err != nil {
		return w.reads, nil // the loader reports it, as it would unconfined
	}
	if !info.IsDir() {
		w.note("file", chartPath)
		return w.reads, nil
	}
	abs, err := filepath.Abs(chartPath)
	if err != nil {
		return w.reads, nil
	}
	return w.reads, w.dir(abs, map[string]bool{})
}

type chartWalk struct {
	guard *confine.Guard
	reads [][2]string
}

func (w *chartWalk) note(kind, path string) { w.reads = append(w.reads, [2]string{kind, path}) }

// dir checks dir's entries and what they lead to, depth first in the loader's order. open holds
// the resolved directories being walked: a symlink back to one of them makes the loader walk
// forever (a render-timeout, as in WebAssembly); here it is not entered twice.
func (w *chartWalk) dir(dir string, open map[string]bool) error {
	real := confine.Real(dir)
	if open[real] {
		return nil
	}
	open[real] = true
	defer delete(open, real)
	w.note("list", dir)
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil // the loader reports it
	}
	for _, entry := range entries {
		path := filepath.Join(dir, entry.Name())
		if err := w.guard.Check("open", path, false); err != nil {
			return err
		}
		info, err := os.Stat(path) // follows a symlink, as the loader's walk does
		if err != nil {
			continue // a dangling symlink: the loader reports it
		}
		if !info.IsDir() {
			w.note("file", path)
			continue
		}
		if err := w.dir(path, open); err != nil {
			return err
		}
	}
	return nil
}
