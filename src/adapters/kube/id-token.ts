/**
 * The bearer token of `cluster-auth: github-oidc` (README.md#keyless): the job's OpenID Connect
 * ID token, requested from GitHub (the entry point passes the request in), kept while it is
 * fresh and requested again before it expires, and at once when the API server answered 401 to
 * it. The token is a credential: it is never part of a message (the entry point masks it).
 */
import type { Clock } from '../../apply/ports.js'
import { ClusterError } from '../../errors.js'

/** Requests a new ID token for the audience (core.getIDToken). */
export type IdTokenRequest = () => Promise<string>

/**
 * A token is replaced once less than this part of its lifetime is left (at most
 * {@link MAX_MARGIN_MS}): a GitHub ID token lives minutes, a test's seconds.
 */
const MARGIN_FRACTION = 0.5
const MAX_MARGIN_MS = 60_000

/** The current ID token, renewed before its `exp` and after a 401. */
export class IdTokenSource {
  private readonly request: IdTokenRequest
  private readonly clock: Clock
  private current: { token: string; renewAt: number } | undefined
  private pending: Promise<string> | undefined
  /** How many tokens were requested (for the tests and the log). */
  requested = 0

  constructor(request: IdTokenRequest, clock: Clock) {
    this.request = request
    this.clock = clock
  }

  /** A token to send now: the one held while it is fresh, else a new one. */
  async token(): Promise<string> {
    const held = this.current
    if (held !== undefined && this.clock.now() < held.renewAt) return held.token
    return await this.fetch()
  }

  /**
   * The API server refused `refused` (401): a new token, unless another request has already
   * replaced it, which is then used.
   */
  async renew(refused: string | undefined): Promise<string> {
    const held = this.current
    if (held !== undefined && refused !== undefined && held.token !== refused) return held.token
    this.current = undefined
    return await this.fetch()
  }

  // One request at a time: the requests of a layer that all find the token stale share it.
  private fetch(): Promise<string> {
    this.pending ??= this.requestOne().finally(() => {
      this.pending = undefined
    })
    return this.pending
  }

  private async requestOne(): Promise<string> {
    const requestedAt = this.clock.now()
    let token: string
    try {
      token = await this.request()
    } catch (error) {
      // @actions/core's message names the variable or the status, never the request token.
      const reason = error instanceof Error ? error.message : String(error)
      throw new ClusterError(
        `cluster-auth github-oidc: cannot get the job's ID token (${reason.replace(/\s+/g, ' ').trim()}); the job ` +
          'needs `permissions: id-token: write`'
      )
    }
    this.requested++
    this.current = { token, renewAt: renewAtOf(token, requestedAt) }
    return token
  }
}

/**
 * When to replace a token requested at `requestedAt`: before its `exp` by half its lifetime, at
 * most a minute. A token whose `exp` cannot be read is kept until the API server refuses it.
 */
export function renewAtOf(token: string, requestedAt: number): number {
  const exp = expiryOf(token)
  if (exp === undefined) return Number.POSITIVE_INFINITY
  const lifetime = Math.max(0, exp - requestedAt)
  return exp - Math.min(MAX_MARGIN_MS, lifetime * MARGIN_FRACTION)
}

/**
 * What a refused token claimed, for the error message: its issuer, audience and subject (none
 * of them a secret; the cluster's authentication configuration matches them).
 */
export function describeClaims(token: string): string {
  const claims = claimsOf(token)
  const shown = (['iss', 'aud', 'sub'] as const).flatMap((name) => {
    const value = claims?.[name]
    const text = Array.isArray(value) ? value.join(',') : value
    return typeof text === 'string' ? [`${name} ${JSON.stringify(text.slice(0, 200))}`] : []
  })
  return shown.length === 0 ? 'claims unreadable' : shown.join(', ')
}

function claimsOf(token: string): Record<string, unknown> | undefined {
  const payload = token.split('.')[1]
  if (payload === undefined) return undefined
  try {
    const claims: unknown = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'))
    return typeof claims === 'object' && claims !== null
      ? (claims as Record<string, unknown>)
      : undefined
  } catch {
    return undefined
  }
}

/** The `exp` claim of a JWT in milliseconds, or undefined when it has none. */
export function expiryOf(token: string): number | undefined {
  const exp = claimsOf(token)?.exp
  return typeof exp === 'number' && Number.isFinite(exp) ? exp * 1000 : undefined
}
