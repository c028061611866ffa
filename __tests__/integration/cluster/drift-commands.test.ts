// `state drift` and `status` end to end: a kustomize project synced with `apply --sync`, then
// edits by another field manager, a deleted object and a Deployment that never becomes ready
// (its Pods wait in ImagePullBackOff on kwok's Nodes), read back through the real API server. Outputs are
// compared whole, so column widths, sorting and the core-group `/` prefix are all checked.
import { mkdtempSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals'
import { applyCommand } from '../../../src/cli/apply-command.js'
import { stateDriftCommand, statusCommand } from '../../../src/cli/drift-commands.js'
import { computeContentHash } from '../../../src/state/hash.js'
import type { JsonObject } from '../../../src/go/yaml.js'
import { adminSession, configMap, namespace, uniqueName } from '../../support/cluster.js'
import { deployment, patchAs, runCommand, writeProject } from '../../support/cli-project.js'

let admin: Awaited<ReturnType<typeof adminSession>>
beforeAll(async () => {
  admin = await adminSession()
})
afterAll(() => admin.close())

const pad = (s: string, n: number): string => s.padEnd(n)

/** Waits (60 s at most) until the Deployment controller reports `replicas` ready, available Pods. */
async function rolledOut(ns: string, name: string, replicas: number): Promise<void> {
  const ref = { apiVersion: 'apps/v1', kind: 'Deployment', namespace: ns, name }
  for (const deadline = Date.now() + 60_000; Date.now() < deadline;) {
    const status = (await admin.cluster.get(ref))?.status as JsonObject | undefined
    if (status?.readyReplicas === replicas && status.availableReplicas === replicas) return
    await sleep(250)
  }
  throw new Error(`Deployment ${ns}/${name}: not rolled out within 60 s`)
}
const driftRow = (status: string, resource: string, hash: string): string =>
  `  ${pad(status, 14)} ${pad(resource, 60)} ${hash}\n`
const statusRow = (status: string, kind: string, name: string): string =>
  `  ${pad(status, 9)} ${pad(kind, 20)} ${name}\n`

/** A synced project: namespace `ns` (created outside the manifests), manifest `m`. */
async function syncedProject(objects: (ns: string) => JsonObject[]) {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'cli-drift-'))
  const [m, ns] = [uniqueName('drift'), uniqueName('ns')]
  await admin.cluster.apply(namespace(ns))
  const file = writeProject(dir, [{ name: m, objects: objects(ns) }])
  expect((await runCommand(applyCommand, file, { options: { sync: true } })).code).toBe(0)
  const stored = (await admin.store.read(m)).state.entries
  const hashOf = (resource: string): string => stored.get(`${m}${resource}`) ?? '?'
  return { dir, m, ns, file, hashOf }
}

describe('state drift', () => {
  it('reports no drift right after a sync, with exit code 0 even with --exit-code', async () => {
    const p = await syncedProject((ns) => [
      configMap(ns, 'a', { v: '1' }),
      configMap(ns, 'b', { k: 'v' })
    ])
    expect(await runCommand(stateDriftCommand, p.file, { options: { 'exit-code': true } })).toEqual(
      {
        code: 0,
        stdout: 'No drift detected.\n',
        stderr: ''
      }
    )
  })

  it('reports an edited ConfigMap as live-drifted and a deleted one as live-missing, drifted first', async () => {
    const p = await syncedProject((ns) => [configMap(ns, 'a', { v: '1' }), configMap(ns, 'z', {})])
    await patchAs(admin, 'kubectl-edit', `/api/v1/namespaces/${p.ns}/configmaps/z`, {
      data: { v: 'edited' }
    })
    await admin.cluster.delete({ apiVersion: 'v1', kind: 'ConfigMap', namespace: p.ns, name: 'a' })
    const live = await admin.cluster.get({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      namespace: p.ns,
      name: 'z'
    })
    const [a, z] = [`/v1/ConfigMap/${p.ns}/a`, `/v1/ConfigMap/${p.ns}/z`]

    const out = await runCommand(stateDriftCommand, p.file)
    expect(out).toEqual({
      code: 0,
      stdout:
        `Manifest: ${p.m}\n` +
        driftRow('STATUS', 'RESOURCE', 'HASH') +
        driftRow('live-drifted', z, `${computeContentHash(live!)} (stored: ${p.hashOf(`/${z}`)})`) +
        driftRow('live-missing', a, `(stored: ${p.hashOf(`/${a}`)})`) +
        '\n',
      stderr: ''
    })
    expect(computeContentHash(live!)).not.toBe(p.hashOf(`/${z}`))
    expect(
      (await runCommand(stateDriftCommand, p.file, { options: { 'exit-code': true } })).code
    ).toBe(2)
  })

  it('marks a Deployment drifted at once: the server adds defaults to the live object', async () => {
    const p = await syncedProject((ns) => [deployment(ns, 'web', 1)])
    const out = await runCommand(stateDriftCommand, p.file)
    expect(out.stdout).toMatch(
      new RegExp(
        `^Manifest: ${p.m}\\n.*\\n  live-drifted +apps/v1/Deployment/${p.ns}/web +[0-9a-f]{64} \\(stored: [0-9a-f]{64}\\)\\n\\n$`
      )
    )
  })

  it('marks a ConfigMap with an empty data map drifted: the server drops the empty map', async () => {
    const p = await syncedProject((ns) => [configMap(ns, 'empty', {})])
    expect((await runCommand(stateDriftCommand, p.file)).stdout).toContain(
      `  live-drifted   /v1/ConfigMap/${p.ns}/empty `
    )
  })

  it('skips manifests without State', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'cli-drift-'))
    const file = writeProject(dir, [{ name: uniqueName('never'), objects: [] }])
    expect((await runCommand(stateDriftCommand, file)).stdout).toBe('No drift detected.\n')
  })
})

describe('status', () => {
  it('shows Ready, NotReady and Missing rows sorted by state key, and (no state)', async () => {
    const p = await syncedProject((ns) => [
      configMap(ns, 'settings', {}),
      configMap(ns, 'gone', {}),
      deployment(ns, 'web', 1),
      deployment(ns, 'idle', 0)
    ])
    await admin.cluster.delete({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      namespace: p.ns,
      name: 'gone'
    })
    const never = uniqueName('never')
    writeProject(p.dir, [
      { name: p.m, objects: [] },
      { name: never, objects: [] }
    ])

    const out = await runCommand(statusCommand, p.file)
    expect(out).toEqual({
      code: 0,
      stdout:
        `Manifest: ${p.m}\n` +
        statusRow('STATUS', 'KIND', 'NAMESPACE/NAME') +
        statusRow('Missing', 'ConfigMap', `${p.ns}/gone`) +
        statusRow('Ready', 'ConfigMap', `${p.ns}/settings`) +
        statusRow('Ready', 'Deployment', `${p.ns}/idle`) +
        statusRow('NotReady', 'Deployment', `${p.ns}/web`) +
        '\n' +
        `Manifest: ${never}\n  (no state)\n\n`,
      stderr: ''
    })
    expect((await runCommand(statusCommand, p.file, { options: { 'exit-code': true } })).code).toBe(
      2
    )
  })

  it('counts a Deployment Ready once its rollout is done, and then --exit-code gives 0', async () => {
    const p = await syncedProject((ns) => [deployment(ns, 'web', 2, 'run')])
    await rolledOut(p.ns, 'web', 2)
    const out = await runCommand(statusCommand, p.file, { options: { 'exit-code': true } })
    expect(out).toEqual({
      code: 0,
      stdout:
        `Manifest: ${p.m}\n` +
        statusRow('STATUS', 'KIND', 'NAMESPACE/NAME') +
        statusRow('Ready', 'Deployment', `${p.ns}/web`) +
        '\n',
      stderr: ''
    })
  })

  it('shows Error for an object the token may not read, and keeps going', async () => {
    const p = await syncedProject((ns) => [configMap(ns, 'settings', {})])
    const reader = { KUBECONFIG: process.env.TAZUNA_TEST_READER_KUBECONFIG }
    const out = await runCommand(statusCommand, p.file, { env: reader })
    expect(out.code).toBe(0)
    expect(out.stdout).toBe(
      `Manifest: ${p.m}\n` +
        statusRow('STATUS', 'KIND', 'NAMESPACE/NAME') +
        statusRow('Error', 'ConfigMap', `${p.ns}/settings`) +
        '\n'
    )
    const drift = await runCommand(stateDriftCommand, p.file, { env: reader })
    expect(drift.code).toBe(1)
    expect(drift.stderr).toContain(
      `error: failed to get live resource for ${p.m}//v1/ConfigMap/${p.ns}/settings: `
    )
    expect(drift.stderr).toContain('403')
  })
})
