// `wait` (docs/health.md#wait) against the test cluster's real controllers and kwok
// (__tests__/cluster/README.md#failing-pods): a layer whose Deployment, StatefulSet and Job
// become healthy, with the time each took; a Deployment that never becomes ready failing with
// ProgressDeadlineExceeded and the Pods' reason while the next layer is never sent (the audit
// log); the timeout naming every object not Current; a crash-looping Pod with its last exit code,
// a failed Job failing the layer at once, a quota refusal in the ReplicaSet's Warning Events; and the next layer's first request
// following the status write that made the last object Current within one measured round trip
// (+ 50 ms, the bench target). Expected statuses and messages are kstatus's (src/health/kstatus.ts,
// held equal to kstatus by __tests__/fixtures/kstatus).
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals'
import type { KubeSession } from '../../../src/adapters/kube/session.js'
import { systemClock } from '../../../src/adapters/clock.js'
import { runLayeredApply, type ApplyOptions } from '../../../src/apply/layered-apply.js'
import type { ManifestUnit } from '../../../src/apply/manifest-unit.js'
import type { JsonObject } from '../../../src/go/yaml.js'
import { auditLogEnd, readRequests } from '../../bench/requests.js'
import { outcomeOf } from '../../../src/engine/apply.js'
import { renderAppliedSection } from '../../../src/report/applied-section.js'
import { renderApplyMarkdown } from '../../../src/report/apply-markdown.js'
import type { ApplyReport as PublishedReport } from '../../../src/report/model.js'
import {
  adminSession,
  configMap,
  desiredOf,
  memoryLog,
  namespace,
  uniqueName,
  unit
} from '../../support/cluster.js'

const auditLog = path.join(process.env.TAZUNA_TEST_CLUSTER_DIR ?? '', 'audit.log')

let admin: KubeSession
beforeAll(async () => {
  admin = await adminSession()
})
afterAll(() => admin.close())

async function run(
  layers: ManifestUnit[][],
  objects: Record<string, JsonObject[]>,
  wait: { timeoutMs: number; timeout: string }
) {
  const log = memoryLog()
  const options: ApplyOptions = {
    sync: true,
    prune: false,
    atomic: false,
    gitCommitHash: 'c0ffee',
    wait
  }
  const report = await runLayeredApply(layers, [], options, {
    cluster: admin.cluster,
    store: admin.store,
    clock: systemClock,
    log,
    build: (m) => Promise.resolve(desiredOf(m.name, objects[m.name] ?? [])),
    watcher: admin.watcher
  })
  return { report, log }
}

function podTemplate(app: string, labels: Record<string, string> = {}): JsonObject {
  return {
    metadata: { labels: { app, ...labels } },
    spec: { containers: [{ name: 'app', image: `registry.invalid/${app}:1` }] }
  }
}

function deployment(ns: string, name: string, extra: JsonObject = {}, labels = {}): JsonObject {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, namespace: ns },
    spec: {
      replicas: 2,
      selector: { matchLabels: { app: name } },
      template: podTemplate(name, labels),
      ...extra
    }
  }
}

function statefulSet(ns: string, name: string): JsonObject {
  return {
    apiVersion: 'apps/v1',
    kind: 'StatefulSet',
    metadata: { name, namespace: ns },
    spec: {
      replicas: 2,
      serviceName: name,
      selector: { matchLabels: { app: name } },
      template: podTemplate(name)
    }
  }
}

function job(ns: string, name: string): JsonObject {
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: { name, namespace: ns },
    spec: {
      template: {
        spec: {
          restartPolicy: 'Never',
          containers: [{ name: 'job', image: 'registry.invalid/job:1' }]
        }
      }
    }
  }
}

/** A namespace applied in a layer of its own, so Pods find its default ServiceAccount soon. */
async function namespaceLayer(ns: string): Promise<void> {
  const m = uniqueName('ns')
  const { report } = await run([[unit(m)]], { [m]: [namespace(ns)] }, WAIT)
  expect(report).toMatchObject({ ok: true })
  const deadline = Date.now() + 30_000
  while (
    (await admin.cluster.get({
      apiVersion: 'v1',
      kind: 'ServiceAccount',
      namespace: ns,
      name: 'default'
    })) === undefined &&
    Date.now() < deadline
  ) {
    await new Promise((r) => setTimeout(r, 100))
  }
}

function publishedOf(report: Awaited<ReturnType<typeof run>>['report']): PublishedReport {
  return { config: 'tazuna.yaml', environment: '', sha: 'c0ffee', ...outcomeOf(report) }
}

const WAIT = { timeoutMs: 120_000, timeout: '2m' }

describe('wait', () => {
  it('waits until the Deployment, StatefulSet and Job are Current, with the time each took, then applies the next layer', async () => {
    const ns = uniqueName('healthy')
    await namespaceLayer(ns)
    const first = uniqueName('workloads')
    const second = uniqueName('after')
    const { report, log } = await run(
      [[unit(first)], [unit(second)]],
      {
        [first]: [deployment(ns, 'web'), statefulSet(ns, 'db'), job(ns, 'migrate')],
        [second]: [configMap(ns, 'after', { v: '1' })]
      },
      WAIT
    )
    expect(report.error).toBeUndefined()
    const health = report.layers[0]?.health
    expect(health).toMatchObject({ healthy: true, ended: 'current' })
    const byKind = Object.fromEntries((health?.objects ?? []).map((o) => [o.ref.kind, o]))
    expect(byKind.Deployment).toMatchObject({
      status: 'Current',
      message: 'Deployment is available. Replicas: 2',
      manifest: first,
      currentAfterMs: expect.any(Number)
    })
    expect(byKind.StatefulSet).toMatchObject({
      status: 'Current',
      // The API server defaults spec.updateStrategy.rollingUpdate.partition to 0, and kstatus
      // then reports a partitioned rollout (fixture statefulset.yaml/partition-zero).
      message: 'Partition rollout complete. updated: 2',
      currentAfterMs: expect.any(Number)
    })
    expect(byKind.Job).toMatchObject({ status: 'Current', currentAfterMs: expect.any(Number) })
    expect(report.layers[1]?.health).toMatchObject({ healthy: true })
    expect(
      log.lines.some((l) => /^info layer 0 healthy in \d+\.\d s \(3 objects Current\)$/.test(l))
    ).toBe(true)
    expect(
      await admin.cluster.get({ apiVersion: 'v1', kind: 'ConfigMap', namespace: ns, name: 'after' })
    ).toBeDefined()
    // The pull request's Applied section and the job summary say so, with the times.
    const published = publishedOf(report)
    const section = renderAppliedSection({ report: published, sha: 'c0ffee' }, 60_000)
    expect(section.split('\n')[1]).toMatch(/^### ✅ Applied and healthy in \d+ (ms|s)$/)
    const summary = renderApplyMarkdown(published, { budget: 60_000 })
    expect(summary).toMatch(
      /\*\*Healthy\*\* in \d+(\.\d)? m?s: 3 objects Current \((`(Deployment|StatefulSet|Job) [^`]+` \d+(\.\d)? m?s(, )?){3}\)\./
    )
  })

  it('fails the layer on ProgressDeadlineExceeded with the Pods reason; the next layer is never sent', async () => {
    const ns = uniqueName('deadline')
    await namespaceLayer(ns)
    const first = uniqueName('never-ready')
    const second = uniqueName('after')
    const from = auditLogEnd(auditLog)
    const fromMs = Date.now()
    const { report } = await run(
      [[unit(first)], [unit(second)]],
      {
        [first]: [
          deployment(
            ns,
            'web',
            { replicas: 1, progressDeadlineSeconds: 20 },
            { 'tazuna.test/failure': 'never-ready' }
          )
        ],
        [second]: [configMap(ns, 'after', { v: '1' })]
      },
      WAIT
    )
    expect(report.ok).toBe(false)
    expect(report.error).toBe(
      `layer 0 is not healthy: Deployment ${ns}/web is Failed (ProgressDeadlineExceeded: Progress deadline exceeded)`
    )
    const web = report.layers[0]?.health?.objects[0]
    expect(web).toMatchObject({ status: 'Failed', reason: 'ProgressDeadlineExceeded' })
    expect(web?.cause?.pods).toEqual([
      expect.stringMatching(/^web-[a-z0-9]+-[a-z0-9]+\/app: running, not ready$/)
    ])
    expect(report.layers[1]).toMatchObject({ result: 'not-run' })
    const section = renderAppliedSection({ report: publishedOf(report), sha: 'c0ffee' }, 60_000)
    expect(section.split('\n')[1]).toBe('### ❌ Applied, 1 of 1 objects unhealthy (`web`)')
    expect(section).toContain(
      `Deployment ${ns}/web (manifest ${first}): Failed ProgressDeadlineExceeded: Progress deadline exceeded`
    )
    // No request for the next layer's ConfigMap reached the API server.
    const requests = readRequests(auditLog, { from, fromMs, toMs: Date.now() })
    expect(requests.filter((r) => r.uri.includes(`/namespaces/${ns}/configmaps/after`))).toEqual([])
    expect(requests.some((r) => r.uri.includes(`/namespaces/${ns}/deployments/web`))).toBe(true)
  })

  it('names every object not Current when wait-timeout is reached, with the image of ImagePullBackOff', async () => {
    const ns = uniqueName('timeout')
    await namespaceLayer(ns)
    const m = uniqueName('stuck')
    const { report } = await run(
      [[unit(m)]],
      {
        [m]: [
          deployment(ns, 'pull', { replicas: 1 }, { 'tazuna.test/failure': 'image-pull-backoff' }),
          deployment(ns, 'slow', { replicas: 1 }, { 'tazuna.test/failure': 'never-ready' }),
          configMap(ns, 'fine', { v: '1' })
        ]
      },
      { timeoutMs: 8_000, timeout: '8s' }
    )
    expect(report.ok).toBe(false)
    expect(report.error).toBe(
      `layer 0 is not healthy: not Current within 8s: Deployment ${ns}/pull is InProgress (LessAvailable: Available: 0/1); ` +
        `Deployment ${ns}/slow is InProgress (LessAvailable: Available: 0/1)`
    )
    const pull = report.layers[0]?.health?.objects.find((o) => o.ref.name === 'pull')
    expect(pull?.cause?.pods).toEqual([
      expect.stringMatching(
        /^pull-[a-z0-9]+-[a-z0-9]+\/app: ImagePullBackOff \(image registry\.invalid\/pull:1\): Back-off pulling image "registry\.invalid\/pull:1"$/
      )
    ])
    expect(report.layers[0]?.health?.objects.find((o) => o.ref.name === 'fine')).toMatchObject({
      status: 'Current'
    })
  })

  it("reports the Warning Event of the ReplicaSet that cannot create the Deployment's Pods", async () => {
    const ns = uniqueName('quota')
    await namespaceLayer(ns)
    const m = uniqueName('refused')
    const quota: JsonObject = {
      apiVersion: 'v1',
      kind: 'ResourceQuota',
      metadata: { name: 'no-pods', namespace: ns },
      spec: { hard: { pods: '0' } }
    }
    // The quota comes first (its own layer), so the next layer's Pods are refused.
    const q = uniqueName('quota')
    expect((await run([[unit(q)]], { [q]: [quota] }, WAIT)).report).toMatchObject({ ok: true })
    await new Promise((r) => setTimeout(r, 1000)) // the quota controller computes status.used
    const { report } = await run(
      [[unit(m)]],
      { [m]: [deployment(ns, 'web', { replicas: 1 })] },
      {
        timeoutMs: 15_000,
        timeout: '15s'
      }
    )
    expect(report.ok).toBe(false)
    const objects = report.layers[0]?.health?.objects ?? []
    const web = objects.find((o) => o.ref.name === 'web')
    expect(web?.cause?.events).toEqual(
      expect.arrayContaining([
        expect.stringMatching(
          /^ReplicaSet web-[a-z0-9]+: FailedCreate( \(×\d+\))?: .*exceeded quota: no-pods/
        )
      ])
    )
  })

  it('names the container of a crash-looping Pod with its last exit code and reason', async () => {
    const ns = uniqueName('crash')
    await namespaceLayer(ns)
    const m = uniqueName('crash')
    const crashing = deployment(
      ns,
      'crash',
      { replicas: 1 },
      { 'tazuna.test/failure': 'crash-loop-backoff' }
    )
    const template = (crashing.spec as JsonObject).template as JsonObject
    ;(template.metadata as JsonObject).annotations = { 'tazuna.test/exit-code': '3' }
    const failingJob = job(ns, 'migrate')
    const jobSpec = failingJob.spec as JsonObject
    jobSpec.backoffLimit = 0
    ;(jobSpec.template as JsonObject).metadata = { labels: { 'tazuna.test/failure': 'exit' } }
    const { report } = await run(
      [[unit(m)]],
      { [m]: [crashing, failingJob] },
      {
        timeoutMs: 60_000,
        timeout: '1m'
      }
    )
    expect(report.ok).toBe(false)
    // The Job fails the layer at once (kstatus: Failed JobFailed), long before the timeout.
    const health = report.layers[0]?.health
    expect(health?.ended).toBe('failed')
    const objects = health?.objects ?? []
    expect(objects.find((o) => o.ref.kind === 'Job')).toMatchObject({
      status: 'Failed',
      reason: 'JobFailed',
      message: 'Job Failed. failed: 1/1'
    })
    const crash = objects.find((o) => o.ref.name === 'crash')
    expect(crash?.status).toBe('InProgress')
    expect(crash?.cause?.pods).toEqual([
      expect.stringMatching(
        /^crash-[a-z0-9]+-[a-z0-9]+\/app: CrashLoopBackOff, last exit code 3 \(Error\), restarted 1 times$/
      )
    ])
  })

  it('sends the next layer within one round trip (+ 50 ms) of the status write that made the last object Current', async () => {
    const ns = uniqueName('roundtrip')
    await namespaceLayer(ns)
    const first = uniqueName('web')
    const second = uniqueName('after')
    // One round trip, measured: the median of 9 GETs.
    const trips: number[] = []
    for (let i = 0; i < 9; i++) {
      const t = performance.now()
      await admin.cluster.get({ apiVersion: 'v1', kind: 'Namespace', name: ns })
      trips.push(performance.now() - t)
    }
    const roundTripMs = trips.sort((a, b) => a - b)[4] as number
    const from = auditLogEnd(auditLog)
    const fromMs = Date.now()
    const { report } = await run(
      [[unit(first)], [unit(second)]],
      {
        [first]: [deployment(ns, 'web', { replicas: 1 })],
        [second]: [configMap(ns, 'after', { v: '1' })]
      },
      WAIT
    )
    expect(report.error).toBeUndefined()
    const requests = readRequests(auditLog, { from, fromMs, toMs: Date.now() })
    const next = requests.find((r) => r.uri.includes(`/namespaces/${ns}/configmaps/after`))
    const statusWrites = requests.filter(
      (r) =>
        r.uri.includes(`/namespaces/${ns}/deployments/web/status`) &&
        r.user === 'system:kube-controller-manager' &&
        r.startUs < (next?.startUs ?? Infinity)
    )
    const lastWrite = statusWrites.at(-1)
    expect(next).toBeDefined()
    expect(lastWrite).toBeDefined()
    const gapMs = ((next?.startUs ?? 0) - (lastWrite?.endUs ?? 0)) / 1000
    process.stdout.write(
      `wait: next layer ${gapMs.toFixed(1)} ms after the last status write (round trip ${roundTripMs.toFixed(1)} ms)\n`
    )
    expect(gapMs).toBeGreaterThan(0)
    expect(gapMs).toBeLessThanOrEqual(roundTripMs + 50)
  })
})
