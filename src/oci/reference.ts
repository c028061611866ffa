/**
 * OCI references as Helm v3.21.4 reads them (`registry.newReference` over oras-go's
 * `ParseReference`): `[oci://]host[:port]/repository[:tag][@digest]`, a `+` in a tag stored as
 * `_` (docs/compatibility.md#chart-download). Shared by chart download and `type: oras`.
 */

/** A parsed reference; `tag` and `digest` may both be empty (the caller supplies a version). */
export interface OciReference {
  /** `host[:port]` as written. */
  registry: string
  repository: string
  /** The tag with `+` already turned into `_`, or ''. */
  tag: string
  /** `algorithm:hex`, or ''. */
  digest: string
}

/** A reference that oras-go or Helm would reject; the message says which part is wrong. */
export class OciReferenceError extends Error {
  override name = 'OciReferenceError'
}

const REPOSITORY =
  /^[a-z0-9]+(?:(?:[._]|__|[-]*)[a-z0-9]+)*(?:\/[a-z0-9]+(?:(?:[._]|__|[-]*)[a-z0-9]+)*)*$/
const TAG = /^\w[\w.-]{0,127}$/
const DIGEST = /^(sha256:[a-f0-9]{64}|sha512:[a-f0-9]{128})$/
const REGISTRY =
  /^(?:[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)*|\[[0-9A-Fa-f:.]+\])(?::[0-9]*)?$/

/** Parses `[oci://]host/repository[:tag][@digest]`; throws OciReferenceError. */
export function parseOciReference(text: string): OciReference {
  let raw = text.startsWith('oci://') ? text.slice('oci://'.length) : text
  let digest = ''
  const at = raw.lastIndexOf('@')
  if (at >= 0) {
    digest = raw.slice(at + 1)
    raw = raw.slice(0, at)
  }
  const slash = raw.indexOf('/')
  if (slash < 0)
    throw new OciReferenceError(`invalid reference ${text}: missing registry or repository`)
  const registry = raw.slice(0, slash)
  const path = raw.slice(slash + 1)
  const colon = path.indexOf(':')
  const repository = colon < 0 ? path : path.slice(0, colon)
  const tag = colon < 0 ? '' : path.slice(colon + 1).replaceAll('+', '_')
  if (!REGISTRY.test(registry)) {
    throw new OciReferenceError(`invalid reference ${text}: invalid registry "${registry}"`)
  }
  if (!REPOSITORY.test(repository)) {
    throw new OciReferenceError(`invalid reference ${text}: invalid repository "${repository}"`)
  }
  if (colon >= 0 && !TAG.test(tag)) {
    throw new OciReferenceError(`invalid reference ${text}: invalid tag "${tag}"`)
  }
  if (at >= 0 && !DIGEST.test(digest)) {
    throw new OciReferenceError(`invalid reference ${text}: invalid digest "${digest}"`)
  }
  return { registry, repository, tag, digest }
}

/** Helm stores a `+` of a chart version as `_` in the tag (OCI tags cannot hold `+`). */
export function tagOfVersion(version: string): string {
  return version.replaceAll('+', '_')
}

/** `host/repository[:tag][@digest]` (no scheme), for messages and logs. */
export function formatOciReference(ref: OciReference): string {
  let s = `${ref.registry}/${ref.repository}`
  if (ref.tag !== '') s += `:${ref.tag}`
  if (ref.digest !== '') s += `@${ref.digest}`
  return s
}

/** The host the registry API is served from (oras maps docker.io to registry-1.docker.io). */
export function registryHost(ref: OciReference): string {
  return ref.registry === 'docker.io' ? 'registry-1.docker.io' : ref.registry
}
