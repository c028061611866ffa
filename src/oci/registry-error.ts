/**
 * Errors of the OCI registry client, worded from the HTTP status and the registry's own
 * distribution error body; never a request header, credential or token.
 */
import type { HttpResponse } from '../http/ports.js'

/**
 * A registry request that failed. `status` is the HTTP status (undefined when no answer came);
 * the message names the URL and the registry's error text, never a credential or token.
 */
export class OciRegistryError extends Error {
  override name = 'OciRegistryError'
  constructor(
    message: string,
    readonly status?: number,
    readonly reason?: 'auth' | 'not-found' | 'unreachable' | 'digest' | 'protocol'
  ) {
    super(message)
  }
}

/** The registry's own error text (distribution `{"errors":[{code,message}]}`), if any. */
function registryMessage(response: HttpResponse): string {
  try {
    const body = JSON.parse(new TextDecoder().decode(response.body)) as {
      errors?: { code?: string; message?: string }[]
    }
    const parts = (body.errors ?? []).map((e) =>
      [e.code?.toLowerCase().replaceAll('_', ' '), e.message].filter(Boolean).join(': ')
    )
    if (parts.length > 0) return parts.join('; ')
  } catch {
    // not JSON: the status says enough
  }
  return ''
}

/** The error for a non-2xx answer to a GET of `what` (host and path). */
export function statusError(
  response: HttpResponse,
  what: string,
  downgraded: boolean
): OciRegistryError {
  const detail = registryMessage(response)
  let message = `GET ${what}: response status ${response.status}${detail ? `: ${detail}` : ''}`
  let reason: OciRegistryError['reason'] = 'protocol'
  if (response.status === 401 || response.status === 403) {
    reason = 'auth'
    if (downgraded) {
      message +=
        ' (the registry answered https in plain http; Helm v3.21 then sends no credentials)'
    }
  } else if (response.status === 404) reason = 'not-found'
  return new OciRegistryError(message, response.status, reason)
}
