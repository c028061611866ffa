// Package render renders Go text/template text the way Tazuna does, in one of two modes:
// tazuna.yaml files (docs/compatibility.md#config-loading step 2) and helmfile files
// (docs/compatibility.md#helmfile step 3).
package render

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"text/template"

	"github.com/Masterminds/sprig/v3"
	"sigs.k8s.io/yaml"
)

// Options selects the mode and names the template (errors name it: "template: NAME:LINE:COL").
type Options struct {
	Mode string `json:"mode"`
	Name string `json:"name"`
}

// Result is either Output or Error; Phase tells a parse error from an execution error.
type Result struct {
	Output string `json:"output"`
	Error  string `json:"error,omitempty"`
	Phase  string `json:"phase,omitempty"`
}

// Render parses text as template opts.Name and executes it with the JSON object dataJSON.
// Mode "tazuna": only Go's built-in functions, missingkey=error. Mode "helmfile": sprig's
// TxtFuncMap minus env/expandenv plus Helm's toYaml/fromYaml/toJson/fromJson, missingkey=zero.
func Render(text, dataJSON string, opts Options) (result Result) {
	defer func() {
		if r := recover(); r != nil {
			result = Result{Error: fmt.Sprintf("template: %s: panic: %v", opts.Name, r), Phase: "execute"}
		}
	}()
	var data map[string]any
	if err := json.Unmarshal([]byte(dataJSON), &data); err != nil {
		return Result{Error: "invalid template data: " + err.Error(), Phase: "data"}
	}
	tmpl, err := newTemplate(opts)
	if err != nil {
		return Result{Error: err.Error(), Phase: "options"}
	}
	if _, err := tmpl.Parse(text); err != nil {
		return Result{Error: err.Error(), Phase: "parse"}
	}
	var out bytes.Buffer
	if err := tmpl.Execute(&out, data); err != nil {
		return Result{Error: err.Error(), Phase: "execute"}
	}
	return Result{Output: out.String()}
}

func newTemplate(opts Options) (*template.Template, error) {
	switch opts.Mode {
	case "tazuna":
		return template.New(opts.Name).Option("missingkey=error"), nil
	case "helmfile":
		return template.New(opts.Name).Funcs(helmfileFuncs()).Option("missingkey=zero"), nil
	default:
		return nil, fmt.Errorf("unknown template mode %q", opts.Mode)
	}
}

// helmfileFuncs is Tazuna's helmfile function map: env and expandenv are removed so a
// helmfile cannot read the process environment (vars are the only input).
func helmfileFuncs() template.FuncMap {
	funcs := sprig.TxtFuncMap()
	delete(funcs, "env")
	delete(funcs, "expandenv")
	funcs["toYaml"] = toYAML
	funcs["fromYaml"] = fromYAML
	funcs["toJson"] = toJSON
	funcs["fromJson"] = fromJSON
	return funcs
}

// The four functions below copy Helm's semantics (helm.sh/helm/v3/pkg/engine/funcs.go):
// marshal failures yield "", unmarshal failures yield a map whose "Error" key holds the message.

func toYAML(v any) string {
	data, err := yaml.Marshal(v)
	if err != nil {
		return ""
	}
	return strings.TrimSuffix(string(data), "\n")
}

func fromYAML(str string) map[string]any {
	m := map[string]any{}
	if err := yaml.Unmarshal([]byte(str), &m); err != nil {
		m["Error"] = err.Error()
	}
	return m
}

func toJSON(v any) string {
	data, err := json.Marshal(v)
	if err != nil {
		return ""
	}
	return string(data)
}

func fromJSON(str string) map[string]any {
	m := make(map[string]any)
	if err := json.Unmarshal([]byte(str), &m); err != nil {
		m["Error"] = err.Error()
	}
	return m
}
