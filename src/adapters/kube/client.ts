/**
 * The one HTTP client a run uses to talk to the Kubernetes API server. Authentication comes
 * from the kubeconfig (./config.ts: tokens and client certificates read as client-node reads
 * them, exec plugins and OIDC by client-node's KubeConfig); the
 * transport is our own keep-alive agent because client-node 2.0.1 builds a new undici agent
 * (a new TLS connection) per request and its typed serializer drops fields it does not know
 * (docs/compatibility.md#kubernetes-client). Bodies go out as the raw JSON we were given.
 */
import http from 'node:http'
import type http2 from 'node:http2'
import https from 'node:https'
import { ClusterError } from '../../errors.js'
import type { Clock } from '../../apply/ports.js'
import { systemClock } from '../clock.js'
import { responseError, warningsOf, type KubeRequest, type KubeResponse } from './api-response.js'
import type { KubeCredentials, LoadedKubeConfig } from './config.js'
import { connectH2, NOT_SENT, requestH2, Slots, streamH2 } from './h2-session.js'
import {
  DEFAULT_RETRY,
  isTransient,
  isTransientCode,
  retryAfterOf,
  retryRuleFor,
  type RetryPolicy
} from './retry-policy.js'
import { sameTls, tlsMaterialOf, tlsOptionsOf, type TlsMaterial } from './tls-material.js'

/**
 * Requests in flight at once over HTTP/2 (over HTTP/1.1 the agent's 16 sockets bound them):
 * the manifests of a layer and the objects of each apply concurrently. kube-apiserver takes 100
 * streams on one connection (`--http2-max-streams-per-connection`'s default), so more would
 * only queue in the client; 100 is half of the default `--max-mutating-requests-inflight` and
 * well inside the seats priority and fairness gives service accounts: 1,000 applies sent at once
 * as a ServiceAccount got no 429 (docs/benchmarks.md#round-trips).
 */
const MAX_IN_FLIGHT = 100

/** Sends requests to the current context's API server, retrying transient failures. */
export class KubeClient {
  readonly server: string
  private readonly credentials: KubeCredentials
  private readonly retry: RetryPolicy
  private readonly clock: Clock
  private readonly signal: AbortSignal | undefined
  private agent: { tls: TlsMaterial; agent: http.Agent } | undefined
  /** The HTTP/2 session of an https server that offers h2 (h2-session.ts). */
  private h2:
    { tls: TlsMaterial; session: Promise<http2.ClientHttp2Session | undefined> } | undefined
  /** The server chose HTTP/1.1 when offered h2: the keep-alive agent is used. */
  private http1Only = false
  private readonly streams = new Slots(MAX_IN_FLIGHT)
  /** Exec plugins and auth providers (token files, OIDC) can rotate credentials mid-run. */
  private readonly perRequestAuth: boolean
  private sessionOptions: Promise<https.RequestOptions> | undefined
  /** close() was called: connect() opens nothing more. */
  private closed = false

  constructor(
    loaded: LoadedKubeConfig,
    options: { retry?: Partial<RetryPolicy>; clock?: Clock; signal?: AbortSignal } = {}
  ) {
    this.signal = options.signal
    this.credentials = loaded.credentials
    this.server = loaded.server
    this.retry = { ...DEFAULT_RETRY, ...options.retry }
    this.clock = options.clock ?? systemClock
    this.perRequestAuth = loaded.credentials.rotates
  }

  /**
   * Sends a request and returns the server's response, whatever its status. Transient failures
   * (connection errors, timeouts, 429, 502-504, a 500 that says it timed out) are retried with
   * exponential backoff, honouring Retry-After, for at most the retry budget; a POST (a create,
   * not idempotent) only when the server surely did not act on it: 429, 503 with Retry-After, or
   * no connection at all (docs/reliability.md#retries-and-timeouts). When retries end, a 429/5xx response is returned and a
   * connection error becomes a ClusterError naming `what` and the cause (never headers or
   * credentials).
   */
  async request(req: KubeRequest, what: string): Promise<KubeResponse> {
    const started = this.clock.now()
    const deadline = started + this.retry.budgetMs
    const mayRetry = retryRuleFor(req.method)
    // A 401 is sent again once, with a renewed credential (cluster-auth github-oidc).
    let renewed = false
    for (let attempt = 0; ; attempt++) {
      this.refuseIfCancelled(req, what)
      let retryAfter: number | undefined
      const outOfTime = (): boolean => this.clock.now() + this.delay(attempt, retryAfter) > deadline
      try {
        let opts = await this.httpsOptions()
        let res = await this.send(req, opts)
        if (res.status === 401 && !renewed && this.credentials.renewAfterUnauthorized) {
          renewed = true
          if (await this.credentials.renewAfterUnauthorized(opts)) {
            opts = await this.httpsOptions()
            res = await this.send(req, opts)
          }
          if (res.status === 401 && this.credentials.explainUnauthorized) {
            res = explained(res, this.credentials.explainUnauthorized(opts))
          }
        }
        if (!isTransient(res) || !mayRetry.response(res)) return res
        retryAfter = res.retryAfterSeconds
        if (outOfTime()) return res
      } catch (error) {
        // The credential could not be had (the ID token request failed): it says why.
        if (error instanceof ClusterError) throw new ClusterError(`${what}: ${error.message}`)
        const code = errorCode(error)
        if (!isTransientCode(code)) {
          throw new ClusterError(`${what}: request to ${this.server} failed (${code})`)
        }
        if (!mayRetry.code(code)) {
          throw new ClusterError(
            `${what}: ${this.failure(code)}; not retried, because the create may have taken ` +
              'effect before the failure'
          )
        }
        if (outOfTime()) {
          throw new ClusterError(
            `${what}: ${this.failure(code)} after ${attempt + 1} ` +
              `${attempt === 0 ? 'attempt' : 'attempts'} in ${secondsSince(started, this.clock)} s`
          )
        }
      }
      await this.clock.sleep(this.delay(attempt, retryAfter))
    }
  }

  /**
   * Opens a long-lived GET (a watch, docs/health.md#watches) and hands every line of its body to
   * `onLine` as it arrives; resolves when the body ends or `signal` aborts. Not retried: the
   * watcher lists and watches again. A status other than 200 is a ClusterError naming `what`.
   */
  async stream(
    req: Omit<KubeRequest, 'method' | 'body'>,
    what: string,
    onLine: (line: string) => void,
    signal: AbortSignal
  ): Promise<void> {
    this.refuseIfCancelled({ ...req, method: 'GET' }, what)
    const opts = await this.httpsOptions()
    const url = new URL(this.server + req.path)
    for (const [k, v] of Object.entries(req.query ?? {})) url.searchParams.set(k, v)
    const headers: Record<string, string> = {
      ...stringHeaders(opts.headers),
      Accept: 'application/json',
      'User-Agent': 'tazuna-action'
    }
    if (opts.auth) headers.Authorization = `Basic ${Buffer.from(opts.auth).toString('base64')}`
    let pending = ''
    let body = ''
    let status = 0
    const onData = (chunk: Buffer): void => {
      if (status !== 200) {
        body += chunk.toString('utf8')
        return
      }
      pending += chunk.toString('utf8')
      let newline: number
      while ((newline = pending.indexOf('\n')) >= 0) {
        const line = pending.slice(0, newline)
        pending = pending.slice(newline + 1)
        if (line.trim() !== '') onLine(line)
      }
    }
    const isHttps = url.protocol === 'https:'
    const session =
      isHttps && !this.credentials.viaProxy ? await this.h2SessionFor(opts, url) : undefined
    try {
      if (session !== undefined) {
        const path = url.pathname + url.search
        const opened = await streamH2(session, { method: 'GET', path, headers }, onData, signal)
        status = opened.status
        await opened.ended
      } else {
        const agent = this.credentials.viaProxy
          ? (opts.agent as http.Agent)
          : this.agentFor(opts, isHttps)
        await new Promise<void>((resolve, reject) => {
          const r = (isHttps ? https : http).request(
            url,
            { method: 'GET', headers, agent, signal },
            (res) => {
              status = res.statusCode ?? 0
              res.on('data', onData)
              res.on('end', resolve)
              res.on('close', resolve)
              res.on('error', () => resolve())
            }
          )
          r.on('error', (error) => (signal.aborted ? resolve() : reject(error)))
          r.end()
        })
      }
    } catch (error) {
      if (signal.aborted) return
      throw new ClusterError(`${what}: request to ${this.server} failed (${errorCode(error)})`)
    }
    if (status !== 200 && !signal.aborted) {
      throw responseError(what, { status, contentType: 'application/json', body })
    }
  }

  /**
   * Once the run is cancelled no request starts (src/engine/cancellation.ts), but the run lock's
   * upkeep; one already sent is answered, so nothing of a run that ended is still on its way.
   */
  private refuseIfCancelled(req: KubeRequest, what: string): void {
    if (this.signal?.aborted !== true || req.evenWhenCancelled === true) return
    const reason = typeof this.signal.reason === 'string' ? ` (${this.signal.reason})` : ''
    throw new ClusterError(`${what}: not sent, because the run was cancelled${reason}`)
  }

  /** The cause of a connection-level failure, in words. */
  private failure(code: string): string {
    const server = `the Kubernetes API server at ${this.server}`
    if (code === 'TAZUNA_REQUEST_TIMEOUT') {
      return `${server} did not answer within the request timeout of ${this.retry.requestTimeoutMs / 1000} s`
    }
    if (code === NOT_SENT) return `${server} closed the connection before the request was sent`
    if (code === 'ECONNRESET' || code === 'EPIPE' || code === 'ECONNABORTED') {
      return `${server} closed the connection (${code})`
    }
    return `${server} is unreachable (${code})`
  }

  private delay(attempt: number, retryAfterSeconds?: number): number {
    const backoff = this.retry.initialDelayMs * 2 ** attempt
    return Math.min(Math.max(backoff, (retryAfterSeconds ?? 0) * 1000), this.retry.maxDelayMs)
  }

  private async send(req: KubeRequest, opts: https.RequestOptions): Promise<KubeResponse> {
    const url = new URL(this.server + req.path)
    for (const [k, v] of Object.entries(req.query ?? {})) url.searchParams.set(k, v)
    const body =
      req.body === undefined
        ? undefined
        : typeof req.body === 'string'
          ? req.body
          : JSON.stringify(req.body)
    const headers: Record<string, string> = {
      ...stringHeaders(opts.headers),
      Accept: req.accept ?? 'application/json',
      'User-Agent': 'tazuna-action'
    }
    if (opts.auth) headers.Authorization = `Basic ${Buffer.from(opts.auth).toString('base64')}`
    if (body !== undefined) {
      headers['Content-Type'] = req.contentType ?? 'application/json'
      headers['Content-Length'] = String(Buffer.byteLength(body))
    }
    const isHttps = url.protocol === 'https:'
    const viaProxy = this.credentials.viaProxy
    const session = isHttps && !viaProxy ? await this.h2SessionFor(opts, url) : undefined
    if (session !== undefined) {
      const res = await this.streams.run(() =>
        requestH2(session, {
          method: req.method,
          path: url.pathname + url.search,
          headers,
          body,
          timeoutMs: this.retry.requestTimeoutMs
        })
      )
      const { warnings, retryAfter, ...rest } = res
      return { ...rest, ...retryAfterOf(retryAfter), ...warningsOf(warnings) }
    }
    const agent = viaProxy ? (opts.agent as http.Agent) : this.agentFor(opts, isHttps)
    return await new Promise<KubeResponse>((resolve, reject) => {
      const r = (isHttps ? https : http).request(
        url,
        { method: req.method, headers, agent },
        (res) => {
          const chunks: Buffer[] = []
          res.on('data', (c: Buffer) => chunks.push(c))
          res.on('end', () =>
            resolve({
              status: res.statusCode ?? 0,
              contentType: String(res.headers['content-type'] ?? ''),
              body: Buffer.concat(chunks).toString('utf8'),
              ...retryAfterOf(res.headers['retry-after']),
              ...warningsOf(res.headersDistinct.warning)
            })
          )
          res.on('error', reject)
        }
      )
      r.setTimeout(this.retry.requestTimeoutMs, () =>
        r.destroy(Object.assign(new Error('request timed out'), { code: 'TAZUNA_REQUEST_TIMEOUT' }))
      )
      r.on('error', reject)
      r.end(body)
    })
  }

  // client-node's applyToHTTPSOptions reads the CA and client certificate files on every call.
  // Static credentials (a token, a token-file read at load, client certificates) are applied
  // once per session; exec plugins and auth providers are asked again for every request, as
  // client-node does, because they may rotate a token or a client certificate.
  private async httpsOptions(): Promise<https.RequestOptions> {
    const apply = async (): Promise<https.RequestOptions> => {
      const opts: https.RequestOptions = {}
      await this.credentials.applyToHTTPSOptions(opts)
      return opts
    }
    if (this.perRequestAuth) return await apply()
    this.sessionOptions ??= apply()
    return await this.sessionOptions
  }

  // One HTTP/2 session per TLS material, opened on first use and again after it ended (the
  // server's GOAWAY, a reset); undefined once the server has chosen HTTP/1.1.
  private async h2SessionFor(
    opts: https.RequestOptions,
    url: URL
  ): Promise<http2.ClientHttp2Session | undefined> {
    if (this.http1Only) return undefined
    const wanted = tlsMaterialOf(opts, true)
    if (this.h2 === undefined || !sameTls(this.h2.tls, wanted)) {
      // Rotated credentials: requests in flight on the old session still get their answers.
      void this.h2?.session.then((s) => s?.close()).catch(() => undefined)
      const session = connectH2(url, tlsOptionsOf(wanted), this.retry.requestTimeoutMs)
      const entry = { tls: wanted, session }
      this.h2 = entry
      const forget = (): void => {
        if (this.h2 === entry) this.h2 = undefined
      }
      session.then((s) => {
        if (s === undefined) this.http1Only = true
        s?.once('close', forget)
        // No new streams on it; it closes once those in flight are answered.
        s?.once('goaway', () => {
          forget()
          s.close()
        })
      }, forget)
    }
    return await this.h2.session
  }

  // TLS material is fixed for a run unless an exec plugin rotates a client certificate, so
  // one keep-alive agent is reused for as long as the material stays the same. Its connections
  // share one secure context: without it each of the up to 16 connects parses the CA and the
  // client certificate again (~2 ms of this thread each; docs/benchmarks.md#one-tls-context).
  private agentFor(opts: https.RequestOptions, isHttps: boolean): http.Agent {
    const wanted = tlsMaterialOf(opts, isHttps)
    if (this.agent === undefined || !sameTls(this.agent.tls, wanted)) {
      this.agent?.agent.destroy()
      const agentOptions = { keepAlive: true, maxSockets: 16 }
      this.agent = {
        tls: wanted,
        agent: isHttps
          ? new https.Agent({ ...agentOptions, ...tlsOptionsOf(wanted) })
          : new http.Agent(agentOptions)
      }
    }
    return this.agent.agent
  }

  /**
   * Opens the HTTP/2 connection (TCP and TLS) before the first request needs it, sending no
   * request; without h2 (a proxy, plain http, a server that picks HTTP/1.1) there is nothing to
   * open ahead. A failure is left to the first request, which retries or reports it as it would
   * have (Engine.connect, docs/ARCHITECTURE.md#connecting-ahead).
   */
  async connect(): Promise<void> {
    const url = new URL(this.server + '/')
    if (url.protocol !== 'https:' || this.credentials.viaProxy) return
    try {
      const options = await this.httpsOptions()
      // Closed meanwhile (the run ended before it needed the cluster): a session opened now
      // would hold the process open.
      if (this.closed) return
      await this.h2SessionFor(options, url)
    } catch {
      // The first request meets the same failure and says what it was.
    }
  }

  /** Closes idle keep-alive connections and the HTTP/2 session so the process can exit promptly. */
  close(): void {
    this.closed = true
    this.agent?.agent.destroy()
    this.agent = undefined
    void this.h2?.session.then((s) => s?.destroy()).catch(() => undefined)
    this.h2 = undefined
  }
}

// A 401's Status message, with why the credential may have been refused.
function explained(res: KubeResponse, why: string): KubeResponse {
  let status: Record<string, unknown> = {}
  try {
    const parsed: unknown = JSON.parse(res.body)
    if (typeof parsed === 'object' && parsed !== null) status = parsed as Record<string, unknown>
  } catch {
    // Not a Status: the explanation stands alone.
  }
  const message = typeof status.message === 'string' ? `${status.message}: ` : ''
  return { ...res, body: JSON.stringify({ ...status, message: `${message}${why}` }) }
}

function stringHeaders(
  h: http.OutgoingHttpHeaders | readonly string[] | undefined
): Record<string, string> {
  if (h === undefined || Array.isArray(h)) return {}
  const out: Record<string, string> = {}
  for (const [k, v] of Object.entries(h)) if (v !== undefined) out[k] = String(v)
  return out
}

function secondsSince(started: number, clock: Clock): string {
  return ((clock.now() - started) / 1000).toFixed(1)
}

function errorCode(error: unknown): string {
  if (error && typeof error === 'object' && 'code' in error && typeof error.code === 'string') {
    return error.code
  }
  return error instanceof Error ? error.name : 'unknown error'
}
