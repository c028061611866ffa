// The mapping of the apply core's report to the action's report model.
import { expect, it } from '@jest/globals'
import { applyOutcomeOf } from '../../../src/apply/apply-outcome.js'
import { computeDiffPlan } from '../../../src/apply/manifest-diffs.js'
import { FakeStore, memoryLog } from './fakes.js'

const counts = { added: 1, modified: 2, alwaysSync: 0, pruned: 1, kept: 2, applied: 3 }

it('counts removed as pruned plus kept and names the failing layer', () => {
  expect(
    applyOutcomeOf({
      ok: false,
      durationMs: 9,
      error: 'layer 1 apply failed: manifest "b": boom',
      layers: [
        {
          index: 0,
          result: 'succeeded',
          durationMs: 3,
          manifests: [
            { manifest: 'a', type: 'kustomize', result: 'applied', counts, durationMs: 3 }
          ]
        },
        {
          index: 1,
          result: 'failed',
          durationMs: 4,
          manifests: [
            {
              manifest: 'b',
              type: 'kustomize',
              result: 'failed',
              counts,
              durationMs: 4,
              error: 'manifest "b": boom'
            }
          ]
        }
      ]
    })
  ).toEqual({
    layers: [
      [
        {
          manifest: 'a',
          result: 'applied',
          counts: { added: 1, modified: 2, removed: 3, alwaysSync: 0, pruned: 1 },
          durationMs: 3
        }
      ],
      [
        {
          manifest: 'b',
          result: 'failed',
          counts: { added: 1, modified: 2, removed: 3, alwaysSync: 0, pruned: 1 },
          durationMs: 4,
          error: 'manifest "b": boom'
        }
      ]
    ],
    failure: { layer: 1, message: 'layer 1 apply failed: manifest "b": boom' }
  })
})

it('plans the PR view: layers by name and a Diff per named manifest', async () => {
  const manifests = [
    { name: 'a', type: 'kustomize', dependsOn: [] },
    { name: 'b', type: 'kustomize', dependsOn: ['a'] },
    { name: 'c', type: 'kustomize', dependsOn: ['a'] }
  ]
  const plan = await computeDiffPlan(manifests, {
    store: new FakeStore(),
    log: memoryLog(),
    build: (m) =>
      Promise.resolve({
        objects: [],
        entries: new Map([[`${m.name}//v1/ConfigMap/n/x`, 'h']]),
        alwaysSync: new Set<string>()
      })
  })
  expect(plan.layers).toEqual([['a'], ['b', 'c']])
  expect(plan.diffs.map((d) => `${d.manifest} ${d.entries.map((e) => e.type).join()}`)).toEqual([
    'a added',
    'b added',
    'c added'
  ])
})
