/**
 * The health wait's logic (src/health/wait.ts) over an in-memory ObjectWatcher: when it ends
 * (all Current at once, a Failed object at once, the timeout), what it reports, and how it
 * treats objects that are absent or never listed. Statuses are kstatus's (./kstatus.test.ts);
 * the watches themselves run against the real API server in
 * __tests__/integration/health/wait.test.ts.
 */
import { describe, expect, it } from '@jest/globals'
import type { JsonObject } from '../../../src/go/json-value.js'
import type { ObjectWatcher, WatchEvent, WatchTarget } from '../../../src/health/ports.js'
import { waitForHealth, type HealthRef } from '../../../src/health/wait.js'

/** A clock whose sleeps end when `advance` passes them. */
function manualClock() {
  let now = 0
  const sleepers: { at: number; resolve: () => void }[] = []
  return {
    now: () => now,
    sleep: (ms: number, signal?: AbortSignal) =>
      new Promise<void>((resolve) => {
        sleepers.push({ at: now + ms, resolve })
        signal?.addEventListener('abort', () => resolve())
      }),
    advance(ms: number) {
      now += ms
      for (const s of sleepers.filter((x) => x.at <= now)) s.resolve()
    }
  }
}

/** Watches that the test feeds by hand. */
function feedWatcher() {
  const handlers = new Map<string, (e: WatchEvent) => void>()
  const targets: WatchTarget[] = []
  const watcher: ObjectWatcher = {
    watch(target, onEvent, signal) {
      targets.push(target)
      handlers.set(`${target.kind}/${target.namespace ?? ''}`, onEvent)
      return new Promise((resolve) => signal.addEventListener('abort', () => resolve()))
    },
    list: () => Promise.resolve([])
  }
  const send = (kind: string, ns: string, event: WatchEvent) => {
    const h = handlers.get(`${kind}/${ns}`)
    if (h === undefined) throw new Error(`no watch of ${kind} in ${ns}`)
    h(event)
  }
  return { watcher, targets, send }
}

const ref = (kind: string, name: string, apiVersion = 'apps/v1'): HealthRef => ({
  apiVersion,
  kind,
  namespace: 'web',
  name
})

function deployment(name: string, ready: number, extra: JsonObject = {}): JsonObject {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, namespace: 'web', generation: 1 },
    spec: { replicas: 2 },
    status: {
      observedGeneration: 1,
      replicas: 2,
      updatedReplicas: 2,
      readyReplicas: ready,
      availableReplicas: ready,
      conditions: [
        { type: 'Available', status: ready === 2 ? 'True' : 'False' },
        { type: 'Progressing', status: 'True', reason: 'NewReplicaSetAvailable' }
      ]
    },
    ...extra
  }
}

const tick = () => new Promise((r) => setImmediate(r))

describe('waitForHealth', () => {
  it('is healthy at once without objects', async () => {
    const { watcher } = feedWatcher()
    const clock = manualClock()
    const outcome = await waitForHealth(
      [],
      { timeoutMs: 1000, timeout: '1s', startedAt: 0 },
      { watcher, clock }
    )
    expect(outcome).toMatchObject({ healthy: true, ended: 'current', objects: [] })
  })

  it('ends on the event that makes the last object Current, with the time of each', async () => {
    const { watcher, targets, send } = feedWatcher()
    const clock = manualClock()
    const wait = waitForHealth(
      [ref('Deployment', 'a'), ref('Deployment', 'b'), ref('ConfigMap', 'c', 'v1')],
      { timeoutMs: 60_000, timeout: '1m', startedAt: -500 },
      { watcher, clock }
    )
    await tick()
    // One watch per kind and namespace; a kind with one object is watched by name.
    expect(targets).toEqual([
      { apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'web' },
      { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'web', name: 'c' }
    ])
    send('ConfigMap', 'web', {
      type: 'LISTED',
      objects: [{ metadata: { name: 'c', namespace: 'web' } }]
    })
    send('Deployment', 'web', { type: 'LISTED', objects: [deployment('a', 1), deployment('b', 2)] })
    clock.advance(1500)
    send('Deployment', 'web', { type: 'MODIFIED', object: deployment('a', 2) })
    const outcome = await wait
    expect(outcome).toMatchObject({ healthy: true, ended: 'current', durationMs: 2000 })
    expect(outcome.objects.map((o) => [o.ref.name, o.status, o.currentAfterMs])).toEqual([
      ['a', 'Current', 2000],
      ['b', 'Current', 500],
      ['c', 'Current', 500]
    ])
  })

  it('ends at once when an object is Failed, with kstatus reason and message', async () => {
    const { watcher, send } = feedWatcher()
    const clock = manualClock()
    const wait = waitForHealth(
      [ref('Deployment', 'a'), ref('Deployment', 'b')],
      { timeoutMs: 60_000, timeout: '1m', startedAt: 0 },
      { watcher, clock }
    )
    await tick()
    const failed = deployment('a', 0)
    ;(failed.status as JsonObject).conditions = [
      { type: 'Progressing', status: 'False', reason: 'ProgressDeadlineExceeded', message: 'x' }
    ]
    send('Deployment', 'web', { type: 'LISTED', objects: [failed, deployment('b', 1)] })
    const outcome = await wait
    expect(outcome).toMatchObject({ healthy: false, ended: 'failed' })
    expect(outcome.objects[0]).toMatchObject({
      status: 'Failed',
      reason: 'ProgressDeadlineExceeded',
      message: 'Progress deadline exceeded'
    })
    expect(outcome.objects[1]).toMatchObject({ status: 'InProgress', reason: 'LessAvailable' })
  })

  it('at the timeout reports every object as last seen: absent is NotFound, never listed Unknown', async () => {
    const { watcher, send } = feedWatcher()
    const clock = manualClock()
    const wait = waitForHealth(
      [ref('Deployment', 'gone'), ref('StatefulSet', 'db')],
      { timeoutMs: 5000, timeout: '5s', startedAt: 0 },
      { watcher, clock }
    )
    await tick()
    send('Deployment', 'web', { type: 'LISTED', objects: [deployment('gone', 2)] })
    send('Deployment', 'web', { type: 'DELETED', object: deployment('gone', 2) })
    clock.advance(5000)
    const outcome = await wait
    expect(outcome).toMatchObject({ healthy: false, ended: 'timeout', timeout: '5s' })
    expect(outcome.objects.map((o) => [o.ref.name, o.status, o.message])).toEqual([
      ['gone', 'NotFound', 'Resource not found'],
      ['db', 'Unknown', 'not read yet (the list of its kind had not arrived)']
    ])
  })

  it('fails when a list fails', async () => {
    const clock = manualClock()
    const watcher: ObjectWatcher = {
      watch: () => Promise.reject(new Error('list Deployment in web: 403 Forbidden')),
      list: () => Promise.resolve([])
    }
    await expect(
      waitForHealth(
        [ref('Deployment', 'a')],
        { timeoutMs: 5000, timeout: '5s', startedAt: 0 },
        { watcher, clock }
      )
    ).rejects.toThrow('list Deployment in web: 403 Forbidden')
  })

  // docs/reliability.md#cancellation: a signal during the wait ends it, and its watches.
  it('ends at once, without a verdict, when the run is cancelled, and closes its watches', async () => {
    const clock = manualClock()
    const closed: string[] = []
    const watcher: ObjectWatcher = {
      watch: (target, _onEvent, signal) =>
        new Promise((resolve) =>
          signal.addEventListener('abort', () => {
            closed.push(target.kind)
            resolve()
          })
        ),
      list: () => Promise.resolve([])
    }
    const controller = new AbortController()
    const wait = waitForHealth(
      [ref('Deployment', 'a')],
      { timeoutMs: 60_000, timeout: '1m', startedAt: 0, signal: controller.signal },
      { watcher, clock }
    )
    controller.abort('SIGINT')
    expect(await wait).toMatchObject({ healthy: false, ended: 'cancelled' })
    expect(closed).toEqual(['Deployment'])
  })
})
