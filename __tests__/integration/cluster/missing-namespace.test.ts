// Namespaced objects left without a namespace (docs/compatibility.md#objects-without-a-namespace),
// end to end through the CLI on the test API server: a kustomize manifest without
// defaultNamespace and a helmfile release with `namespace: apps` whose chart does not template
// metadata.namespace, both in layer 2. Layer 1 applies; layer 2 fails naming manifest, release
// and object; nothing lands in `default`, and no State is recorded for the failing manifests.
import { mkdtempSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals'
import { runCliInProcess } from '../../support/cli.js'
import { adminKubeconfig, adminSession, uniqueName } from '../../support/cluster.js'
import { setDefaultNamespaces, writeCase } from '../../support/missing-namespace-project.js'

let admin: Awaited<ReturnType<typeof adminSession>>
beforeAll(async () => {
  admin = await adminSession()
})
afterAll(() => admin.close())

const env = () => ({ KUSTOMIZE_BIN: process.env.KUSTOMIZE_BIN, KUBECONFIG: adminKubeconfig() })

describe('a namespaced object without a namespace', () => {
  it('fails its manifest in apply --sync, state diff and plan; nothing lands in default', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'tazuna-nsless-'))
    const names = { base: uniqueName('nsb'), kust: uniqueName('nsk'), helm: uniqueName('nsh') }
    const file = writeCase(dir, names)

    const result = await runCliInProcess(['apply', '--sync', '-f', file], env())
    expect(result.code).not.toBe(0)
    expect(result.stderr).toContain(
      `manifest "${names.kust}": failed to build: kust (rendered by kustomize for manifest ` +
        `${names.kust}): v1 ConfigMap ${names.kust}-nsless is namespaced but has no namespace`
    )
    expect(result.stderr).toContain(
      `v1 ConfigMap ${names.helm}-cm is namespaced but has no namespace (release ${names.helm})`
    )
    expect(result.stderr).toContain(`set \`helmfile.defaultNamespace: ${names.base}\``)
    expect(result.stderr).not.toMatch(/\n\s+at /)

    const get = (namespace: string, name: string) =>
      admin.cluster.get({ apiVersion: 'v1', kind: 'ConfigMap', namespace, name })
    const ns = { apiVersion: 'v1', kind: 'Namespace', name: names.base }
    expect(await admin.cluster.get(ns)).toBeDefined() // layer 1 applied
    expect(await get(names.base, `${names.kust}-ok`)).toBeUndefined() // nothing of the manifest
    expect(await get('default', `${names.kust}-nsless`)).toBeUndefined()
    expect(await get('default', `${names.helm}-cm`)).toBeUndefined()
    expect(await get(names.base, `${names.helm}-cm`)).toBeUndefined()
    const stored = await admin.store.readMany([names.base, names.kust, names.helm])
    expect(stored.get(names.base)?.state.entries.size).toBe(1)
    expect(stored.get(names.kust)?.state.entries.size ?? 0).toBe(0)
    expect(stored.get(names.helm)?.state.entries.size ?? 0).toBe(0)

    // build prints the render as Tazuna's does, and warns.
    const build = await runCliInProcess(['build', '-f', file], env())
    expect(build.code).toBe(0)
    expect(build.stdout).toContain(`name: ${names.kust}-nsless`)
    expect(build.stderr).toMatch(
      new RegExp(`level=WARN msg=".*v1 ConfigMap ${names.kust}-nsless is namespaced`)
    )

    for (const command of [['state', 'diff'], ['plan']]) {
      const out = await runCliInProcess([...command, '-f', file], env())
      expect({ command, code: out.code }).toEqual({ command, code: 1 })
      expect(out.stderr).toContain(`v1 ConfigMap ${names.kust}-nsless is namespaced`)
    }
  })

  it('applies with defaultNamespace set, into that namespace', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'tazuna-nsless-'))
    const names = { base: uniqueName('nsb'), kust: uniqueName('nsk'), helm: uniqueName('nsh') }
    const file = writeCase(dir, names)
    setDefaultNamespaces(file, names)
    const result = await runCliInProcess(['apply', '--sync', '-f', file], env())
    // Compared together, so that a failure shows what the command printed.
    expect({ code: result.code, stderr: result.stderr }).toEqual({
      code: 0,
      stderr: expect.any(String)
    })
    const get = (name: string) =>
      admin.cluster.get({ apiVersion: 'v1', kind: 'ConfigMap', namespace: names.base, name })
    expect(await get(`${names.kust}-nsless`)).toBeDefined()
    expect(await get(`${names.helm}-cm`)).toBeDefined()
  })
})

describe('the cluster port with a namespace-less reference of a namespaced kind', () => {
  const ref = { apiVersion: 'v1', kind: 'ConfigMap', name: 'no-such-namespace-less' }

  it('refuses to apply it and never fills in the kubeconfig namespace', async () => {
    await expect(
      admin.cluster.apply({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: ref.name } })
    ).rejects.toThrow(/ConfigMap is namespaced and the object has no namespace, so it is not sent/)
    expect(await admin.cluster.get({ ...ref, namespace: 'default' })).toBeUndefined()
  })

  it('finds nothing to get or delete, as Tazuna (its requests are NotFound)', async () => {
    const name = uniqueName('nsdef')
    await admin.cluster.apply({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name, namespace: 'default' }
    })
    expect(await admin.cluster.get({ ...ref, name })).toBeUndefined()
    await admin.cluster.delete({ ...ref, name })
    expect(await admin.cluster.get({ ...ref, name, namespace: 'default' })).toBeDefined()
    await admin.cluster.delete({ ...ref, name, namespace: 'default' })
  })
})
