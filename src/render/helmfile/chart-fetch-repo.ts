/**
 * Chart download from an HTTP chart repository as Helm v3.21.4 does it for `--repo`
 * (`repo.FindChartInAuthAndTLSAndPassRepoURL`, then the HTTP getter;
 * docs/compatibility.md#chart-download): `<url>/index.yaml` with basic auth, the version picked
 * as `IndexFile.Get` does, the chart URL resolved against the repository URL, credentials sent
 * along only to the repository's own scheme and host.
 */
import { SemverError } from '../../go/semver.js'
import { HttpTransportError, type HttpClient, type HttpResponse } from '../ports.js'
import {
  ChartIndexError,
  parseChartIndex,
  selectIndexEntry,
  type ChartIndex
} from './chart-index.js'
import {
  ChartFetchError,
  displayUrl,
  type ChartFetchRequest,
  type FetchedChart
} from './chart-fetch-types.js'
import type { HelmRepository } from './helmfile-spec.js'

/** Helm's `repo.ResolveReferenceURL`: relative URLs against the repository URL as a directory. */
export function resolveReferenceUrl(base: string, ref: string): string {
  if (/^[A-Za-z][A-Za-z0-9+.-]*:/.test(ref)) return ref
  const baseUrl = new URL(base)
  baseUrl.pathname = `${baseUrl.pathname.replace(/\/$/, '')}/`
  const resolved = new URL(ref, baseUrl)
  resolved.search = baseUrl.search
  return resolved.toString()
}

const STATUS_TEXT: Record<number, string> = {
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  500: 'Internal Server Error'
}

async function httpGet(
  http: HttpClient,
  url: string,
  headers: Record<string, string>
): Promise<HttpResponse> {
  let response: HttpResponse
  try {
    response = await http.get(url, { headers })
  } catch (err) {
    if (err instanceof HttpTransportError) throw new ChartFetchError(err.message)
    throw err
  }
  if (response.status !== 200) {
    const text = STATUS_TEXT[response.status] ?? ''
    const hint =
      response.status === 401 || response.status === 403
        ? ' (check the repository username and password)'
        : ''
    throw new ChartFetchError(
      `failed to fetch ${displayUrl(url)} : ${response.status} ${text}`.trimEnd() + hint
    )
  }
  return response
}

function basicAuth(repository: HelmRepository): Record<string, string> {
  // Helm's HTTP getter sends credentials only when both are set.
  if (repository.username === '' || repository.password === '') return {}
  const token = Buffer.from(`${repository.username}:${repository.password}`, 'utf8').toString(
    'base64'
  )
  return { Authorization: `Basic ${token}` }
}

function sameOrigin(a: string, b: string): boolean {
  const [u1, u2] = [new URL(a), new URL(b)]
  return u1.protocol === u2.protocol && u1.host === u2.host
}

/**
 * `<url>/index.yaml` of `repository` (Basic auth when both username and password are set),
 * parsed and sorted as Helm loads it; throws ChartFetchError starting with `where`.
 */
export async function fetchChartIndex(
  http: HttpClient,
  repository: HelmRepository,
  where: string
): Promise<ChartIndex> {
  const repoUrl = repository.url
  if (!URL.canParse(repoUrl)) throw new ChartFetchError(`${where}: not a URL`)
  let indexText: string
  try {
    const index = await httpGet(
      http,
      resolveReferenceUrl(repoUrl, 'index.yaml'),
      basicAuth(repository)
    )
    indexText = new TextDecoder().decode(index.body)
  } catch (err) {
    throw new ChartFetchError(
      `${where}: looks like it is not a valid chart repository or cannot be reached: ${(err as Error).message}`
    )
  }
  try {
    return parseChartIndex(indexText)
  } catch (err) {
    if (err instanceof ChartIndexError)
      throw new ChartFetchError(`${where}: index.yaml: ${err.message}`)
    throw err
  }
}

/** Downloads `chart` of `repository` at `request.version`; throws ChartFetchError. */
export async function fetchFromRepository(
  http: HttpClient,
  request: ChartFetchRequest,
  chart: string,
  repository: HelmRepository
): Promise<FetchedChart> {
  const repoUrl = repository.url
  const where = `release "${request.release}": chart repository ${displayUrl(repoUrl)}`
  const version = request.version.trim()
  const index = await fetchChartIndex(http, repository, where)
  let entry
  try {
    entry = selectIndexEntry(index, chart, version)
  } catch (err) {
    if (!(err instanceof SemverError)) throw err
    entry = undefined
  }
  const wanted = version === '' ? `chart "${chart}"` : `chart "${chart}" version "${version}"`
  if (entry === undefined)
    throw new ChartFetchError(`${where}: ${wanted} not found in the repository index`)
  const first = entry.urls[0]
  if (first === undefined) throw new ChartFetchError(`${where}: ${wanted} has no downloadable URLs`)
  const chartUrl = resolveReferenceUrl(repoUrl, first)
  // LocateChart passes the credentials on only to the repository's own scheme and host
  // (passCredentialsAll is false).
  const auth = sameOrigin(repoUrl, chartUrl) ? basicAuth(repository) : {}
  let archive: Uint8Array
  try {
    archive = (
      await httpGet(http, chartUrl, {
        ...auth,
        Accept: 'application/gzip,application/octet-stream'
      })
    ).body
  } catch (err) {
    throw new ChartFetchError(`${where}: downloading ${wanted}: ${(err as Error).message}`)
  }
  return {
    name: entry.name,
    version: entry.version,
    archive,
    fileName: `${entry.name}-${entry.version}.tgz`,
    origin: displayUrl(chartUrl)
  }
}
