// The waves one manifest's objects are applied (and pruned) in, and the bounded runner under
// them. The same waves against the real API server: __tests__/integration/cluster/layered-apply.test.ts.
import { describe, expect, it } from '@jest/globals'
import { applyWaveOf, runInWaves, wavesOf } from '../../../src/apply/object-waves.js'
import type { JsonObject } from '../../../src/go/yaml.js'

const key = (groupVersion: string, kind: string, namespace: string, name: string): string =>
  `m/${groupVersion.includes('/') ? groupVersion : `/${groupVersion}`}/${kind}/${namespace}/${name}`

describe('applyWaveOf', () => {
  it.each([
    [key('apiextensions.k8s.io/v1', 'CustomResourceDefinition', '', 'a.example.com'), 0],
    [key('v1', 'Namespace', '', 'app'), 1],
    [key('v1', 'ServiceAccount', 'app', 'sa'), 2],
    [key('v1', 'LimitRange', 'app', 'lr'), 2],
    [key('scheduling.k8s.io/v1', 'PriorityClass', '', 'high'), 2],
    [key('v1', 'ConfigMap', 'app', 'cfg'), 3],
    [key('example.com/v1', 'Widget', 'app', 'w'), 3],
    [key('batch/v1', 'Job', 'app', 'j'), 3],
    [key('example.com/v1', 'Namespace', '', 'not-core'), 3],
    [key('admissionregistration.k8s.io/v1', 'ValidatingWebhookConfiguration', '', 'v'), 4],
    [key('apiregistration.k8s.io/v1', 'APIService', '', 'v1.example.com'), 4]
  ])('puts %s in wave %i', (k, wave) => {
    expect(applyWaveOf(k)).toBe(wave)
  })
})

describe('wavesOf', () => {
  const crd = key('apiextensions.k8s.io/v1', 'CustomResourceDefinition', '', 'w.example.com')
  const namespace = key('v1', 'Namespace', '', 'app')
  const cr = key('example.com/v1', 'Widget', 'app', 'w')
  const cm = key('v1', 'ConfigMap', 'app', 'cfg')

  it('orders waves and keeps render order within one', () => {
    expect(wavesOf([cr, cm, namespace, crd])).toEqual([[crd], [namespace], [cr, cm]])
  })

  describe('ServiceAccounts with what cannot need them', () => {
    const sa = key('v1', 'ServiceAccount', 'app', 'sa')
    const secret = key('v1', 'Secret', 'app', 's')
    const deployment = key('apps/v1', 'Deployment', 'app', 'd')
    const objects = new Map<string, JsonObject>([[secret, { type: 'Opaque' }]])
    const objectOf = (k: string): JsonObject => objects.get(k) ?? {}

    it('are one wave with ConfigMaps and Secrets', () => {
      expect(wavesOf([cm, sa, secret, namespace], { objectOf })).toEqual([
        [namespace],
        [sa, cm, secret]
      ])
    })

    it('go first when a Pod maker, a custom resource or a token Secret may need them', () => {
      expect(wavesOf([cm, sa, deployment], { objectOf })).toEqual([[sa], [cm, deployment]])
      expect(wavesOf([cm, sa, cr], { objectOf })).toEqual([[sa], [cm, cr]])
      const token = (k: string): JsonObject =>
        k === secret ? { type: 'kubernetes.io/service-account-token' } : {}
      expect(wavesOf([sa, secret], { objectOf: token })).toEqual([[sa], [secret]])
    })

    it('go first when their wave holds more than ServiceAccounts, and for deletes', () => {
      const quota = key('v1', 'ResourceQuota', 'app', 'q')
      expect(wavesOf([cm, sa, quota], { objectOf })).toEqual([[sa, quota], [cm]])
      expect(wavesOf([cm, sa], { reverse: true })).toEqual([[cm], [sa]])
    })
  })

  it('reverses the waves for deletes', () => {
    expect(wavesOf([crd, namespace, cm, cr], { reverse: true })).toEqual([
      [cm, cr],
      [namespace],
      [crd]
    ])
  })
})

describe('runInWaves', () => {
  const tick = (): Promise<void> => new Promise((r) => setTimeout(r, 2))

  it('runs at most `limit` items at once and finishes a wave before the next starts', async () => {
    let inFlight = 0
    let peak = 0
    const events: string[] = []
    await runInWaves([Array.from({ length: 40 }, (_, i) => `a${i}`), ['b']], 16, async (item) => {
      peak = Math.max(peak, ++inFlight)
      events.push(`start ${item}`)
      await tick()
      events.push(`end ${item}`)
      inFlight--
    })
    expect(peak).toBe(16)
    expect(events.indexOf('start b')).toBeGreaterThan(events.lastIndexOf('end a39'))
  })

  it('starts nothing new after a failure, lets the calls in flight end, throws the earliest failure', async () => {
    const started: number[] = []
    let ended = 0
    const run = runInWaves([[0, 1, 2, 3, 4, 5, 6, 7], [8]], 3, async (i) => {
      started.push(i)
      await new Promise((r) => setTimeout(r, i === 2 ? 1 : 10))
      ended++
      if (i === 1 || i === 2) throw new Error(`item ${i} failed`)
    })
    // Item 2 fails first in time; item 1 (still in flight then) is the earlier in order.
    await expect(run).rejects.toThrow('item 1 failed')
    expect(started).toEqual([0, 1, 2])
    expect(ended).toBe(3)
  })
})
