/**
 * Pulling a `type: oras` artifact into Tazuna's cache (docs/compatibility.md#oras): the
 * manifest of a tag or digest, its one layer (digest-checked), extracted under the limits of
 * archive.ts into `blobs/<manifest digest>/`, with `refs/<reference>` recording what a tag
 * resolved to. Messages are Tazuna's (`oras pull: ...`).
 *
 * A digest reference already in the cache is never fetched again. A tag is resolved at the
 * registry on every online pull, so a moved tag brings its new content; Tazuna instead trusts
 * `refs/` until `--no-cache` (docs/compatibility.md#oras-tag-refresh). Offline, both use `refs/`.
 */
import {
  OciRegistryClient,
  OciRegistryError,
  type FetchedManifest,
  type RegistryCredentials
} from '../../oci/registry-client.js'
import { OciReferenceError, parseOciReference, type OciReference } from '../../oci/reference.js'
import { goQuote } from '../../go/quote.js'
import type { HttpClient } from '../../http/ports.js'
import { ArchiveError, DEFAULT_ARCHIVE_LIMITS, readTarGz, type ArchiveLimits } from './archive.js'
import { dockerCredentials, DockerConfigError } from './docker-config.js'
import type { OrasContext } from './ports.js'

/** `manifests[].oras` fields the pull reads. */
export interface OrasPullSpec {
  reference: string
  plainHTTP?: boolean
  insecureSkipVerify?: boolean
  auth?: { username?: string; password?: string }
}

/** Where the artifact is on disk, and the manifest digest it came from. */
export interface PulledArtifact {
  dir: string
  digest: string
}

/** A pull that failed; the message is Tazuna's `oras pull: ...` text, naming the reference. */
export class OrasPullError extends Error {
  override name = 'OrasPullError'
}

/** What the pull needs: the oras ports and the plain HTTP client. */
export interface OrasPullDeps extends OrasContext {
  http: HttpClient
  /** Told every password used, so that the action masks it. */
  registerSecret: (value: string) => void
  /** Tests lower them; Tazuna's otherwise. */
  limits?: ArchiveLimits
}

/** Pulls (or finds in the cache) the artifact; throws OrasPullError. */
export async function pullArtifact(
  spec: OrasPullSpec,
  deps: OrasPullDeps
): Promise<PulledArtifact> {
  const { cache, mode } = deps
  const ref = parseReference(spec.reference)
  const digestRef = ref.digest !== ''
  const refKey = sanitizeReference(spec.reference)
  let digest = digestRef ? ref.digest : undefined
  if (!digestRef && mode.offline && !mode.noCache) digest = await cache.readRef(refKey)
  if (digest !== undefined && !mode.noCache) {
    const dir = await cache.blobDir(sanitizeDigest(digest))
    if (dir !== undefined) return { dir, digest }
  }
  if (mode.offline) {
    throw new OrasPullError(`oras pull: offline mode and cache miss for ${goQuote(spec.reference)}`)
  }
  const client = await clientFor(spec, ref, deps)
  const manifest = await resolve(client, ref, spec.reference)
  const key = sanitizeDigest(manifest.digest)
  if (mode.noCache) {
    await cache.removeBlob(key)
  } else {
    const dir = await cache.blobDir(key)
    if (dir !== undefined) {
      if (!digestRef) await cache.writeRef(refKey, manifest.digest)
      return { dir, digest: manifest.digest }
    }
  }
  const entries = await layerEntries(client, ref, manifest, deps)
  const dir = await cache.storeBlob(key, entries).catch((error: unknown) => {
    throw new OrasPullError(`oras pull: extract layer: ${(error as Error).message}`)
  })
  if (!digestRef) await cache.writeRef(refKey, manifest.digest)
  return { dir, digest: manifest.digest }
}

/** oras-go's ParseReference: no scheme, a tag or a digest; `+` is not a tag character. */
function parseReference(text: string): OciReference {
  const fail = (why: string) =>
    new OrasPullError(`oras pull: parse reference ${goQuote(text)}: ${why}`)
  if (text.includes('://')) throw fail('invalid reference: a reference has no scheme')
  const tag = /^[^/]+\/[^:@]+:([^@]*)/.exec(text)?.[1]
  if (tag?.includes('+')) throw fail(`invalid reference: invalid tag "${tag}"`)
  let ref: OciReference
  try {
    ref = parseOciReference(text)
  } catch (error) {
    if (error instanceof OciReferenceError) throw fail(error.message)
    throw error
  }
  if (ref.tag === '' && ref.digest === '') {
    throw new OrasPullError(`oras pull: reference ${goQuote(text)} has no tag or digest`)
  }
  return ref
}

/** Tazuna's refs/ file name: `/`, `:` and `@` become `_`. */
export function sanitizeReference(reference: string): string {
  return reference.replace(/[/:@]/g, '_')
}

/** Tazuna's blobs/ directory name: `sha256:<hex>` becomes `sha256-<hex>`. */
export function sanitizeDigest(digest: string): string {
  return digest.replaceAll(':', '-')
}

async function clientFor(
  spec: OrasPullSpec,
  ref: OciReference,
  deps: OrasPullDeps
): Promise<OciRegistryClient> {
  const credentials = await credentialsFor(spec, ref, deps)
  return new OciRegistryClient({
    http: spec.insecureSkipVerify === true ? deps.insecureHttp : deps.http,
    plainHttp: spec.plainHTTP === true,
    httpFallback: false,
    partialCredentials: true,
    ...(credentials ? { credentials } : {})
  })
}

/** Tazuna's order: `oras.auth` when either field is set, else the Docker config, else none. */
async function credentialsFor(
  spec: OrasPullSpec,
  ref: OciReference,
  deps: OrasPullDeps
): Promise<RegistryCredentials | undefined> {
  const username = spec.auth?.username ?? ''
  const password = spec.auth?.password ?? ''
  if (username !== '' || password !== '') {
    if (password !== '') deps.registerSecret(password)
    return { username, password }
  }
  const file = await deps.dockerConfig()
  if (file === undefined) return undefined
  const host = ref.registry
  try {
    const found = dockerCredentials(file.text, file.path, host)
    if (found.helper !== undefined) {
      deps.warn(
        `oras: ${file.path} names the credential helper docker-credential-${found.helper} for ` +
          `${host}; tazuna-action does not run credential helpers, so it uses ` +
          (found.credentials ? `the auths entry` : `no credentials`) +
          ` (set oras.auth, or log in so that auths holds the registry)`
      )
    }
    if (found.credentials?.password) deps.registerSecret(found.credentials.password)
    return found.credentials
  } catch (error) {
    if (!(error instanceof DockerConfigError)) throw error
    throw new OrasPullError(`oras auth: get credential for ${goQuote(host)}: ${error.message}`)
  }
}

async function resolve(
  client: OciRegistryClient,
  ref: OciReference,
  text: string
): Promise<FetchedManifest> {
  try {
    return await client.fetchManifest(ref, ref.digest !== '' ? ref.digest : ref.tag)
  } catch (error) {
    throw registryError(`resolve ${goQuote(text)}`, error)
  }
}

async function layerEntries(
  client: OciRegistryClient,
  ref: OciReference,
  fetched: FetchedManifest,
  deps: OrasPullDeps
) {
  const layers = fetched.manifest.layers
  if (layers.length !== 1) {
    throw new OrasPullError(`oras pull: expected exactly 1 layer, got ${layers.length}`)
  }
  const limits = deps.limits ?? DEFAULT_ARCHIVE_LIMITS
  // Not downloaded at all when even gzip's worst case could not stay within the limit.
  const maxLayerBytes = Math.ceil(limits.maxTotalBytes * 1.01) + 64 * 1024 ** 2
  if (layers[0]!.size > maxLayerBytes) {
    throw new OrasPullError(
      `oras pull: fetch layer: the layer is ${layers[0]!.size} bytes, more than ${maxLayerBytes} ` +
        `bytes can hold within the extraction limit (${limits.maxTotalBytes} bytes)`
    )
  }
  let blob: Uint8Array
  try {
    blob = await client.fetchBlob(ref, layers[0]!)
  } catch (error) {
    throw registryError('fetch layer', error)
  }
  try {
    return readTarGz(blob, limits)
  } catch (error) {
    if (error instanceof ArchiveError) {
      throw new OrasPullError(`oras pull: extract layer: ${error.message}`)
    }
    throw error
  }
}

function registryError(what: string, error: unknown): unknown {
  if (!(error instanceof OciRegistryError)) return error
  return new OrasPullError(`oras pull: ${what}: ${error.message}${hintFor(error.message)}`)
}

/** What to set when the registry's transport is not what the manifest says. */
function hintFor(message: string): string {
  if (message.includes('does not speak TLS')) return ' (an http registry needs plainHTTP: true)'
  if (/CERT|certificate/i.test(message)) {
    return ' (insecureSkipVerify: true skips the certificate check)'
  }
  return ''
}
