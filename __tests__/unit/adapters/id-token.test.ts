import { describe, expect, it } from '@jest/globals'
import { expiryOf, IdTokenSource, renewAtOf } from '../../../src/adapters/kube/id-token.js'
import { ClusterError } from '../../../src/errors.js'

// A JWT's shape (RFC 7519: base64url header.payload.signature); the signature is not read.
const jwt = (claims: Record<string, unknown>): string =>
  [{ alg: 'RS256' }, claims]
    .map((part) => Buffer.from(JSON.stringify(part)).toString('base64url'))
    .join('.') + '.c2ln'

const clockAt = (t: { now: number }) => ({
  now: () => t.now,
  sleep: () => Promise.resolve()
})

describe('IdTokenSource', () => {
  it('keeps a token for the first half of its lifetime, then requests a new one', async () => {
    const t = { now: 1_000_000 }
    let n = 0
    const source = new IdTokenSource(
      () => Promise.resolve(jwt({ n: ++n, exp: (t.now + 60_000) / 1000 })),
      clockAt(t)
    )
    const first = await source.token()
    t.now += 29_000
    expect(await source.token()).toBe(first)
    t.now += 1_000
    const second = await source.token()
    expect(second).not.toBe(first)
    expect(source.requested).toBe(2)
  })

  it('renews at most a minute before exp, whatever the lifetime', () => {
    // GitHub's ID tokens live minutes: a 10-minute token is replaced after 9.
    expect(renewAtOf(jwt({ exp: 600 }), 0)).toBe(540_000)
    expect(renewAtOf(jwt({ exp: 20 }), 0)).toBe(10_000)
    expect(renewAtOf('not-a-jwt', 0)).toBe(Number.POSITIVE_INFINITY)
    expect(expiryOf(jwt({ exp: 'soon' }))).toBeUndefined()
  })

  it('asks once for the requests that find the token stale together', async () => {
    const t = { now: 0 }
    let n = 0
    const source = new IdTokenSource(async () => {
      await Promise.resolve()
      return jwt({ n: ++n, exp: 60 })
    }, clockAt(t))
    const tokens = await Promise.all([source.token(), source.token(), source.token()])
    expect(new Set(tokens).size).toBe(1)
    expect(source.requested).toBe(1)
  })

  it('after a 401 requests a new token, unless another request already replaced it', async () => {
    const t = { now: 0 }
    let n = 0
    const source = new IdTokenSource(() => Promise.resolve(jwt({ n: ++n, exp: 600 })), clockAt(t))
    const refused = await source.token()
    const renewed = await source.renew(refused)
    expect(renewed).not.toBe(refused)
    // A second request refused with the same old token gets the renewed one, no new request.
    expect(await source.renew(refused)).toBe(renewed)
    expect(source.requested).toBe(2)
  })

  it("says the job needs id-token: write when GitHub's token request fails", async () => {
    const source = new IdTokenSource(
      () => Promise.reject(new Error('Unable to get ACTIONS_ID_TOKEN_REQUEST_URL env variable')),
      clockAt({ now: 0 })
    )
    const failure = source.token()
    await expect(failure).rejects.toThrow(ClusterError)
    await expect(failure).rejects.toThrow(
      "cluster-auth github-oidc: cannot get the job's ID token (Unable to get " +
        'ACTIONS_ID_TOKEN_REQUEST_URL env variable); the job needs `permissions: id-token: write`'
    )
  })
})
