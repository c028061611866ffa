// The API checks of src/risk/apis.ts over hand-made discovery: releases and replacements are
// those of src/risk/api-lifecycle.json (k8s.io/api's generated prerelease lifecycle), named here
// as that table has them; __tests__/integration/cluster/api-review.test.ts runs them against
// the real API server.
import { describe, expect, it } from '@jest/globals'
import {
  apiFindings,
  definitionsIn,
  lifecycleOf,
  lifecycleSource,
  type ApiContext
} from '../../../src/risk/apis.js'
import { parseStateKey } from '../../../src/state/key.js'

const served = (kubeVersion: string, apiVersions: string[]): ApiContext => ({
  served: { kubeVersion, apiVersions: new Set(apiVersions) },
  diff: definitionsIn([]),
  cluster: new Map()
})
const key = (gvk: string) => parseStateKey(`m/${gvk}/ns/name`)

describe('the API lifecycle table', () => {
  it('is k8s.io/api at the render module pin, with the long-removed kinds of v0.35', () => {
    expect(lifecycleSource).toBe(
      'k8s.io/api v0.36.2; kinds it no longer holds from k8s.io/api v0.35.4'
    )
    expect(
      lifecycleOf({ group: 'policy', version: 'v1beta1', kind: 'PodDisruptionBudget' })
    ).toEqual({
      introduced: '1.5',
      deprecated: '1.21',
      removed: '1.25',
      replacement: 'policy/v1/PodDisruptionBudget'
    })
    expect(lifecycleOf({ group: 'apps', version: 'v1', kind: 'Deployment' })).toBeUndefined()
  })
})

describe('apiFindings', () => {
  it('names the version to move to for one the cluster no longer serves', () => {
    expect(
      apiFindings(
        key('policy/v1beta1/PodDisruptionBudget'),
        served('v1.37.2', ['policy/v1', 'policy/v1/PodDisruptionBudget'])
      )
    ).toEqual([
      {
        kind: 'will-fail',
        path: 'apiVersion',
        message:
          'policy/v1beta1 is not served by this cluster (Kubernetes v1.37; removed in 1.25); use policy/v1'
      }
    ])
  })

  it('says when a served built-in version that Kubernetes deprecates goes away', () => {
    const apis = served('v1.24.0', ['policy/v1beta1', 'policy/v1beta1/PodDisruptionBudget'])
    expect(apiFindings(key('policy/v1beta1/PodDisruptionBudget'), apis)).toEqual([
      {
        kind: 'deprecated-api',
        path: 'apiVersion',
        message:
          'policy/v1beta1 PodDisruptionBudget is deprecated since Kubernetes 1.21; it is removed in Kubernetes 1.25: use policy/v1',
        serverWarning: 'policy/v1beta1 PodDisruptionBudget is deprecated'
      }
    ])
    // Before the release that deprecates it, as the API server, nothing.
    expect(
      apiFindings(
        key('policy/v1beta1/PodDisruptionBudget'),
        served('v1.20.0', ['policy/v1beta1', 'policy/v1beta1/PodDisruptionBudget'])
      )
    ).toEqual([])
  })

  it('flags a kind a served group/version does not serve, and nothing for a served GA kind', () => {
    const apis = served('v1.37.2', ['apps/v1', 'apps/v1/Deployment'])
    expect(apiFindings(key('apps/v1/Deploymnet'), apis)).toEqual([
      {
        kind: 'will-fail',
        path: 'apiVersion',
        message: 'apps/v1 serves no kind Deploymnet on this cluster (Kubernetes v1.37)'
      }
    ])
    expect(apiFindings(key('apps/v1/Deployment'), apis)).toEqual([])
  })

  it('takes a kind an APIService of the Diff registers as served', () => {
    const apis: ApiContext = {
      ...served('v1.37.2', []),
      diff: definitionsIn([
        {
          apiVersion: 'apiregistration.k8s.io/v1',
          kind: 'APIService',
          spec: { group: 'metrics.example.com', version: 'v1' }
        }
      ])
    }
    expect(apiFindings(key('metrics.example.com/v1/Usage'), apis)).toEqual([])
  })
})
