// Package v1 mirrors the shape of Tazuna's api/v1 types as docs/compatibility.md#schema describes
// them; the package name matters because Go's decode errors print types as v1.Name. The
// GenesisSecret (docs/compatibility.md#genesissecret) and helmfile subset
// (docs/compatibility.md#helmfile) types are here too, under the same package name as
// src/config/go-json.ts prints them (their upstream packages are not documented).
package v1

type Tazuna struct {
	APIVersion string     `json:"apiVersion"`
	Kind       string     `json:"kind"`
	Spec       TazunaSpec `json:"spec"`
}

type TazunaSpec struct {
	MinimumSupportedTazunaVersion string                     `json:"minimumSupportedTazunaVersion"`
	ContextMatches                []string                   `json:"context_matches"`
	ContextMatchMode              string                     `json:"context_match_mode"`
	Environments                  map[string]EnvironmentSpec `json:"environments"`
	Manifests                     []Manifest                 `json:"manifests"`
	Tests                         []TestPluginSpec           `json:"tests"`
	Providers                     []ProviderConfig           `json:"providers"`
}

type EnvironmentSpec struct {
	ContextMatches   []string `json:"context_matches"`
	ContextMatchMode string   `json:"context_match_mode"`
}

type Include struct {
	Path string `json:"path"`
}

type Manifest struct {
	Name          string                 `json:"name"`
	Description   string                 `json:"description"`
	Includes      []Include              `json:"includes"`
	Type          string                 `json:"type"`
	Path          string                 `json:"path"`
	Tags          []string               `json:"tags"`
	DependsOn     []string               `json:"dependsOn"`
	Kustomize     *ManifestKustomize     `json:"kustomize"`
	Helmfile      *ManifestHelmfile      `json:"helmfile"`
	GenesisSecret *ManifestGenesisSecret `json:"genesisSecret"`
	ORAS          *ManifestORAS          `json:"oras"`
	Tests         []TestPluginSpec       `json:"tests"`
}

type ManifestKustomize struct {
	DefaultNamespace string `json:"defaultNamespace"`
}

type ManifestGenesisSecret struct{}

type ManifestHelmfile struct {
	Vars             map[string]HelmFileVar `json:"vars"`
	IncludeCRDs      bool                   `json:"includeCRDs"`
	DefaultNamespace string                 `json:"defaultNamespace"`
	ExtraValueFiles  []string               `json:"extraValueFiles"`
	Wait             bool                   `json:"wait"`
	TimeoutSeconds   int                    `json:"timeoutSeconds"`
	KubeVersion      string                 `json:"kubeVersion"`
}

type HelmFileVar struct {
	From        string         `json:"from"`
	Env         string         `json:"env"`
	Static      string         `json:"static"`
	StaticSlice []any          `json:"staticSlice"`
	StaticMap   map[string]any `json:"staticMap"`
	OP          *HelmFileVarOP `json:"op"`
}

type HelmFileVarOP struct {
	Vault string `json:"vault"`
	Item  string `json:"item"`
	Field string `json:"field"`
	Key   string `json:"key"`
}

type ManifestORAS struct {
	Reference          string       `json:"reference"`
	Target             string       `json:"target"`
	PlainHTTP          bool         `json:"plainHTTP"`
	InsecureSkipVerify bool         `json:"insecureSkipVerify"`
	Auth               *ORASAuth    `json:"auth"`
	Delegate           ORASDelegate `json:"delegate"`
}

type ORASAuth struct {
	Username string `json:"username"`
	Password string `json:"password"`
}

type ORASDelegate struct {
	Type      string             `json:"type"`
	Helmfile  *ManifestHelmfile  `json:"helmfile"`
	Kustomize *ManifestKustomize `json:"kustomize"`
}

type TestPluginResource struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
}

type TestPluginSpec struct {
	Type                       string             `json:"type"`
	MinConsecutiveSuccessCount int                `json:"minConsecutiveSuccessCount"`
	MinConsecutiveFailureCount int                `json:"minConsecutiveFailureCount"`
	TimeoutSeconds             int                `json:"timeoutSeconds"`
	IntervalSeconds            int                `json:"intervalSeconds"`
	WaitUntil                  *WaitUntilSpec     `json:"waitUntil"`
	ExistNonExist              *ExistNonExistSpec `json:"existNonExist"`
}

type WaitUntilSpec struct {
	Resource  TestPluginResource `json:"resource"`
	Namespace string             `json:"namespace"`
	Name      string             `json:"name"`
	Condition string             `json:"condition"`
}

type ExistNonExistSpec struct {
	Resource    TestPluginResource `json:"resource"`
	Namespace   string             `json:"namespace"`
	Name        string             `json:"name"`
	ShouldExist bool               `json:"shouldExist"`
}

type ProviderConfig struct {
	Name        string               `json:"name"`
	Type        string               `json:"type"`
	OnePassword *OnePasswordProvider `json:"onepassword"`
	Envfile     *EnvfileProvider     `json:"envfile"`
}

type OnePasswordProvider struct{}

type EnvfileProvider struct {
	Path string `json:"path"`
}

// A GenesisSecret file (docs/compatibility.md#genesissecret). The kubernetesSecret output's unused
// `context` field is left out: its Go type is not documented.
type GenesisSecret struct {
	Spec GenesisSecretSpec `json:"spec"`
}

type GenesisSecretSpec struct {
	Provider string                `json:"provider"`
	Secrets  []GenesisSecretSecret `json:"secrets"`
	Static   map[string]string     `json:"static"`
	Outputs  []GenesisSecretOutput `json:"outputs"`
}

type GenesisSecretSecret struct {
	URI         string                       `json:"uri"`
	PreferLabel bool                         `json:"preferLabel"`
	Items       map[string]GenesisSecretItem `json:"items"`
}

type GenesisSecretItem struct {
	MapTo string `json:"mapTo"`
}

type GenesisSecretOutput struct {
	Stdout           *GenesisSecretStdout           `json:"stdout"`
	KubernetesSecret *GenesisSecretKubernetesSecret `json:"kubernetesSecret"`
}

type GenesisSecretStdout struct{}

type GenesisSecretKubernetesSecret struct {
	Namespace   string            `json:"namespace"`
	Name        string            `json:"name"`
	Labels      map[string]string `json:"labels"`
	Annotations map[string]string `json:"annotations"`
	Type        string            `json:"type"`
}

// The part of a rendered helmfile Tazuna's helmfile subset reads (docs/compatibility.md#helmfile
// step 4).
type Helmfile struct {
	Repositories []HelmfileRepository `json:"repositories"`
	Releases     []HelmfileRelease    `json:"releases"`
}

type HelmfileRepository struct {
	Name     string `json:"name"`
	URL      string `json:"url"`
	Username string `json:"username"`
	Password string `json:"password"`
	OCI      bool   `json:"oci"`
}

type HelmfileRelease struct {
	Name      string `json:"name"`
	Namespace string `json:"namespace"`
	Chart     string `json:"chart"`
	Version   string `json:"version"`
	Values    []any  `json:"values"`
}
