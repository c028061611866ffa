// A command line run that outlives its test (a timeout, or a run not awaited) is cancelled and
// awaited before the next test starts (support/runs-in-flight.ts, support/end-runs-after-each.ts),
// and a cancelled run sends nothing more to the API server but the release of its run lock
// (src/engine/cancellation.ts). The run goes to the real test API server through a loopback
// proxy that holds its State read for a while, so that the test can end in the middle of it.
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals'
import type { KubeSession } from '../../../src/adapters/kube/session.js'
import { lockNameFor } from '../../../src/apply/lease-lock.js'
import { runCliInProcess, type CliResult } from '../../support/cli.js'
import { adminKubeconfig, adminSession, uniqueName } from '../../support/cluster.js'
import { startFaultProxy, type FaultProxy } from '../../support/fault-proxy.js'
import { renderModuleEnv } from '../../support/render-module.js'

const MANIFEST = uniqueName('cancel')
const NS = uniqueName('cancel-ns')
/** How long the proxy holds the State read: the test ends meanwhile. */
const HOLD_MS = 3000

let admin: KubeSession
let proxy: FaultProxy
let file: string
let env: Record<string, string | undefined>

const isStateRead = (r: { method: string; path: string }): boolean =>
  r.method === 'GET' && r.path.startsWith('/api/v1/namespaces/tazuna/configmaps/tazuna-state-')

beforeAll(async () => {
  admin = await adminSession()
  const clusterDir = process.env.TAZUNA_TEST_CLUSTER_DIR ?? ''
  proxy = await startFaultProxy({
    upstream: admin.client.server,
    certDir: path.join(clusterDir, 'certs'),
    rule: (req) => (isStateRead(req) ? { kind: 'delay', ms: HOLD_MS } : { kind: 'pass' })
  })
  const dir = mkdtempSync(path.join(os.tmpdir(), 'cli-cancel-'))
  mkdirSync(path.join(dir, 'base'))
  const objects = [
    { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } },
    { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'web', namespace: NS } }
  ]
  writeFileSync(
    path.join(dir, 'base', 'objects.yaml'),
    objects.map((o) => JSON.stringify(o)).join('\n---\n')
  )
  writeFileSync(path.join(dir, 'base', 'kustomization.yaml'), 'resources: [objects.yaml]\n')
  file = path.join(dir, 'tazuna.yaml')
  writeFileSync(
    file,
    JSON.stringify({ spec: { manifests: [{ name: MANIFEST, type: 'kustomize', path: './base' }] } })
  )
  env = {
    PATH: process.env.PATH,
    TMPDIR: process.env.TMPDIR,
    KUBECONFIG: proxy.kubeconfigVia(adminKubeconfig(), path.join(dir, 'kubeconfig')),
    ...renderModuleEnv()
  }
})

afterAll(async () => {
  await proxy?.close()
  await admin.cluster.delete({ apiVersion: 'v1', kind: 'Namespace', name: NS })
  await admin.cluster.delete({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    namespace: 'tazuna',
    name: `tazuna-state-${MANIFEST}`
  })
  admin.close()
})

/** The run the first test leaves in flight, and whether it had ended when the next began. */
let leftBehind: Promise<CliResult>
let ended = false

describe('a command line run its test leaves in flight', () => {
  it('is still running when its test ends (held in its State read)', async () => {
    leftBehind = runCliInProcess(['apply', '--sync', '-f', file], env)
    void leftBehind.then(() => {
      ended = true
    })
    while (!proxy.requests.some(isStateRead) && !ended) await sleep(50)
    expect(ended).toBe(false)
  })

  it('has been cancelled and has ended before the next test starts', async () => {
    expect(ended).toBe(true)
    const result = await leftBehind
    // A cancelled apply exits 130, as a command ended by Ctrl-C does (docs/reliability.md#cancellation).
    expect(result.code).toBe(130)
    expect(result.stderr).toContain(
      'error: the run was cancelled (its test ended) in layer 1 of 1; a re-run applies what is missing'
    )
    expect(result.stderr).toContain(`manifest "${MANIFEST}": not run\n`)
  })

  it('sent nothing after its State read but the release of its run lock', async () => {
    const after = proxy.requests.slice(proxy.requests.findIndex(isStateRead) + 1)
    const writes = after.filter((r) => r.method !== 'GET')
    expect(writes.map((r) => `${r.method} ${r.path.replace(/\?.*/, '')}`)).toEqual([
      `DELETE /apis/coordination.k8s.io/v1/namespaces/tazuna/leases/${lockName()}`
    ])
    const ns = await admin.cluster.get({ apiVersion: 'v1', kind: 'Namespace', name: NS })
    expect(ns).toBeUndefined()
    const state = await admin.cluster.get({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      namespace: 'tazuna',
      name: `tazuna-state-${MANIFEST}`
    })
    expect(state).toBeUndefined()
    expect(await admin.leases.read(lockName())).toBeUndefined()
  })

  it('leaves the configuration free: the next apply of it syncs', async () => {
    proxy.setRule(() => ({ kind: 'pass' }))
    const result = await runCliInProcess(['apply', '--sync', '-f', file], env)
    expect({ code: result.code, stdout: result.stdout }).toEqual({ code: 0, stdout: '' })
    expect(result.stderr).toContain(`synced resource manifest=${MANIFEST} diff=added`)
  })
})

function lockName(): string {
  return lockNameFor([MANIFEST], '')
}
