// The refusal message of a read outside the repository (src/config/confinement.ts): it names
// the repository the file belongs to, as the user knows it. Expected texts are the README's
// "Paths stay in the repository" wording; the base render's root is a temporary worktree, which
// the message calls "the base commit's tree" (issue: a head file was reported as the base's).
import { describe, expect, it } from '@jest/globals'
import {
  BASE_TREE,
  confinementError,
  owningPolicy,
  type ResolvedPolicy
} from '../../../src/config/confinement.js'
import { namedInBaseTree } from '../../../src/engine/base-render.js'

const TAIL =
  '; files outside it are not read. To read a directory outside on purpose, allow it (input allowed-paths, flag --allow-path).'
const head = { root: '/home/dev/repo', allowed: [] }
const base = { root: '/tmp/tazuna-base-x/worktree', allowed: [], name: BASE_TREE }

describe('confinementError', () => {
  it.each([
    [
      'a head file, by the checkout path',
      '/home/dev/repo/chart/link',
      head,
      '/home/dev/repo/chart/link is outside the repository /home/dev/repo (it resolves to /etc/hostname)'
    ],
    [
      "a base file, by its path in the base commit's tree",
      '/tmp/tazuna-base-x/worktree/chart/link',
      base,
      "chart/link in the base commit's tree is outside the repository (it resolves to /etc/hostname)"
    ],
    [
      'a base path written outside the worktree, as written',
      '/tmp/tazuna-base-x/other',
      base,
      "/tmp/tazuna-base-x/other in the base commit's tree is outside the repository (it resolves to /etc/hostname)"
    ]
  ])('names %s', (_, file, policy, message) => {
    expect(confinementError(file, '/etc/hostname', policy)?.message).toBe(message + TAIL)
  })

  it('allows a file inside the root or an allowed directory', () => {
    expect(confinementError('/home/dev/repo/a', '/home/dev/repo/a', head)).toBeUndefined()
    const allowing = { ...base, allowed: ['/etc'] }
    expect(confinementError('/tmp/tazuna-base-x/worktree/l', '/etc/x', allowing)).toBeUndefined()
  })
})

describe('owningPolicy', () => {
  const policies: ResolvedPolicy[] = [
    { written: head, resolved: head },
    // The worktree's root as written and as resolved (a symlinked temporary directory).
    { written: base, resolved: { ...base, root: '/private/tmp/tazuna-base-x/worktree' } }
  ]
  it.each([
    ['a head file', '/home/dev/repo/chart/link', 0],
    ['a base file, as written', '/tmp/tazuna-base-x/worktree/chart/link', 1],
    ['a base file, resolved', '/private/tmp/tazuna-base-x/worktree/chart/link', 1],
    ['a file of neither: the first', '/elsewhere/file', 0]
  ])('is the policy of %s', (_, file, index) => {
    expect(owningPolicy(file, policies)).toBe(policies[index])
  })
})

describe('namedInBaseTree', () => {
  it("writes the worktree's files by their paths in the commit and the worktree as the base tree", () => {
    const dir = '/tmp/tazuna-base-x/worktree'
    expect(
      namedInBaseTree(
        `open ${dir}/chart/templates/cm.yaml: kustomize build ${dir}: no such file`,
        dir
      )
    ).toBe(`open chart/templates/cm.yaml: kustomize build ${BASE_TREE}: no such file`)
  })
})
