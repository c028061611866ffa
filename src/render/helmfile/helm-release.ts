/**
 * One helmfile release as a `helm template` command line (docs/compatibility.md#helmfile step 5,
 * docs/compatibility.md#empty-release-namespace, #helm-capabilities, #helm-hooks). Tazuna runs the
 * Helm SDK's install in client-only dry-run mode and keeps `release.Manifest`; the `helm template`
 * flags below reproduce that run.
 */
import type { HelmCapabilities } from '../context.js'
import type { HelmRelease, HelmRepository } from './helmfile-spec.js'

/**
 * Kubernetes version when neither `helmfile.kubeVersion` nor cluster capabilities are known.
 * Helm v3.21's chartutil.DefaultCapabilities is v1.20.0 unless the binary was linked with the
 * Makefile's version flags (a library user such as Tazuna, or `go build` of the CLI, gets
 * v1.20.0); we pass it explicitly so helm builds that differ cannot change the output
 * (docs/compatibility.md#helm-capabilities).
 */
export const DEFAULT_KUBE_VERSION = 'v1.20.0'

/**
 * Stand-in for an omitted release namespace (docs/compatibility.md#empty-release-namespace). Tazuna
 * renders such a release with an empty `.Release.Namespace`; the Helm CLI cannot (`--namespace ''`
 * falls back to the kubeconfig namespace or `default`). We render with this name, which no chart
 * will contain by accident, and delete it from the output, so `namespace: {{ .Release.Namespace }}`
 * yields `namespace: ` (null → the manifest's defaultNamespace applies) and `{{ .Release.Namespace
 * | quote }}` yields `""`, exactly as in Tazuna. Charts that compute on the value (`upper`,
 * `sha256sum`, `default "x" .Release.Namespace`, `if .Release.Namespace`) still see a non-empty
 * name and can differ; declare `namespace` on such releases.
 */
export const EMPTY_NAMESPACE_STAND_IN = 'tazuna-omitted-release-namespace-5e1f'

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

/** Everything `helm template` needs for one release. */
export interface HelmTemplateInputs {
  release: HelmRelease
  chart: ChartSource
  includeCRDs: boolean
  capabilities: HelmCapabilities
  /** `-f` files, in merge order. */
  valuesFiles: readonly string[]
}

/**
 * The argument array of `helm template` for one release (hooks dropped,
 * docs/compatibility.md#helm-hooks).
 */
export function helmTemplateArgs(inputs: HelmTemplateInputs): string[] {
  const { release, chart, capabilities } = inputs
  const namespace = release.namespace === '' ? EMPTY_NAMESPACE_STAND_IN : release.namespace
  const args = ['template', release.name, ...chartArgs(chart), '--namespace', namespace]
  if (release.version !== '') args.push('--version', release.version)
  if (inputs.includeCRDs) args.push('--include-crds')
  args.push('--no-hooks', '--kube-version', capabilities.kubeVersion)
  for (const api of capabilities.apiVersions) args.push('--api-versions', api)
  for (const file of inputs.valuesFiles) args.push('--values', file)
  return args
}

function chartArgs(chart: ChartSource): string[] {
  switch (chart.kind) {
    case 'local':
      return [chart.path]
    case 'oci':
      return [chart.ref, ...credentialArgs(chart.repository)]
    case 'repo':
      return [chart.chart, '--repo', chart.repository.url, ...credentialArgs(chart.repository)]
  }
}

function credentialArgs(repository: HelmRepository | undefined): string[] {
  if (repository === undefined) return []
  const args: string[] = []
  if (repository.username !== '') args.push('--username', repository.username)
  if (repository.password !== '') args.push('--password', repository.password)
  return args
}

/**
 * The release's output as Tazuna has it: the omitted-namespace stand-in removed, whitespace
 * trimmed (the helmfile manager joins trimmed outputs, docs/compatibility.md#helmfile step 6).
 */
export function releaseOutput(stdout: string, release: HelmRelease): string {
  const text = release.namespace === '' ? stdout.split(EMPTY_NAMESPACE_STAND_IN).join('') : stdout
  return text.trim()
}
