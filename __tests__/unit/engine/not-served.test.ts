// An object of a kind the server does not serve (a removed API, a CRD not installed) exists
// nowhere: the live content diff and the plan take it as absent, where a GET could only fail,
// and leave the why to the review's API check (docs/risks.md#apis-the-cluster-does-not-serve).
import { describe, expect, it } from '@jest/globals'
import type { DesiredState } from '../../../src/apply/manifest-unit.js'
import type { ObjectRef } from '../../../src/apply/ports.js'
import type { Manifest } from '../../../src/config/schema.js'
import { liveObjectsOf } from '../../../src/engine/content.js'
import { planManifests } from '../../../src/engine/plan.js'
import { ClusterError, NotServedError } from '../../../src/errors.js'
import type { JsonObject } from '../../../src/go/yaml.js'
import { TEST_FINGERPRINT_KEY } from '../../support/secret-fingerprint.js'

const pdb: JsonObject = {
  apiVersion: 'policy/v1beta1',
  kind: 'PodDisruptionBudget',
  metadata: { name: 'web', namespace: 'shop' },
  spec: { minAvailable: 1 }
}
const key = 'policy/v1beta1/PodDisruptionBudget/shop/web'
const desired: DesiredState = {
  objects: [pdb],
  entries: new Map([[key, 'hash']]),
  alwaysSync: new Set()
}
const notServed = (ref: ObjectRef) =>
  Promise.reject(
    new NotServedError(`get ${ref.kind}: the API server does not serve kind ${ref.kind}`)
  )

describe('an object of a kind the server does not serve', () => {
  it('is absent in the live content diff, its dry run refused in the server’s words', async () => {
    const objects = await liveObjectsOf(
      [{ manifest: 'app', type: 'kustomize', entries: [{ type: 'added', key }] }],
      new Map([['app', new Map([[key, pdb]])]]),
      {
        get: notServed,
        dryRunApply: () => Promise.reject(new NotServedError('dry-run apply: not served'))
      }
    )
    expect(objects.live.get('app')?.get(key)).toBeUndefined()
    expect(objects.refusals.get('app')?.get(key)).toBe('dry-run apply: not served')
  })

  it('is one to create in the plan', async () => {
    const plans = await planManifests(
      [{ name: 'app', type: 'kustomize', path: './app' } as Manifest],
      {
        build: () => Promise.resolve(desired),
        cluster: { get: notServed },
        log: { info: () => undefined, warn: () => undefined },
        fingerprintKey: TEST_FINGERPRINT_KEY
      }
    )
    expect(plans.map((p) => p.changes)).toEqual([
      [{ kind: 'create', resource: 'PodDisruptionBudget/shop/web', lines: [] }]
    ])
  })

  it('still fails the plan when the GET fails otherwise', async () => {
    const plan = planManifests([{ name: 'app', type: 'kustomize', path: './app' } as Manifest], {
      build: () => Promise.resolve(desired),
      cluster: { get: () => Promise.reject(new ClusterError('get: HTTP 403 Forbidden', 403)) },
      log: { info: () => undefined, warn: () => undefined },
      fingerprintKey: TEST_FINGERPRINT_KEY
    })
    await expect(plan).rejects.toThrow('failed to compute plan changes for "app"')
  })
})
