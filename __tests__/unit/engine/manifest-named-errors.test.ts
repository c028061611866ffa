// Every command's render failure names the manifest first, in the words apply and state diff
// use: `manifest "<name>": failed to build: <cause>` (src/apply/sync-manifest.ts buildFailure).
import { describe, expect, it } from '@jest/globals'
import type { DesiredState } from '../../../src/apply/manifest-unit.js'
import type { Manifest } from '../../../src/config/schema.js'
import { renderObjectsOf } from '../../../src/engine/content.js'
import { planManifests } from '../../../src/engine/plan.js'
import { TEST_FINGERPRINT_KEY } from '../../support/secret-fingerprint.js'

const web = { name: 'web', type: 'kustomize', path: './manifests/web' } as Manifest
const failing = (): Promise<DesiredState> =>
  Promise.reject(new Error('kustomize build manifests/web: boom'))
const expected = 'manifest "web": failed to build: kustomize build manifests/web: boom'

describe('a render failure names the manifest first', () => {
  it('in plan', async () => {
    const plan = planManifests([web], {
      build: failing,
      cluster: { get: () => Promise.resolve(undefined) },
      log: { info: () => undefined, warn: () => undefined },
      fingerprintKey: TEST_FINGERPRINT_KEY
    })
    await expect(plan).rejects.toThrow(expected)
  })

  it('in a content diff', async () => {
    await expect(renderObjectsOf([web], failing)).rejects.toThrow(expected)
  })
})
