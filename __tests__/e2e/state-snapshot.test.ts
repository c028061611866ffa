/**
 * The merge run with input `state-snapshot`, as a real run meets it: a depth-1 clone of the
 * origin (actions/checkout's default, its credentials being the file remote's), the bundle
 * started as `node index.js`, the real API server. The snapshot lands on the origin's hidden
 * ref and a second depth-1 clone, as a pull-request job would, fetches and verifies it. A
 * scheduled drift run on a later, undeployed commit publishes it again with the commit State
 * records.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { gitSnapshotRefs } from '../../src/adapters/git-snapshot.js'
import { readSnapshot } from '../../src/state/snapshot-read.js'
import { GitHubEmulator } from '../github-emulator/server.js'
import { adminKubeconfig } from '../support/cluster.js'
import { writeConfig, writeFixtureRepo } from '../support/fixture-repo.js'
import { commitAll, commitNext, git } from '../support/git-repo.js'
import { buildFreshDist, pushPayload, runAction, botToken } from './harness.js'

const ref = 'refs/tazuna-state/production'
let dist: string
let emulator: GitHubEmulator

beforeAll(async () => {
  dist = buildFreshDist()
  emulator = await GitHubEmulator.start({
    tokens: botToken
  })
}, 300_000)
afterAll(async () => emulator?.close())

/** `git clone --depth 1` of the origin: a checkout with an `origin` remote to push to. */
function shallowClone(origin: string): string {
  const dir = join(mkdtempSync(join(tmpdir(), 'tazuna-e2e-snapshot-')), 'ws')
  git(tmpdir(), 'clone', '-q', '--depth', '1', `file://${origin}`, dir)
  return dir
}

describe('a merge run with state-snapshot', () => {
  it('publishes the State it recorded on the ref, for a depth-1 clone to fetch', async () => {
    const origin = writeFixtureRepo()
    const sha = commitAll(origin.dir, 'A')
    const main = git(origin.dir, 'rev-parse', 'HEAD')
    const workspace = shallowClone(origin.dir)
    const result = await runAction({
      dist,
      workspace,
      inputs: {
        config: 'tazuna.yaml',
        kubeconfig: adminKubeconfig(),
        'github-token': 'gh-token',
        'reviewed-diff': 'off',
        'state-snapshot': ref
      },
      eventName: 'push',
      payload: pushPayload(sha),
      sha,
      apiUrl: emulator.url
    })
    expect(result.stderr).toBe('')
    expect(result.status).toBe(0)
    expect(result.outputs['state-snapshot-ref']).toBe(ref)
    expect(result.stdout).toMatch(
      new RegExp(`State snapshot of 4 manifests written to ${ref} \\(commit [0-9a-f]{40}\\)`)
    )
    // Nothing but the hidden ref moved.
    expect(git(origin.dir, 'rev-parse', 'HEAD')).toBe(main)
    expect(git(workspace, 'status', '--porcelain')).toBe('')

    const fetched = await gitSnapshotRefs(shallowClone(origin.dir)).fetch(ref)
    expect(fetched?.commit).toBe(git(origin.dir, 'rev-parse', ref).trim())
    const snapshot = readSnapshot(fetched?.text ?? '', ref, {
      path: 'tazuna.yaml',
      environment: ''
    })
    expect(snapshot).toMatchObject({
      commit: sha,
      writtenBy: 'https://github.com/acme/deploy/actions/runs/4242'
    })
    const web = snapshot.manifests.get(origin.manifests.web)
    expect(web?.metadata.gitCommitHash).toBe(sha)
    expect([...(web?.entries.keys() ?? [])].length).toBeGreaterThan(0)
  })

  it('is published again by a drift run, with the commit State records', async () => {
    const origin = writeFixtureRepo()
    const applied = commitAll(origin.dir, 'A')
    const inputs = {
      config: 'tazuna.yaml',
      kubeconfig: adminKubeconfig(),
      'github-token': 'gh-token',
      'reviewed-diff': 'off',
      'state-snapshot': ref
    }
    const merge = await runAction({
      dist,
      workspace: shallowClone(origin.dir),
      inputs,
      eventName: 'push',
      payload: pushPayload(applied),
      sha: applied,
      apiUrl: emulator.url
    })
    expect(merge.status).toBe(0)
    git(origin.dir, 'rev-parse', '--verify', ref)
    // Taken away, so that the drift run's publish shows whatever the clock: two runs within one
    // second write the same snapshot (its createdAt has whole seconds) and so the same commit.
    git(origin.dir, 'update-ref', '-d', ref)
    writeConfig(origin, 'not deployed yet')
    const later = commitNext(origin.dir, 'B')
    const drift = await runAction({
      dist,
      workspace: shallowClone(origin.dir),
      inputs: { ...inputs, mode: 'drift' },
      eventName: 'schedule',
      payload: { schedule: '0 3 * * *' },
      sha: later,
      apiUrl: emulator.url
    })
    expect(drift.stderr).toBe('')
    expect(drift.status).toBe(0)
    expect(drift.outputs['state-snapshot-ref']).toBe(ref)
    expect(git(origin.dir, 'rev-parse', '--verify', ref).trim()).toMatch(/^[0-9a-f]{40}$/)
    const fetched = await gitSnapshotRefs(shallowClone(origin.dir)).fetch(ref)
    const snapshot = readSnapshot(fetched?.text ?? '', ref, {
      path: 'tazuna.yaml',
      environment: ''
    })
    expect(snapshot.commit).toBe(applied)
    expect(snapshot.manifests.get(origin.manifests.web)?.metadata.gitCommitHash).toBe(applied)
  })
})
