/**
 * What the Kubernetes API client (./client.ts) sends and gets back, and how a response becomes a
 * value or a ClusterError that names the request, the status, the reason and the message.
 */
import { ClusterError } from '../../errors.js'
import { parseWarningHeaders } from '../../go/warning-header.js'

/** One API request; `path` starts with `/api` or `/apis`. */
export interface KubeRequest {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE'
  path: string
  query?: Record<string, string>
  /** Serialized as JSON unless already a string. */
  body?: unknown
  contentType?: string
  accept?: string
  /**
   * Sent even after the run is cancelled (KubeClient's `signal`): keeping and releasing the run
   * lock, so that a cancelled run does not leave its Lease to block the next one.
   */
  evenWhenCancelled?: boolean
}

/** A response the server produced (any status). */
export interface KubeResponse {
  status: number
  contentType: string
  body: string
  /** The Retry-After header in seconds, when the server sent a numeric one. */
  retryAfterSeconds?: number
  /**
   * The texts of the server's `Warning` headers (`299 - "text"`: a deprecated API, a field it
   * will ignore), in the order sent; absent when it sent none.
   */
  warnings?: string[]
}

/**
 * The texts of a response's `Warning` header values (one character per byte, as Node's parsers
 * give them), read as client-go reads them: malformed ones are dropped, repeats kept once.
 */
export function warningsOf(values: readonly string[] | undefined): { warnings?: string[] } {
  if (values === undefined || values.length === 0) return {}
  const texts = [...new Set(parseWarningHeaders(values).warnings.map((w) => w.text))]
  return texts.length === 0 ? {} : { warnings: texts }
}

/** The parts of a Kubernetes `Status` body worth showing to a user. */
export interface ApiStatus {
  reason: string
  message: string
}

/** Reads `reason`/`message` from a Status body; other bodies are shortened plain text. */
export function apiStatusOf(res: KubeResponse): ApiStatus {
  try {
    const parsed = JSON.parse(res.body) as { reason?: unknown; message?: unknown }
    return {
      reason: typeof parsed.reason === 'string' ? parsed.reason : '',
      message: typeof parsed.message === 'string' ? parsed.message : ''
    }
  } catch {
    return { reason: '', message: res.body.trim().slice(0, 300) }
  }
}

/**
 * A ClusterError for a non-success response: `<what>: <status> <reason>: <message>`, with the
 * response's warnings.
 */
export function responseError(what: string, res: KubeResponse): ClusterError {
  const { reason, message } = apiStatusOf(res)
  const detail = [reason, message].filter((s) => s !== '').join(': ')
  const error = new ClusterError(
    `${what}: HTTP ${res.status}${detail === '' ? '' : ` ${detail}`}`,
    res.status
  )
  error.warnings = res.warnings ?? []
  return error
}

/** Parses a JSON response body, failing with `what` when it is not JSON. */
export function jsonBody<T>(what: string, res: KubeResponse): T {
  try {
    return JSON.parse(res.body) as T
  } catch {
    throw new ClusterError(
      `${what}: the API server answered HTTP ${res.status} with a non-JSON body`
    )
  }
}
