// Readiness rules of helmfile `wait` (docs/compatibility.md#readiness), as a table, and the
// shared-timeout wait loop.
import { describe, expect, it } from '@jest/globals'
import { waitForReadiness } from '../../../src/apply/readiness.js'
import { isReady } from '../../../src/state/readiness.js'
import type { JsonObject } from '../../../src/go/yaml.js'
import { FakeCluster, fakeClock } from './fakes.js'

const ready = { type: 'Ready', status: 'True' }

describe('isReady', () => {
  it.each<[string, JsonObject, boolean]>([
    ['Deployment with explicit replicas 0', { kind: 'Deployment', spec: { replicas: 0 } }, true],
    [
      'Deployment fully available',
      {
        kind: 'Deployment',
        spec: {},
        status: { replicas: 2, readyReplicas: 2, availableReplicas: 2 }
      },
      true
    ],
    [
      'Deployment not yet available',
      { kind: 'Deployment', status: { replicas: 2, readyReplicas: 2, availableReplicas: 1 } },
      false
    ],
    ['Deployment without status', { kind: 'Deployment', spec: { replicas: 1 } }, false],
    ['StatefulSet ready', { kind: 'StatefulSet', status: { replicas: 3, readyReplicas: 3 } }, true],
    [
      'StatefulSet with no replicas',
      { kind: 'StatefulSet', status: { replicas: 0, readyReplicas: 0 } },
      false
    ],
    [
      'DaemonSet ready',
      { kind: 'DaemonSet', status: { desiredNumberScheduled: 2, numberReady: 2 } },
      true
    ],
    [
      'DaemonSet scheduled nowhere',
      { kind: 'DaemonSet', status: { desiredNumberScheduled: 0, numberReady: 0 } },
      false
    ],
    [
      'Pod running and Ready',
      { kind: 'Pod', status: { phase: 'Running', conditions: [ready] } },
      true
    ],
    [
      'Pod running, not Ready',
      {
        kind: 'Pod',
        status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'False' }] }
      },
      false
    ],
    ['Pod pending', { kind: 'Pod', status: { phase: 'Pending', conditions: [ready] } }, false],
    ['any other kind once it exists', { kind: 'ConfigMap' }, true]
  ])('%s → %s', (_name, live, expected) => {
    expect(isReady(live)).toBe(expected)
  })
})

describe('waitForReadiness', () => {
  const deploy = { apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'ns', name: 'web' }

  it('polls every 2 s, first after 2 s, until the object is ready', async () => {
    const cluster = new FakeCluster()
    const clock = fakeClock()
    let polls = 0
    cluster.get = (ref) => {
      polls++
      const status: JsonObject =
        polls < 3 ? {} : { replicas: 1, readyReplicas: 1, availableReplicas: 1 }
      return Promise.resolve<JsonObject>({ kind: ref.kind, status })
    }
    await waitForReadiness([deploy], 0, { cluster, clock })
    expect(clock.slept).toEqual([2000, 2000, 2000])
  })

  it("fails with Tazuna's message once the shared timeout has passed", async () => {
    const cluster = new FakeCluster()
    await expect(waitForReadiness([deploy], 5, { cluster, clock: fakeClock() })).rejects.toThrow(
      'timeout waiting for Deployment ns/web to be ready'
    )
  })
})
