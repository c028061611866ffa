/**
 * One helmfile release's chart source and capabilities (docs/compatibility.md#helmfile step 5,
 * #helm-capabilities). The render module then runs what Tazuna runs: the Helm SDK's install in
 * client-only dry-run mode, keeping `release.Manifest` (docs/renderers.md).
 */
import type { HelmCapabilities } from '../context.js'
import type { HelmRepository } from './helmfile-spec.js'

/**
 * Kubernetes version when neither `helmfile.kubeVersion` nor cluster capabilities are known.
 * Helm v3.21's chartutil.DefaultCapabilities is v1.20.0 unless the binary was linked with the
 * Makefile's version flags (a library user such as Tazuna gets v1.20.0); we pass it explicitly
 * (docs/compatibility.md#helm-capabilities).
 */
export const DEFAULT_KUBE_VERSION = 'v1.20.0'

/** Where a release's chart comes from. */
export type ChartSource =
  | { kind: 'local'; path: string }
  | { kind: 'oci'; ref: string; repository?: HelmRepository }
  | { kind: 'repo'; chart: string; repository: HelmRepository }

/**
 * Resolves `release.chart`: an `oci://` reference; `<alias>/<chart>` for an alias declared in
 * `repositories` (OCI when `oci: true` or the URL is `oci://`, else an HTTP chart repository);
 * anything else is a local chart path relative to the helmfile directory. `resolvePath` joins
 * a relative path with that directory.
 */
export function resolveChartSource(
  chart: string,
  repositories: readonly HelmRepository[],
  resolvePath: (p: string) => string
): ChartSource {
  if (chart.startsWith('oci://')) return { kind: 'oci', ref: chart }
  const slash = chart.indexOf('/')
  if (slash > 0) {
    const alias = chart.slice(0, slash)
    const repository = repositories.find((r) => r.name === alias)
    if (repository !== undefined) {
      const name = chart.slice(slash + 1)
      if (repository.oci || repository.url.startsWith('oci://')) {
        const base = repository.url.replace(/^oci:\/\//, '').replace(/\/+$/, '')
        return { kind: 'oci', ref: `oci://${base}/${name}`, repository }
      }
      return { kind: 'repo', chart: name, repository }
    }
  }
  return { kind: 'local', path: resolvePath(chart) }
}

/**
 * The capabilities a release is rendered with: `helmfile.kubeVersion` wins and keeps Helm's
 * default API versions (as in Tazuna, even when a cluster is reachable); else the cluster's
 * discovered version and API versions (Helm appends them to its defaults, as Tazuna does); else
 * DEFAULT_KUBE_VERSION.
 */
export function selectCapabilities(
  kubeVersion: string | undefined,
  discovered: HelmCapabilities | undefined
): HelmCapabilities {
  if (kubeVersion) return { kubeVersion, apiVersions: [] }
  if (discovered !== undefined) return discovered
  return { kubeVersion: DEFAULT_KUBE_VERSION, apiVersions: [] }
}
