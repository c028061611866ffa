/**
 * The stale-commit guard in the action, as a real run meets it: the workspace is a depth-1
 * clone (actions/checkout's default), so its own history cannot tell whether the commit State
 * records is an ancestor; the action asks GitHub's compare API, emulated on loopback and
 * answered from the origin repository's whole history.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals'
import { execFileSync } from 'node:child_process'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { GitHubEmulator } from '../github-emulator/server.js'
import { adminKubeconfig } from '../support/cluster.js'
import { writeConfig, writeFixtureRepo, type FixtureRepo } from '../support/fixture-repo.js'
import { commitAll, commitNext, git } from '../support/git-repo.js'
import { buildFreshDist, pushPayload, runAction, botToken } from './harness.js'

let dist: string
let emulator: GitHubEmulator
let origin: FixtureRepo

/** GitHub's compare status of base...head, from the origin's history. */
function compare(base: string, head: string): string | undefined {
  const isAncestor = (a: string, b: string): boolean | undefined => {
    try {
      git(origin.dir, 'merge-base', '--is-ancestor', a, b)
      return true
    } catch (error) {
      return (error as { status?: number }).status === 1 ? false : undefined
    }
  }
  if (base === head) return 'identical'
  const forward = isAncestor(base, head)
  if (forward === undefined) return undefined
  if (forward) return 'ahead'
  return isAncestor(head, base) ? 'behind' : 'diverged'
}

beforeAll(async () => {
  dist = buildFreshDist()
  emulator = await GitHubEmulator.start({
    tokens: botToken,
    compare
  })
}, 300_000)
afterAll(async () => emulator?.close())

/** A depth-1 clone of the origin at `sha`, as actions/checkout makes it. */
function shallowCheckout(sha: string): string {
  const dir = join(mkdtempSync(join(tmpdir(), 'tazuna-e2e-checkout-')), 'ws')
  execFileSync('git', ['init', '-q', dir])
  git(dir, 'fetch', '-q', '--depth', '1', `file://${origin.dir}`, sha)
  git(dir, 'checkout', '-q', 'FETCH_HEAD')
  return dir
}

function merge(workspace: string, sha: string, token = 'gh-token') {
  return runAction({
    dist,
    workspace,
    inputs: { config: 'tazuna.yaml', kubeconfig: adminKubeconfig(), 'github-token': token },
    eventName: 'push',
    payload: pushPayload(sha),
    sha,
    apiUrl: emulator.url
  })
}

describe('merge runs from a shallow checkout', () => {
  it('refuse a re-run of an older commit, naming both, and apply a newer one', async () => {
    origin = writeFixtureRepo()
    const a = commitAll(origin.dir, 'A')
    writeConfig(origin, 'B')
    const b = commitNext(origin.dir, 'B')
    writeConfig(origin, 'C')
    const c = commitNext(origin.dir, 'C')

    const atB = await merge(shallowCheckout(b), b)
    expect(atB.status).toBe(0)

    const rerunA = await merge(shallowCheckout(a), a)
    expect(rerunA.status).toBe(1)
    expect(rerunA.stdout).toContain(
      `refusing to apply commit ${a}: State of manifests "${origin.manifests.config}", `
    )
    expect(rerunA.stdout).toContain(`records commit ${b}, which is not an ancestor of it`)
    expect(emulator.requests.some((r) => r.path.endsWith(`/compare/${b}...${a}`))).toBe(true)

    const noToken = await merge(shallowCheckout(a), a, '')
    expect(noToken.status).toBe(1)
    expect(noToken.stdout).toContain('whether it is an ancestor cannot be told')

    const atC = await merge(shallowCheckout(c), c)
    expect(atC.status).toBe(0)
    expect(atC.outputs).toMatchObject({ modified: '1' })
  })
})
