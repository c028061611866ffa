/**
 * When the Kubernetes API client (./client.ts) sends a request again: which failures are
 * transient, which methods may be repeated after which of them, and how long it keeps trying.
 */
import { apiStatusOf, type KubeRequest, type KubeResponse } from './api-response.js'
import { NOT_SENT } from './h2-session.js'

/** Retry and timeout limits; defaults suit CI (bounded total time per request). */
export interface RetryPolicy {
  /** Give up retrying a transient failure after this long (default 60 s). */
  budgetMs: number
  /** First backoff (default 500 ms), doubled per attempt up to `maxDelayMs` (default 8 s). */
  initialDelayMs: number
  maxDelayMs: number
  /** One attempt's timeout (default 60 s). */
  requestTimeoutMs: number
}

export const DEFAULT_RETRY: RetryPolicy = {
  budgetMs: 60_000,
  initialDelayMs: 500,
  maxDelayMs: 8_000,
  requestTimeoutMs: 60_000
}

const TRANSIENT_STATUS = new Set([429, 502, 503, 504])
const TRANSIENT_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EAI_AGAIN',
  'ENOTFOUND',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ECONNABORTED',
  'TAZUNA_REQUEST_TIMEOUT',
  NOT_SENT
])

/** Whether a request that failed with this connection error code may succeed when sent again. */
export function isTransientCode(code: string): boolean {
  return TRANSIENT_CODES.has(code)
}

/** Connection errors after which the request surely never reached the server. */
const NOT_CONNECTED_CODES = new Set([
  'ECONNREFUSED',
  'EAI_AGAIN',
  'ENOTFOUND',
  'EHOSTUNREACH',
  'ENETUNREACH',
  NOT_SENT
])

/** Which transient failures a method may be retried after. */
export interface RetryRule {
  response(res: KubeResponse): boolean
  code(code: string): boolean
}

// GET, PUT (guarded by resourceVersion: a repeat that the first attempt already did is a 409,
// never a second write), PATCH (server-side apply states the whole intent) and DELETE (a repeat
// is a 404) can be sent again. A POST creates: after a reset, a timeout, a 5xx from a proxy or
// an etcd timeout the object may exist already, so it is repeated only when the server said it
// did not handle it (429 from its flow control, 503 with Retry-After) or no connection was made.
export function retryRuleFor(method: KubeRequest['method']): RetryRule {
  if (method !== 'POST') return { response: () => true, code: () => true }
  return {
    response: (res) =>
      res.status === 429 || (res.status === 503 && res.retryAfterSeconds !== undefined),
    code: (c) => NOT_CONNECTED_CODES.has(c)
  }
}

// 429/502/503/504 are always transient. A 500 is retried only when the server says so
// (Retry-After) or reports a timeout (`etcdserver: request timed out`); other 500s are
// permanent, e.g. server-side apply of a field the schema lacks ("field not declared in
// schema"), which no retry can fix.
export function isTransient(res: KubeResponse): boolean {
  if (TRANSIENT_STATUS.has(res.status)) return true
  if (res.status !== 500) return false
  return (
    res.retryAfterSeconds !== undefined || /timed? ?out|timeout/i.test(apiStatusOf(res).message)
  )
}

export function retryAfterOf(header: string | string[] | undefined): {
  retryAfterSeconds?: number
} {
  const seconds = Number(Array.isArray(header) ? header[0] : header)
  return header !== undefined && Number.isFinite(seconds) && seconds >= 0
    ? { retryAfterSeconds: seconds }
    : {}
}
