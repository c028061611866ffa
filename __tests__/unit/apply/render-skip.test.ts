// skippingUnchanged (src/apply/render-skip.ts) and what the apply core does with a skipped
// render: a manifest renders unless its State's record holds and State has the entries the
// record's render produced; a skip checked against another State renders after all.
import { describe, expect, it } from '@jest/globals'
import { runLayeredApply } from '../../../src/apply/layered-apply.js'
import type { DesiredState, ManifestUnit } from '../../../src/apply/manifest-unit.js'
import type { StoredState } from '../../../src/apply/ports.js'
import { skippingUnchanged } from '../../../src/apply/render-skip.js'
import { entriesDigest, type RenderRecord } from '../../../src/state/render-record.js'
import { emptyState } from '../../../src/state/state.js'
import { FakeCluster, fakeClock, FakeStore, memoryLog } from './fakes.js'

const entries = new Map([['m//v1/ConfigMap/ns/a', '1'.repeat(64)]])
const record: RenderRecord = { reads: [], key: 'k'.repeat(64), entries: entriesDigest(entries) }
const stored = (over: Partial<StoredState> = {}): StoredState => ({
  state: { metadata: { gitCommitHash: '', lastSyncedAt: '' }, entries },
  resourceVersion: '7',
  record,
  ...over
})
const m: ManifestUnit = { name: 'm', type: 'kustomize' }
const rendered: DesiredState = { objects: [], entries, alwaysSync: new Set() }

function setup(state: StoredState | undefined, holds = true) {
  const builds: string[] = []
  const build = (u: ManifestUnit) => {
    builds.push(u.name)
    return Promise.resolve(rendered)
  }
  const read = Promise.resolve(new Map(state ? [['m', state]] : []))
  const skipping = skippingUnchanged(build, read, {
    candidate: (u) => u.type === 'kustomize',
    holds: () => Promise.resolve(holds)
  })
  return { builds, skipping }
}

describe('skippingUnchanged', () => {
  it('does not render a manifest whose record holds and whose State it produced', async () => {
    const state = stored()
    const { builds, skipping } = setup(state)
    const desired = await skipping(m)
    expect(builds).toEqual([])
    expect(desired.entries).toBe(state.state.entries)
    expect(desired.objects).toEqual([])
    expect(desired.skipped?.stored).toBe(state)
    // It can still render when asked to.
    await desired.skipped!.render()
    expect(builds).toEqual(['m'])
  })

  it.each<[string, StoredState | undefined, boolean, ManifestUnit]>([
    ['no State', undefined, true, m],
    ['State without a record', stored({ record: undefined }), true, m],
    ['a record that does not hold', stored(), false, m],
    [
      'State with other entries than the render produced',
      stored({ record: { ...record, entries: entriesDigest(new Map()) } }),
      true,
      m
    ],
    ['a manifest of another type', stored(), true, { name: 'm', type: 'helmfile' }],
    ['an unnamed manifest', stored(), true, { name: '', type: 'kustomize' }]
  ])('renders with %s', async (_, state, holds, manifest) => {
    const { builds, skipping } = setup(state, holds)
    const desired = await skipping(manifest)
    expect(builds).toEqual([manifest.name])
    expect(desired.skipped).toBeUndefined()
  })

  it('renders when the State read or the check fails', async () => {
    const builds: string[] = []
    const build = (u: ManifestUnit) => {
      builds.push(u.name)
      return Promise.resolve(rendered)
    }
    const failedRead = Promise.reject(new Error('forbidden'))
    failedRead.catch(() => undefined)
    const check = { candidate: () => true, holds: () => Promise.resolve(true) }
    await skippingUnchanged(build, failedRead, check)(m)
    const failing = { candidate: () => true, holds: () => Promise.reject(new Error('EACCES')) }
    await skippingUnchanged(build, Promise.resolve(new Map([['m', stored()]])), failing)(m)
    expect(builds).toEqual(['m', 'm'])
  })
})

/** A sync of manifest `m` whose build resolves to `desired`. */
function syncOne(desired: DesiredState, store: FakeStore, cluster: FakeCluster) {
  return runLayeredApply(
    [[m]],
    [],
    { sync: true, prune: true, atomic: false, gitCommitHash: 'c' },
    { cluster, store, clock: fakeClock(), log: memoryLog(), build: () => Promise.resolve(desired) }
  )
}

describe('a skipped render in the layered apply', () => {
  it('is unchanged against the State it was checked with: nothing applied or saved', async () => {
    const store = new FakeStore()
    const cluster = new FakeCluster()
    const state = stored()
    store.readMany = () => Promise.resolve(new Map([['m', state]]))
    const skipped: DesiredState = {
      ...rendered,
      skipped: { stored: state, render: () => Promise.reject(new Error('rendered')) }
    }
    const report = await syncOne(skipped, store, cluster)
    expect(report.ok).toBe(true)
    expect(report.layers[0]!.manifests[0]!.result).toBe('unchanged')
    expect(cluster.calls).toEqual([])
    expect(store.saves).toEqual([])
  })

  it('renders after all when the run read another State than the skip was checked with', async () => {
    const store = new FakeStore()
    const cluster = new FakeCluster()
    const checked = stored()
    store.readMany = () => Promise.resolve(new Map([['m', stored({ state: emptyState() })]]))
    let renders = 0
    const object = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a', namespace: 'ns' } }
    const skipped: DesiredState = {
      ...rendered,
      skipped: {
        stored: checked,
        render: () => {
          renders++
          return Promise.resolve({ objects: [object], entries, alwaysSync: new Set() })
        }
      }
    }
    const report = await syncOne(skipped, store, cluster)
    expect(report.ok).toBe(true)
    expect(renders).toBe(1)
    expect(cluster.calls).toEqual(['apply v1/ConfigMap/ns/a'])
  })
})
