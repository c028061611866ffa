/**
 * GitHub Actions' OpenID Connect side, on loopback: the issuer that
 * https://token.actions.githubusercontent.com is (its discovery document and JWKS, over TLS with
 * a certificate made for the run) and the runner's ID-token request endpoint
 * (ACTIONS_ID_TOKEN_REQUEST_URL, answered for ACTIONS_ID_TOKEN_REQUEST_TOKEN with
 * `{"value": <JWT>}`, the way @actions/core's getIDToken reads it). Tokens are RS256, signed with
 * an RSA key made for the run, and carry the claims GitHub documents for a job's ID token
 * (docs.github.com, "About security hardening with OpenID Connect": sub built from the
 * repository and the environment, the pull_request event, or the ref; repository,
 * repository_owner, ref, event_name, jti, iat, nbf, exp, ...). Every token issued is recorded,
 * so tests can look for its value where it must never be.
 *
 * Self-contained (node: imports only), like server.ts.
 */
import { createHash, generateKeyPairSync, randomUUID, sign, type KeyObject } from 'node:crypto'
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import { createServer as createHttpsServer } from 'node:https'
import type { AddressInfo } from 'node:net'
import { selfSignedCertificate } from '../support/oras-artifacts.js'

/** The job a request token belongs to: what GitHub puts in its ID token. */
export interface OidcJob {
  /** owner/name */
  repository: string
  event: 'pull_request' | 'push' | 'schedule' | 'workflow_dispatch'
  /** refs/heads/main, refs/pull/7/merge, ... */
  ref: string
  /** The job's deployment environment, which then names the subject. */
  environment?: string
  /** Seconds a token lives; default the issuer's. */
  lifetimeSeconds?: number
}

/** One token the issuer handed out. */
export interface IssuedToken {
  value: string
  jti: string
  sub: string
  aud: string
  exp: number
}

/** The running issuer and request endpoint. */
export class OidcIssuer {
  /** https://127.0.0.1:<port>: the `iss` of every token. */
  readonly issuer: string
  /** PEM of the issuer's TLS certificate (self-signed: it is its own CA). */
  readonly caPem: string
  /** ACTIONS_ID_TOKEN_REQUEST_URL (getIDToken appends `&audience=...`). */
  readonly requestUrl: string
  readonly issued: IssuedToken[] = []
  /** The discovery and JWKS requests the API server made. */
  readonly discoveryRequests: string[] = []
  private readonly jobs = new Map<string, OidcJob>()
  private readonly key: KeyObject
  private readonly kid: string
  private readonly jwk: Record<string, unknown>
  private readonly servers: Server[]
  private readonly lifetimeSeconds: number

  // No parameter properties: erasable TypeScript only.
  private constructor(a: {
    issuer: string
    caPem: string
    requestUrl: string
    key: KeyObject
    jwk: Record<string, unknown>
    servers: Server[]
    lifetimeSeconds: number
  }) {
    this.issuer = a.issuer
    this.caPem = a.caPem
    this.requestUrl = a.requestUrl
    this.key = a.key
    this.jwk = a.jwk
    this.kid = String(a.jwk.kid)
    this.servers = a.servers
    this.lifetimeSeconds = a.lifetimeSeconds
  }

  /** Starts the issuer (https) and the request endpoint (http) on free loopback ports. */
  static async start(options: { lifetimeSeconds?: number } = {}): Promise<OidcIssuer> {
    const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 })
    const exported = publicKey.export({ format: 'jwk' })
    const kid = createHash('sha256').update(String(exported.n)).digest('hex').slice(0, 16)
    const jwk = { ...exported, kid, alg: 'RS256', use: 'sig' }
    const tls = selfSignedCertificate()
    const ref: { issuer?: OidcIssuer } = {}
    const handler =
      (kind: 'issuer' | 'request') =>
      (req: IncomingMessage, res: ServerResponse): void => {
        try {
          ref.issuer!.handle(kind, req, res)
        } catch (error) {
          send(res, 500, { message: String(error) })
        }
      }
    const https = createHttpsServer({ key: tls.key, cert: tls.cert }, handler('issuer'))
    const http = createServer(handler('request'))
    const ports = await Promise.all(
      [https, http].map(
        (server) =>
          new Promise<number>((resolve) =>
            server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port))
          )
      )
    )
    ref.issuer = new OidcIssuer({
      issuer: `https://127.0.0.1:${ports[0]}`,
      caPem: tls.cert,
      requestUrl: `http://127.0.0.1:${ports[1]}/_apis/distributedtask/idtoken?api-version=2.0`,
      key: privateKey,
      jwk,
      servers: [https, http],
      lifetimeSeconds: options.lifetimeSeconds ?? 300
    })
    return ref.issuer
  }

  /**
   * A job's request token and the environment the runner gives a job with `id-token: write`.
   */
  job(
    job: OidcJob
  ): Record<'ACTIONS_ID_TOKEN_REQUEST_URL' | 'ACTIONS_ID_TOKEN_REQUEST_TOKEN', string> {
    const requestToken = `request-${randomUUID()}`
    this.jobs.set(requestToken, job)
    return {
      ACTIONS_ID_TOKEN_REQUEST_URL: this.requestUrl,
      ACTIONS_ID_TOKEN_REQUEST_TOKEN: requestToken
    }
  }

  /** An ID token for `job`, as the request endpoint gives it (recorded in `issued`). */
  tokenFor(job: OidcJob, audience: string): string {
    const now = Math.floor(Date.now() / 1000)
    const [owner] = job.repository.split('/')
    const sub = job.environment
      ? `repo:${job.repository}:environment:${job.environment}`
      : job.event === 'pull_request'
        ? `repo:${job.repository}:pull_request`
        : `repo:${job.repository}:ref:${job.ref}`
    const jti = randomUUID()
    const exp = now + (job.lifetimeSeconds ?? this.lifetimeSeconds)
    const claims = {
      jti,
      sub,
      aud: audience,
      ref: job.ref,
      ref_type: job.ref.startsWith('refs/tags/') ? 'tag' : 'branch',
      ...(job.environment ? { environment: job.environment } : {}),
      repository: job.repository,
      repository_id: '4242',
      repository_owner: owner,
      repository_owner_id: '42',
      repository_visibility: 'private',
      actor: 'octocat',
      event_name: job.event,
      workflow: 'deploy',
      job_workflow_ref: `${job.repository}/.github/workflows/deploy.yml@${job.ref}`,
      run_id: '4242',
      run_attempt: '1',
      runner_environment: 'github-hosted',
      iss: this.issuer,
      nbf: now - 5,
      iat: now,
      exp
    }
    const header = { alg: 'RS256', typ: 'JWT', kid: this.kid }
    const input = [header, claims].map((p) => b64url(JSON.stringify(p))).join('.')
    const value = `${input}.${sign('sha256', Buffer.from(input), this.key).toString('base64url')}`
    this.issued.push({ value, jti, sub, aud: audience, exp })
    return value
  }

  async close(): Promise<void> {
    await Promise.all(
      this.servers.map(
        (server) =>
          new Promise<void>((resolve) => {
            server.closeAllConnections()
            server.close(() => resolve())
          })
      )
    )
  }

  private handle(kind: 'issuer' | 'request', req: IncomingMessage, res: ServerResponse): void {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1')
    if (kind === 'issuer') {
      this.discoveryRequests.push(url.pathname)
      if (url.pathname === '/.well-known/openid-configuration') {
        // The fields of GitHub's document (token.actions.githubusercontent.com).
        return send(res, 200, {
          issuer: this.issuer,
          jwks_uri: `${this.issuer}/.well-known/jwks`,
          subject_types_supported: ['public', 'pairwise'],
          response_types_supported: ['id_token'],
          claims_supported: [
            'sub',
            'aud',
            'exp',
            'iat',
            'iss',
            'jti',
            'nbf',
            'ref',
            'repository',
            'repository_owner',
            'event_name',
            'environment'
          ],
          id_token_signing_alg_values_supported: ['RS256'],
          scopes_supported: ['openid']
        })
      }
      if (url.pathname === '/.well-known/jwks') return send(res, 200, { keys: [this.jwk] })
      return send(res, 404, { message: 'Not Found' })
    }
    const bearer = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1]
    const job = bearer === undefined ? undefined : this.jobs.get(bearer)
    if (url.pathname !== new URL(this.requestUrl).pathname)
      return send(res, 404, { message: 'Not Found' })
    if (job === undefined) return send(res, 401, { message: 'Unauthorized' })
    const audience =
      url.searchParams.get('audience') ?? `https://github.com/${job.repository.split('/')[0]}`
    send(res, 200, { count: 1, value: this.tokenFor(job, audience) })
  }
}

const b64url = (text: string): string => Buffer.from(text).toString('base64url')

const send = (res: ServerResponse, status: number, value: unknown): void => {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8' })
  res.end(JSON.stringify(value))
}
