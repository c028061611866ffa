// The 3 MiB object limit end to end (docs/reliability.md#size-limits): `apply --sync` through
// the CLI with real kustomize on the test API server. An object over kube-apiserver's request
// body limit fails its manifest before any of its objects is sent: no object of that manifest
// and no State for it reach the server, the message names manifest, object and size.
import { mkdtempSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals'
import { runCliInProcess } from '../../support/cli.js'
import { writeProject } from '../../support/cli-project.js'
import { adminKubeconfig, adminSession, configMap, uniqueName } from '../../support/cluster.js'
import { MAX_OBJECT_BYTES } from '../../../src/objects/size-limits.js'

let admin: Awaited<ReturnType<typeof adminSession>>
beforeAll(async () => {
  admin = await adminSession()
})
afterAll(() => admin.close())

describe('an object over the API server request limit', () => {
  it('fails its manifest in apply before anything of it is sent or recorded, and in diff', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'tazuna-size-'))
    const [ok, big, ns] = [uniqueName('ok'), uniqueName('big'), 'default']
    const file = writeProject(dir, [
      { name: ok, objects: [configMap(ns, `${ok}-cm`, { v: '1' })] },
      {
        name: big,
        objects: [
          configMap(ns, `${big}-small`, { v: '1' }),
          configMap(ns, `${big}-huge`, { v: 'x'.repeat(MAX_OBJECT_BYTES) })
        ]
      }
    ])
    const result = await runCliInProcess(['apply', '--sync', '-f', file], {
      KUSTOMIZE_BIN: process.env.KUSTOMIZE_BIN,
      KUBECONFIG: adminKubeconfig()
    })
    expect(result.code).not.toBe(0)
    expect(result.stderr).toMatch(
      new RegExp(
        `^error: layer 1 apply failed: manifest "${big}": failed to build: object ConfigMap ` +
          `default/${big}-huge is 3\\.0 MiB \\(\\d+ bytes\\), over the 3 MiB the API server ` +
          'accepts in one request$',
        'm'
      )
    )
    expect(result.stderr).not.toMatch(/\n\s+at /) // no stack trace
    const get = (name: string) =>
      admin.cluster.get({ apiVersion: 'v1', kind: 'ConfigMap', namespace: ns, name })
    expect(await get(`${ok}-cm`)).toBeDefined()
    expect(await get(`${big}-small`)).toBeUndefined()
    expect(await get(`${big}-huge`)).toBeUndefined()
    const stored = await admin.store.readMany([ok, big])
    expect(stored.get(ok)?.state.entries.size).toBe(1)
    expect(stored.get(big)?.state.entries.size ?? 0).toBe(0)

    // The pull request's diff already refuses it, before the merge.
    const diff = await runCliInProcess(['state', 'diff', '-f', file], {
      KUSTOMIZE_BIN: process.env.KUSTOMIZE_BIN,
      KUBECONFIG: adminKubeconfig()
    })
    expect(diff.code).not.toBe(0)
    expect(diff.stderr).toContain(
      `manifest "${big}": failed to build: object ConfigMap default/${big}-huge is 3.0 MiB`
    )
  })
})
