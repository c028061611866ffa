/**
 * Chart download for a helmfile release whose chart is `<alias>/<chart>` of a declared
 * repository or an `oci://` reference, as Helm v3.21.4's `ChartPathOptions.LocateChart` does it
 * (docs/compatibility.md#chart-download). Returns the archive's bytes; writing them (to the
 * run's temp dir) and loading the chart are the caller's. Talks to the network only through
 * the HttpClient port.
 */
import {
  compareVersions,
  formatVersion,
  parseStrictVersion,
  parseVersion,
  SemverError
} from '../../go/semver.js'
import { OciReferenceError, parseOciReference, tagOfVersion } from '../../oci/reference.js'
import type { OciReference } from '../../oci/reference.js'
import {
  OciRegistryClient,
  OciRegistryError,
  type OciDescriptor
} from '../../oci/registry-client.js'
import { HttpTransportError, type HttpClient, type HttpResponse } from '../ports.js'
import { ChartIndexError, parseChartIndex, selectIndexEntry, selectTag } from './chart-index.js'
import type { ChartSource } from './helm-release.js'
import type { HelmRepository } from './helmfile-spec.js'

/** A downloaded chart archive. */
export interface FetchedChart {
  /** Chart name and version as the repository index or the OCI config blob state them. */
  name: string
  version: string
  /** The .tgz archive, byte for byte as served (OCI: digest-checked). */
  archive: Uint8Array
  /** `<name>-<version>.tgz`, a file name for the archive. */
  fileName: string
  /** Where it came from: the chart URL, or `host/repository@sha256:...`; no credentials. */
  origin: string
}

/** What to download. */
export interface ChartFetchRequest {
  /** A remote source from resolveChartSource (`local` is rejected). */
  source: ChartSource
  /** The release's `version`: exact, a constraint, or '' (newest non-prerelease). */
  version: string
  /** The release's name, for messages. */
  release: string
  /** OCI only: speak plain http from the start (Helm's `--plain-http`; default false). */
  plainHttp?: boolean
}

/**
 * A chart could not be downloaded. The message names the release and the repository URL or
 * OCI reference, and never holds a password or token.
 */
export class ChartFetchError extends Error {
  override name = 'ChartFetchError'
}

const CHART_LAYER = 'application/vnd.cncf.helm.chart.content.v1.tar+gzip'
const LEGACY_CHART_LAYER = 'application/tar+gzip'
const CONFIG_MEDIA_TYPE = 'application/vnd.cncf.helm.config.v1+json'

/**
 * Downloads the chart of `request.source` at `request.version`. Rejects with ChartFetchError
 * for wrong credentials, a missing chart or version, an unreachable server, a digest mismatch.
 */
export async function fetchChart(
  http: HttpClient,
  request: ChartFetchRequest
): Promise<FetchedChart> {
  const { source } = request
  const secret = source.kind === 'local' ? '' : (source.repository?.password ?? '')
  try {
    if (source.kind === 'repo')
      return await fetchFromRepository(http, request, source.chart, source.repository)
    if (source.kind === 'oci')
      return await fetchFromRegistry(http, request, source.ref, source.repository)
    throw new ChartFetchError(
      `release "${request.release}": chart ${source.path} is local, nothing to download`
    )
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err)
    const safe = secret === '' ? message : message.split(secret).join('***')
    if (err instanceof ChartFetchError && safe === message) throw err
    throw new ChartFetchError(safe)
  }
}

/** The URL without user info, for messages. */
function displayUrl(url: string): string {
  try {
    const u = new URL(url)
    u.username = ''
    u.password = ''
    return u.toString().replace(/\/$/, url.endsWith('/') ? '/' : '')
  } catch {
    return url.replace(/\/\/[^/@]*@/, '//')
  }
}

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

async function fetchFromRepository(
  http: HttpClient,
  request: ChartFetchRequest,
  chart: string,
  repository: HelmRepository
): Promise<FetchedChart> {
  const repoUrl = repository.url
  const where = `release "${request.release}": chart repository ${displayUrl(repoUrl)}`
  const version = request.version.trim()
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
  let entry
  try {
    entry = selectIndexEntry(parseChartIndex(indexText), chart, version)
  } catch (err) {
    if (!(err instanceof ChartIndexError) && !(err instanceof SemverError)) throw err
    if (err instanceof ChartIndexError)
      throw new ChartFetchError(`${where}: index.yaml: ${err.message}`)
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

async function fetchFromRegistry(
  http: HttpClient,
  request: ChartFetchRequest,
  refText: string,
  repository: HelmRepository | undefined
): Promise<FetchedChart> {
  const where = `release "${request.release}": OCI chart ${displayUrl(refText.trim())}`
  const client = new OciRegistryClient({
    http,
    credentials:
      repository === undefined
        ? undefined
        : { username: repository.username, password: repository.password },
    plainHttp: request.plainHttp ?? false
  })
  try {
    const ref = parseOciReference(refText.trim())
    const target = await resolveOciTarget(client, ref, request.version.trim())
    return await pullChart(client, ref, target)
  } catch (err) {
    if (
      err instanceof OciRegistryError ||
      err instanceof OciReferenceError ||
      err instanceof ChartFetchError ||
      err instanceof SemverError
    ) {
      throw new ChartFetchError(`${where}: ${err.message}${hintFor(err)}`)
    }
    throw err
  }
}

function hintFor(err: Error): string {
  if (err instanceof OciRegistryError && err.reason === 'auth')
    return ' (check the repository username and password)'
  return ''
}

/** Helm's `Client.ValidateReference`: the tag or digest to pull for `version`. */
async function resolveOciTarget(
  client: OciRegistryClient,
  ref: OciReference,
  versionIn: string
): Promise<string> {
  let version = versionIn
  if (version === '') version = ref.tag
  else if (ref.tag !== '' && ref.tag !== version) {
    throw new ChartFetchError(`chart reference and version mismatch: ${version} is not ${ref.tag}`)
  }
  if (ref.digest !== '') {
    if (version !== '') {
      // The tag, when it exists, must point at the digest; an untagged digest is fine.
      let tagged: string | undefined
      try {
        tagged = (await client.fetchManifest(ref, tagOfVersion(version))).digest
      } catch (err) {
        if (!(err instanceof OciRegistryError)) throw err
      }
      if (tagged !== undefined && tagged !== ref.digest) {
        throw new ChartFetchError(`chart reference digest mismatch: ${tagged} is not ${ref.digest}`)
      }
    }
    return ref.digest
  }
  if (isVersion(version)) return tagOfVersion(version)
  const tags = await sortedVersionTags(client, ref)
  if (tags.length === 0) throw new ChartFetchError('no tags in the repository')
  const tag = selectTag(tags, version)
  if (tag === undefined) {
    throw new ChartFetchError(
      `could not locate a version matching ${version === '' ? 'any version' : `"${version}"`} among the tags ${tags.join(', ')}`
    )
  }
  return tagOfVersion(tag)
}

function isVersion(text: string): boolean {
  try {
    parseVersion(text)
    return true
  } catch {
    return false
  }
}

/** Helm's `Client.Tags`: strict semver tags (`_` read as `+`), newest first, canonical form. */
async function sortedVersionTags(client: OciRegistryClient, ref: OciReference): Promise<string[]> {
  const versions = (await client.listTags(ref)).flatMap((tag) => {
    try {
      return [parseStrictVersion(tag.replaceAll('_', '+'))]
    } catch {
      return []
    }
  })
  return versions.sort((a, b) => compareVersions(b, a)).map(formatVersion)
}

async function pullChart(
  client: OciRegistryClient,
  ref: OciReference,
  target: string
): Promise<FetchedChart> {
  const { digest, manifest } = await client.fetchManifest(ref, target)
  const config = manifest.config.mediaType === CONFIG_MEDIA_TYPE ? manifest.config : undefined
  if (config === undefined)
    throw new ChartFetchError(`could not load config with mediatype ${CONFIG_MEDIA_TYPE}`)
  const layer: OciDescriptor | undefined =
    manifest.layers.find((l) => l.mediaType === CHART_LAYER) ??
    manifest.layers.find((l) => l.mediaType === LEGACY_CHART_LAYER)
  if (layer === undefined)
    throw new ChartFetchError(`manifest does not contain a layer with mediatype ${CHART_LAYER}`)
  const meta = chartMetadata(await client.fetchBlob(ref, config))
  const name = typeof meta.name === 'string' ? meta.name : (ref.repository.split('/').pop() ?? '')
  const version = typeof meta.version === 'string' ? meta.version : ''
  const archive = await client.fetchBlob(ref, layer)
  return {
    name,
    version,
    archive,
    fileName: `${name}-${version}.tgz`,
    origin: `${ref.registry}/${ref.repository}@${digest}`
  }
}

/** The chart's name and version from the config blob (Chart.yaml as JSON). */
function chartMetadata(bytes: Uint8Array): { name?: unknown; version?: unknown } {
  try {
    const value: unknown = JSON.parse(new TextDecoder().decode(bytes))
    if (typeof value === 'object' && value !== null) return value
  } catch {
    // reported below
  }
  throw new ChartFetchError(`the config blob (${CONFIG_MEDIA_TYPE}) is not a JSON object`)
}
