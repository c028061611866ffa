package bridge

import "runtime/debug"

// versions names the renderer modules compiled in, read from the binary's own build
// information so the report cannot disagree with what rendered.
func versions() map[string]string {
	out := map[string]string{}
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return out
	}
	out["go"] = info.GoVersion
	for _, dep := range info.Deps {
		switch dep.Path {
		case "sigs.k8s.io/kustomize/api", "helm.sh/helm/v3":
			out[dep.Path] = dep.Version
		}
	}
	return out
}
