/**
 * `type: oras` through the bundle (docs/compatibility.md#oras): `node index.js` pulls an
 * artifact pushed by the real oras CLI to the test registry and renders it with its kustomize
 * delegate in the render workers, which may read the pulled directory and nothing else of the
 * cache. A pull request's Diff lists its objects; the merge applies them and records State;
 * a second merge finds nothing to do.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import {
  buildTestRegistry,
  startTestRegistry,
  type TestRegistry
} from '../support/chart-servers.js'
import { pushArtifact, tarGzOf } from '../support/oras-artifacts.js'
import { buildFreshDist, pullRequestPayload, pushPayload, runAction } from './harness.js'

let dist: string
let registry: TestRegistry
let work: string

beforeAll(async () => {
  dist = buildFreshDist()
  work = mkdtempSync(join(tmpdir(), 'tazuna-e2e-oras-'))
  registry = await startTestRegistry(buildTestRegistry(), { kind: 'none' })
  const bundle = join(work, 'bundle')
  mkdirSync(bundle)
  writeFileSync(join(bundle, 'kustomization.yaml'), 'resources: [cm.yaml]\n')
  writeFileSync(
    join(bundle, 'cm.yaml'),
    'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: from-oras\n  namespace: e2e-oras\n' +
      'data:\n  source: artifact\n'
  )
  pushArtifact(registry.address, 'e2e/bundle:v1', tarGzOf(bundle))
}, 300_000)

afterAll(async () => {
  await registry?.stop()
  rmSync(work, { recursive: true, force: true })
})

/** A workspace whose tazuna.yaml has a Namespace manifest and the oras manifest after it. */
function workspace(): string {
  const dir = mkdtempSync(join(work, 'ws-'))
  mkdirSync(join(dir, 'ns'))
  writeFileSync(join(dir, 'ns', 'kustomization.yaml'), 'resources: [ns.yaml]\n')
  writeFileSync(
    join(dir, 'ns', 'ns.yaml'),
    'apiVersion: v1\nkind: Namespace\nmetadata:\n  name: e2e-oras\n'
  )
  writeFileSync(
    join(dir, 'tazuna.yaml'),
    [
      'apiVersion: tazuna.pepabo.com/v1',
      'kind: Tazuna',
      'spec:',
      '  manifests:',
      '    - name: e2e-oras-ns',
      '      type: kustomize',
      '      path: ./ns',
      '    - name: e2e-oras-bundle',
      '      type: oras',
      '      path: .',
      '      dependsOn: [e2e-oras-ns]',
      '      oras:',
      `        reference: ${registry.address}/e2e/bundle:v1`,
      '        plainHTTP: true',
      '        delegate:',
      '          type: kustomize',
      ''
    ].join('\n')
  )
  return dir
}

const cache = (): Record<string, string> => ({ XDG_CACHE_HOME: join(work, 'xdg') })

describe('type oras from the bundle', () => {
  it('diffs on a pull request, applies on merge, and then has nothing to do', async () => {
    const dir = workspace()
    const sha = 'e'.repeat(40)
    const diff = await runAction({
      dist,
      workspace: dir,
      inputs: {
        config: 'tazuna.yaml',
        kubeconfig: process.env.TAZUNA_TEST_READER_KUBECONFIG!,
        'github-token': '',
        'content-diff': 'off'
      },
      eventName: 'pull_request',
      payload: pullRequestPayload({ number: 9, headSha: sha }),
      sha,
      apiUrl: 'http://127.0.0.1:9',
      extraEnv: cache()
    })
    expect(diff.stderr).toBe('')
    expect(diff.status).toBe(0)
    expect(diff.summary).toContain('/v1/ConfigMap/e2e-oras/from-oras')
    expect(diff.outputs.added).toBe('2')

    const apply = () =>
      runAction({
        dist,
        workspace: dir,
        inputs: {
          config: 'tazuna.yaml',
          kubeconfig: process.env.TAZUNA_TEST_ADMIN_KUBECONFIG!,
          'github-token': ''
        },
        eventName: 'push',
        payload: pushPayload(sha),
        sha,
        apiUrl: 'http://127.0.0.1:9',
        extraEnv: cache()
      })
    const first = await apply()
    expect(first.status).toBe(0)
    expect(first.outputs.added).toBe('2')
    const second = await apply()
    expect(second.status).toBe(0)
    expect(second.outputs['has-changes']).toBe('false')
  })
})
