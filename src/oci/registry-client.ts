/**
 * A read-only OCI distribution client, behaving as Helm v3.21.4's registry client (oras-go
 * v2.6.1) does for pulls (docs/compatibility.md#chart-download): anonymous first, then Basic or
 * the Bearer token flow as the registry's 401 challenge asks; https, falling back to plain http
 * for the client's lifetime when the server answers TLS in plain HTTP, and then sending no
 * credentials (oras-go refuses to send them across that scheme change); every manifest and blob
 * checked against its digest. Shared by chart download and `type: oras`.
 */
import { createHash } from 'node:crypto'
import { HttpTransportError, type HttpClient, type HttpResponse } from '../http/ports.js'
import { cleanScopes, parseChallenge, pullScope } from './auth-challenge.js'
import { checkRealm } from './bearer-realm.js'
import { registryHost, type OciReference } from './reference.js'
import { OciRegistryError, statusError } from './registry-error.js'

export { OciRegistryError } from './registry-error.js'

/**
 * Registry credentials; used only when both are non-empty, as Helm's ClientOptBasicAuth (or
 * when either is, with `partialCredentials`, as oras-go's auth client).
 */
export interface RegistryCredentials {
  username: string
  password: string
}

/** How to reach registries. */
export interface OciClientOptions {
  http: HttpClient
  credentials?: RegistryCredentials
  /** Speak plain http from the start (Helm's `--plain-http`, oras' `plainHTTP`). */
  plainHttp?: boolean
  /** Use credentials with an empty username or password too (oras-go; Helm needs both). */
  partialCredentials?: boolean
  /**
   * Retry over http when an https request is answered in plain HTTP (Helm v3's transport;
   * default). oras-go alone, as Tazuna's `type: oras` uses it, does not.
   */
  httpFallback?: boolean
}

/** A content descriptor (OCI image spec). */
export interface OciDescriptor {
  mediaType: string
  digest: string
  size: number
  annotations?: Record<string, string>
}

/** An image manifest: config and layers. */
export interface OciManifest {
  mediaType?: string
  config: OciDescriptor
  layers: OciDescriptor[]
}

/** A manifest as fetched: its digest and parsed content. */
export interface FetchedManifest {
  digest: string
  mediaType: string
  manifest: OciManifest
}

/** oras-go's default manifest Accept list. */
const MANIFEST_ACCEPT = [
  'application/vnd.docker.distribution.manifest.v2+json',
  'application/vnd.docker.distribution.manifest.list.v2+json',
  'application/vnd.oci.image.manifest.v1+json',
  'application/vnd.oci.image.index.v1+json',
  'application/vnd.oci.artifact.manifest.v1+json'
].join(', ')

const INDEX_TYPES = new Set([
  'application/vnd.oci.image.index.v1+json',
  'application/vnd.docker.distribution.manifest.list.v2+json'
])

/** sha256/sha512 of `bytes` as `algorithm:hex`, in the algorithm of `like`. */
export function digestOf(bytes: Uint8Array, like = 'sha256:'): string {
  const algorithm = like.startsWith('sha512:') ? 'sha512' : 'sha256'
  return `${algorithm}:${createHash(algorithm).update(bytes).digest('hex')}`
}

/** A client for one or more registries; keeps auth tokens and the plain-http fallback. */
export class OciRegistryClient {
  readonly #http: HttpClient
  readonly #credentials: RegistryCredentials | undefined
  #plainHttp: boolean
  #downgraded = false
  readonly #httpFallback: boolean
  readonly #basic = new Set<string>()
  readonly #tokens = new Map<string, string>()

  constructor(options: OciClientOptions) {
    this.#http = options.http
    const c = options.credentials
    const usable = options.partialCredentials
      ? c !== undefined && (c.username !== '' || c.password !== '')
      : c !== undefined && c.username !== '' && c.password !== ''
    this.#credentials = usable ? c : undefined
    this.#plainHttp = options.plainHttp ?? false
    this.#httpFallback = options.httpFallback ?? true
  }

  /** Every tag of the repository (following `Link: rel="next"` pages). */
  async listTags(ref: OciReference): Promise<string[]> {
    const tags: string[] = []
    let path: string | undefined = `/v2/${ref.repository}/tags/list`
    while (path !== undefined) {
      const response = await this.#get(ref, path, {})
      const body = parseJson(response, 'tag list') as { tags?: unknown }
      if (Array.isArray(body.tags))
        for (const t of body.tags) if (typeof t === 'string') tags.push(t)
      path = nextPage(response.headers.link)
    }
    return tags
  }

  /** The manifest named by `reference` (a tag or a digest), digest-checked. */
  async fetchManifest(ref: OciReference, reference: string): Promise<FetchedManifest> {
    const response = await this.#get(ref, `/v2/${ref.repository}/manifests/${reference}`, {
      Accept: MANIFEST_ACCEPT
    })
    const expected = reference.includes(':') ? reference : response.headers['docker-content-digest']
    const digest = digestOf(response.body, expected)
    if (expected !== undefined && expected !== digest) {
      throw new OciRegistryError(
        `manifest ${reference} of ${ref.registry}/${ref.repository}: content digest ${digest} does not match ${expected}`,
        undefined,
        'digest'
      )
    }
    const manifest = parseJson(response, 'manifest') as Partial<OciManifest>
    const mediaType = manifest.mediaType ?? response.headers['content-type'] ?? ''
    if (INDEX_TYPES.has(mediaType)) {
      throw new OciRegistryError(
        `${ref.registry}/${ref.repository}@${digest} is an image index, not a single manifest`,
        undefined,
        'protocol'
      )
    }
    if (manifest.config === undefined || !Array.isArray(manifest.layers)) {
      throw new OciRegistryError(
        `${ref.registry}/${ref.repository}@${digest}: not an image manifest (no config or layers)`,
        undefined,
        'protocol'
      )
    }
    return { digest, mediaType, manifest: manifest as OciManifest }
  }

  /** The blob of `descriptor`, checked against its size and digest. */
  async fetchBlob(ref: OciReference, descriptor: OciDescriptor): Promise<Uint8Array> {
    const response = await this.#get(ref, `/v2/${ref.repository}/blobs/${descriptor.digest}`, {})
    const digest = digestOf(response.body, descriptor.digest)
    if (response.body.length !== descriptor.size || digest !== descriptor.digest) {
      throw new OciRegistryError(
        `blob ${descriptor.digest} of ${ref.registry}/${ref.repository}: got ${response.body.length} bytes ` +
          `with digest ${digest}, expected ${descriptor.size} bytes`,
        undefined,
        'digest'
      )
    }
    return response.body
  }

  /** GET with the auth flow; non-2xx statuses become OciRegistryError. */
  async #get(
    ref: OciReference,
    path: string,
    headers: Record<string, string>
  ): Promise<HttpResponse> {
    const host = registryHost(ref)
    const scopes = [pullScope(ref.repository)]
    let response = await this.#send(host, path, { ...headers, ...this.#cachedAuth(host, scopes) })
    if (response.status === 401 && !this.#downgraded) {
      const auth = await this.#answerChallenge(host, scopes, response)
      if (auth !== undefined) response = await this.#send(host, path, { ...headers, ...auth })
    }
    if (response.status >= 200 && response.status < 300) return response
    throw statusError(response, `${host}${path}`, this.#downgraded)
  }

  async #send(host: string, path: string, headers: Record<string, string>): Promise<HttpResponse> {
    const scheme = this.#plainHttp || this.#downgraded ? 'http' : 'https'
    try {
      return await this.#http.get(`${scheme}://${host}${path}`, { headers })
    } catch (err) {
      if (
        err instanceof HttpTransportError &&
        err.reason === 'plain-http' &&
        scheme === 'https' &&
        this.#httpFallback
      ) {
        // Helm v3's fallback transport: retry over http and stay there for this client.
        this.#downgraded = true
        return this.#send(host, path, headers)
      }
      if (err instanceof HttpTransportError) {
        throw new OciRegistryError(
          `cannot reach registry ${host}: ${err.message}`,
          undefined,
          'unreachable'
        )
      }
      throw err
    }
  }

  #cachedAuth(host: string, scopes: readonly string[]): Record<string, string> {
    if (this.#downgraded) return {}
    if (this.#basic.has(host) && this.#credentials !== undefined) {
      return { Authorization: `Basic ${basicToken(this.#credentials)}` }
    }
    const token = this.#tokens.get(`${host} ${cleanScopes(scopes).join(' ')}`)
    return token === undefined ? {} : { Authorization: `Bearer ${token}` }
  }

  async #answerChallenge(
    host: string,
    hinted: readonly string[],
    response: HttpResponse
  ): Promise<Record<string, string> | undefined> {
    const challenge = parseChallenge(response.headers['www-authenticate'] ?? '')
    if (challenge.scheme === 'basic') {
      if (this.#credentials === undefined) return undefined
      this.#basic.add(host)
      return { Authorization: `Basic ${basicToken(this.#credentials)}` }
    }
    if (challenge.scheme !== 'bearer') return undefined
    const scope = challenge.params.scope ?? ''
    const scopes = cleanScopes(scope === '' ? hinted : [...hinted, ...scope.split(' ')])
    const token = await this.#fetchToken(host, challenge.params, scopes)
    this.#tokens.set(`${host} ${scopes.join(' ')}`, token)
    return { Authorization: `Bearer ${token}` }
  }

  async #fetchToken(
    host: string,
    params: Record<string, string>,
    scopes: readonly string[]
  ): Promise<string> {
    const realm = params.realm ?? ''
    checkRealm(realm, host, this.#plainHttp || this.#downgraded)
    const url = new URL(realm)
    if (params.service) url.searchParams.set('service', params.service)
    for (const s of scopes) url.searchParams.append('scope', s)
    const headers: Record<string, string> =
      this.#credentials === undefined
        ? {}
        : { Authorization: `Basic ${basicToken(this.#credentials)}` }
    let response: HttpResponse
    try {
      response = await this.#http.get(url.toString(), { headers })
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err)
      throw new OciRegistryError(`token service of ${host}: ${message}`, undefined, 'unreachable')
    }
    if (response.status !== 200)
      throw statusError(response, `token service ${url.origin}${url.pathname}`, false)
    const body = parseJson(response, 'token response') as {
      token?: unknown
      access_token?: unknown
    }
    const token = [body.access_token, body.token].find((t) => typeof t === 'string' && t !== '')
    if (typeof token !== 'string') {
      throw new OciRegistryError(
        `token service of ${host} returned an empty token`,
        undefined,
        'auth'
      )
    }
    return token
  }
}

function basicToken(c: RegistryCredentials): string {
  return Buffer.from(`${c.username}:${c.password}`, 'utf8').toString('base64')
}

function nextPage(link: string | undefined): string | undefined {
  if (link === undefined) return undefined
  const m = /<([^>]*)>\s*;\s*rel="?next"?/.exec(link)
  if (m?.[1] === undefined) return undefined
  const url = new URL(m[1], 'http://registry.invalid')
  return `${url.pathname}${url.search}`
}

function parseJson(response: HttpResponse, what: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(new TextDecoder().decode(response.body))
    if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
      return value as Record<string, unknown>
    }
  } catch {
    // reported below
  }
  throw new OciRegistryError(
    `${response.url}: the ${what} is not a JSON object`,
    undefined,
    'protocol'
  )
}
