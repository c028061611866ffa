/**
 * HTTP/2 to the API server: one TLS connection for the whole run, every request a stream on it,
 * as client-go (and so Tazuna) talks to it. Over HTTP/1.1 each request in flight needs a
 * connection of its own, and each new connection costs a TCP and a TLS handshake, round trips
 * a remote cluster makes expensive (docs/benchmarks.md#round-trips). A server that does not
 * offer `h2` in ALPN is answered `undefined`, and the client falls back to HTTP/1.1.
 */
import http2 from 'node:http2'
import { isIP } from 'node:net'
import tls from 'node:tls'

/** One response, whatever its status. */
export interface H2Response {
  status: number
  contentType: string
  body: string
  retryAfter: string | undefined
  /** Every `Warning` header value, one character per byte. */
  warnings: string[]
}

/** What an HTTP/2 request needs. */
export interface H2Request {
  method: string
  /** Path and query. */
  path: string
  headers: Record<string, string>
  body: string | undefined
  timeoutMs: number
}

/**
 * A request that surely never reached the server: the session was gone before the stream
 * opened, or the server refused the stream (REFUSED_STREAM), so even a create may be repeated.
 */
export const NOT_SENT = 'TAZUNA_NOT_SENT'

/**
 * Flow-control windows: how much of an answer the server may send before the client says it
 * read it. HTTP/2's default of 64 KiB made a 1 MB State list wait a round trip per 64 KiB (at a
 * 30 ms round trip, 0.4 s of a no-change sync); client-go's transport allows 4 MiB per stream and
 * 1 GiB per connection. Windows grant room, they allocate none.
 */
const STREAM_WINDOW = 16 * 2 ** 20
const CONNECTION_WINDOW = 2 ** 30

/** Error codes of this transport: `code` as the client's retry rules read it. */
function failure(message: string, code: string): Error {
  return Object.assign(new Error(message), { code })
}

/**
 * Opens a TLS connection offering `h2` and `http/1.1`; resolves the HTTP/2 session, or
 * undefined when the server chose HTTP/1.1 (that connection is closed again).
 */
export function connectH2(
  origin: URL,
  options: tls.ConnectionOptions,
  timeoutMs: number
): Promise<http2.ClientHttp2Session | undefined> {
  const host = origin.hostname.replace(/^\[|\]$/g, '')
  return new Promise((resolve, reject) => {
    const socket = tls.connect({
      ...options,
      host,
      port: Number(origin.port || 443),
      ...(options.servername === undefined && isIP(host) === 0 ? { servername: host } : {}),
      ALPNProtocols: ['h2', 'http/1.1']
    })
    // Frames go out as they are written (HTTP/1.1's agent does the same): with Nagle's algorithm
    // a request's small frames waited for the acknowledgement of the previous segment.
    socket.setNoDelay(true)
    socket.setTimeout(timeoutMs, () =>
      socket.destroy(failure('TLS handshake timed out', 'TAZUNA_REQUEST_TIMEOUT'))
    )
    socket.once('error', reject)
    socket.once('secureConnect', () => {
      socket.setTimeout(0)
      socket.removeListener('error', reject)
      if (socket.alpnProtocol !== 'h2') {
        socket.destroy()
        resolve(undefined)
        return
      }
      const session = http2.connect(origin, {
        createConnection: () => socket,
        settings: { initialWindowSize: STREAM_WINDOW }
      })
      session.once('connect', () => session.setLocalWindowSize(CONNECTION_WINDOW))
      // Errors end the session; its streams fail with their own errors, and the client opens a
      // new session for the next request.
      session.on('error', () => undefined)
      resolve(session)
    })
  })
}

/** Sends one request as a stream of `session`. */
export function requestH2(session: http2.ClientHttp2Session, req: H2Request): Promise<H2Response> {
  return new Promise((resolve, reject) => {
    let stream: http2.ClientHttp2Stream
    try {
      stream = session.request(
        { ':method': req.method, ':path': req.path, ...lowerCaseKeys(req.headers) },
        { endStream: req.body === undefined }
      )
    } catch (error) {
      reject(failure(`the HTTP/2 session ended: ${String(error)}`, NOT_SENT))
      return
    }
    let status = 0
    let contentType = ''
    let retryAfter: string | undefined
    let warnings: string[] = []
    let settled = false
    const settle = (outcome: () => void): void => {
      if (settled) return
      settled = true
      outcome()
    }
    const chunks: Buffer[] = []
    stream.setTimeout(req.timeoutMs, () => {
      stream.close(http2.constants.NGHTTP2_CANCEL)
      settle(() => reject(failure('request timed out', 'TAZUNA_REQUEST_TIMEOUT')))
    })
    let responded = false
    stream.on('response', (headers, _flags, rawHeaders?: string[]) => {
      responded = true
      status = Number(headers[':status'] ?? 0)
      contentType = String(headers['content-type'] ?? '')
      const after = headers['retry-after'] as string | string[] | undefined
      retryAfter = Array.isArray(after) ? after[0] : after
      warnings = headerValues(headers, rawHeaders, 'warning')
    })
    stream.on('data', (c: Buffer) => chunks.push(c))
    // A stream closed with NO_ERROR, or whose connection ended, before the server answered also
    // ends its body: without a status nothing was answered, and the request may not have been
    // acted on, so it fails as a reset does (a write is never taken for a success).
    stream.on('end', () =>
      settle(() =>
        responded
          ? resolve({
              status,
              contentType,
              body: Buffer.concat(chunks).toString('utf8'),
              retryAfter,
              warnings
            })
          : reject(streamFailure(stream, undefined))
      )
    )
    stream.on('error', (error: Error) => settle(() => reject(streamFailure(stream, error))))
    // A stream reset without an error event (RST_STREAM, the session closing) before its end.
    stream.on('close', () => settle(() => reject(streamFailure(stream, undefined))))
    if (req.body !== undefined) stream.end(req.body)
  })
}

function streamFailure(stream: http2.ClientHttp2Stream, error: Error | undefined): Error {
  if (stream.rstCode === http2.constants.NGHTTP2_REFUSED_STREAM) {
    return failure('the server refused the HTTP/2 stream', NOT_SENT)
  }
  const code =
    error && 'code' in error && typeof error.code === 'string' && !error.code.startsWith('ERR_')
      ? error.code
      : 'ECONNRESET'
  return failure(`HTTP/2 stream failed: ${error?.message ?? `reset (${stream.rstCode})`}`, code)
}

// Each value of header `name` as sent: Node joins repeated headers with ", " in `headers`, and
// keeps them apart in the raw list it also hands over.
function headerValues(
  headers: http2.IncomingHttpHeaders,
  rawHeaders: string[] | undefined,
  name: string
): string[] {
  if (Array.isArray(rawHeaders)) {
    return rawHeaders.filter((_, i) => i % 2 === 1 && rawHeaders[i - 1]?.toLowerCase() === name)
  }
  const value = headers[name]
  return value === undefined ? [] : Array.isArray(value) ? value : [value]
}

function lowerCaseKeys(headers: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {}
  for (const [k, v] of Object.entries(headers)) out[k.toLowerCase()] = v
  return out
}

/** At most `size` tasks at once; the others wait in order. */
export class Slots {
  private free: number
  private readonly waiting: (() => void)[] = []

  constructor(size: number) {
    this.free = size
  }

  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.free > 0) this.free--
    else await new Promise<void>((resolve) => this.waiting.push(resolve))
    try {
      return await task()
    } finally {
      const next = this.waiting.shift()
      if (next) next()
      else this.free++
    }
  }
}

/** A long-lived request (a watch): its status, then its body in chunks as they arrive. */
export interface H2Stream {
  status: number
  /** Resolves when the body ended or the stream was closed. */
  ended: Promise<void>
}

/**
 * Opens `req` as a stream of `session` without a timeout (a watch; the server's
 * `timeoutSeconds` and `signal` end it) and resolves once the response headers arrived; every
 * body chunk goes to `onData` as it comes.
 */
export function streamH2(
  session: http2.ClientHttp2Session,
  req: Omit<H2Request, 'timeoutMs' | 'body'>,
  onData: (chunk: Buffer) => void,
  signal: AbortSignal
): Promise<H2Stream> {
  return new Promise((resolve, reject) => {
    let stream: http2.ClientHttp2Stream
    try {
      stream = session.request(
        { ':method': req.method, ':path': req.path, ...lowerCaseKeys(req.headers) },
        { endStream: true }
      )
    } catch (error) {
      reject(failure(`the HTTP/2 session ended: ${String(error)}`, NOT_SENT))
      return
    }
    const cancel = (): void => {
      stream.close(http2.constants.NGHTTP2_CANCEL)
    }
    signal.addEventListener('abort', cancel, { once: true })
    let endedResolve!: () => void
    const ended = new Promise<void>((res) => (endedResolve = res))
    let responded = false
    stream.on('response', (headers) => {
      responded = true
      resolve({ status: Number(headers[':status'] ?? 0), ended })
    })
    stream.on('data', onData)
    const finish = (error?: Error): void => {
      signal.removeEventListener('abort', cancel)
      if (!responded) reject(streamFailure(stream, error))
      endedResolve()
    }
    stream.on('end', () => finish())
    stream.on('error', (error: Error) => finish(error))
    stream.on('close', () => finish())
  })
}
