package helm

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"strings"

	"github.com/pkg/errors"
	"helm.sh/helm/v3/pkg/chart"
	"helm.sh/helm/v3/pkg/chart/loader"
	"helm.sh/helm/v3/pkg/chartutil"
	"helm.sh/helm/v3/pkg/engine"
	"helm.sh/helm/v3/pkg/releaseutil"
	"sigs.k8s.io/yaml"
)

// Input is one helmfile release (docs/compatibility.md#helmfile step 5).
type Input struct {
	Name string `json:"name"`
	// Namespace as written in the helmfile; empty stays empty, as in Tazuna
	// (docs/compatibility.md#empty-release-namespace).
	Namespace string `json:"namespace"`
	// ChartPath is a chart directory or .tgz on disk; ChartArchive a downloaded .tgz (base64).
	ChartPath    string `json:"chartPath,omitempty"`
	ChartArchive string `json:"chartArchive,omitempty"`
	// Values are the release's values sources in merge order, each YAML (or JSON) text.
	Values      []valuesText `json:"values"`
	IncludeCRDs bool         `json:"includeCRDs"`
	// KubeVersion empty: Helm's library default (v1.20.0). APIVersions are appended to
	// Helm's default set (docs/compatibility.md#helm-capabilities).
	KubeVersion string   `json:"kubeVersion,omitempty"`
	APIVersions []string `json:"apiVersions,omitempty"`
}

// valuesText is one values source; Name is what errors call it.
type valuesText struct {
	Name string `json:"name"`
	Text string `json:"text"`
}

// Rendered is a release's render: Manifest, and Volatile, the functions its chart's templates
// call whose result is not a function of the render's inputs (VolatileCalls).
type Rendered struct {
	Manifest string
	Volatile []string
}

// Render is what Tazuna gets from Helm v3.21's install action in client-only dry-run
// mode (Replace on, no hooks in the output): release.Manifest. action.Install is not linked in
// (it brings the whole Kubernetes client); these are the steps its RunWithContext and
// Configuration.renderResources take when ClientOnly and DryRun are set, calling the same
// packages in the same order, with nothing of them re-implemented. Volatile is scanned from
// the chart as rendered: after ProcessDependenciesWithMerge, so disabled subcharts do not count.
func Render(in Input) (Rendered, error) {
	chrt, err := loadChart(in)
	if err != nil {
		return Rendered{}, err
	}
	manifest, err := renderChart(chrt, in)
	if err != nil {
		return Rendered{}, err
	}
	return Rendered{Manifest: manifest, Volatile: VolatileCalls(chrt, in.Values)}, nil
}

func renderChart(chrt *chart.Chart, in Input) (string, error) {
	vals, err := mergeValues(in.Values)
	if err != nil {
		return "", err
	}
	if err := chartutil.ValidateReleaseName(in.Name); err != nil {
		return "", errors.Wrapf(err, "release name %q", in.Name)
	}
	if err := chartutil.ProcessDependenciesWithMerge(chrt, vals); err != nil {
		return "", err
	}
	caps := chartutil.DefaultCapabilities.Copy()
	if in.KubeVersion != "" {
		kv, err := chartutil.ParseKubeVersion(in.KubeVersion)
		if err != nil {
			return "", err
		}
		caps.KubeVersion = *kv
	}
	caps.APIVersions = append(caps.APIVersions, in.APIVersions...)
	options := chartutil.ReleaseOptions{Name: in.Name, Namespace: in.Namespace, Revision: 1, IsInstall: true}
	values, err := chartutil.ToRenderValuesWithSchemaValidation(chrt, vals, options, caps, false)
	if err != nil {
		return "", err
	}
	return renderResources(chrt, values, caps, in.IncludeCRDs)
}

func loadChart(in Input) (*chart.Chart, error) {
	if in.ChartArchive != "" {
		data, err := base64.StdEncoding.DecodeString(in.ChartArchive)
		if err != nil {
			return nil, fmt.Errorf("chart archive: %w", err)
		}
		return loader.LoadArchive(bytes.NewReader(data))
	}
	return loader.Load(in.ChartPath)
}

// mergeValues parses each source as Helm's values reader does (sigs.k8s.io/yaml into a map) and
// folds them with Helm's mergeMaps (helm.sh/helm/v3/pkg/cli/values): later wins, maps merge.
func mergeValues(sources []valuesText) (map[string]any, error) {
	out := map[string]any{}
	for _, s := range sources {
		current := map[string]any{}
		if err := yaml.Unmarshal([]byte(s.Text), &current); err != nil {
			return nil, errors.Wrapf(err, "failed to parse %s", s.Name)
		}
		out = mergeMaps(out, current)
	}
	return out, nil
}

func mergeMaps(a, b map[string]any) map[string]any {
	out := make(map[string]any, len(a))
	for k, v := range a {
		out[k] = v
	}
	for k, v := range b {
		if v, ok := v.(map[string]any); ok {
			if bv, ok := out[k]; ok {
				if bv, ok := bv.(map[string]any); ok {
					out[k] = mergeMaps(bv, v)
					continue
				}
			}
		}
		out[k] = v
	}
	return out
}

// renderResources is Configuration.renderResources for a client-only install without an
// output directory, post-renderer or sub-notes: the manifest text, hooks left out.
func renderResources(ch *chart.Chart, values chartutil.Values, caps *chartutil.Capabilities, includeCRDs bool) (string, error) {
	if ch.Metadata.KubeVersion != "" {
		if !chartutil.IsCompatibleRange(ch.Metadata.KubeVersion, caps.KubeVersion.String()) {
			return "", errors.Errorf("chart requires kubeVersion: %s which is incompatible with Kubernetes %s", ch.Metadata.KubeVersion, caps.KubeVersion.String())
		}
	}
	var e engine.Engine
	files, err := e.Render(ch, values)
	if err != nil {
		return "", err
	}
	for k := range files {
		if strings.HasSuffix(k, "NOTES.txt") {
			delete(files, k)
		}
	}
	_, manifests, err := releaseutil.SortManifests(files, nil, releaseutil.InstallOrder)
	if err != nil {
		return "", err
	}
	var b bytes.Buffer
	if includeCRDs {
		for _, crd := range ch.CRDObjects() {
			fmt.Fprintf(&b, "---\n# Source: %s\n%s\n", crd.Filename, string(crd.File.Data[:]))
		}
	}
	for _, m := range manifests {
		fmt.Fprintf(&b, "---\n# Source: %s\n%s\n", m.Name, m.Content)
	}
	return b.String(), nil
}
