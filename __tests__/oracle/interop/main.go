// Command interop-oracle computes, for each interop fixture under __tests__/fixtures/interop-*/,
// the State ConfigMaps and `tazuna state diff` texts that the Tazuna CLI would produce on an
// empty cluster: after `apply --sync` (with the fixture's tags first, when it has any), and
// after the fixture's pending edits.
//
// It is our own code, written from the behaviour spec: tazuna.yaml loading
// (docs/compatibility.md#config-loading, #includes, #tags), sync and diff
// (docs/compatibility.md#diff, #sync-mode), data-key encoding and entry bytes
// (docs/compatibility.md#data-key-encoding, #entry-and-metadata-bytes). Rendering and hashing of
// each manifest (docs/compatibility.md#rendering, #state-keys, #contenthash) is delegated to the
// build oracle in ../render (krusty, the Helm SDK, sigs.k8s.io/yaml, encoding/json, sha256),
// compiled once per run.
//
// Usage (from this directory):
//
//	go run . ../../fixtures/interop-*
//
// writes DIR/expected-state.json for every DIR.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// fixtureSpec is DIR/interop.json.
type fixtureSpec struct {
	Environment string   `json:"environment"`
	Tags        []string `json:"tags"`
	Pending     []edit   `json:"pending"`
}

// edit changes one file of a copy of the fixture: replace the only occurrence of Replace by
// With, or (Content set) write the file.
type edit struct {
	File    string  `json:"file"`
	Replace string  `json:"replace"`
	With    string  `json:"with"`
	Content *string `json:"content"`
}

// step is the cluster's State after a sync and what `tazuna state diff` prints then.
type step struct {
	State map[string]map[string]string `json:"state"`
	Diff  string                       `json:"diff"`
}

// expectation is DIR/expected-state.json.
type expectation struct {
	Producer    string   `json:"producer"`
	Environment string   `json:"environment"`
	Tags        []string `json:"tags"`
	// Manifests in declaration order (after include expansion), as written in tazuna.yaml.
	Manifests []string `json:"manifests"`
	// TaggedSync: `apply --sync -t <tags>` on an empty cluster (only when Tags is set).
	TaggedSync *step `json:"taggedSync,omitempty"`
	// Sync: `apply --sync` (after TaggedSync, if any).
	Sync step `json:"sync"`
	// PendingDiff: `state diff` after the pending edits, against Sync's State.
	PendingDiff string `json:"pendingDiff"`
}

var (
	buildOracleDir = flag.String("build-oracle", "../render", "directory of the build oracle (go build)")
	kubeVersion    = flag.String("kube-version", "v1.32.13", "Helm capabilities: the test cluster's gitVersion")
)

func main() {
	flag.Parse()
	if flag.NArg() == 0 {
		fmt.Fprintln(os.Stderr, "usage: go run . [-build-oracle DIR] FIXTURE_DIR...")
		os.Exit(2)
	}
	work, err := os.MkdirTemp("", "interop-oracle-")
	check(err)
	defer os.RemoveAll(work)
	bin := filepath.Join(work, "build-oracle")
	cmd := exec.Command("go", "build", "-o", bin, ".")
	cmd.Dir, cmd.Stdout, cmd.Stderr = *buildOracleDir, os.Stderr, os.Stderr
	check(cmd.Run())
	for _, dir := range flag.Args() {
		if err := runFixture(bin, work, dir); err != nil {
			fmt.Fprintf(os.Stderr, "%s: %v\n", dir, err)
			os.Exit(1)
		}
		fmt.Fprintf(os.Stderr, "wrote %s/expected-state.json\n", dir)
	}
}

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

func runFixture(bin, work, dir string) error {
	raw, err := os.ReadFile(filepath.Join(dir, "interop.json"))
	if err != nil {
		return err
	}
	var spec fixtureSpec
	if err := json.Unmarshal(raw, &spec); err != nil {
		return fmt.Errorf("interop.json: %w", err)
	}
	base, err := copyFixture(dir, filepath.Join(work, filepath.Base(dir)), nil)
	if err != nil {
		return err
	}
	names, current, err := desiredOf(bin, base, spec.Environment)
	if err != nil {
		return err
	}
	if spec.Tags == nil {
		spec.Tags = []string{}
	}
	out := expectation{
		Producer:    "__tests__/oracle/interop (go run . ../../fixtures/" + filepath.Base(dir) + ")",
		Environment: spec.Environment,
		Tags:        spec.Tags,
		Manifests:   names,
	}
	stored := map[string]map[string]string{}
	if len(spec.Tags) > 0 {
		tags := map[string]bool{}
		for _, m := range current {
			tags[m.Manifest] = selectedByTags(m.manifest, spec.Tags)
		}
		stored = syncState(stored, desiredList(current), func(name string) bool { return tags[name] })
		out.TaggedSync = &step{State: dataOf(stored), Diff: diffText(stored, desiredList(current))}
	}
	stored = syncState(stored, desiredList(current), func(string) bool { return true })
	out.Sync = step{State: dataOf(stored), Diff: diffText(stored, desiredList(current))}

	changed, err := copyFixture(dir, filepath.Join(work, filepath.Base(dir)+"-pending"), spec.Pending)
	if err != nil {
		return err
	}
	_, pending, err := desiredOf(bin, changed, spec.Environment)
	if err != nil {
		return err
	}
	out.PendingDiff = diffText(stored, desiredList(pending))

	js, err := json.MarshalIndent(out, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "expected-state.json"), append(js, '\n'), 0o644)
}

// built pairs a manifest of tazuna.yaml with its desired State.
type built struct {
	desired
	manifest manifest
}

func desiredList(all []built) []desired {
	out := make([]desired, len(all))
	for i, b := range all {
		out[i] = b.desired
	}
	return out
}

// desiredOf loads DIR/tazuna.yaml and renders every named manifest with the build oracle.
func desiredOf(bin, dir, environment string) ([]string, []built, error) {
	cfg, err := loadConfig(filepath.Join(dir, "tazuna.yaml"), environment)
	if err != nil {
		return nil, nil, err
	}
	var names []string
	var out []built
	for _, m := range cfg.Manifests {
		names = append(names, m.Name)
		if m.Name == "" {
			continue // docs/compatibility.md#state-diff-text step 3: unnamed manifests are skipped
		}
		d, err := buildManifest(bin, dir, cfg, m, environment)
		if err != nil {
			return nil, nil, fmt.Errorf("manifest %s: %w", m.Name, err)
		}
		out = append(out, built{desired: d, manifest: m})
	}
	return names, out, nil
}

// buildManifest writes DIR/case.json for one manifest and runs the build oracle on DIR.
func buildManifest(bin, dir string, cfg config, m manifest, environment string) (desired, error) {
	c := map[string]any{
		"manifest":     m.Raw,
		"environment":  environment,
		"providers":    cfg.Providers,
		"capabilities": map[string]any{"kubeVersion": *kubeVersion, "apiVersions": []string{}},
	}
	raw, err := json.Marshal(c)
	if err != nil {
		return desired{}, err
	}
	if err := os.WriteFile(filepath.Join(dir, "case.json"), raw, 0o644); err != nil {
		return desired{}, err
	}
	// The build oracle reports what it wrote on stderr; keep that for failures only.
	if out, err := exec.Command(bin, dir).CombinedOutput(); err != nil {
		return desired{}, fmt.Errorf("build oracle: %w\n%s", err, out)
	}
	raw, err = os.ReadFile(filepath.Join(dir, "expected.json"))
	if err != nil {
		return desired{}, err
	}
	var result struct {
		AlwaysSync bool `json:"alwaysSync"`
		Objects    []struct {
			Key  string `json:"key"`
			Hash string `json:"hash"`
		} `json:"objects"`
	}
	if err := json.Unmarshal(raw, &result); err != nil {
		return desired{}, err
	}
	d := desired{Manifest: m.Name, Entries: map[string]string{}, AlwaysSync: result.AlwaysSync}
	for _, o := range result.Objects {
		d.Entries[o.Key] = o.Hash
	}
	return d, nil
}

func dataOf(stored map[string]map[string]string) map[string]map[string]string {
	out := map[string]map[string]string{}
	for name, entries := range stored {
		out[name] = configMapData(entries)
	}
	return out
}

// copyFixture copies SRC to DST (without the oracle's own outputs) and applies the edits.
func copyFixture(src, dst string, edits []edit) (string, error) {
	err := filepath.WalkDir(src, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		if rel == "expected-state.json" {
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		raw, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(target, raw, info.Mode().Perm())
	})
	if err != nil {
		return "", err
	}
	for _, e := range edits {
		file := filepath.Join(dst, e.File)
		if e.Content != nil {
			if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
				return "", err
			}
			if err := os.WriteFile(file, []byte(*e.Content), 0o644); err != nil {
				return "", err
			}
			continue
		}
		raw, err := os.ReadFile(file)
		if err != nil {
			return "", err
		}
		if n := strings.Count(string(raw), e.Replace); n != 1 {
			return "", fmt.Errorf("pending edit of %s: %q occurs %d times, want 1", e.File, e.Replace, n)
		}
		if err := os.WriteFile(file, []byte(strings.Replace(string(raw), e.Replace, e.With, 1)), 0o644); err != nil {
			return "", err
		}
	}
	return dst, nil
}
