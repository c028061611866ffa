// Layered apply and State sync against the real API server
// (docs/compatibility.md#legacy-state-sync, #apply): sync from empty, no-op re-sync,
// modified/added/removed with and without prune, atomic, a failing layer, CRD + CR, Job recreation,
// the concurrent waves within a manifest, plain (full) apply, and the read-only reader.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals'
import type { KubeSession } from '../../../src/adapters/kube/session.js'
import { runLayeredApply, type ApplyOptions } from '../../../src/apply/layered-apply.js'
import { computeManifestDiffs } from '../../../src/apply/manifest-diffs.js'
import type { ManifestUnit } from '../../../src/apply/manifest-unit.js'
import type { Clock } from '../../../src/apply/ports.js'
import type { JsonObject } from '../../../src/go/yaml.js'
import {
  adminSession,
  configMap,
  desiredOf,
  memoryLog,
  namespace,
  readerSession,
  uniqueName,
  unit
} from '../../support/cluster.js'

let admin: KubeSession
beforeAll(async () => {
  admin = await adminSession()
})
afterAll(() => admin.close())

/** A real clock whose `now` can be moved forward, so lastSyncedAt differs between runs. */
function shiftedClock(offsetMs: number): Clock {
  return { now: () => Date.now() + offsetMs, sleep: (ms) => new Promise((r) => setTimeout(r, ms)) }
}

const SYNC: ApplyOptions = { sync: true, prune: false, atomic: false, gitCommitHash: 'c0ffee' }

/** Runs apply over `layers` of units whose objects come from `objects` (by manifest name). */
async function run(
  session: KubeSession,
  layers: ManifestUnit[][],
  objects: Record<string, JsonObject[]>,
  options: Partial<ApplyOptions> = {},
  clock: Clock = shiftedClock(0)
) {
  const log = memoryLog()
  const report = await runLayeredApply(
    layers,
    [],
    { ...SYNC, ...options },
    {
      cluster: session.cluster,
      store: session.store,
      clock,
      log,
      build: (m) => Promise.resolve(desiredOf(m.name, objects[m.name] ?? []))
    }
  )
  return { report, log }
}

function live(ns: string, name: string) {
  return admin.cluster.get({ apiVersion: 'v1', kind: 'ConfigMap', namespace: ns, name })
}

describe('apply --sync', () => {
  it('syncs from empty State, then a second sync changes nothing and keeps lastSyncedAt', async () => {
    const m = uniqueName('first')
    const ns = uniqueName('ns')
    const objects = { [m]: [namespace(ns), configMap(ns, 'a', { v: '1' })] }
    const first = await run(admin, [[unit(m)]], objects)
    expect(first.report).toMatchObject({ ok: true })
    expect(first.report.layers[0]?.manifests[0]).toMatchObject({
      result: 'applied',
      counts: { added: 2, applied: 2 }
    })
    const stored = await admin.store.read(m)
    expect([...stored.state.entries.keys()]).toEqual([
      `${m}//v1/ConfigMap/${ns}/a`,
      `${m}//v1/Namespace/${ns}`
    ])
    expect(stored.state.metadata.gitCommitHash).toBe('c0ffee')
    expect(stored.state.metadata.lastSyncedAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/)

    const second = await run(admin, [[unit(m)]], objects, {}, shiftedClock(3_600_000))
    expect(second.report.layers[0]?.manifests[0]).toMatchObject({
      result: 'unchanged',
      counts: { applied: 0 }
    })
    const again = await admin.store.read(m)
    expect(again.resourceVersion).toBe(stored.resourceVersion)
    expect(again.state.metadata.lastSyncedAt).toBe(stored.state.metadata.lastSyncedAt)
  })

  it('applies modified and added objects and keeps removed ones without prune', async () => {
    const m = uniqueName('change')
    const ns = uniqueName('ns')
    await run(admin, [[unit(m)]], {
      [m]: [namespace(ns), configMap(ns, 'keep', { v: '1' }), configMap(ns, 'old', { v: '1' })]
    })
    const { report, log } = await run(admin, [[unit(m)]], {
      [m]: [namespace(ns), configMap(ns, 'keep', { v: '2' }), configMap(ns, 'new', { v: '1' })]
    })
    expect(report.layers[0]?.manifests[0]?.counts).toEqual({
      added: 1,
      modified: 1,
      alwaysSync: 0,
      pruned: 0,
      kept: 1,
      applied: 2
    })
    expect((await live(ns, 'keep'))?.data).toEqual({ v: '2' })
    expect(await live(ns, 'new')).toBeDefined()
    expect(await live(ns, 'old')).toBeDefined()
    expect([...(await admin.store.read(m)).state.entries.keys()]).toContain(
      `${m}//v1/ConfigMap/${ns}/old`
    )
    expect(log.lines).toContain(
      `warn skipped removed resource; pass --prune to delete manifest=${m} resource=/v1/ConfigMap/${ns}/old`
    )
  })

  it('deletes removed objects and drops their entries with prune', async () => {
    const m = uniqueName('prune')
    const ns = uniqueName('ns')
    await run(admin, [[unit(m)]], { [m]: [namespace(ns), configMap(ns, 'old', { v: '1' })] })
    const { report } = await run(admin, [[unit(m)]], { [m]: [namespace(ns)] }, { prune: true })
    expect(report.layers[0]?.manifests[0]?.counts).toMatchObject({ pruned: 1, applied: 0 })
    expect(await live(ns, 'old')).toBeUndefined()
    expect([...(await admin.store.read(m)).state.entries.keys()]).toEqual([
      `${m}//v1/Namespace/${ns}`
    ])
  })

  it('with atomic, writes no State at all when one manifest fails', async () => {
    const [good, bad] = [uniqueName('atomic-ok'), uniqueName('atomic-bad')]
    const ns = uniqueName('ns')
    const { report } = await run(
      admin,
      [[unit(good), unit(bad)]],
      {
        [good]: [namespace(ns), configMap(ns, 'ok', {})],
        [bad]: [configMap('missing-ns-atomic', 'x', {})]
      },
      { atomic: true }
    )
    expect(report.ok).toBe(false)
    expect(await live(ns, 'ok')).toBeDefined()
    expect((await admin.store.read(good)).resourceVersion).toBeUndefined()
    expect((await admin.store.read(bad)).resourceVersion).toBeUndefined()
  })

  it('with atomic, saves every State only after all layers succeeded', async () => {
    const [a, b] = [uniqueName('atomic-a'), uniqueName('atomic-b')]
    const ns = uniqueName('ns')
    const { report } = await run(
      admin,
      [[unit(a)], [unit(b)]],
      { [a]: [namespace(ns)], [b]: [configMap(ns, 'b', {})] },
      { atomic: true }
    )
    expect(report.ok).toBe(true)
    expect((await admin.store.read(a)).state.entries.size).toBe(1)
    expect((await admin.store.read(b)).state.entries.size).toBe(1)
  })

  it('lets the siblings of a failing manifest finish and save, and never starts the next layer', async () => {
    const [ok, bad, later] = [uniqueName('ok'), uniqueName('bad'), uniqueName('later')]
    const ns = uniqueName('ns')
    const { report } = await run(admin, [[unit(bad), unit(ok)], [unit(later)]], {
      [ok]: [namespace(ns), configMap(ns, 'sibling', {})],
      [bad]: [configMap('missing-ns-layer', 'x', {})],
      [later]: [configMap(ns, 'later', {})]
    })
    expect(report.error).toBe(
      `layer 0 apply failed: manifest "${bad}": failed to apply resource /v1/ConfigMap/missing-ns-layer/x: ` +
        'apply v1 ConfigMap missing-ns-layer/x: HTTP 404 NotFound: namespaces "missing-ns-layer" not found'
    )
    expect((await admin.store.read(ok)).state.entries.size).toBe(2)
    expect((await admin.store.read(bad)).resourceVersion).toBeUndefined()
    expect(await live(ns, 'later')).toBeUndefined()
    expect(report.layers.map((l) => l.result)).toEqual(['failed', 'not-run'])
    expect(report.layers[0]?.manifests.map((r) => r.result)).toEqual(['failed', 'applied'])
  })

  it('applies a CRD and its custom resource from one manifest', async () => {
    const m = uniqueName('crd')
    const ns = uniqueName('ns')
    const group = `${uniqueName('g')}.example.com`
    const crd: JsonObject = {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: `gadgets.${group}` },
      spec: {
        group,
        scope: 'Namespaced',
        names: { plural: 'gadgets', singular: 'gadget', kind: 'Gadget' },
        versions: [
          {
            name: 'v1',
            served: true,
            storage: true,
            schema: {
              openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true }
            }
          }
        ]
      }
    }
    const cr: JsonObject = {
      apiVersion: `${group}/v1`,
      kind: 'Gadget',
      metadata: { name: 'g1', namespace: ns },
      spec: { on: true }
    }
    const { report } = await run(admin, [[unit(m)]], { [m]: [crd, namespace(ns), cr] })
    expect(report).toMatchObject({ ok: true })
    expect(
      await admin.cluster.get({
        apiVersion: `${group}/v1`,
        kind: 'Gadget',
        namespace: ns,
        name: 'g1'
      })
    ).toBeDefined()
  })

  it('recreates a modified Job', async () => {
    const m = uniqueName('job')
    const ns = uniqueName('ns')
    const job = (tag: string): JsonObject => ({
      apiVersion: 'batch/v1',
      kind: 'Job',
      metadata: { name: 'migrate', namespace: ns },
      spec: {
        template: {
          spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: `busybox:${tag}` }] }
        }
      }
    })
    const ref = { apiVersion: 'batch/v1', kind: 'Job', namespace: ns, name: 'migrate' }
    await run(admin, [[unit(m)]], { [m]: [namespace(ns), job('1')] })
    const before = await admin.cluster.get(ref)
    await run(admin, [[unit(m)]], { [m]: [namespace(ns), job('2')] })
    const after = await admin.cluster.get(ref)
    expect((after?.metadata as JsonObject).uid).not.toBe((before?.metadata as JsonObject).uid)
  })
})

/** A namespaced custom resource definition `gadgets.<group>` (kind Gadget), for wave tests. */
function gadgetCrd(group: string): JsonObject {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `gadgets.${group}` },
    spec: {
      group,
      scope: 'Namespaced',
      names: { plural: 'gadgets', singular: 'gadget', kind: 'Gadget' },
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          schema: {
            openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true }
          }
        }
      ]
    }
  }
}

const range = (n: number, prefix: string): string[] =>
  Array.from({ length: n }, (_, i) => `${prefix}${i}`)

// Objects of one manifest go out concurrently in waves (src/apply/object-waves.ts). Each test
// lists the objects in the worst render order, so only the waves make it pass.
describe('waves within one manifest', () => {
  it('applies custom resources listed before their CRD and Namespace', async () => {
    const m = uniqueName('wave-crd')
    const ns = uniqueName('ns')
    const group = `${uniqueName('g')}.example.com`
    const gadgets = range(20, 'g').map((name): JsonObject => ({
      apiVersion: `${group}/v1`,
      kind: 'Gadget',
      metadata: { name, namespace: ns },
      spec: { on: true }
    }))
    const { report } = await run(admin, [[unit(m)]], {
      [m]: [...gadgets, namespace(ns), gadgetCrd(group)]
    })
    expect(report).toMatchObject({ ok: true })
    expect((await admin.store.read(m)).state.entries.size).toBe(22)
    const last = { apiVersion: `${group}/v1`, kind: 'Gadget', namespace: ns, name: 'g19' }
    expect(await admin.cluster.get(last)).toBeDefined()
  })

  it('applies namespaced objects listed before their Namespace', async () => {
    const m = uniqueName('wave-ns')
    const ns = uniqueName('ns')
    const maps = range(40, 'cm').map((name) => configMap(ns, name, { v: name }))
    const { report } = await run(admin, [[unit(m)]], { [m]: [...maps, namespace(ns)] })
    expect(report).toMatchObject({ ok: true })
    expect(await live(ns, 'cm39')).toBeDefined()
  })

  it('fails the manifest on a broken object mid-wave, saves no State, and a re-run converges', async () => {
    const m = uniqueName('wave-fail')
    const ns = uniqueName('ns')
    const maps = (broken: string) => [
      namespace(ns),
      ...range(20, 'a').map((name) => configMap(ns, name, { v: '1' })),
      configMap(ns, broken, { v: '1' }),
      ...range(20, 'b').map((name) => configMap(ns, name, { v: '1' }))
    ]
    const failed = await run(admin, [[unit(m)]], { [m]: maps('Not_A_Name') })
    expect(failed.report.ok).toBe(false)
    expect(failed.report.error).toContain(
      `manifest "${m}": failed to apply resource /v1/ConfigMap/${ns}/Not_A_Name: `
    )
    expect(failed.report.error).toContain('HTTP 422 Invalid')
    expect((await admin.store.read(m)).resourceVersion).toBeUndefined()

    const fixed = await run(admin, [[unit(m)]], { [m]: maps('fixed') })
    expect(fixed.report).toMatchObject({ ok: true })
    expect(fixed.report.layers[0]?.manifests[0]?.counts).toMatchObject({ added: 42 })
    expect((await admin.store.read(m)).state.entries.size).toBe(42)
    expect(await live(ns, 'b19')).toBeDefined()
  })

  it('applies 1,000 objects concurrently, then prunes 500 of them', async () => {
    const m = uniqueName('wave-1k')
    const ns = uniqueName('ns')
    const maps = range(1000, 'cm').map((name) => configMap(ns, name, { v: name }))
    const first = await run(admin, [[unit(m)]], { [m]: [namespace(ns), ...maps] })
    expect(first.report).toMatchObject({ ok: true })
    expect(first.report.layers[0]?.manifests[0]?.counts).toMatchObject({ applied: 1001 })
    expect((await admin.store.read(m)).state.entries.size).toBe(1001)
    expect(await live(ns, 'cm999')).toBeDefined()

    const pruned = await run(
      admin,
      [[unit(m)]],
      { [m]: [namespace(ns), ...maps.slice(0, 500)] },
      { prune: true }
    )
    expect(pruned.report.layers[0]?.manifests[0]?.counts).toMatchObject({ pruned: 500 })
    expect((await admin.store.read(m)).state.entries.size).toBe(501)
    expect(await live(ns, 'cm500')).toBeUndefined()
    expect(await live(ns, 'cm499')).toBeDefined()
  }, 240_000)
})

describe('test plugins on live objects', () => {
  it("runs a manifest's WaitUntil (CEL) and ExistNonExist tests after its sync", async () => {
    const m = uniqueName('tests')
    const ns = uniqueName('ns')
    const resource = { apiVersion: 'v1', kind: 'ConfigMap' }
    const tests = [
      {
        type: 'WaitUntil',
        waitUntil: {
          resource,
          namespace: ns,
          name: 'a',
          condition: 'object.data.v == "1" && size(object.data) == 1'
        }
      },
      {
        type: 'ExistNonExist',
        existNonExist: { resource, namespace: ns, name: 'absent', shouldExist: false }
      }
    ]
    const { report } = await run(admin, [[unit(m, { tests })]], {
      [m]: [namespace(ns), configMap(ns, 'a', { v: '1' })]
    })
    expect(report).toMatchObject({ ok: true })
  })

  it('fails the manifest when a test keeps failing, after its State was saved (sync mode)', async () => {
    const m = uniqueName('tests')
    const ns = uniqueName('ns')
    const tests = [
      {
        type: 'WaitUntil',
        minConsecutiveFailureCount: 2,
        intervalSeconds: 1,
        waitUntil: {
          resource: { apiVersion: 'v1', kind: 'ConfigMap' },
          namespace: ns,
          name: 'a',
          condition: 'object.data.v == "2"'
        }
      }
    ]
    const { report } = await run(admin, [[unit(m, { tests })]], {
      [m]: [namespace(ns), configMap(ns, 'a', { v: '1' })]
    })
    expect(report.error).toMatch(
      new RegExp(
        `^layer 0 apply failed: manifest "${m}": test 0 \\(WaitUntil\\) failed: aborting test after 2 consecutive failures \\(last error: .*is not satisfied \\(resource: ${ns}/a\\)"\\)$`
      )
    )
    expect((await admin.store.read(m)).state.entries.size).toBe(2)
  })
})

describe('State written by the Go CLI with legacy data keys', () => {
  it('is read as the same State, so an unchanged manifest syncs as unchanged', async () => {
    const m = uniqueName('legacy')
    const ns = uniqueName('ns')
    const objects = [namespace(ns), configMap(ns, 'a', { v: '1' })]
    const desired = desiredOf(m, objects)
    const data: Record<string, string> = {
      _metadata: '{"gitCommitHash":"","lastSyncedAt":"2026-01-01T00:00:00Z"}'
    }
    for (const [key, hash] of desired.entries)
      data[key.replaceAll('/', '__')] = `{"contentHash":"${hash}"}`
    const res = await admin.client.request(
      {
        method: 'POST',
        path: '/api/v1/namespaces/tazuna/configmaps',
        body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `tazuna-state-${m}` }, data }
      },
      'test setup'
    )
    expect(res.status).toBe(201)
    const { report } = await run(admin, [[unit(m)]], { [m]: objects })
    expect(report.layers[0]?.manifests[0]?.result).toBe('unchanged')
  })
})

describe('plain apply (full mode)', () => {
  it('applies everything and overwrites State with exactly the applied objects', async () => {
    const m = uniqueName('full')
    const ns = uniqueName('ns')
    await run(
      admin,
      [[unit(m)]],
      { [m]: [namespace(ns), configMap(ns, 'old', {})] },
      { sync: false }
    )
    const { report } = await run(admin, [[unit(m)]], { [m]: [namespace(ns)] }, { sync: false })
    expect(report.layers[0]?.manifests[0]?.counts.applied).toBe(1)
    expect([...(await admin.store.read(m)).state.entries.keys()]).toEqual([
      `${m}//v1/Namespace/${ns}`
    ])
    expect(await live(ns, 'old')).toBeDefined()
  })
})

describe('the read-only reader', () => {
  it('computes diffs but cannot apply, and writes no State', async () => {
    const m = uniqueName('reader')
    const ns = uniqueName('ns')
    await run(admin, [[unit(m)]], { [m]: [namespace(ns), configMap(ns, 'a', { v: '1' })] })
    const objects = { [m]: [namespace(ns), configMap(ns, 'a', { v: '2' })] }
    const reader = await readerSession()
    try {
      const diffs = await computeManifestDiffs([unit(m)], {
        store: reader.store,
        log: memoryLog(),
        build: (u) => Promise.resolve(desiredOf(u.name, objects[u.name] ?? []))
      })
      expect(diffs.map((d) => [d.manifest, d.entries.map((e) => `${e.type} ${e.key}`)])).toEqual([
        [m, [`modified ${m}//v1/ConfigMap/${ns}/a`]]
      ])
      const before = await admin.store.read(m)
      const { report } = await run(reader, [[unit(m)]], objects)
      expect(report.error).toMatch(/HTTP 403 Forbidden/)
      expect((await admin.store.read(m)).resourceVersion).toBe(before.resourceVersion)
    } finally {
      reader.close()
    }
  })
})
