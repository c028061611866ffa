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
