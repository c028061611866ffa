// The apply core over in-memory ports: ordering, State bookkeeping, failure and atomic
// semantics, tag filtering, concurrency cap, test placement. The same behaviours are shown
// against the real API server in __tests__/integration/cluster/layered-apply.test.ts.
import { describe, expect, it } from '@jest/globals'
import { runLayeredApply, type ApplyOptions } from '../../../src/apply/layered-apply.js'
import type { ManifestUnit } from '../../../src/apply/manifest-unit.js'
import { computeContentHash } from '../../../src/state/hash.js'
import { formatStateKey, stateKeyOf } from '../../../src/state/key.js'
import type { JsonObject } from '../../../src/go/yaml.js'
import { FakeCluster, fakeClock, FakeStore, memoryLog } from './fakes.js'

const cm = (ns: string, name: string, v = '1'): JsonObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace: ns },
  data: { v }
})
const ns = (name: string): JsonObject => ({
  apiVersion: 'v1',
  kind: 'Namespace',
  metadata: { name }
})

function desired(manifest: string, objects: JsonObject[], alwaysSync: string[] = []) {
  const entries = new Map<string, string>()
  for (const o of objects)
    entries.set(formatStateKey(stateKeyOf(manifest, o)), computeContentHash(o))
  return { objects, entries, alwaysSync: new Set(alwaysSync) }
}

const SYNC: ApplyOptions = { sync: true, prune: false, atomic: false, gitCommitHash: 'abc' }

function setup(objects: Record<string, JsonObject[]>) {
  const cluster = new FakeCluster()
  const store = new FakeStore()
  const log = memoryLog()
  const clock = fakeClock()
  const run = (layers: ManifestUnit[][], options: Partial<ApplyOptions> = {}, specTests = []) =>
    runLayeredApply(
      layers,
      specTests,
      { ...SYNC, ...options },
      {
        cluster,
        store,
        log,
        clock,
        build: (m) => Promise.resolve(desired(m.name, objects[m.name] ?? []))
      }
    )
  return { cluster, store, log, run }
}

const u = (name: string, extra: Partial<ManifestUnit> = {}): ManifestUnit => ({
  name,
  type: 'kustomize',
  ...extra
})

describe('sync mode', () => {
  it('applies in render order (Namespace before its ConfigMap), not in state-key order', async () => {
    const { cluster, run } = setup({ m: [ns('app'), cm('app', 'cfg')] })
    await run([[u('m')]])
    expect(cluster.calls).toEqual(['apply v1/Namespace//app', 'apply v1/ConfigMap/app/cfg'])
  })

  it('records gitCommitHash and a second-precision UTC lastSyncedAt', async () => {
    const { store, run } = setup({ m: [cm('a', 'x')] })
    await run([[u('m')]])
    expect(store.states.get('m')?.metadata).toEqual({
      gitCommitHash: 'abc',
      lastSyncedAt: '2026-05-08T01:02:03Z'
    })
  })

  it('skips an unnamed manifest without applying anything (docs/compatibility.md#unnamed-manifest-in-sync-mode)', async () => {
    const { cluster, store, run } = setup({ '': [cm('a', 'x')] })
    const report = await run([[u('')]])
    expect(report.layers[0]?.manifests[0]?.result).toBe('skipped')
    expect(cluster.calls).toEqual([])
    expect(store.saves).toEqual([])
  })

  it('does not save the State of a manifest that failed half-way', async () => {
    const { cluster, store, run } = setup({
      m: [ns('a'), cm('a', 'first'), cm('a', 'broken'), cm('a', 'sibling')]
    })
    cluster.failOn.add('broken')
    const report = await run([[u('m')]])
    expect(report.error).toBe(
      'layer 0 apply failed: manifest "m": failed to apply resource /v1/ConfigMap/a/broken: HTTP 422 Invalid: broken is broken'
    )
    // The ConfigMaps are one wave, sent together; the failure fails the manifest all the same.
    expect(cluster.calls).toEqual([
      'apply v1/Namespace//a',
      'apply v1/ConfigMap/a/first',
      'apply v1/ConfigMap/a/broken',
      'apply v1/ConfigMap/a/sibling'
    ])
    expect(store.saves).toEqual([])
  })

  it('applies no later wave after a failed one (a broken Namespace stops its ConfigMaps)', async () => {
    const { cluster, store, run } = setup({ m: [ns('broken'), cm('broken', 'cfg')] })
    cluster.failOn.add('broken')
    const report = await run([[u('m')]])
    expect(report.ok).toBe(false)
    expect(cluster.calls).toEqual(['apply v1/Namespace//broken'])
    expect(store.saves).toEqual([])
  })

  it('joins every failure of a layer and runs no later layer', async () => {
    const { cluster, run } = setup({
      a: [cm('n', 'bad-a')],
      b: [cm('n', 'bad-b')],
      c: [cm('n', 'c')]
    })
    cluster.failOn = new Set(['bad-a', 'bad-b'])
    const report = await run([[u('a'), u('b')], [u('c')]])
    expect(report.error?.split('\n')).toEqual([
      'layer 0 apply failed: manifest "a": failed to apply resource /v1/ConfigMap/n/bad-a: HTTP 422 Invalid: bad-a is broken',
      'manifest "b": failed to apply resource /v1/ConfigMap/n/bad-b: HTTP 422 Invalid: bad-b is broken'
    ])
    expect(cluster.calls).not.toContain('apply v1/ConfigMap/n/c')
    expect(report.layers[1]).toMatchObject({
      index: 1,
      result: 'not-run',
      manifests: [{ manifest: 'c', result: 'not-run' }]
    })
  })

  it('passes the keys it applied or pruned as touched keys and the read State as base', async () => {
    const { store, run } = setup({ m: [cm('a', 'x')] })
    await run([[u('m')]])
    expect([...(store.saves[0]?.options.touchedKeys ?? [])]).toEqual(['m//v1/ConfigMap/a/x'])
    expect(store.saves[0]?.options.base.state.entries.size).toBe(0)
  })

  it('reads every State with one readMany call', async () => {
    const { store, run } = setup({})
    await run([[u('a'), u('b')], [u('c')]])
    expect(store.readManyCalls).toBe(1)
  })

  it('with atomic, saves nothing until every layer succeeded, then everything', async () => {
    const { store, cluster, run } = setup({ a: [cm('n', 'a')], b: [cm('n', 'b')] })
    let savesDuringApply = -1
    cluster.onApply = (o) => {
      if ((o.metadata as JsonObject).name === 'b') savesDuringApply = store.saves.length
      return Promise.resolve()
    }
    await run([[u('a')], [u('b')]], { atomic: true })
    expect(savesDuringApply).toBe(0)
    expect(store.saves.map((s) => s.manifest)).toEqual(['a', 'b'])
  })

  it('applies always-sync keys every time', async () => {
    const secret: JsonObject = {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 's', namespace: 'n' }
    }
    const cluster = new FakeCluster()
    const store = new FakeStore()
    const build = () => Promise.resolve(desired('g', [secret], ['g//v1/Secret/n/s']))
    const deps = { cluster, store, log: memoryLog(), clock: fakeClock(), build }
    await runLayeredApply([[u('g', { type: 'genesissecret' })]], [], SYNC, deps)
    const second = await runLayeredApply([[u('g', { type: 'genesissecret' })]], [], SYNC, deps)
    expect(second.layers[0]?.manifests[0]).toMatchObject({
      result: 'applied',
      counts: { alwaysSync: 1, applied: 1 }
    })
  })
})

describe('full mode', () => {
  it('applies an unnamed manifest but records no State for it', async () => {
    const { cluster, store, log, run } = setup({ '': [cm('a', 'x')] })
    await run([[u('')]], { sync: false })
    expect(cluster.calls).toEqual(['apply v1/ConfigMap/a/x'])
    expect(store.saves).toEqual([])
    expect(log.lines).toContain(
      'warn manifest has no name, its state is not recorded (type kustomize)'
    )
  })

  it('runs the manifest tests before saving, so a failing test leaves State alone', async () => {
    const test = {
      type: 'ExistNonExist',
      existNonExist: {
        resource: { apiVersion: 'v1', kind: 'ConfigMap' },
        namespace: 'a',
        name: 'nope',
        shouldExist: true
      },
      minConsecutiveFailureCount: 1
    }
    const { store, run } = setup({ m: [cm('a', 'x')] })
    const report = await run([[u('m', { tests: [test] })]], { sync: false })
    expect(report.error).toBe(
      'layer 0 apply failed: manifest "m": test 0 (ExistNonExist) failed: aborting test after 1 consecutive failures (last error: "resource not found (resource: ConfigMap a/nope)")'
    )
    expect(store.saves).toEqual([])
  })
})

describe('layers', () => {
  it('skips manifests the tag filter excludes and keeps layer indices', async () => {
    const { cluster, log, run } = setup({ a: [cm('n', 'a')], b: [cm('n', 'b')] })
    const report = await run([[u('a', { tags: ['x'] } as Partial<ManifestUnit>)], [u('b')]], {
      isSelected: (m) => m.name === 'b'
    })
    expect(cluster.calls).toEqual(['apply v1/ConfigMap/n/b'])
    expect(
      report.layers.map((l) => l.manifests.map((m) => `${l.index}:${m.manifest}:${m.result}`))
    ).toEqual([['0:a:filtered'], ['1:b:applied']])
    expect(log.lines).toContain('info skip manifest due to tags filter manifest=a')
  })

  it('runs at most `concurrency` manifests of a layer at once', async () => {
    const names = ['a', 'b', 'c', 'd', 'e', 'f']
    const { cluster, run } = setup(Object.fromEntries(names.map((n) => [n, [cm('n', n)]])))
    let inFlight = 0
    let peak = 0
    cluster.onApply = async () => {
      peak = Math.max(peak, ++inFlight)
      await new Promise((r) => setTimeout(r, 5))
      inFlight--
    }
    await run([names.map((n) => u(n))], { concurrency: 2 })
    expect(peak).toBe(2)
  })

  // docs/compatibility.md#one-round-of-applies-per-layer: a layer's objects go out together
  // once its renders settled; a manifest that waits for readiness or has tests goes at once.
  describe('one round of applies per layer', () => {
    const test = {
      type: 'ExistNonExist',
      existNonExist: {
        resource: { apiVersion: 'v1', kind: 'ConfigMap' },
        namespace: 'n',
        name: 'a',
        shouldExist: true
      },
      minConsecutiveFailureCount: 1
    }
    /** A run whose renders finish when the test says, with every event in `order`. */
    function delayedRenders(names: string[], sizes: Record<string, number> = {}) {
      const cluster = new FakeCluster()
      const store = new FakeStore()
      const order: string[] = []
      const finish = new Map<string, (fail?: Error) => void>()
      cluster.onApply = (o) => {
        order.push(`apply ${(o.metadata as JsonObject).name as string}`)
        return Promise.resolve()
      }
      const build = (m: ManifestUnit) =>
        new Promise<ReturnType<typeof desired>>((resolve, reject) =>
          finish.set(m.name, (fail) => {
            order.push(`rendered ${m.name}`)
            if (fail) reject(fail)
            else {
              const size = sizes[m.name] ?? 1
              const objects = Array.from({ length: size }, (_, i) =>
                cm('n', i === 0 ? m.name : `${m.name}-${i}`)
              )
              resolve(desired(m.name, objects))
            }
          })
        )
      const run = (layers: ManifestUnit[][], options: Partial<ApplyOptions> = {}) =>
        runLayeredApply(
          layers,
          [],
          { ...SYNC, ...options },
          {
            cluster,
            store,
            log: memoryLog(),
            clock: fakeClock(),
            build
          }
        )
      const settle = () => new Promise((resolve) => setTimeout(resolve, 1))
      return { names, cluster, store, order, finish, run, settle }
    }

    it("sends a layer's objects once all of its renders are done, not as each finishes", async () => {
      const { order, finish, run, settle } = delayedRenders(['a', 'b'])
      const report = run([[u('a'), u('b')]])
      await settle()
      finish.get('a')!()
      await settle()
      expect(order).toEqual(['rendered a'])
      finish.get('b')!()
      expect((await report).ok).toBe(true)
      // One round: both after both renders (in whichever order they leave).
      expect(order.slice(0, 2)).toEqual(['rendered a', 'rendered b'])
      expect(order.slice(2).sort()).toEqual(['apply a', 'apply b'])
    })

    it('sends the objects of a manifest with tests or a readiness wait as soon as it rendered', async () => {
      const { order, finish, run, settle } = delayedRenders(['a', 'b', 'c'])
      const waits = u('c', { type: 'helmfile', helmfile: { wait: true, timeoutSeconds: 5 } })
      const report = run([[u('a', { tests: [test] }), u('b'), waits]])
      await settle()
      finish.get('a')!()
      await settle()
      finish.get('c')!()
      await settle()
      expect(order).toEqual(['rendered a', 'apply a', 'rendered c', 'apply c'])
      finish.get('b')!()
      expect((await report).ok).toBe(true)
      expect(order.slice(4)).toEqual(['rendered b', 'apply b'])
    })

    it('sends at once when the layer has more objects than one round of requests carries', async () => {
      // 101 objects: more than the requests in flight (OBJECT_CONCURRENCY, 100), so holding
      // them for b's render would only add round trips.
      const { order, finish, run, settle } = delayedRenders(['a', 'b'], { a: 101 })
      const report = run([[u('a'), u('b')]])
      await settle()
      finish.get('a')!()
      await settle()
      expect(order.slice(0, 2)).toEqual(['rendered a', 'apply a'])
      finish.get('b')!()
      expect((await report).ok).toBe(true)
      expect(order.filter((e) => !e.startsWith('apply a'))).toEqual([
        'rendered a',
        'rendered b',
        'apply b'
      ])
    })

    it('still applies and saves the siblings of a manifest whose render failed', async () => {
      const { order, store, finish, run, settle } = delayedRenders(['a', 'b'])
      const report = run([[u('a'), u('b')], [u('c')]])
      await settle()
      finish.get('a')!()
      await settle()
      finish.get('b')!(new Error('kustomize build b: boom'))
      const r = await report
      expect(r.error).toBe(
        'layer 0 apply failed: manifest "b": failed to build: kustomize build b: boom'
      )
      expect(order).toEqual(['rendered a', 'rendered b', 'apply a'])
      expect(store.saves.map((s) => s.manifest)).toEqual(['a'])
    })

    it('waits only for renders under way: more manifests than `concurrency` all apply', async () => {
      const { order, finish, run, settle } = delayedRenders(['a', 'b', 'c'])
      const report = run([[u('a'), u('b'), u('c')]], { concurrency: 2 })
      await settle()
      expect([...finish.keys()]).toEqual(['a', 'b'])
      finish.get('b')!()
      finish.get('a')!()
      await settle()
      expect(order.slice(0, 2)).toEqual(['rendered b', 'rendered a'])
      expect(order.slice(2).sort()).toEqual(['apply a', 'apply b'])
      finish.get('c')!()
      expect((await report).ok).toBe(true)
      expect(order.slice(4)).toEqual(['rendered c', 'apply c'])
    })
  })

  // docs/compatibility.md#layers: the barrier waits for a layer's objects, not its State.
  it("applies the next layer while a layer's State write is on its way, and answers after it", async () => {
    const { cluster, store, run } = setup({ a: [cm('n', 'a')], b: [cm('n', 'b')] })
    const order: string[] = []
    let answer: () => void = () => undefined
    const save = store.save.bind(store)
    store.save = (manifest, state, options) => {
      order.push(`save ${manifest}`)
      if (manifest !== 'a') return save(manifest, state, options)
      return new Promise<void>((resolve) => (answer = resolve)).then(() => {
        order.push('a saved')
        return save(manifest, state, options)
      })
    }
    cluster.onApply = (o) => {
      order.push(`apply ${(o.metadata as JsonObject).name as string}`)
      if ((o.metadata as JsonObject).name === 'b') setTimeout(() => answer(), 5)
      return Promise.resolve()
    }
    const report = await run([[u('a')], [u('b')]])
    expect(report.ok).toBe(true)
    // b's State follows a's: the layers' State is written in layer order.
    expect(order).toEqual(['apply a', 'save a', 'apply b', 'a saved', 'save b'])
    expect(report.layers.map((l) => l.result)).toEqual(['succeeded', 'succeeded'])
  })

  it('stops after the next layer when a State write fails, which saved its own', async () => {
    const { cluster, store, run } = setup({
      a: [cm('n', 'a')],
      b: [cm('n', 'b')],
      c: [cm('n', 'c')]
    })
    const save = store.save.bind(store)
    store.save = (manifest, state, options) =>
      manifest === 'a'
        ? new Promise((_, reject) => setTimeout(() => reject(new Error('HTTP 409')), 5))
        : save(manifest, state, options)
    cluster.onApply = () => new Promise((resolve) => setTimeout(resolve, 1))
    const report = await run([[u('a')], [u('b')], [u('c')]])
    expect(report.error).toBe('layer 0 apply failed: manifest "a": HTTP 409')
    expect(store.saves.map((s) => s.manifest)).toEqual(['b'])
    expect(cluster.calls).not.toContain('apply v1/ConfigMap/n/c')
    expect(report.layers.map((l) => [l.result, ...l.manifests.map((m) => m.result)])).toEqual([
      ['failed', 'failed'],
      ['succeeded', 'applied'],
      ['not-run', 'not-run']
    ])
  })

  it('with tests, waits for the State write and the tests before the next layer', async () => {
    const test = {
      type: 'ExistNonExist',
      existNonExist: {
        resource: { apiVersion: 'v1', kind: 'ConfigMap' },
        namespace: 'n',
        name: 'a',
        shouldExist: true
      },
      minConsecutiveFailureCount: 1
    }
    const { cluster, store, run } = setup({ a: [cm('n', 'a')], b: [cm('n', 'b')] })
    let savedBeforeB = -1
    cluster.onApply = (o) => {
      if ((o.metadata as JsonObject).name === 'b') savedBeforeB = store.saves.length
      return Promise.resolve()
    }
    await run([[u('a', { tests: [test] })], [u('b')]])
    expect(savedBeforeB).toBe(1)
    expect(cluster.calls).toEqual([
      'apply v1/ConfigMap/n/a',
      'get v1/ConfigMap/n/a',
      'apply v1/ConfigMap/n/b'
    ])
  })

  it('runs spec.tests after all layers, and fails the run when one fails', async () => {
    const test = {
      type: 'ExistNonExist',
      existNonExist: {
        resource: { apiVersion: 'v1', kind: 'ConfigMap' },
        namespace: 'n',
        name: 'a',
        shouldExist: false
      },
      minConsecutiveFailureCount: 1
    }
    const { run } = setup({ a: [cm('n', 'a')] })
    const report = await run([[u('a')]], {}, [test] as never)
    expect(report.error).toBe(
      'spec.tests[0] (ExistNonExist) failed: aborting test after 1 consecutive failures (last error: "resource exists (resource: ConfigMap n/a)")'
    )
  })
})

// docs/reliability.md#cancellation: the fake cluster plays a KubeClient whose signal aborted
// (it refuses every request that would start after it, src/adapters/kube/client.ts).
describe('a cancelled run', () => {
  function cancellable(objects: Record<string, JsonObject[]>) {
    const s = setup(objects)
    const controller = new AbortController()
    const onApply = s.cluster.onApply
    s.cluster.onApply = async (o) => {
      await onApply(o)
      if (controller.signal.aborted) throw new Error('not sent, because the run was cancelled')
    }
    return { ...s, controller }
  }

  it('saves State for the manifests that applied all of their objects, and for no other', async () => {
    const { cluster, store, run, controller } = cancellable({
      a: [cm('n', 'a1')],
      b: [cm('n', 'b1')],
      c: [cm('n', 'c1'), cm('n', 'c2')],
      d: [cm('n', 'd1')]
    })
    // The signal arrives while c's first object is on its way: c's second is refused.
    cluster.onApply = (o) => {
      const name = (o.metadata as { name: string }).name
      if (name === 'c1') controller.abort('SIGINT')
      if (controller.signal.aborted && name === 'c2')
        return Promise.reject(new Error('not sent, because the run was cancelled (SIGINT)'))
      return Promise.resolve()
    }
    const report = await run([[u('a')], [u('b'), u('c')], [u('d')]], {
      concurrency: 1,
      signal: controller.signal
    })
    expect(report.ok).toBe(false)
    expect(report.cancelled).toEqual({ layer: 1, reason: 'SIGINT' })
    expect(report.layers.map((l) => [l.result, ...l.manifests.map((m) => m.result)])).toEqual([
      ['succeeded', 'applied'],
      ['cancelled', 'applied', 'cancelled'],
      ['not-run', 'not-run']
    ])
    expect(store.saves.map((s) => s.manifest)).toEqual(['a', 'b'])
    expect(cluster.calls).not.toContain('apply v1/ConfigMap/n/d1')
    expect(report.error?.split('\n')[0]).toBe('the run was cancelled (SIGINT) in layer 2 of 3')
    expect(report.error).toContain('manifest "c": ')
  })

  it('starts no manifest and no layer once cancelled between layers', async () => {
    const { cluster, store, run, controller } = cancellable({
      a: [cm('n', 'a1')],
      b: [cm('n', 'b1')]
    })
    cluster.onApply = () => {
      controller.abort('SIGTERM')
      return Promise.resolve()
    }
    const report = await run([[u('a')], [u('b')]], { signal: controller.signal })
    expect(report.cancelled).toEqual({ layer: 1, reason: 'SIGTERM' })
    expect(report.layers.map((l) => l.manifests.map((m) => m.result))).toEqual([
      ['applied'],
      ['not-run']
    ])
    expect(store.saves.map((s) => s.manifest)).toEqual(['a'])
    expect(cluster.calls).toEqual(['apply v1/ConfigMap/n/a1'])
  })

  it('keeps a manifest that failed on its own failed, and a run not cancelled unchanged', async () => {
    const { cluster, run, controller } = cancellable({ a: [cm('n', 'a1')] })
    cluster.failOn.add('a1')
    const report = await run([[u('a')]], { signal: controller.signal })
    expect(report.cancelled).toBeUndefined()
    expect(report.layers[0]?.manifests[0]?.result).toBe('failed')
    expect(report.error).toBe(
      'layer 0 apply failed: manifest "a": failed to apply resource /v1/ConfigMap/n/a1: HTTP 422 Invalid: a1 is broken'
    )
  })
})
