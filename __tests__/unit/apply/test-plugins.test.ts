// Test plugins (docs/compatibility.md#test-plugins): the retry loop's counting, timeout and
// defaults, WaitUntil's CEL evaluation over a live object, ExistNonExist, and definitions that can
// never pass.
import { describe, expect, it } from '@jest/globals'
import { runTestPlugin, toCelValue, type TestPluginSpec } from '../../../src/apply/test-plugins.js'
import type { JsonObject } from '../../../src/go/yaml.js'
import { FakeCluster, fakeClock } from './fakes.js'

const resource = { apiVersion: 'apps/v1', kind: 'Deployment' }
const deployment = (readyReplicas: number): JsonObject => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'web', namespace: 'ns' },
  spec: { replicas: 2 },
  status: { readyReplicas, conditions: [{ type: 'Available', status: 'True' }] }
})

/** A cluster whose `get` returns the given objects in turn (undefined = NotFound). */
function sequence(objects: (JsonObject | undefined)[]): FakeCluster & { gets: number } {
  const cluster = Object.assign(new FakeCluster(), { gets: 0 })
  cluster.get = () => Promise.resolve(objects[Math.min(cluster.gets++, objects.length - 1)])
  return cluster
}

function waitUntil(condition: string, extra: Partial<TestPluginSpec> = {}): TestPluginSpec {
  return {
    type: 'WaitUntil',
    waitUntil: { resource, namespace: 'ns', name: 'web', condition },
    ...extra
  }
}

describe('WaitUntil', () => {
  it.each([
    'object.status.readyReplicas == 2',
    'object.status.readyReplicas + 1 == 3',
    'object.status.readyReplicas == object.spec.replicas',
    'object.status.conditions.exists(c, c.type == "Available" && c.status == "True")',
    'has(object.status.readyReplicas) && !has(object.status.missing)',
    'object.metadata.name.startsWith("we")'
  ])('passes when %s holds', async (condition) => {
    await expect(
      runTestPlugin(waitUntil(condition), {
        cluster: sequence([deployment(2)]),
        clock: fakeClock()
      })
    ).resolves.toBeUndefined()
  })

  it('retries every 2 s by default until the condition holds', async () => {
    const clock = fakeClock()
    const cluster = sequence([undefined, deployment(1), deployment(2)])
    await runTestPlugin(waitUntil('object.status.readyReplicas == 2'), { cluster, clock })
    expect(cluster.gets).toBe(3)
    expect(clock.slept).toEqual([2000, 2000])
  })

  it('needs minConsecutiveSuccessCount successes in a row', async () => {
    const cluster = sequence([
      deployment(2),
      deployment(1),
      deployment(2),
      deployment(2),
      deployment(2)
    ])
    await runTestPlugin(
      waitUntil('object.status.readyReplicas == 2', {
        minConsecutiveSuccessCount: 3,
        intervalSeconds: 1
      }),
      {
        cluster,
        clock: fakeClock()
      }
    )
    expect(cluster.gets).toBe(5)
  })

  it('aborts after minConsecutiveFailureCount failures in a row with the last error', async () => {
    const cluster = sequence([deployment(1)])
    await expect(
      runTestPlugin(
        waitUntil('object.status.readyReplicas == 2', { minConsecutiveFailureCount: 3 }),
        { cluster, clock: fakeClock() }
      )
    ).rejects.toThrow(
      'aborting test after 3 consecutive failures (last error: "condition \\"object.status.readyReplicas == 2\\" is not satisfied (resource: ns/web)")'
    )
    expect(cluster.gets).toBe(3)
  })

  it('aborts when timeoutSeconds has passed', async () => {
    const clock = fakeClock()
    await expect(
      runTestPlugin(
        waitUntil('object.status.readyReplicas == 2', { timeoutSeconds: 5, intervalSeconds: 2 }),
        {
          cluster: sequence([deployment(1)]),
          clock
        }
      )
    ).rejects.toThrow('aborting test: context deadline exceeded')
    expect(clock.slept).toEqual([2000, 2000, 1000])
  })

  it.each([
    ['a non-bool expression', 'object.metadata.name', 'must be a bool expression, got dyn'],
    ['a syntax error', 'object.status.(', 'is not valid CEL']
  ])('fails at once for %s', async (_name, condition, message) => {
    const cluster = sequence([deployment(2)])
    await expect(
      runTestPlugin(waitUntil(condition), { cluster, clock: fakeClock() })
    ).rejects.toThrow(message)
    expect(cluster.gets).toBe(0)
  })
})

describe('ExistNonExist', () => {
  const spec = (shouldExist: boolean, extra: Partial<TestPluginSpec> = {}): TestPluginSpec => ({
    type: 'ExistNonExist',
    existNonExist: { resource, namespace: 'ns', name: 'web', shouldExist },
    minConsecutiveFailureCount: 1,
    ...extra
  })

  it.each<[boolean, JsonObject | undefined, string | undefined]>([
    [true, deployment(1), undefined],
    [true, undefined, 'resource not found (resource: Deployment ns/web)'],
    [false, undefined, undefined],
    [false, deployment(1), 'resource exists (resource: Deployment ns/web)']
  ])('shouldExist %s with object %p', async (shouldExist, live, error) => {
    const outcome = await runTestPlugin(spec(shouldExist), {
      cluster: sequence([live]),
      clock: fakeClock()
    }).then(
      () => undefined,
      (e: unknown) => (e as Error).message
    )
    expect(outcome).toBe(
      error === undefined
        ? undefined
        : `aborting test after 1 consecutive failures (last error: ${JSON.stringify(error)})`
    )
  })
})

it('rejects an unknown plugin type', async () => {
  await expect(
    runTestPlugin({ type: 'Sleep' }, { cluster: new FakeCluster(), clock: fakeClock() })
  ).rejects.toThrow('unsupported type: Sleep')
})

it('binds whole numbers as CEL ints and fractions as doubles', () => {
  expect(toCelValue({ a: 3, b: 0.5, c: [1, 'x', null] })).toEqual({
    a: 3n,
    b: 0.5,
    c: [1n, 'x', null]
  })
})
