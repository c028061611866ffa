/**
 * `npm run bench -- --only wait-sync`: a 10% sync with `--wait` on kwok (docs/health.md#watches).
 * A repository of a Namespace (layer 0), DEPLOYMENTS one-replica Deployments (layer 1, 5
 * manifests) and a ConfigMap (layer 2) is applied with `apply --sync --wait`; then 10% of the Deployments change their Pod
 * template (a rollout) and `apply --sync --wait` runs again, REPS times. From the API server's
 * audit log it prints, per run, the time from the controller's last status write of layer 1 (the
 * write that made the last object Current) to the first request of layer 2 — the end of the
 * layer as the server sees it — next to a measured round trip. The target: at most one
 * round trip + 50 ms. Reports figures; asserts nothing about time.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { measure, median } from './measure.js'
import { auditLogEnd, readRequests } from './requests.js'

const DEPLOYMENTS = 100
const MANIFESTS = 5

/** What the scenario runs. */
export interface WaitScenarioOptions {
  /** The command line, as argv before the command's own arguments (`node <bundle>/cli.js`). */
  cli: readonly string[]
  reps: number
  /** The test cluster's audit log. */
  auditLog: string
  /** How one round trip is measured (ms of one request). */
  roundTrip: () => Promise<number>
}

function deployment(ns: string, name: string, revision: number): object {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, namespace: ns },
    spec: {
      replicas: 1,
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: name }, annotations: { revision: String(revision) } },
        spec: { containers: [{ name: 'app', image: `registry.invalid/${name}:1` }] }
      }
    }
  }
}

function writeRepo(dir: string, ns: string, changed: ReadonlySet<number>, revision: number): void {
  const lines = ['spec:', '  manifests:']
  writeManifest(dir, 'namespace', [{ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } }])
  lines.push('    - name: namespace', '      type: kustomize', '      path: ./namespace')
  for (let m = 0; m < MANIFESTS; m++) {
    const objects = []
    for (let i = m; i < DEPLOYMENTS; i += MANIFESTS) {
      objects.push(deployment(ns, `web-${i}`, changed.has(i) ? revision : 0))
    }
    writeManifest(dir, `workloads-${m}`, objects)
    lines.push(
      `    - name: workloads-${m}`,
      '      type: kustomize',
      `      path: ./workloads-${m}`,
      '      dependsOn: [namespace]'
    )
  }
  writeManifest(dir, 'after', [
    {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'after', namespace: ns },
      data: { revision: String(revision) }
    }
  ])
  lines.push('    - name: after', '      type: kustomize', '      path: ./after')
  lines.push(
    `      dependsOn: [${Array.from({ length: MANIFESTS }, (_, m) => `workloads-${m}`).join(', ')}]`
  )
  writeFileSync(path.join(dir, 'tazuna.yaml'), lines.join('\n') + '\n')
}

function writeManifest(dir: string, name: string, objects: object[]): void {
  mkdirSync(path.join(dir, name), { recursive: true })
  writeFileSync(
    path.join(dir, name, 'objects.yaml'),
    objects.map((o) => JSON.stringify(o)).join('\n---\n') + '\n'
  )
  writeFileSync(path.join(dir, name, 'kustomization.yaml'), 'resources:\n  - objects.yaml\n')
}

/** Runs the scenario and returns its Markdown section. */
export async function runWaitScenario(options: WaitScenarioOptions): Promise<string> {
  const ns = `bench-wait-${Date.now().toString(36)}`
  const dir = mkdtempSync(path.join(os.tmpdir(), `${ns}-`))
  const file = path.join(dir, 'tazuna.yaml')
  writeRepo(dir, ns, new Set(), 0)
  const apply = async () => {
    const m = await measure([...options.cli, 'apply', '--sync', '--wait', '-f', file], { cwd: dir })
    if (m.code !== 0)
      throw new Error(`apply --sync --wait exited ${m.code}:\n${m.stderr.slice(-3000)}`)
    return m
  }
  await apply()
  const rows: string[] = []
  const gaps: number[] = []
  const trips: number[] = []
  for (let rep = 1; rep <= options.reps; rep++) {
    const changed = new Set(
      Array.from({ length: DEPLOYMENTS / 10 }, (_, i) => (i * 10 + rep) % DEPLOYMENTS)
    )
    writeRepo(dir, ns, changed, rep)
    const from = auditLogEnd(options.auditLog)
    const fromMs = Date.now()
    const m = await apply()
    const requests = readRequests(options.auditLog, { from, fromMs, toMs: Date.now() })
    const next = requests.find((r) => r.uri.includes(`/namespaces/${ns}/configmaps/after`))
    const writes = requests.filter(
      (r) =>
        r.user === 'system:kube-controller-manager' &&
        /\/deployments\/[^/]+\/status/.test(r.uri) &&
        r.uri.includes(`/namespaces/${ns}/`) &&
        r.startUs < (next?.startUs ?? 0)
    )
    const last = writes.at(-1)
    const gapMs = next && last ? (next.startUs - last.endUs) / 1000 : NaN
    const trip = await options.roundTrip()
    const healthy = /layer 1 healthy in ([\d.]+) s/.exec(m.stderr)?.[1] ?? '?'
    gaps.push(gapMs)
    trips.push(trip)
    rows.push(
      `| ${rep} | ${m.seconds.toFixed(2)} | ${healthy} | ${gapMs.toFixed(1)} | ${trip.toFixed(1)} |`
    )
    process.stderr.write(
      `wait-sync ${rep}: last Current → next layer ${gapMs.toFixed(1)} ms (round trip ${trip.toFixed(1)} ms)\n`
    )
  }
  return [
    '',
    `## wait-sync: a 10% sync with \`--wait\` on kwok (${DEPLOYMENTS} Deployments in ${MANIFESTS} manifests, then a ConfigMap layer)`,
    '',
    '| run | apply s | workloads layer healthy in s | last status write → next layer ms | round trip ms |',
    '| --- | ---: | ---: | ---: | ---: |',
    ...rows,
    '',
    `Median: ${median(gaps).toFixed(1)} ms from the last object becoming Current to the next layer's first request, with a round trip of ${median(trips).toFixed(1)} ms (target: ≤ one round trip + 50 ms).`,
    ''
  ].join('\n')
}
