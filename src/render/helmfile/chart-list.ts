/**
 * `chart list` (docs/compatibility.md#chart-list): where each helmfile release's chart comes
 * from, and the newest version that source offers, as Tazuna's `pkg/manager/helmfile_releases.go`
 * decides them. Its rules differ from the render's chart resolution (helm-release.ts) on
 * purpose, as upstream's do: `<alias>/<chart>` must be exactly two segments and not start with
 * `.`, and `oci://host` without a repository path is local.
 */
import { OciRegistryClient, OciRegistryError } from '../../oci/registry-client.js'
import { OciReferenceError, parseOciReference } from '../../oci/reference.js'
import type { HttpClient } from '../ports.js'
import { sortedVersionTags } from './chart-fetch-oci.js'
import { fetchChartIndex } from './chart-fetch-repo.js'
import { ChartFetchError, displayUrl } from './chart-fetch-types.js'
import { selectIndexEntry } from './chart-index.js'
import type { HelmRepository } from './helmfile-spec.js'

/** Where the newest version of a release's chart is asked for. */
export type LatestSource =
  | { kind: 'local' }
  | { kind: 'http'; chart: string; repository: HelmRepository }
  /** `repository` is `host[:port]/path` (no scheme), the chart's OCI repository its parent. */
  | { kind: 'oci'; chart: string; repository: string }

/**
 * Tazuna's resolveChartSource: an `oci://` reference is split at its last `/`; `<alias>/<chart>`
 * of a declared repository is OCI when the repository says `oci: true` or its URL is `oci://`,
 * else an HTTP(S) chart repository; everything else (local paths, undeclared aliases) is local.
 */
export function latestSourceOf(
  chart: string,
  repositories: readonly HelmRepository[]
): LatestSource {
  if (chart.startsWith('oci://')) {
    const trimmed = chart.slice('oci://'.length).replace(/\/$/, '')
    const slash = trimmed.lastIndexOf('/')
    if (slash < 0) return { kind: 'local' }
    return { kind: 'oci', chart: trimmed.slice(slash + 1), repository: trimmed.slice(0, slash) }
  }
  const alias = splitRepoAlias(chart)
  // The last repository of a name wins, as in Tazuna's map of repositories.
  const repository = alias && repositories.findLast((r) => r.name === alias.alias)
  if (!alias || !repository) return { kind: 'local' }
  if (repository.oci || repository.url.startsWith('oci://')) {
    const base = repository.url.replace(/\/$/, '').replace(/^oci:\/\//, '')
    return { kind: 'oci', chart: alias.chart, repository: base }
  }
  return { kind: 'http', chart: alias.chart, repository }
}

/** Tazuna's splitRepoAlias: `alias/chart`, no scheme, not absolute, not starting with `.`. */
function splitRepoAlias(chart: string): { alias: string; chart: string } | undefined {
  if (chart.includes('://') || chart.startsWith('/') || chart.startsWith('.')) return undefined
  const slash = chart.indexOf('/')
  if (slash <= 0) return undefined
  const name = chart.slice(slash + 1)
  if (name === '' || name.includes('/')) return undefined
  return { alias: chart.slice(0, slash), chart: name }
}

/**
 * Releases whose sources share this key are asked once (Tazuna's LatestVersionKey); '' for a
 * local chart, which is never asked.
 */
export function latestSourceKey(source: LatestSource): string {
  if (source.kind === 'local' || source.chart === '') return ''
  const url = source.kind === 'oci' ? `oci://${source.repository}` : source.repository.url
  return `${source.kind}|${url}|${source.chart}`
}

/**
 * The newest version `source` offers: from an HTTP(S) repository, the index entry Helm's
 * `IndexFile.Get(name, "")` picks (the newest non-prerelease); from an OCI registry, the first
 * of Helm's `Client.Tags` (strict semver tags, newest first, prereleases included), asked
 * anonymously as Tazuna's registry client asks (the helmfile's credentials are not sent there).
 * '' for a local chart or an OCI repository without semver tags. Throws ChartFetchError,
 * naming the repository without credentials.
 */
export async function latestChartVersion(http: HttpClient, source: LatestSource): Promise<string> {
  if (source.kind === 'local') return ''
  if (source.kind === 'http') {
    const where = `chart repository ${displayUrl(source.repository.url)}`
    const index = await fetchChartIndex(http, source.repository, where)
    const entry = selectIndexEntry(index, source.chart, '')
    if (entry === undefined) {
      throw new ChartFetchError(
        `${where}: chart "${source.chart}" not found in the repository index`
      )
    }
    return entry.version
  }
  const name = `${source.repository}/${source.chart}`
  try {
    const tags = await sortedVersionTags(new OciRegistryClient({ http }), parseOciReference(name))
    return tags[0] ?? ''
  } catch (err) {
    if (err instanceof OciRegistryError || err instanceof OciReferenceError) {
      throw new ChartFetchError(`OCI chart ${name}: failed to list tags: ${err.message}`)
    }
    throw err
  }
}
