// Namespaced objects left without a namespace (docs/compatibility.md#objects-without-a-namespace)
// against the real Tazuna CLI (TAZUNA_BIN) on the test cluster: a kustomize manifest without
// defaultNamespace and a helmfile release with a namespace whose chart does not template
// metadata.namespace. Tazuna's apply --sync fails on the object; ours fails
// naming manifest and object; neither puts anything in `default`; both record the same State
// (none for the failing manifests). With defaultNamespace set both apply, with byte-identical
// State entries. Skipped, with the reason, when TAZUNA_BIN is not set.
import { execFile } from 'node:child_process'
import { mkdtempSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'
import { afterAll, beforeAll, expect, it } from '@jest/globals'
import type { KubeSession } from '../../../src/adapters/kube/session.js'
import { runCliInProcess } from '../../support/cli.js'
import { adminKubeconfig, adminSession, uniqueName } from '../../support/cluster.js'
import {
  setDefaultNamespaces,
  writeCase,
  type MissingNamespaceNames
} from '../../support/missing-namespace-project.js'
import {
  deleteStateConfigMaps,
  describeWithTazuna,
  readStateConfigMaps,
  splitMetadata,
  tazunaBin,
  tazunaSkipReason
} from './tools.js'

if (tazunaSkipReason !== '') {
  process.stderr.write(`interop: missing-namespace comparisons${tazunaSkipReason}\n`)
}

let admin: KubeSession | undefined
beforeAll(async () => {
  if (tazunaSkipReason === '') admin = await adminSession()
})
afterAll(() => admin?.close())

interface Output {
  code: number
  stdout: string
  stderr: string
}

async function tazuna(file: string, args: readonly string[]): Promise<Output> {
  try {
    const { stdout, stderr } = await promisify(execFile)(
      tazunaBin ?? 'tazuna',
      [...args, '-f', file],
      {
        cwd: path.dirname(file),
        env: { ...process.env, KUBECONFIG: adminKubeconfig() }
      }
    )
    return { code: 0, stdout, stderr }
  } catch (error) {
    const e = error as { code?: number; stdout?: string; stderr?: string }
    return {
      code: typeof e.code === 'number' ? e.code : 1,
      stdout: e.stdout ?? '',
      stderr: e.stderr ?? ''
    }
  }
}

const ours = (file: string, args: readonly string[]) =>
  runCliInProcess([...args, '-f', file], {
    KUSTOMIZE_BIN: process.env.KUSTOMIZE_BIN,
    KUBECONFIG: adminKubeconfig()
  })

function project(): { file: string; names: MissingNamespaceNames } {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'tazuna-nsless-interop-'))
  const names = { base: uniqueName('nib'), kust: uniqueName('nik'), helm: uniqueName('nih') }
  return { file: writeCase(dir, names), names }
}

/** State entries (no `_metadata`) of each manifest, or undefined where there is no State. */
async function stateEntries(names: MissingNamespaceNames) {
  const stored = await readStateConfigMaps(admin as KubeSession, Object.values(names))
  return Object.fromEntries(
    [...stored].map(([m, cm]) => [m, cm === undefined ? undefined : splitMetadata(cm.data).entries])
  )
}

async function inDefault(names: MissingNamespaceNames): Promise<string[]> {
  const found: string[] = []
  for (const name of [`${names.kust}-nsless`, `${names.helm}-cm`]) {
    const ref = { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'default', name }
    if ((await (admin as KubeSession).cluster.get(ref)) !== undefined) found.push(name)
  }
  return found
}

describeWithTazuna(
  `namespaced objects without a namespace, against the Tazuna CLI${tazunaSkipReason}`,
  () => {
    it('both fail the manifests, create nothing in default and record the same State', async () => {
      const { file, names } = project()
      const theirs = await tazuna(file, ['apply', '--sync'])
      expect(theirs.code).not.toBe(0)
      // The client refuses before sending (older builds: the server's "could not find the
      // requested resource"); the object's key names it either way.
      expect(theirs.stderr).toContain(
        `failed to apply resource /v1/ConfigMap/${names.kust}-nsless: `
      )
      expect(theirs.stderr).toContain(`failed to apply resource /v1/ConfigMap/${names.helm}-cm: `)
      expect(await inDefault(names)).toEqual([])
      const tazunaState = await stateEntries(names)
      expect(tazunaState[names.kust]).toBeUndefined()
      expect(tazunaState[names.helm]).toBeUndefined()
      expect(Object.keys(tazunaState[names.base] ?? {})).toHaveLength(1)

      await deleteStateConfigMaps(admin as KubeSession, Object.values(names))
      const result = await ours(file, ['apply', '--sync'])
      expect(result.code).not.toBe(0)
      expect(result.stderr).toContain(
        `for manifest ${names.kust}): v1 ConfigMap ${names.kust}-nsless is namespaced but has no namespace`
      )
      expect(await inDefault(names)).toEqual([])
      expect(await stateEntries(names)).toEqual(tazunaState)
    })

    it('with defaultNamespace set, both apply with byte-identical State', async () => {
      const { file, names } = project()
      setDefaultNamespaces(file, names)
      const theirs = await tazuna(file, ['apply', '--sync'])
      expect({ code: theirs.code, stderr: theirs.stderr }).toEqual({
        code: 0,
        stderr: expect.any(String)
      })
      const tazunaState = await stateEntries(names)
      expect(Object.keys(tazunaState[names.kust] ?? {})).toHaveLength(2)
      expect(Object.keys(tazunaState[names.helm] ?? {})).toHaveLength(1)

      await deleteStateConfigMaps(admin as KubeSession, Object.values(names))
      const result = await ours(file, ['apply', '--sync'])
      expect({ code: result.code, stderr: result.stderr }).toEqual({
        code: 0,
        stderr: expect.any(String)
      })
      expect(await stateEntries(names)).toEqual(tazunaState)
    })
  }
)
