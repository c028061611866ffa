/**
 * HttpClient (src/http/ports.ts) over Node's global fetch, for chart downloads
 * (docs/compatibility.md#chart-download). Each request has a deadline, like Helm's HTTP getter
 * (120 s); failures name the URL and the cause, never a request header.
 */
import {
  HttpTransportError,
  type HttpClient,
  type HttpRequestOptions,
  type HttpResponse
} from '../http/ports.js'

/** Helm's getter.DefaultHTTPTimeout. */
const DEFAULT_TIMEOUT_MS = 120_000

/** TLS failures that mean the server spoke something else, typically plain HTTP. */
const NOT_TLS = new Set(['ERR_SSL_WRONG_VERSION_NUMBER', 'ERR_SSL_PACKET_LENGTH_TOO_LONG'])

/** An HttpClient whose every GET is aborted after `timeoutMs` (default 120 s). */
export function createHttpClient(options: { timeoutMs?: number } = {}): HttpClient {
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS
  return {
    async get(url: string, request: HttpRequestOptions = {}): Promise<HttpResponse> {
      let response: Response
      try {
        response = await fetch(url, {
          headers: request.headers,
          redirect: 'follow',
          signal: AbortSignal.timeout(timeoutMs)
        })
      } catch (err) {
        throw transportError(url, err, timeoutMs)
      }
      let body: Uint8Array
      try {
        body = new Uint8Array(await response.arrayBuffer())
      } catch (err) {
        throw transportError(url, err, timeoutMs)
      }
      const headers: Record<string, string> = {}
      response.headers.forEach((value, name) => {
        headers[name.toLowerCase()] = value
      })
      return { status: response.status, headers, body, url: response.url || url }
    }
  }
}

function transportError(url: string, err: unknown, timeoutMs: number): HttpTransportError {
  const e = err as { name?: string; message?: string; cause?: { code?: string; message?: string } }
  if (e.name === 'TimeoutError' || e.name === 'AbortError') {
    return new HttpTransportError(`GET ${url}: no answer within ${timeoutMs / 1000} s`, 'timeout')
  }
  const code = e.cause?.code
  if (code !== undefined && NOT_TLS.has(code)) {
    return new HttpTransportError(
      `GET ${url}: the server does not speak TLS (${code})`,
      'plain-http'
    )
  }
  const cause = code ?? e.cause?.message ?? e.message ?? String(err)
  return new HttpTransportError(`GET ${url}: ${cause}`, 'unreachable')
}

/**
 * An HttpClient that does not verify TLS certificates, for an oras manifest's
 * `insecureSkipVerify: true` (docs/compatibility.md#oras). Node's fetch cannot turn
 * verification off per request, so this one speaks node:http(s) itself; it follows up to 10
 * redirects and drops Authorization when one leads to another origin, as fetch does.
 */
export function createInsecureHttpClient(options: { timeoutMs?: number } = {}): HttpClient {
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS
  return {
    async get(url: string, request: HttpRequestOptions = {}): Promise<HttpResponse> {
      let current = new URL(url)
      let headers = { ...request.headers }
      for (let hop = 0; hop <= 10; hop++) {
        const response = await insecureGet(current, headers, timeoutMs)
        const location = response.headers.location
        if (response.status < 300 || response.status >= 400 || location === undefined) {
          return response
        }
        const next = new URL(location, current)
        if (next.origin !== current.origin) {
          headers = Object.fromEntries(
            Object.entries(headers).filter(([name]) => name.toLowerCase() !== 'authorization')
          )
        }
        current = next
      }
      throw new HttpTransportError(`GET ${url}: more than 10 redirects`, 'unreachable')
    }
  }
}

async function insecureGet(
  url: URL,
  headers: Record<string, string>,
  timeoutMs: number
): Promise<HttpResponse> {
  // Loaded on the first such request: node:https brings node:tls, about 8 ms of every start
  // that never sends one (docs/benchmarks.md#builtins-on-demand).
  const { get } = await (url.protocol === 'https:' ? import('node:https') : import('node:http'))
  return new Promise((resolve, reject) => {
    const req = get(url, { headers, rejectUnauthorized: false, timeout: timeoutMs }, (res) => {
      const chunks: Buffer[] = []
      res.on('data', (chunk: Buffer) => chunks.push(chunk))
      res.on('error', (err) => reject(transportError(url.toString(), err, timeoutMs)))
      res.on('end', () => {
        const out: Record<string, string> = {}
        for (const [name, value] of Object.entries(res.headers)) {
          if (value !== undefined) out[name] = Array.isArray(value) ? value.join(', ') : value
        }
        resolve({
          status: res.statusCode ?? 0,
          headers: out,
          body: new Uint8Array(Buffer.concat(chunks)),
          url: url.toString()
        })
      })
    })
    req.on('timeout', () =>
      req.destroy(Object.assign(new Error('timeout'), { name: 'TimeoutError' }))
    )
    req.on('error', (err) =>
      reject(transportError(url.toString(), { cause: err, ...err }, timeoutMs))
    )
  })
}
