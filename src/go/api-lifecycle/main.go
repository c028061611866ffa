// Command api-lifecycle prints the release lifecycle that Kubernetes' own API packages
// (k8s.io/api at the version go.mod pins, the render module's) declare for every built-in kind
// of a prerelease version: the generated APILifecycleIntroduced, APILifecycleDeprecated,
// APILifecycleRemoved and APILifecycleReplacement methods of each type
// (zz_generated.prerelease-lifecycle.go). The output is src/risk/api-lifecycle.json, which the
// risk pass reads to say when a served version goes away and what replaces one the cluster no
// longer serves (docs/risks.md#apis-on-their-way-out). Never shipped.
//
// k8s.io/api v0.36 dropped the packages of versions removed long before (autoscaling/v2beta1 and
// v2beta2 among them), whose replacements a cluster's user still needs: generate.sh builds this
// program a second time against go.v0.35.mod (k8s.io/api v0.35.4, the last release line holding
// them) and passes its table as -older; kinds the pinned packages no longer hold are taken
// from it, and the source names both.
//
// Usage: api-lifecycle [-older TABLE.json] > src/risk/api-lifecycle.json (see generate.sh)
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"runtime/debug"
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes/scheme"
)

type lifecycle interface {
	APILifecycleIntroduced() (major, minor int)
	APILifecycleDeprecated() (major, minor int)
	APILifecycleRemoved() (major, minor int)
}

type replaced interface {
	APILifecycleReplacement() schema.GroupVersionKind
}

type entry struct {
	Introduced  string `json:"introduced,omitempty"`
	Deprecated  string `json:"deprecated,omitempty"`
	Removed     string `json:"removed,omitempty"`
	Replacement string `json:"replacement,omitempty"`
}

func release(major, minor int) string {
	if major == 0 && minor == 0 {
		return ""
	}
	return fmt.Sprintf("%d.%d", major, minor)
}

type table struct {
	Source string           `json:"source"`
	Kinds  map[string]entry `json:"kinds"`
}

func main() {
	older := flag.String("older", "", "a table of an earlier k8s.io/api, for kinds the pinned one no longer holds")
	flag.Parse()
	kinds := map[string]entry{}
	for gvk := range scheme.Scheme.AllKnownTypes() {
		if strings.HasSuffix(gvk.Kind, "List") || gvk.Version == "__internal" {
			continue
		}
		obj, err := scheme.Scheme.New(gvk)
		if err != nil {
			continue
		}
		l, ok := obj.(lifecycle)
		if !ok {
			continue
		}
		e := entry{
			Introduced: release(l.APILifecycleIntroduced()),
			Deprecated: release(l.APILifecycleDeprecated()),
			Removed:    release(l.APILifecycleRemoved()),
		}
		if r, ok := obj.(replaced); ok {
			if to := r.APILifecycleReplacement(); to.Kind != "" {
				e.Replacement = strings.TrimPrefix(to.GroupVersion().String()+"/"+to.Kind, "/")
			}
		}
		if e.Deprecated == "" && e.Removed == "" {
			continue
		}
		kinds[strings.TrimPrefix(gvk.GroupVersion().String()+"/"+gvk.Kind, "/")] = e
	}
	t := table{Source: source(), Kinds: kinds}
	if *older != "" {
		raw, err := os.ReadFile(*older)
		var earlier table
		if err == nil {
			err = json.Unmarshal(raw, &earlier)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		for k, e := range earlier.Kinds {
			if _, ok := kinds[k]; !ok {
				kinds[k] = e
			}
		}
		t.Source += "; kinds it no longer holds from " + earlier.Source
	}
	out, err := json.MarshalIndent(t, "", "  ")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Stdout.Write(append(out, '\n'))
}

// source names the k8s.io/api module the table comes from, from this program's build information.
func source() string {
	info, ok := debug.ReadBuildInfo()
	if ok {
		for _, m := range info.Deps {
			if m.Path == "k8s.io/api" {
				return "k8s.io/api " + m.Version
			}
		}
	}
	return "k8s.io/api"
}
