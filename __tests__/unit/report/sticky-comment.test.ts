import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals'
import { GitHubEmulator } from '../../github-emulator/server.js'
import { renderMarker } from '../../../src/report/marker.js'

// The adapter against the loopback GitHub emulator: @actions/github reads GITHUB_API_URL when
// it is first imported, so the emulator starts before the adapter is loaded.
let emulator: GitHubEmulator
let adapter: typeof import('../../../src/adapters/github/comments.js')

beforeAll(async () => {
  emulator = await GitHubEmulator.start({
    tokens: {
      'gh-token': { login: 'github-actions[bot]', type: 'Bot', integration: true },
      'fork-token': {
        login: 'github-actions[bot]',
        type: 'Bot',
        integration: true,
        readOnly: true
      },
      'pat-token': { login: 'deployer', type: 'User', integration: false }
    }
  })
  process.env.GITHUB_API_URL = emulator.url
  adapter = await import('../../../src/adapters/github/comments.js')
})
afterAll(async () => emulator.close())
beforeEach(() => {
  emulator.comments.length = 0
  emulator.requests.length = 0
})

const target = { config: 'tazuna.yaml', environment: 'prod', sha: 'aaa' }
const request = (body: string, t = target) => ({
  owner: 'acme',
  repo: 'deploy',
  issueNumber: 7,
  target: t,
  body: `${renderMarker(t)}\n${body}`
})

describe('upsertStickyComment', () => {
  it('creates the comment, then updates the same comment in place', async () => {
    const first = await adapter.upsertStickyComment('gh-token', request('one'))
    const second = await adapter.upsertStickyComment(
      'gh-token',
      request('two', { ...target, sha: 'bbb' })
    )
    expect(first.action).toBe('created')
    expect(second).toEqual({ action: 'updated', url: first.url, id: first.id })
    expect(emulator.comments).toHaveLength(1)
    expect(emulator.comments[0]!.body).toContain('two')
    expect(first.url).toBe(`https://github.com/acme/deploy/pull/7#issuecomment-${first.id}`)
  })

  it('makes no write when the body is unchanged', async () => {
    await adapter.upsertStickyComment('gh-token', request('same'))
    emulator.requests.length = 0
    const again = await adapter.upsertStickyComment('gh-token', request('same'))
    expect(again.action).toBe('unchanged')
    expect(emulator.requests.map((r) => r.method)).toEqual(['GET', 'GET'])
  })

  it('never edits a user comment that quotes the marker', async () => {
    const quoted = emulator.addComment({
      owner: 'acme',
      repo: 'deploy',
      issue: 7,
      body: request('look at this').body,
      user: { login: 'mallory', type: 'User' }
    })
    const result = await adapter.upsertStickyComment('gh-token', request('ours'))
    expect(result.action).toBe('created')
    expect(emulator.comments.find((c) => c.id === quoted.id)!.body).toContain('look at this')
    expect(emulator.requests.filter((r) => r.method === 'PATCH')).toEqual([])
  })

  it('keeps one comment per config and environment', async () => {
    await adapter.upsertStickyComment('gh-token', request('prod'))
    await adapter.upsertStickyComment(
      'gh-token',
      request('staging', { ...target, environment: 'staging' })
    )
    expect(emulator.comments.map((c) => c.body.split('\n')[1])).toEqual(['prod', 'staging'])
  })

  it('finds its comment beyond the first page', async () => {
    for (let i = 0; i < 230; i++) {
      emulator.addComment({
        owner: 'acme',
        repo: 'deploy',
        issue: 7,
        body: `chatter ${i}`,
        user: { login: 'dev', type: 'User' }
      })
    }
    const created = await adapter.upsertStickyComment('gh-token', request('first'))
    const updated = await adapter.upsertStickyComment('gh-token', request('second'))
    expect(updated).toMatchObject({ action: 'updated', id: created.id })
    expect(
      emulator.requests.filter((r) => r.method === 'GET' && r.path.endsWith('/comments')).at(-1)!
        .query
    ).toEqual({
      per_page: '100',
      page: '3'
    })
  })

  it('writes as the token owner when the token can say who it is', async () => {
    const mine = emulator.addComment({
      owner: 'acme',
      repo: 'deploy',
      issue: 7,
      body: request('old').body,
      user: { login: 'deployer', type: 'User' }
    })
    expect(await adapter.upsertStickyComment('pat-token', request('new'))).toMatchObject({
      action: 'updated',
      id: mine.id
    })
  })

  it('reports a read-only token as CommentForbiddenError without the token', async () => {
    const failure = adapter.upsertStickyComment('fork-token', request('x'))
    await expect(failure).rejects.toBeInstanceOf(adapter.CommentForbiddenError)
    await expect(failure).rejects.toThrow(/403: Resource not accessible by integration/)
    await expect(failure).rejects.not.toThrow(/fork-token/)
  })
})
