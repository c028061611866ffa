// The requests each bench scenario sends, pinned: read from the test API server's audit log
// (the run authenticates as a ServiceAccount of its own, so other tests' requests are not
// counted), so a change that adds a request, or a round trip to a no-change sync, fails here.
// Not timed: counts and the order of dependent requests only. The expected counts are derived
// request by request below from docs/benchmarks.md#round-trips.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals'
import {
  auditLogEnd,
  criticalPath,
  describePath,
  readRequests,
  waitGapUs,
  type AuditedRequest
} from '../../bench/requests.js'
import { benchRepoFiles, writeBenchRepo, type BenchRepoOptions } from '../../bench/repo.js'
import { runCliInProcess } from '../../support/cli.js'
import { startTcpProxy, type TcpProxy } from '../../support/tcp-proxy.js'
import { adminKubeconfig, adminSession, configMap, uniqueName } from '../../support/cluster.js'
import type { KubeSession } from '../../../src/adapters/kube/session.js'

const auditLog = path.join(process.env.TAZUNA_TEST_CLUSTER_DIR ?? '', 'audit.log')
const id = uniqueName('rc')
const options: BenchRepoOptions = {
  id,
  shape: 'kustomize',
  manifests: 4,
  objectsPerManifest: 10,
  layers: 2
}
const dir = mkdtempSync(path.join(os.tmpdir(), 'request-counts-'))
const file = path.join(dir, 'tazuna.yaml')
const helmOptions: BenchRepoOptions = { ...options, id: `${id}h`, shape: 'helmfile' }
const helmDir = mkdtempSync(path.join(os.tmpdir(), 'request-counts-helm-'))
const helmFile = path.join(helmDir, 'tazuna.yaml')

let admin: KubeSession
let user: string
let kubeconfig: string

/** A ServiceAccount bound to cluster-admin, and a kubeconfig with a token of it. */
async function ownUser(session: KubeSession): Promise<{ user: string; kubeconfig: string }> {
  const send = async (method: 'POST', urlPath: string, body: unknown) => {
    const res = await session.client.request(
      { method, path: urlPath, body },
      `${method} ${urlPath}`
    )
    if (res.status >= 300) throw new Error(`${method} ${urlPath}: HTTP ${res.status} ${res.body}`)
    return JSON.parse(res.body) as { status?: { token?: string } }
  }
  const sa = `${id}-runner`
  await send('POST', '/api/v1/namespaces/default/serviceaccounts', {
    metadata: { name: sa }
  })
  await send('POST', '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings', {
    metadata: { name: sa },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'cluster-admin' },
    subjects: [{ kind: 'ServiceAccount', name: sa, namespace: 'default' }]
  })
  const token = await send('POST', `/api/v1/namespaces/default/serviceaccounts/${sa}/token`, {
    spec: { expirationSeconds: 3600 }
  })
  const config = JSON.parse(readFileSync(adminKubeconfig(), 'utf8')) as {
    users: { user: Record<string, unknown> }[]
  }
  for (const u of config.users) u.user = { token: token.status?.token }
  const out = path.join(dir, 'runner.kubeconfig')
  writeFileSync(out, JSON.stringify(config), { mode: 0o600 })
  return { user: `system:serviceaccount:default:${sa}`, kubeconfig: out }
}

/** Runs the CLI and returns the requests it sent, as the server received them. */
async function requestsOf(
  argv: string[],
  target: { config: string; kubeconfig: string } = { config: file, kubeconfig }
): Promise<AuditedRequest[]> {
  const from = auditLogEnd(auditLog)
  const fromMs = Date.now()
  const result = await runCliInProcess([...argv, '-f', target.config], {
    KUBECONFIG: target.kubeconfig,
    KUSTOMIZE_BIN: process.env.KUSTOMIZE_BIN
  })
  expect(result.stderr).not.toMatch(/error/i)
  expect(result.code).toBe(0)
  // The server writes an event once its response is complete.
  await new Promise((resolve) => setTimeout(resolve, 300))
  // The State list asks for 250 ConfigMaps a page (src/adapters/kube/state-store.ts). The rest of
  // the suite, running beside this file, leaves hundreds of State ConfigMaps in namespace
  // `tazuna`, so the list can take more pages here than on a team's cluster: the pages after the
  // first (they carry `continue`) are one list, and are left out of the counts.
  return readRequests(auditLog, { from, fromMs, toMs: Date.now(), user }).filter(
    (r) => !(r.verb === 'list' && /[?&]continue=/.test(r.uri))
  )
}

/** `verb resource` → count, e.g. `patch configmaps: 9`. */
function tally(requests: readonly AuditedRequest[]): Record<string, number> {
  const out: Record<string, number> = {}
  for (const r of requests) {
    const step = describePath([r])
    out[step] = (out[step] ?? 0) + 1
  }
  return out
}

// Enough ConfigMaps beside State that its list takes two pages whatever else the suite left in
// namespace `tazuna`, so that the counts hold either way (requestsOf).
const FILLERS = 260

beforeAll(async () => {
  admin = await adminSession()
  ;({ user, kubeconfig } = await ownUser(admin))
  for (let i = 0; i < FILLERS; i += 20) {
    await Promise.all(
      Array.from({ length: Math.min(20, FILLERS - i) }, (_, j) =>
        admin.cluster.apply(configMap('tazuna', `request-counts-filler-${i + j}`, { n: '1' }))
      )
    )
  }
  writeBenchRepo(dir, benchRepoFiles(options))
  writeBenchRepo(helmDir, benchRepoFiles(helmOptions))
})
afterAll(async () => {
  for (let i = 0; i < FILLERS; i += 20) {
    await Promise.all(
      Array.from({ length: Math.min(20, FILLERS - i) }, (_, j) =>
        admin.cluster.delete({
          apiVersion: 'v1',
          kind: 'ConfigMap',
          namespace: 'tazuna',
          name: `request-counts-filler-${i + j}`
        })
      )
    )
  }
  admin.close()
})

// 4 manifests × 10 objects in 2 layers after a Namespace manifest: of every 10 objects 8 are
// ConfigMaps, 1 a Secret, 1 a ServiceAccount (__tests__/bench/repo.ts), and each manifest's
// kustomization generates one more ConfigMap: 40 + 4 objects, plus the Namespace. Through a
// delay proxy of 150 ms each way, so that the critical paths count round trips the run waited
// for (waitGapUs: a request that reached the server within 225 ms of another's answer did not
// wait for it), not a render that finished later than another or a client slowed by a loaded
// machine (CI's test workers share two cores with the cluster: with 50 ms each way, a render
// finishing 110 ms after the Namespace's answer once counted as a round trip).
describe('requests of the bench scenarios (4 manifests × 10 objects, 2 layers)', () => {
  const ONE_WAY_MS = 150
  const GAP_US = waitGapUs(ONE_WAY_MS * 1000)
  let proxy: TcpProxy
  let target: { config: string; kubeconfig: string }
  beforeAll(async () => {
    proxy = await startTcpProxy(kubeconfig, { oneWayDelayMs: ONE_WAY_MS })
    target = { config: file, kubeconfig: proxy.kubeconfig }
  })
  afterAll(() => proxy.close())

  // Built-in kinds need no discovery (src/objects/well-known-resources.ts). Each manifest's
  // objects are one round of applies (its ServiceAccount goes with its ConfigMaps and Secret,
  // src/apply/object-waves.ts), and a layer's State creates go out with the next layer's
  // applies (docs/compatibility.md#layers): the lock, the State list, the Namespace, one round
  // per layer, the last layer's State, the release.
  it('sync-empty: lock, State, one apply per object, one State create per manifest, unlock', async () => {
    const requests = await requestsOf(['apply', '--sync'], target)
    // Seven round trips; which requests of a round the path names varies (a layer's State
    // creates go out with the next layer's applies and answer with them).
    const path = criticalPath(requests, GAP_US)
    expect(path).toHaveLength(7)
    expect(describePath(path)).toMatch(
      /^create leases → list configmaps → patch namespaces → .*create configmaps( ×\d)? → delete leases$/
    )
    expect(tally(requests)).toEqual({
      'create leases': 1,
      'list configmaps': 1,
      'patch namespaces': 1,
      'patch configmaps': 4 * (8 + 1),
      'patch serviceaccounts': 4,
      'patch secrets': 4,
      'create configmaps': 5,
      'delete leases': 1
    })
  })

  it('diff: the State list alone', async () => {
    const requests = await requestsOf(['state', 'diff'], target)
    expect(describePath(criticalPath(requests, GAP_US))).toBe('list configmaps')
    expect(requests).toHaveLength(1)
  })

  it('sync-noop: lock, State, unlock, one after the other', async () => {
    const requests = await requestsOf(['apply', '--sync'], target)
    expect(describePath(criticalPath(requests, GAP_US))).toBe(
      'create leases → list configmaps → delete leases'
    )
    expect(requests).toHaveLength(3)
  })

  // The lock, the State list, one round of applies per layer (the first layer's State updates
  // go out with the second's applies), the last layer's State updates, the release: 6 round
  // trips where a layer's applies and its State updates, one after the other, took 8.
  it('sync-10pct: only the changed objects and their manifests’ State', async () => {
    writeBenchRepo(dir, benchRepoFiles({ ...options, modifyEvery: 10 }))
    const requests = await requestsOf(['apply', '--sync'], target)
    // Which requests of a round the path names varies: the second layer's State updates
    // follow the first layer's (State is written in layer order), which answer with the second
    // layer's applies.
    const path = criticalPath(requests, GAP_US)
    expect(path).toHaveLength(6)
    expect(describePath(path)).toMatch(
      /^create leases → list configmaps → patch configmaps.* → update configmaps( ×\d)? → delete leases$/
    )
    // Object 0 of each manifest changes (a ConfigMap): 4 applies, 4 State updates.
    expect(tally(requests)).toEqual({
      'create leases': 1,
      'list configmaps': 1,
      'patch configmaps': 4,
      'update configmaps': 4,
      'delete leases': 1
    })
  })
})

// The bench's own repository (scripts/bench.ts at 1,000 objects: 20 manifests × 50 objects in 4
// layers after a Namespace manifest), where the renders, not the round trips, are what the
// first layer waits for: they start once the State read shows that no record holds, and 20
// renders of 50 objects take longer than a round trip on any machine. The first sync goes
// straight to the server (its path is not pinned here); the 10% sync (object 0, 10, 20, 30 and
// 40 of each manifest: 5 ConfigMaps) through 150 ms each way, as above.
describe('requests of the bench repository (20 manifests × 50 objects, 4 layers)', () => {
  const ONE_WAY_MS = 150
  const bench: BenchRepoOptions = {
    id: `${id}b`,
    shape: 'kustomize',
    manifests: 20,
    objectsPerManifest: 50,
    layers: 4
  }
  const benchDir = mkdtempSync(path.join(os.tmpdir(), 'request-counts-bench-'))
  const benchFile = path.join(benchDir, 'tazuna.yaml')
  let proxy: TcpProxy
  beforeAll(async () => {
    writeBenchRepo(benchDir, benchRepoFiles(bench))
    await requestsOf(['apply', '--sync'], { config: benchFile, kubeconfig })
    writeBenchRepo(benchDir, benchRepoFiles({ ...bench, modifyEvery: 10 }))
    proxy = await startTcpProxy(kubeconfig, { oneWayDelayMs: ONE_WAY_MS })
  })
  afterAll(() => proxy.close())

  // The lock, the State list, one round of applies per layer however far apart its renders
  // finish (docs/compatibility.md#one-round-of-applies-per-layer), each layer's State updates
  // beside the next layer's applies, the last layer's State updates, the release: 8 round
  // trips, where each render finishing apart from its layer's others added one (17 in the
  // bench of docs/benchmarks.md#round-trips).
  it('sync-10pct: one round of applies per layer, then the last State updates', async () => {
    const requests = await requestsOf(['apply', '--sync'], {
      config: benchFile,
      kubeconfig: proxy.kubeconfig
    })
    const path = criticalPath(requests, waitGapUs(ONE_WAY_MS * 1000))
    expect(describePath(path)).toMatch(
      /^create leases → list configmaps → patch configmaps.* → update configmaps( ×\d)? → delete leases$/
    )
    expect(path).toHaveLength(8)
    expect(tally(requests)).toEqual({
      'create leases': 1,
      'list configmaps': 1,
      'patch configmaps': 20 * 5,
      'update configmaps': 20,
      'delete leases': 1
    })
  })
})

// The same repository as helmfiles of two releases each (__tests__/bench/repo.ts): ConfigMaps
// only. Without `kubeVersion`, Helm renders with the server's capabilities, asked once per run
// (/version, /api and /apis at once); with render records, beside the lock and the State read
// (docs/renderers.md#helm-records). Through a delay proxy (10 ms each way), so that requests
// sent at once are seen at once: a request that reached the server within 15 ms of another's
// answer did not wait for it (waitGapUs).
describe('requests of the helmfile bench scenarios (4 manifests × 10 objects, 2 layers)', () => {
  let proxy: TcpProxy
  let target: { config: string; kubeconfig: string }
  beforeAll(async () => {
    proxy = await startTcpProxy(kubeconfig, { oneWayDelayMs: 10 })
    target = { config: helmFile, kubeconfig: proxy.kubeconfig }
  })
  afterAll(() => proxy.close())
  const discovery = { 'get /version': 1, 'get /api': 1, 'get /apis': 1 }

  it('sync-empty: as kustomize, plus the capabilities once', async () => {
    const requests = await requestsOf(['apply', '--sync'], target)
    expect(tally(requests)).toEqual({
      'create leases': 1,
      'list configmaps': 1,
      ...discovery,
      'patch namespaces': 1,
      'patch configmaps': 4 * 10,
      'create configmaps': 5,
      'delete leases': 1
    })
  })

  it('diff: the State list, and the capabilities beside it', async () => {
    const requests = await requestsOf(['state', 'diff'], target)
    expect(tally(requests)).toEqual({ 'list configmaps': 1, ...discovery })
    expect(criticalPath(requests, waitGapUs(10_000))).toHaveLength(1)
  })

  it('sync-noop: lock, State, unlock, the capabilities beside the lock and the State read', async () => {
    const requests = await requestsOf(['apply', '--sync'], target)
    expect(tally(requests)).toEqual({
      'create leases': 1,
      'list configmaps': 1,
      ...discovery,
      'delete leases': 1
    })
    // Three round trips, as without Helm: the lock (or the capabilities, asked at once), the
    // State read, the release of the lock.
    const path = criticalPath(requests, waitGapUs(10_000))
    expect(path).toHaveLength(3)
    expect(describePath(path)).toMatch(/ → list configmaps → delete leases$/)
  })
})
