// Faults on a real API server (docs/reliability.md#faults): kube-apiserver killed in the middle
// of a layer (with and without a restart inside the retry budget), a loopback proxy that resets
// connections and answers 429/503 with Retry-After, and a SIGSTOP'd (hung) server. These tests
// start their own etcd + kube-apiserver (the bare control plane: ConfigMaps need no controller),
// so killing it leaves the run's shared cluster alone.
// Invariants checked after every fault: the run fails with a message naming the manifest, the
// object and the cause (or succeeds when the fault was retried), State records only objects
// that are on the server with the recorded content, and a re-run converges to the State and
// objects a clean run gives.
import { mkdtempSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals'
import { openKubeSession, type KubeSession } from '../../../src/adapters/kube/session.js'
import type { RetryPolicy } from '../../../src/adapters/kube/retry-policy.js'
import { runLayeredApply, type ApplyReport } from '../../../src/apply/layered-apply.js'
import type { ManifestUnit } from '../../../src/apply/manifest-unit.js'
import type { Cluster as ClusterPort, StateStore } from '../../../src/apply/ports.js'
import type { JsonObject } from '../../../src/go/yaml.js'
import { computeContentHash } from '../../../src/state/hash.js'
import {
  restartApiserver,
  startCluster,
  stopCluster,
  type Cluster
} from '../../cluster/launcher.js'
import { resolveToolPaths } from '../../cluster/tool-paths.js'
import {
  configMap,
  desiredOf,
  memoryLog,
  namespace,
  uniqueName,
  unit
} from '../../support/cluster.js'
import { startFaultProxy, type FaultProxy, type FaultRule } from '../../support/fault-proxy.js'

let cluster: Cluster
let proxy: FaultProxy
let direct: KubeSession

beforeAll(async () => {
  const tools = resolveToolPaths()
  cluster = await startCluster({
    kubeApiserverBin: tools.kubeApiserver,
    etcdBin: tools.etcd,
    // PodTemplates without the watch cache: their watches read etcd, whose compaction expires
    // an old resourceVersion (the watch test below; the cache would replay it instead).
    apiserverArgs: ['--watch-cache-sizes=podtemplates#0']
  })
  proxy = await startFaultProxy({
    upstream: cluster.server,
    certDir: path.join(cluster.workDir, 'certs')
  })
  direct = await openKubeSession({ env: { KUBECONFIG: cluster.adminKubeconfig } })
}, 240_000)

// A test that failed before it restarted (or resumed) the API server would fail every test after
// it: the next one finds the server down.
afterEach(async () => {
  proxy?.setRule(() => ({ kind: 'pass' }))
  if (cluster === undefined) return
  const child = cluster.apiserver.child
  if (child.exitCode !== null || child.signalCode !== null) await restartApiserver(cluster)
  else process.kill(cluster.apiserver.pid, 'SIGCONT')
}, 180_000)

afterAll(async () => {
  direct?.close()
  await proxy?.close()
  if (cluster) await stopCluster(cluster)
}, 60_000)

/** Short limits so that a fault ends a run in seconds. */
const FAST: Partial<RetryPolicy> = {
  budgetMs: 3000,
  initialDelayMs: 50,
  maxDelayMs: 1500,
  requestTimeoutMs: 2000
}

async function sessionVia(
  kind: 'direct' | 'proxy',
  retry: Partial<RetryPolicy> = FAST
): Promise<KubeSession> {
  const kubeconfig =
    kind === 'direct'
      ? cluster.adminKubeconfig
      : proxy.kubeconfigVia(
          cluster.adminKubeconfig,
          path.join(mkdtempSync(path.join(os.tmpdir(), 'tazuna-fault-')), 'kubeconfig')
        )
  return await openKubeSession({ env: { KUBECONFIG: kubeconfig }, retry })
}

/** Three manifests in three layers (b depends on a, c on b), each a few ConfigMaps. */
function scenario(): { layers: ManifestUnit[][]; objects: Record<string, JsonObject[]> } {
  const ns = uniqueName('fault')
  const [a, b, c] = ['a', 'b', 'c'].map((p) => uniqueName(p)) as [string, string, string]
  const cms = (prefix: string): JsonObject[] =>
    [1, 2, 3, 4, 5].map((i) => configMap(ns, `${prefix}${i}`, { v: `${prefix}${i}` }))
  return {
    layers: [[unit(a)], [unit(b)], [unit(c)]],
    objects: { [a]: [namespace(ns), ...cms('a')], [b]: cms('b'), [c]: cms('c') }
  }
}

async function applyRun(
  session: KubeSession,
  s: ReturnType<typeof scenario>,
  cluster: ClusterPort = session.cluster,
  store: StateStore = session.store
): Promise<ApplyReport> {
  return runLayeredApply(
    s.layers,
    [],
    { sync: true, prune: false, atomic: false, gitCommitHash: 'c0ffee' },
    {
      cluster,
      store,
      clock: { now: () => Date.now(), sleep: (ms) => new Promise((r) => setTimeout(r, ms)) },
      log: memoryLog(),
      build: (m) => Promise.resolve(desiredOf(m.name, s.objects[m.name] ?? []))
    }
  )
}

/**
 * Every State entry of every manifest names an object that is on the server with the content
 * it records; returns the manifests that have State.
 */
async function assertStateMatchesServer(s: ReturnType<typeof scenario>): Promise<string[]> {
  const recorded: string[] = []
  for (const name of Object.keys(s.objects)) {
    const stored = await direct.store.readMany([name])
    const state = stored.get(name)?.state
    if (state === undefined || state.entries.size === 0) continue
    recorded.push(name)
    const desired = desiredOf(name, s.objects[name] ?? [])
    for (const [key, hash] of state.entries) {
      expect(desired.entries.get(key)).toBe(hash)
      const object = (s.objects[name] ?? []).find((o) => computeContentHash(o) === hash)
      const meta = object?.metadata as { name: string; namespace?: string }
      const live = await direct.cluster.get({
        apiVersion: object?.apiVersion as string,
        kind: object?.kind as string,
        name: meta.name,
        ...(meta.namespace === undefined ? {} : { namespace: meta.namespace })
      })
      // Named, so that a failure says which entry has no object (a write taken for a success).
      expect({ entry: `${name}: ${key}`, onServer: live !== undefined }).toEqual({
        entry: `${name}: ${key}`,
        onServer: true
      })
      if (object?.kind === 'ConfigMap') expect(live?.data).toEqual(object.data)
    }
  }
  return recorded
}

/** A re-run succeeds, the next one changes nothing, and State equals a clean run's. */
async function assertConverges(s: ReturnType<typeof scenario>): Promise<void> {
  const session = await sessionVia('direct')
  try {
    expect(await applyRun(session, s)).toMatchObject({ ok: true })
    const again = await applyRun(session, s)
    expect(again.ok).toBe(true)
    expect(again.layers.flatMap((l) => l.manifests.map((m) => m.result))).toEqual([
      'unchanged',
      'unchanged',
      'unchanged'
    ])
    for (const name of Object.keys(s.objects)) {
      const state = (await direct.store.readMany([name])).get(name)?.state
      expect(state?.entries).toEqual(desiredOf(name, s.objects[name] ?? []).entries)
    }
    expect(await assertStateMatchesServer(s)).toEqual(Object.keys(s.objects))
  } finally {
    session.close()
  }
}

/** `session.cluster` with `before` called (and awaited) before each apply. */
function withHook(
  session: KubeSession,
  before: (o: JsonObject) => void | Promise<void>
): ClusterPort {
  return {
    apply: async (o) => {
      await before(o)
      return session.cluster.apply(o)
    },
    delete: (r) => session.cluster.delete(r),
    get: (r) => session.cluster.get(r)
  }
}

const nameOf = (o: JsonObject): string => String((o.metadata as { name?: unknown }).name)

/**
 * `session.store`, and a promise that settles once the State write of `manifest` answered. A
 * layer's State writes overlap the next layer's applies (docs/compatibility.md#layers): a test
 * that kills the server in layer 1 waits for layer 0's write, which e2e/crash-between-layers
 * covers on its own, so that the fault hits the applies it is about.
 */
function watchSave(
  session: KubeSession,
  manifest: string
): { store: StateStore; saved: Promise<void> } {
  let answered: () => void = () => undefined
  const saved = new Promise<void>((resolve) => (answered = resolve))
  const store: StateStore = {
    read: (m) => session.store.read(m),
    readMany: (ms) => session.store.readMany(ms),
    save: (m, state, options) => {
      const writing = session.store.save(m, state, options)
      if (m === manifest) void writing.finally(answered).catch(() => undefined)
      return writing
    }
  }
  return { store, saved }
}

/** Kills kube-apiserver (SIGKILL) and waits until it has exited. */
async function killApiserver(): Promise<void> {
  process.kill(cluster.apiserver.pid, 'SIGKILL')
  await cluster.apiserver.exited
}

describe('kube-apiserver killed in the middle of a layer', () => {
  it('fails naming manifest, object and server when it stays down past the retry budget; State holds only applied objects; a re-run converges', async () => {
    const s = scenario()
    const [a, b] = Object.keys(s.objects) as [string, string, string]
    const session = await sessionVia('direct')
    const { store, saved } = watchSave(session, a)
    let killed = false
    const hooked = withHook(session, async (o) => {
      if (!killed && nameOf(o) === 'b3') {
        killed = true
        await saved
        await killApiserver()
      }
    })
    let report: ApplyReport
    try {
      report = await applyRun(session, s, hooked, store)
    } finally {
      session.close()
    }
    expect(killed).toBe(true)
    expect(report.ok).toBe(false)
    expect(report.error).toMatch(
      new RegExp(
        `^layer 1 apply failed: manifest "${b}": .*apply v1 ConfigMap \\S+/b\\d: the Kubernetes ` +
          `API server at ${cluster.server} is unreachable \\(ECONNREFUSED\\) after \\d+ attempts in [\\d.]+ s`,
        's'
      )
    )
    expect(report.layers.map((l) => l.result)).toEqual(['succeeded', 'failed', 'not-run'])

    await restartApiserver(cluster)
    // Layer 0 was saved before the kill; the failed manifest and the one after it have no State.
    expect(await assertStateMatchesServer(s)).toEqual([a])
    await assertConverges(s)
  })

  it('retries through a restart that completes within the retry budget, and the run succeeds', async () => {
    const s = scenario()
    const [a] = Object.keys(s.objects) as [string]
    // A request timeout long enough for the first answers of a server that has just started on
    // a busy machine: b's State create (a POST, not repeated after a timeout, because the server
    // may have acted on it) goes to the restarted server.
    const session = await sessionVia('direct', {
      ...FAST,
      budgetMs: 120_000,
      maxDelayMs: 1000,
      requestTimeoutMs: 60_000
    })
    const { store, saved } = watchSave(session, a)
    let restarted: Promise<void> | undefined
    const hooked = withHook(session, async (o) => {
      if (restarted === undefined && nameOf(o) === 'b3') {
        // Not while a's State create is in flight: a create whose connection the kill resets
        // is not repeated (a test below shows it), and this one is about applies.
        const killed = saved.then(killApiserver)
        restarted = killed.then(() => restartApiserver(cluster))
        await killed
      }
    })
    try {
      const report = await applyRun(session, s, hooked, store)
      await restarted
      expect(restarted).toBeDefined()
      expect(report).toMatchObject({ ok: true })
    } finally {
      session.close()
    }
    await assertConverges(s)
  })
})

describe('a proxy that resets connections and answers 429/503 with Retry-After', () => {
  it('retries reads and server-side apply PATCHes through every fault kind, and the run succeeds', async () => {
    const s = scenario()
    const session = await sessionVia('proxy')
    const start = proxy.requests.length
    const kinds = ['reset', 'reset-after-forward', '429', '503'] as const
    let faulted = 0
    // Every third non-POST request fails, cycling through the fault kinds.
    const rule: FaultRule = (req, index) => {
      if (req.method === 'POST' || (index - start) % 3 !== 2) return { kind: 'pass' }
      const kind = kinds[faulted++ % kinds.length]
      if (kind === '429') return { kind: 'status', status: 429, retryAfterSeconds: 1 }
      if (kind === '503') return { kind: 'status', status: 503, retryAfterSeconds: 0 }
      return { kind: kind ?? 'reset' }
    }
    proxy.setRule(rule)
    let report: ApplyReport
    const started = Date.now()
    try {
      report = await applyRun(session, s)
    } finally {
      proxy.setRule(() => ({ kind: 'pass' }))
      session.close()
    }
    expect(report).toMatchObject({ ok: true })
    const seen = proxy.requests.slice(start)
    const faultKinds = new Set(seen.map((r) => r.fault))
    expect([...faultKinds].sort()).toEqual(['pass', 'reset', 'reset-after-forward', 'status'])
    expect(seen.filter((r) => r.fault !== 'pass').length).toBeGreaterThanOrEqual(8)
    // Each faulted PATCH was sent again (maybe faulted again) until the server answered it.
    for (const [i, r] of seen.entries()) {
      if (r.method !== 'PATCH' || r.fault === 'pass') continue
      const retried = seen
        .slice(i + 1)
        .find((x) => x.method === 'PATCH' && x.path === r.path && x.fault === 'pass')
      expect([200, 201]).toContain(retried?.upstreamStatus)
    }
    // Retry-After: 1 was honoured at least once, so the run took at least that long.
    expect(Date.now() - started).toBeGreaterThanOrEqual(1000)
    await assertConverges(s)
  })

  it('does not repeat a State create whose connection was reset after the server acted; fails clearly; a re-run converges', async () => {
    const s = scenario()
    const session = await sessionVia('proxy')
    const start = proxy.requests.length
    let dropped = false
    proxy.setRule((req) => {
      if (!dropped && req.method === 'POST' && /\/configmaps(\?|$)/.test(req.path)) {
        dropped = true
        return { kind: 'reset-after-forward' }
      }
      return { kind: 'pass' }
    })
    let report: ApplyReport
    try {
      report = await applyRun(session, s)
    } finally {
      proxy.setRule(() => ({ kind: 'pass' }))
      session.close()
    }
    const [a, b] = Object.keys(s.objects) as [string, string]
    expect(report.ok).toBe(false)
    expect(report.error).toMatch(/^layer 0 apply failed: /)
    expect(report.error).toContain(
      `the Kubernetes API server at ${proxy.url} closed the connection (ECONNRESET); not ` +
        'retried, because the create may have taken effect before the failure'
    )
    expect(report.error).toContain(`"${a}"`)
    // Layer 1 was applying while a's State was written (docs/compatibility.md#layers): it
    // finished and saved, and layer 2 did not start.
    expect(report.layers.map((l) => l.result)).toEqual(['failed', 'succeeded', 'not-run'])
    const posts = proxy.requests.slice(start).filter((r) => r.method === 'POST')
    // a's State create once (reset after the server acted), then b's (State in layer order).
    expect(posts.filter((r) => /\/configmaps(\?|$)/.test(r.path)).map((r) => r.fault)).toEqual([
      'reset-after-forward',
      'pass'
    ])
    // The server did create a's State: it matches the objects, which were applied before it.
    expect(await assertStateMatchesServer(s)).toEqual([a, b])
    await assertConverges(s)
  })

  it('repeats a create the server refused with 429 or 503 + Retry-After, and the run succeeds', async () => {
    const s = scenario()
    const session = await sessionVia('proxy')
    const start = proxy.requests.length
    let refused = 0
    proxy.setRule((req) => {
      if (req.method !== 'POST' || !/\/configmaps(\?|$)/.test(req.path) || refused >= 2) {
        return { kind: 'pass' }
      }
      refused++
      return refused === 1
        ? { kind: 'status', status: 429, retryAfterSeconds: 0 }
        : { kind: 'status', status: 503, retryAfterSeconds: 0 }
    })
    let report: ApplyReport
    try {
      report = await applyRun(session, s)
    } finally {
      proxy.setRule(() => ({ kind: 'pass' }))
      session.close()
    }
    expect(report).toMatchObject({ ok: true })
    const creates = proxy.requests
      .slice(start)
      .filter((r) => r.method === 'POST' && /\/configmaps(\?|$)/.test(r.path))
    // Three State creates reach the server; the first was refused twice before it.
    expect(creates.map((r) => r.fault)).toEqual(['status', 'status', 'pass', 'pass', 'pass'])
    await assertConverges(s)
  })

  it('returns a 503 without Retry-After on a create without repeating it, and the run fails naming the manifest', async () => {
    const s = scenario()
    const session = await sessionVia('proxy')
    const start = proxy.requests.length
    proxy.setRule((req) =>
      req.method === 'POST' && /\/configmaps(\?|$)/.test(req.path)
        ? { kind: 'status', status: 503 }
        : { kind: 'pass' }
    )
    let report: ApplyReport
    try {
      report = await applyRun(session, s)
    } finally {
      proxy.setRule(() => ({ kind: 'pass' }))
      session.close()
    }
    const [a] = Object.keys(s.objects) as [string]
    expect(report.ok).toBe(false)
    expect(report.error).toMatch(
      new RegExp(
        `^layer 0 apply failed: .*"${a}".*HTTP 503.*injected by the fault proxy \\(HTTP 503\\)`,
        's'
      )
    )
    // Layer 1 was applying while a's State was written (docs/compatibility.md#layers): its
    // State create was refused the same way; layer 2 did not start.
    expect(report.layers.map((l) => l.result)).toEqual(['failed', 'failed', 'not-run'])
    const creates = proxy.requests
      .slice(start)
      .filter((r) => r.method === 'POST' && /\/configmaps(\?|$)/.test(r.path))
    // One create per manifest that ran, neither repeated.
    expect(creates).toHaveLength(2)
    expect(await assertStateMatchesServer(s)).toEqual([])
    await assertConverges(s)
  })
})

/** Compacts etcd's history up to `revision`, as kube-apiserver does every five minutes. */
async function compactEtcd(revision: number): Promise<void> {
  const res = await fetch(`${cluster.etcdUrl}/v3/kv/compaction`, {
    method: 'POST',
    body: JSON.stringify({ revision: String(revision), physical: true })
  })
  expect(res.status).toBe(200)
}

describe('a watch that the server ends or expires (docs/health.md#watches)', () => {
  it('resumes an ended watch from the newest resourceVersion seen, and lists again after 410 Gone', async () => {
    const session = await sessionVia('proxy')
    const namespace = `watch-${Date.now()}`
    const create = async (path: string, body: JsonObject): Promise<string> => {
      const res = await direct.client.request({ method: 'POST', path, body }, `create ${path}`)
      expect(res.status).toBe(201)
      return String(
        (JSON.parse(res.body) as { metadata: { resourceVersion: string } }).metadata.resourceVersion
      )
    }
    const podTemplate = (name: string) =>
      create(`/api/v1/namespaces/${namespace}/podtemplates`, {
        apiVersion: 'v1',
        kind: 'PodTemplate',
        metadata: { name },
        template: { spec: { containers: [{ name: 'c', image: 'example.invalid/c' }] } }
      })
    await create('/api/v1/namespaces', {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: namespace }
    })
    await podTemplate('a')
    const start = proxy.requests.length
    let watches = 0
    // Every watch ends after a second (the server's own timeout). The second one asks for
    // resourceVersion 1, from before etcd's compaction below: the server answers 410 Gone (an
    // ERROR event whose Status has code 410).
    proxy.setRule((req) => {
      if (!req.path.includes('watch=1')) return { kind: 'pass' }
      watches++
      const query: Record<string, string> = { timeoutSeconds: '1' }
      if (watches === 2) query.resourceVersion = '1'
      return { kind: 'rewrite', query }
    })
    const events: string[] = []
    const controller = new AbortController()
    let seen = (): void => undefined
    const until = (want: string) =>
      new Promise<void>((resolve) => {
        seen = () => {
          if (events.includes(want)) resolve()
        }
        seen()
      })
    const watching = session.cluster.watch(
      { apiVersion: 'v1', kind: 'PodTemplate', namespace },
      (event) => {
        events.push(
          event.type === 'LISTED'
            ? `LISTED ${event.objects.map((o) => nameOf(o)).join(',')}`
            : `${event.type} ${nameOf(event.object)}`
        )
        seen()
      },
      controller.signal
    )
    try {
      await until('LISTED a')
      const rvB = Number(await podTemplate('b'))
      await compactEtcd(rvB)
      await until('LISTED a,b')
      await podTemplate('c')
      await until('ADDED c')
      controller.abort()
      await watching
      const requests = proxy.requests.slice(start).map((r) => {
        const url = new URL(r.path, 'https://proxy')
        return {
          watch: url.searchParams.get('watch') === '1',
          resourceVersion: url.searchParams.get('resourceVersion')
        }
      })
      // list, watch (ends with b), watch resumed after b (expired: 410), list, watch (sees c).
      expect(events.slice(0, 3)).toEqual(['LISTED a', 'ADDED b', 'LISTED a,b'])
      expect(events).toContain('ADDED c')
      expect(requests.slice(0, 5).map((r) => r.watch)).toEqual([false, true, true, false, true])
      expect(Number(requests[2]?.resourceVersion)).toBeGreaterThanOrEqual(rvB)
      const expired = proxy.requests.slice(start)[2]
      expect(expired?.upstreamStatus).toBe(200)
      expect(expired?.upstreamBody).toMatch(
        /^\{"type":"ERROR","object":\{"kind":"Status".*"code":410\}\}\n$/
      )
    } finally {
      controller.abort()
      proxy.setRule(() => ({ kind: 'pass' }))
      session.close()
    }
  })
})

describe('a hung (SIGSTOP) kube-apiserver', () => {
  it('ends the run within a bounded time with a request-timeout error; nothing is recorded; a re-run converges', async () => {
    const s = scenario()
    const session = await sessionVia('direct', { ...FAST, budgetMs: 1000, requestTimeoutMs: 1500 })
    let report: ApplyReport
    const started = Date.now()
    process.kill(cluster.apiserver.pid, 'SIGSTOP')
    try {
      report = await applyRun(session, s)
    } finally {
      process.kill(cluster.apiserver.pid, 'SIGCONT')
      session.close()
    }
    const elapsed = Date.now() - started
    expect(report.ok).toBe(false)
    expect(report.error).toContain(
      `the Kubernetes API server at ${cluster.server} did not answer within the request timeout of 1.5 s`
    )
    // One timed-out attempt (the budget allows no second one), a little slack for a busy machine.
    expect(elapsed).toBeLessThan(10_000)
    expect(await assertStateMatchesServer(s)).toEqual([])
    await assertConverges(s)
  })
})
