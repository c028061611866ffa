/**
 * Chart download from an OCI registry as Helm v3.21.4 does it (`Client.ValidateReference`,
 * `Client.Tags`, `Client.Pull`; docs/compatibility.md#chart-download): the tag is the version,
 * or the newest tag satisfying a constraint, or the reference's digest; the manifest's Helm
 * config and chart layer are fetched and digest-checked.
 */
import {
  compareVersions,
  formatVersion,
  parseStrictVersion,
  parseVersion,
  SemverError
} from '../../go/semver.js'
import {
  OciReferenceError,
  parseOciReference,
  tagOfVersion,
  type OciReference
} from '../../oci/reference.js'
import {
  OciRegistryClient,
  OciRegistryError,
  type OciDescriptor
} from '../../oci/registry-client.js'
import type { HttpClient } from '../ports.js'
import { selectTag } from './chart-index.js'
import {
  ChartFetchError,
  displayUrl,
  type ChartFetchRequest,
  type FetchedChart
} from './chart-fetch-types.js'
import type { HelmRepository } from './helmfile-spec.js'

const CHART_LAYER = 'application/vnd.cncf.helm.chart.content.v1.tar+gzip'
const LEGACY_CHART_LAYER = 'application/tar+gzip'
const CONFIG_MEDIA_TYPE = 'application/vnd.cncf.helm.config.v1+json'

/** Downloads the chart at `refText` for `request.version`; throws ChartFetchError. */
export async function fetchFromRegistry(
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
export async function sortedVersionTags(
  client: OciRegistryClient,
  ref: OciReference
): Promise<string[]> {
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
