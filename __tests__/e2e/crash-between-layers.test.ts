/**
 * A run that dies between a layer's State write and the next layer's applies, which overlap
 * (docs/compatibility.md#layers): the command line's `apply --sync` of three manifests in three
 * layers goes to the real test API server through a loopback proxy that refuses `first`'s State
 * write (the connection is reset before the server sees it, so the client tries again), and the
 * process is killed with SIGKILL once the server has applied `second`'s object of layer 2.
 *
 * Expected, from docs/compatibility.md#layers and the guarantees of docs/reliability.md: both
 * layers' objects are applied at the new version while `first`'s and `second`'s State are the
 * old ones, and layer 3 was not started (a layer waits for the State writes of the layer two
 * before it); every State entry still names an object that exists. The re-run applies what the
 * old State does not record and writes every State; the run after it changes nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals'
import { spawn } from 'node:child_process'
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import type { KubeSession } from '../../src/adapters/kube/session.js'
import { lockNameFor } from '../../src/apply/lease-lock.js'
import { adminSession, uniqueName } from '../support/cluster.js'
import { startFaultProxy, type FaultProxy } from '../support/fault-proxy.js'
import { pathWithoutRenderers } from '../support/runner-path.js'
import { buildFreshDist, kubeconfigs } from './harness.js'

const id = uniqueName('crash')
const names = { first: `${id}-first`, second: `${id}-second`, third: `${id}-third` }
const lock = lockNameFor(Object.values(names), '')

let dist: string
let proxy: FaultProxy
let admin: KubeSession
let repo: string
let adminVia: string

const isFirstStateWrite = (r: { method: string; path: string }): boolean =>
  r.method === 'PUT' &&
  r.path === `/api/v1/namespaces/tazuna/configmaps/tazuna-state-${names.first}`

beforeAll(async () => {
  dist = buildFreshDist()
  admin = await adminSession()
  proxy = await startFaultProxy({
    upstream: admin.client.server,
    certDir: join(process.env.TAZUNA_TEST_CLUSTER_DIR ?? '', 'certs')
  })
  const dir = mkdtempSync(join(tmpdir(), `tazuna-${id}-`))
  adminVia = proxy.kubeconfigVia(kubeconfigs.admin(), join(dir, 'admin.kubeconfig'))
  repo = join(dir, 'repo')
  mkdirSync(repo)
}, 300_000)

afterAll(async () => {
  await proxy?.close()
  await admin?.cluster.delete({ apiVersion: 'v1', kind: 'Namespace', name: id })
  admin?.close()
})

/** tazuna.yaml and its three manifests, one ConfigMap each, at `version`. */
function writeRepository(version: number): void {
  const file = (path: string, text: string) => {
    mkdirSync(dirname(join(repo, path)), { recursive: true })
    writeFileSync(join(repo, path), text)
  }
  const configMap = (name: string) =>
    `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: ${name}}\ndata: {version: "${version}"}`
  file(
    'tazuna.yaml',
    [
      'apiVersion: tazuna.pepabo.com/v1',
      'kind: Tazuna',
      'spec:',
      '  manifests:',
      `    - {name: ${names.first}, type: kustomize, path: manifests/first}`,
      `    - {name: ${names.second}, type: kustomize, path: manifests/second, dependsOn: [${names.first}]}`,
      `    - {name: ${names.third}, type: kustomize, path: manifests/third, dependsOn: [${names.second}]}`,
      ''
    ].join('\n')
  )
  for (const name of ['first', 'second', 'third'] as const) {
    const docs =
      name === 'first' ? [`apiVersion: v1\nkind: Namespace\nmetadata: {name: ${id}}`] : []
    file(`manifests/${name}/objects.yaml`, `${[...docs, configMap(name)].join('\n---\n')}\n`)
    file(`manifests/${name}/kustomization.yaml`, `resources: [objects.yaml]\nnamespace: ${id}\n`)
  }
}

/** `tazuna-action apply --sync`, through the proxy; resolves with the process once it is running. */
function apply() {
  const child = spawn(process.execPath, [join(dist, 'cli.js'), 'apply', '--sync'], {
    cwd: repo,
    env: {
      PATH: pathWithoutRenderers(),
      HOME: dirname(repo),
      KUBECONFIG: adminVia,
      ...Object.fromEntries(
        ['HELM_BIN', 'KUSTOMIZE_BIN', 'TAZUNA_ACTION_CACHE', 'TMPDIR'].flatMap((k) =>
          process.env[k] === undefined ? [] : [[k, process.env[k]]]
        )
      )
    }
  })
  let stderr = ''
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')))
  const exited = new Promise<number | null>((resolve) => child.on('close', resolve))
  return { child, exited, stderr: () => stderr }
}

async function stateOf(manifest: string): Promise<Record<string, string> | undefined> {
  const cm = await admin.cluster.get({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    namespace: 'tazuna',
    name: `tazuna-state-${manifest}`
  })
  const data = cm?.data as Record<string, string> | undefined
  // `_metadata` holds the sync time, which differs per run.
  return data && Object.fromEntries(Object.entries(data).filter(([k]) => k !== '_metadata'))
}

async function versionOf(name: string): Promise<string | undefined> {
  const cm = await admin.cluster.get({ apiVersion: 'v1', kind: 'ConfigMap', namespace: id, name })
  return (cm?.data as Record<string, string> | undefined)?.version
}

describe('a run killed while a layer’s State write is refused and the next layer applies', () => {
  const before: Record<string, Record<string, string> | undefined> = {}

  it('leaves both layers’ objects applied, their old State, and layer 3 not started', async () => {
    writeRepository(1)
    const first = apply()
    expect(await first.exited).toBe(0)
    for (const m of Object.values(names)) before[m] = await stateOf(m)

    writeRepository(2)
    proxy.setRule((r) => (isFirstStateWrite(r) ? { kind: 'reset' } : { kind: 'pass' }))
    const from = proxy.requests.length
    const run = apply()
    // The server applied layer 2's object while `first`'s State write was refused.
    for (let i = 0; i < 600; i++) {
      const seen = proxy.requests.slice(from)
      const refused = seen.some((r) => isFirstStateWrite(r) && r.fault === 'reset')
      const second = seen.some(
        (r) =>
          r.method === 'PATCH' &&
          r.path.startsWith(`/api/v1/namespaces/${id}/configmaps/second`) &&
          r.upstreamStatus === 200
      )
      if (refused && second) break
      await sleep(25)
    }
    run.child.kill('SIGKILL')
    await run.exited
    proxy.setRule(() => ({ kind: 'pass' }))

    expect(await versionOf('first')).toBe('2')
    expect(await versionOf('second')).toBe('2')
    expect(await versionOf('third')).toBe('1')
    const sent = proxy.requests.slice(from).map((r) => `${r.method} ${r.path}`)
    expect(sent.filter((r) => r.includes('/configmaps/third'))).toEqual([])
    expect(sent.filter((r) => r.includes(`tazuna-state-${names.second}`))).toEqual([])
    // The old State of each: it names objects that exist (at another version, so a re-run
    // applies them again).
    for (const m of Object.values(names)) expect(await stateOf(m)).toEqual(before[m])
  })

  it('converges on a re-run, and the run after it changes nothing', async () => {
    // The killed run could not release its lock, which would expire after its TTL; an operator
    // who knows the run is gone deletes it.
    const lease = await admin.leases.read(lock)
    if (lease) await admin.leases.remove(lock, lease.resourceVersion)
    const rerun = apply()
    expect(await rerun.exited).toBe(0)
    expect(await versionOf('third')).toBe('2')
    const after = Object.fromEntries(
      await Promise.all(Object.values(names).map(async (m) => [m, await stateOf(m)] as const))
    )
    for (const m of Object.values(names)) expect(after[m]).not.toEqual(before[m])

    const again = apply()
    expect(await again.exited).toBe(0)
    expect(again.stderr()).not.toContain('synced resource')
    for (const m of Object.values(names)) expect(await stateOf(m)).toEqual(after[m])
    expect(await admin.leases.read(lock)).toBeUndefined()
  })
})
