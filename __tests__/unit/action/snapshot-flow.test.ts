import { describe, expect, it } from '@jest/globals'
import { runDriftFlow } from '../../../src/action/drift-flow.js'
import { runMergeFlow } from '../../../src/action/merge-flow.js'
import { recordedCommit, type SnapshotPublishing } from '../../../src/action/snapshot-flow.js'
import { readSnapshot } from '../../../src/state/snapshot-read.js'
import { fakeEngine, RecordingRunner } from './fakes.js'

const plan = { layers: [['web']], nodes: [{ name: 'web', dependsOn: [] }] }
const counts = { added: 1, modified: 0, removed: 0, alwaysSync: 0, pruned: 0 }
const secretHash = 'f'.repeat(64)
const states = [
  {
    manifest: 'web',
    state: {
      metadata: { gitCommitHash: 'merge000', lastSyncedAt: '2026-01-02T03:04:05Z' },
      entries: new Map([
        ['web//v1/ConfigMap/app/settings', 'a'.repeat(64)],
        ['web//v1/Secret/app/db', secretHash]
      ])
    }
  }
]
const config = { path: 'deploy/tazuna.yaml', environment: 'production' }

/** A publishing that records what it was given. */
function recordingPublishing() {
  const published: { ref: string; text: string; message: string }[] = []
  const publishing: SnapshotPublishing = {
    ref: 'refs/tazuna-state/production',
    origin: {
      config,
      commit: 'merge000',
      writtenBy: 'https://github.com/acme/deploy/actions/runs/9',
      version: '1.2.3'
    },
    now: () => Date.UTC(2026, 0, 2, 4, 0, 0),
    publish: (ref, text, message) => {
      published.push({ ref, text, message })
      return Promise.resolve('c0ffee')
    }
  }
  return { published, publishing }
}

function applied(result: 'applied' | 'failed') {
  return () => ({
    layers: [[{ manifest: 'web', result, counts, durationMs: 1 }]],
    ...(result === 'failed'
      ? { failure: { layer: 1, manifest: 'web', message: 'manifest "web": refused' } }
      : {})
  })
}

describe('the merge run with input state-snapshot', () => {
  it('publishes the State after the apply on the ref and names it in an output', async () => {
    const engine = fakeEngine({ check: { problems: [], plan }, apply: applied('applied'), states })
    const runner = new RecordingRunner()
    const { published, publishing } = recordingPublishing()
    await runMergeFlow(
      { engine, runner },
      {
        config: 'deploy/tazuna.yaml',
        environment: 'production',
        sha: 'merge000',
        switches: { sync: true, prune: false, atomic: false },
        snapshot: publishing
      }
    )
    expect(engine.calls).toEqual(['check', 'connect', 'apply merge000 sync', 'listState'])
    expect(published).toHaveLength(1)
    const [{ ref, text, message }] = published as [(typeof published)[0]]
    expect(ref).toBe('refs/tazuna-state/production')
    expect(message).toBe(
      'State snapshot of merge000 (deploy/tazuna.yaml, environment "production")'
    )
    const snapshot = readSnapshot(text, 'published', config)
    expect(snapshot).toMatchObject({
      commit: 'merge000',
      createdAt: '2026-01-02T04:00:00Z',
      writtenBy: 'https://github.com/acme/deploy/actions/runs/9',
      version: '1.2.3'
    })
    expect(snapshot.manifests.get('web')?.secrets).toEqual(['web//v1/Secret/app/db'])
    expect(text).not.toContain(secretHash)
    expect(runner.outputs['state-snapshot-ref']).toBe('refs/tazuna-state/production')
    expect(runner.log).toContain(
      'State snapshot of 1 manifests written to refs/tazuna-state/production (commit c0ffee)'
    )
  })

  it('publishes nothing when the apply failed', async () => {
    const engine = fakeEngine({ check: { problems: [], plan }, apply: applied('failed'), states })
    const runner = new RecordingRunner()
    const { published, publishing } = recordingPublishing()
    await expect(
      runMergeFlow(
        { engine, runner },
        {
          config: 'deploy/tazuna.yaml',
          environment: 'production',
          sha: 'merge000',
          switches: { sync: true, prune: false, atomic: false },
          snapshot: publishing
        }
      )
    ).rejects.toThrow('manifest "web": refused')
    expect(published).toEqual([])
    expect(runner.outputs['state-snapshot-ref']).toBeUndefined()
  })

  it('publishes nothing for a plain apply, which records no State', async () => {
    const engine = fakeEngine({ check: { problems: [], plan }, apply: applied('applied'), states })
    const { published, publishing } = recordingPublishing()
    await runMergeFlow(
      { engine, runner: new RecordingRunner() },
      {
        config: 'deploy/tazuna.yaml',
        environment: 'production',
        sha: 'merge000',
        switches: { sync: false, prune: false, atomic: false },
        snapshot: publishing
      }
    )
    expect(published).toEqual([])
  })
})

describe('the drift run with input state-snapshot', () => {
  const driftRun = (listed: typeof states) => {
    const engine = {
      ...fakeEngine({ check: { problems: [], plan }, states: listed }),
      driftReport: () => Promise.resolve([])
    }
    const runner = new RecordingRunner()
    const { published, publishing } = recordingPublishing()
    const run = runDriftFlow(
      { engine, runner, publishIssue: () => Promise.reject(new Error('no issue was asked for')) },
      {
        config: 'deploy/tazuna.yaml',
        environment: 'production',
        sha: 'main0000', // the scheduled run's checkout: not what State records
        failOnDrift: false,
        issue: false,
        hasToken: false,
        snapshot: { ...publishing, origin: { ...publishing.origin, commit: 'main0000' } }
      }
    )
    return { run, runner, published }
  }

  it('publishes the State with the commit it records, not the commit of the checkout', async () => {
    const { run, runner, published } = driftRun(states)
    await run
    expect(published).toHaveLength(1)
    const [{ text, message }] = published as [(typeof published)[0]]
    expect(message).toBe(
      'State snapshot of merge000 (deploy/tazuna.yaml, environment "production")'
    )
    const snapshot = readSnapshot(text, 'published', config)
    expect(snapshot.commit).toBe('merge000')
    expect(snapshot.manifests.get('web')?.secrets).toEqual(['web//v1/Secret/app/db'])
    expect(text).not.toContain(secretHash)
    expect(runner.outputs['state-snapshot-ref']).toBe('refs/tazuna-state/production')
  })

  it('leaves the commit unknown when manifests record different commits', async () => {
    const older = { ...states[0]!, manifest: 'jobs' }
    older.state = {
      ...older.state,
      metadata: { ...older.state.metadata, gitCommitHash: 'old0000' }
    }
    const { run, published } = driftRun([...states, older])
    await run
    const [{ text, message }] = published as [(typeof published)[0]]
    expect(readSnapshot(text, 'published', config).commit).toBe('')
    expect(message).toBe(
      'State snapshot of an unknown commit (deploy/tazuna.yaml, environment "production")'
    )
  })
})

describe('recordedCommit', () => {
  const manifest = (gitCommitHash: string) => ({
    metadata: { gitCommitHash, lastSyncedAt: '' },
    entries: new Map<string, string>(),
    secrets: []
  })
  it('is the one commit every manifest records, else empty', () => {
    expect(
      recordedCommit({
        manifests: new Map([
          ['a', manifest('c1')],
          ['b', manifest('c1')]
        ])
      })
    ).toBe('c1')
    expect(
      recordedCommit({
        manifests: new Map([
          ['a', manifest('c1')],
          ['b', manifest('c2')]
        ])
      })
    ).toBe('')
    expect(recordedCommit({ manifests: new Map() })).toBe('')
  })
})
