import { describe, expect, it } from '@jest/globals'
import { pullRequestOf } from '../../../src/action/github-event.js'

const repo = { owner: 'acme', repo: 'deploy' }
const payload = (head: unknown, base = 'acme/deploy') => ({
  pull_request: { number: 7, head: { sha: 'h1', repo: head }, base: { repo: { full_name: base } } }
})

describe('pullRequestOf', () => {
  it.each([
    [
      'a same-repository pull request',
      payload({ full_name: 'acme/deploy' }),
      { ...repo, number: 7, headSha: 'h1' }
    ],
    [
      'a fork',
      payload({ full_name: 'mallory/deploy' }),
      { ...repo, number: 7, headSha: 'h1', forkOf: 'mallory/deploy' }
    ],
    [
      'a deleted fork',
      payload(null),
      { ...repo, number: 7, headSha: 'h1', forkOf: '(deleted fork)' }
    ],
    ['a push', { ref: 'refs/heads/main', after: 'abc' }, undefined]
  ])('reads %s', (_, p, expected) => {
    expect(pullRequestOf(p, repo)).toEqual(expected)
  })
})
