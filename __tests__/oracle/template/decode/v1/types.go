// Package v1 mirrors the shape of Tazuna's api/v1 types as the behaviour spec §2 describes
// them; the package name matters because Go's decode errors print types as v1.Name.
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
