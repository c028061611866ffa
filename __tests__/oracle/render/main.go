// Command build-oracle renders the build fixtures under __tests__/fixtures/build-*/ with the Go
// libraries Tazuna uses, so the TypeScript build pipeline can be checked against Go behaviour.
//
// It is our own code, written from the behaviour spec (docs/compatibility.md#kustomize kustomize
// via krusty, docs/compatibility.md#helmfile the helmfile subset via the Helm SDK in client-only
// dry-run, docs/compatibility.md#genesissecret genesissecret, docs/compatibility.md#yaml-to-objects
// conversion, docs/compatibility.md#state-keys state keys, docs/compatibility.md#contenthash
// content hash); Tazuna itself cannot be downloaded here.
//
// Usage (from this directory):
//
//	go run . ../../fixtures/build-kustomize-overlays [more fixture dirs...]
//	go run . -yaml ../../fixtures/build-secret-yaml
//	go run . -record-errors ../../fixtures/render-parity/*/
//
// Each DIR/case.json is read and DIR/expected.json (objects, keys, hashes) and
// DIR/expected-build.yaml (the raw `tazuna build` text of the manifest) are written. With
// -yaml, DIR/cases.json holds maps to marshal with sigs.k8s.io/yaml (see secretyaml.go). With
// -record-errors (the render-parity corpus), a render that fails writes DIR/expected.json as
// {"error": MESSAGE} instead (see errors.go) and no expected-build.yaml.
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
)

// fixtureCase is DIR/case.json: one manifest entry of a tazuna.yaml plus its surroundings.
type fixtureCase struct {
	Manifest     manifest          `json:"manifest"`
	Environment  string            `json:"environment"`
	Env          map[string]string `json:"env"`
	Providers    []provider        `json:"providers"`
	Capabilities *capabilities     `json:"capabilities"`
}

type manifest struct {
	Name      string           `json:"name"`
	Type      string           `json:"type"`
	Path      string           `json:"path"`
	Kustomize *kustomizeOpts   `json:"kustomize"`
	Helmfile  *helmfileOptions `json:"helmfile"`
}

type kustomizeOpts struct {
	DefaultNamespace string `json:"defaultNamespace"`
}

type provider struct {
	Name    string `json:"name"`
	Type    string `json:"type"`
	Envfile *struct {
		Path string `json:"path"`
	} `json:"envfile"`
}

// capabilities stand in for what Tazuna discovers from a REST config
// (docs/compatibility.md#helmfile step 5).
type capabilities struct {
	KubeVersion string   `json:"kubeVersion"`
	APIVersions []string `json:"apiVersions"`
}

// fixtureDir is the fixture being rendered (the stand-in op items live there).
var fixtureDir string

// expected is DIR/expected.json.
type expected struct {
	Producer   string        `json:"producer"`
	AlwaysSync bool          `json:"alwaysSync"`
	Objects    []stateObject `json:"objects"`
}

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: go run . FIXTURE_DIR...")
		os.Exit(2)
	}
	if os.Args[1] == "-record-errors" {
		for _, dir := range os.Args[2:] {
			if err := recordFixture(dir); err != nil {
				fmt.Fprintf(os.Stderr, "%s: %v\n", dir, err)
				os.Exit(1)
			}
		}
		return
	}
	if os.Args[1] == "-yaml" && len(os.Args) == 3 {
		if err := marshalCases(os.Args[2]); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		return
	}
	for _, dir := range os.Args[1:] {
		if err := runFixture(dir); err != nil {
			fmt.Fprintf(os.Stderr, "%s: %v\n", dir, err)
			os.Exit(1)
		}
		fmt.Fprintf(os.Stderr, "wrote %s/expected.json and expected-build.yaml\n", dir)
	}
}

func runFixture(dir string) error {
	raw, err := os.ReadFile(filepath.Join(dir, "case.json"))
	if err != nil {
		return err
	}
	var c fixtureCase
	if err := json.Unmarshal(raw, &c); err != nil {
		return fmt.Errorf("case.json: %w", err)
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	fixtureDir = abs
	text, defaultNamespace, err := build(abs, c)
	if err != nil {
		return err
	}
	objects, err := convertManifestsToObjects([]byte(text), defaultNamespace)
	if err != nil {
		return err
	}
	out := expected{
		Producer:   "__tests__/oracle/render (go run . " + filepath.Base(dir) + ")",
		AlwaysSync: c.Manifest.Type == "genesissecret",
		Objects:    stateObjects(c.Manifest.Name, objects),
	}
	js, err := json.MarshalIndent(out, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "expected.json"), append(js, '\n'), 0o644); err != nil {
		return err
	}
	// `tazuna build` prints the joined outputs followed by a newline (fmt.Println,
	// docs/compatibility.md#build-output).
	return os.WriteFile(filepath.Join(dir, "expected-build.yaml"), []byte(text+"\n"), 0o644)
}

// build dispatches on the manifest type like Tazuna's managers; it returns the Build text and
// the default namespace the type uses for conversion (docs/compatibility.md#yaml-to-objects).
func build(dir string, c fixtureCase) (string, string, error) {
	path := filepath.Join(dir, c.Manifest.Path)
	switch c.Manifest.Type {
	case "kustomize":
		ns := ""
		if c.Manifest.Kustomize != nil {
			ns = c.Manifest.Kustomize.DefaultNamespace
		}
		text, err := buildKustomize(path)
		return text, ns, err
	case "helmfile":
		opts := helmfileOptions{}
		if c.Manifest.Helmfile != nil {
			opts = *c.Manifest.Helmfile
		}
		text, err := buildHelmfile(path, opts, c)
		return text, opts.DefaultNamespace, err
	case "genesissecret":
		text, err := buildGenesisSecret(dir, path, c)
		return text, "", err
	}
	return "", "", fmt.Errorf("unsupported manifest type %q", c.Manifest.Type)
}
