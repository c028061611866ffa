/**
 * `npm run bench` (through scripts/bench.sh): measures the action's engine — the CLI of a freshly
 * built bundle, `node <bundle>/cli.js` — on the test cluster, alternating with the Tazuna CLI
 * when TAZUNA_BIN is set, and prints the medians as Markdown. Not a test: it asserts nothing
 * about time, it only fails when a command fails.
 *
 * Scenarios per repository size (N manifests × M objects in layers of `dependsOn`):
 *   sync-empty   `apply --sync` of a fresh repository (new namespace and State)
 *   diff         `state diff` right after it (no changes)
 *   sync-noop    `apply --sync` again (no changes)
 *   diff-content `state diff --content` (action only) after every object changed, the applied
 *                repository committed as the base: base render in a git worktree + head render
 *   sync-10pct   `apply --sync` after 10% of the objects changed
 * plus the bundle's cold start (`node index.js` in check mode) and the size of dist/, and the
 * `risk-pass` scenario (__tests__/bench/risk-scenario.ts): what the risk pass adds to a
 * 3,000-object Diff. `--only risk-pass` runs that one alone.
 *
 * Per scenario and tool it also prints the requests the API server received and the round trips
 * on the critical path, both read from the test cluster's audit log (__tests__/bench/requests.ts).
 * `--rtt 30` puts a delay proxy between the tools and the server (__tests__/support/tcp-proxy.ts:
 * 15 ms each way, TLS untouched), as a cloud cluster tens of milliseconds from the runner is.
 *
 * Environment: BENCH_BUNDLE (the fresh bundle), KUBECONFIG, KUSTOMIZE_BIN, HELM_BIN (from
 * scripts/cluster.sh), TAZUNA_BIN (optional), TAZUNA_TEST_CLUSTER_DIR (the audit log). Arguments:
 * --sizes 1000,10000 --reps 3 --large-reps 1 --shape kustomize|raw|helmfile --rtt MS
 * --risk-reps 3 --only risk-pass|wait-sync --out FILE. `wait-sync` (__tests__/bench/wait-scenario.ts):
 * a 10% sync with `--wait` on kwok, the time from the last object becoming Current to the next
 * layer's first request.
 */
import { execFileSync } from 'node:child_process'
import { existsSync, mkdtempSync, readdirSync, statSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { parseArgs } from 'node:util'
import { canMeasureMemory, measure, median, type Measurement } from '../__tests__/bench/measure.js'
import {
  benchRepoFiles,
  commitBenchRepo,
  manifestNames,
  writeBenchRepo,
  type BenchRepoOptions
} from '../__tests__/bench/repo.js'
import {
  auditLogEnd,
  criticalPath,
  describePath,
  readRequests,
  verbCounts,
  waitGapUs,
  type AuditedRequest
} from '../__tests__/bench/requests.js'
import { runRiskScenario } from '../__tests__/bench/risk-scenario.js'
import { runWaitScenario } from '../__tests__/bench/wait-scenario.js'
import { deleteBenchState, measureRoundTrip } from '../__tests__/bench/state-cleanup.js'
import { startTcpProxy, type TcpProxy } from '../__tests__/support/tcp-proxy.js'

const repoRoot = path.resolve(import.meta.dirname, '..')

const { values: args } = parseArgs({
  options: {
    sizes: { type: 'string', default: '1000,10000' },
    reps: { type: 'string', default: '3' },
    'large-reps': { type: 'string', default: '1' },
    shape: { type: 'string', default: 'kustomize' },
    'cold-reps': { type: 'string', default: '15' },
    rtt: { type: 'string', default: '0' },
    'risk-reps': { type: 'string', default: '3' },
    only: { type: 'string' },
    out: { type: 'string' }
  }
})

const bundle = requiredEnv('BENCH_BUNDLE')
const tazunaBin = process.env.TAZUNA_BIN || undefined
const shape = args.shape === 'raw' || args.shape === 'helmfile' ? args.shape : 'kustomize'
const rttMs = Number(args.rtt)
if (!Number.isFinite(rttMs) || rttMs < 0) throw new Error(`--rtt ${args.rtt}: not milliseconds`)
const auditLog = process.env.TAZUNA_TEST_CLUSTER_DIR
  ? path.join(process.env.TAZUNA_TEST_CLUSTER_DIR, 'audit.log')
  : undefined
/** Set in main when --rtt is given: the tools reach the server through it. */
let proxy: TcpProxy | undefined

type Tool = 'action' | 'tazuna'
const scenarios = ['sync-empty', 'diff', 'sync-noop', 'diff-content', 'sync-10pct'] as const
type Scenario = (typeof scenarios)[number]

/** Layout of a repository of `objects` objects. */
function layoutOf(
  objects: number
): Pick<BenchRepoOptions, 'manifests' | 'objectsPerManifest' | 'layers'> {
  if (objects <= 1000)
    return { manifests: 20, objectsPerManifest: Math.ceil(objects / 20), layers: 4 }
  return { manifests: 50, objectsPerManifest: Math.ceil(objects / 50), layers: 5 }
}

function commandOf(tool: Tool, args: readonly string[], file: string): string[] {
  const base =
    tool === 'action' ? [process.execPath, path.join(bundle, 'cli.js')] : [tazunaBin as string]
  return [...base, ...args, '-f', file]
}

/** A measured run with what it asked of the API server. */
interface Run extends Measurement {
  requests?: number
  criticalPath?: number
  connections?: number
  /** The critical path's requests in a line (describePath). */
  path?: string
}

const results = new Map<string, Run[]>()
const record = (key: string, m: Run): void => {
  results.set(key, [...(results.get(key) ?? []), m])
}

/** Runs a command and reads its requests from the audit log (the window of its process). */
async function measureWithRequests(argv: string[], cwd: string): Promise<Run> {
  const env = proxy ? { ...process.env, KUBECONFIG: proxy.kubeconfig } : process.env
  const connectionsBefore = proxy?.connections ?? 0
  const from = auditLog ? auditLogEnd(auditLog) : 0
  const fromMs = Date.now()
  const m = await measure(argv, { cwd, env })
  const toMs = Date.now()
  if (!auditLog) return m
  // The server writes an event once the response is complete; give the last one a moment.
  await new Promise((resolve) => setTimeout(resolve, 200))
  const requests: AuditedRequest[] = readRequests(auditLog, { from, fromMs, toMs })
  const chain = criticalPath(requests, waitGapUs((rttMs / 2) * 1000))
  const run: Run = {
    ...m,
    requests: requests.length,
    criticalPath: chain.length,
    path: describePath(chain),
    ...(proxy ? { connections: proxy.connections - connectionsBefore } : {})
  }
  process.stderr.write(
    `    ${requests.length} requests (${verbCounts(requests)}), ${run.criticalPath} on the critical path${
      proxy ? `, ${run.connections} connections` : ''
    }\n`
  )
  return run
}

async function run(tool: Tool, scenario: Scenario, size: number, argv: string[], file: string) {
  const m = await measureWithRequests(commandOf(tool, argv, file), path.dirname(file))
  if (m.code !== 0) {
    throw new Error(
      `${tool} ${argv.join(' ')} (${scenario}, ${size} objects) exited ${m.code}:\n${m.stderr.slice(-3000)}`
    )
  }
  if (scenario === 'diff' && m.stdout !== 'No changes detected.\n') {
    throw new Error(`${tool} state diff after a sync printed changes:\n${m.stdout.slice(0, 2000)}`)
  }
  if (scenario === 'diff-content') {
    // Every object changed, so every one has its diff (the generated ConfigMaps did not change).
    const shown = m.stdout.split('\n').filter((l) => l.startsWith('--- base/')).length
    const expected = expectedObjects(size)
    if (shown !== expected) {
      throw new Error(`state diff --content showed ${shown} object diffs, not ${expected}`)
    }
    const bytes = Buffer.byteLength(m.stdout)
    process.stderr.write(`  (${shown} object diffs, ${bytes} bytes of output)\n`)
  }
  record(`${tool} ${scenario} ${size}`, m)
  const rss = m.maxRssMiB === undefined ? '' : `, ${m.maxRssMiB.toFixed(0)} MiB`
  process.stderr.write(
    `  ${tool.padEnd(6)} ${scenario.padEnd(10)} ${String(size).padStart(6)}: ${m.seconds.toFixed(2)} s${rss}\n`
  )
}

/** One repetition of every scenario for one tool on a fresh repository. */
async function repetition(tool: Tool, size: number, rep: number): Promise<void> {
  const id = `${tool === 'action' ? 'a' : 't'}${size}r${rep}${Date.now().toString(36)}`
  const options: BenchRepoOptions = { id, shape, ...layoutOf(size) }
  const dir = mkdtempSync(path.join(os.tmpdir(), `bench-${id}-`))
  writeBenchRepo(dir, benchRepoFiles(options))
  const file = path.join(dir, 'tazuna.yaml')
  await run(tool, 'sync-empty', size, ['apply', '--sync'], file)
  await run(tool, 'diff', size, ['state', 'diff'], file)
  await run(tool, 'sync-noop', size, ['apply', '--sync'], file)
  if (tool === 'action') {
    // The applied repository is the base commit; the working tree changes every object.
    commitBenchRepo(dir)
    writeBenchRepo(dir, benchRepoFiles({ ...options, modifyEvery: 1 }))
    await run(tool, 'diff-content', size, ['state', 'diff', '--content'], file)
  }
  writeBenchRepo(dir, benchRepoFiles({ ...options, modifyEvery: 10 }))
  await run(tool, 'sync-10pct', size, ['apply', '--sync'], file)
  // The next repetition should not list this one's State (see state-cleanup.ts).
  if (!(await deleteBenchState(manifestNames(options)))) {
    process.stderr.write(
      "  (State ConfigMaps left in place: KUBECONFIG is not the test cluster's)\n"
    )
  }
}

/** Objects of a repository of `size` (the layout rounds up per manifest). */
function expectedObjects(size: number): number {
  const l = layoutOf(size)
  return l.manifests * l.objectsPerManifest
}

async function coldStart(reps: number): Promise<void> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'bench-cold-'))
  const options: BenchRepoOptions = {
    id: 'cold',
    shape: 'raw',
    manifests: 2,
    objectsPerManifest: 2,
    layers: 1
  }
  writeBenchRepo(dir, benchRepoFiles(options))
  const temp = mkdtempSync(path.join(os.tmpdir(), 'bench-runner-'))
  const env = {
    PATH: process.env.PATH,
    HOME: temp,
    GITHUB_ACTIONS: 'true',
    GITHUB_EVENT_NAME: 'push',
    GITHUB_WORKSPACE: dir,
    RUNNER_TEMP: temp,
    GITHUB_STEP_SUMMARY: path.join(temp, 'summary.md'),
    GITHUB_OUTPUT: path.join(temp, 'output.txt'),
    INPUT_MODE: 'check',
    INPUT_CONFIG: 'tazuna.yaml'
  }
  for (const f of [env.GITHUB_STEP_SUMMARY, env.GITHUB_OUTPUT]) writeFileSync(f, '')
  for (let i = 0; i < reps; i++) {
    const m = await measure([process.execPath, path.join(bundle, 'index.js')], { cwd: dir, env })
    if (m.code !== 0)
      throw new Error(`node index.js (check) exited ${m.code}:\n${m.stdout}${m.stderr}`)
    record('cold index.js check', m)
    record('cold node -e 0', await measure([process.execPath, '-e', '0']))
    record(
      'cold action cli check',
      await measure(commandOf('action', ['check'], path.join(dir, 'tazuna.yaml')))
    )
    if (tazunaBin)
      record(
        'cold tazuna check',
        await measure(commandOf('tazuna', ['check'], path.join(dir, 'tazuna.yaml')))
      )
  }
}

function directoryBytes(dir: string): number {
  return readdirSync(dir, { withFileTypes: true }).reduce(
    (sum, e) =>
      sum +
      (e.isDirectory()
        ? directoryBytes(path.join(dir, e.name))
        : statSync(path.join(dir, e.name)).size),
    0
  )
}

function tryExec(file: string | undefined, argv: string[]): string {
  if (!file) return 'unknown'
  try {
    return (
      execFileSync(file, argv, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] })
        .trim()
        .split('\n')[0] ?? ''
    )
  } catch {
    return 'unknown'
  }
}

function requiredEnv(name: string): string {
  const value = process.env[name]
  if (!value) throw new Error(`${name} is not set: run npm run bench (scripts/bench.sh)`)
  return value
}

const stat = (key: string, pick: (m: Run) => number | undefined): number =>
  median((results.get(key) ?? []).map(pick).filter((v): v is number => v !== undefined))
const fmt = (v: number, digits = 2): string => (Number.isFinite(v) ? v.toFixed(digits) : '–')

/** Requests, critical-path round trips and connections per scenario and tool (medians). */
function requestTable(sizes: number[]): string {
  if (!auditLog) return 'Requests were not counted: TAZUNA_TEST_CLUSTER_DIR is not set.'
  const tools: Tool[] = tazunaBin ? ['action', 'tazuna'] : ['action']
  const columns = ['requests', 'critical path', ...(proxy ? ['connections'] : [])]
  const header = ['scenario', 'objects', ...tools.flatMap((t) => columns.map((c) => `${t} ${c}`))]
  const rows = [`| ${header.join(' | ')} |`, `|${header.map(() => ' --- ').join('|')}|`]
  for (const size of sizes) {
    for (const s of scenarios) {
      if (!results.has(`action ${s} ${size}`)) continue
      const cells = tools.flatMap((t) => {
        const key = `${t} ${s} ${size}`
        if (!results.has(key)) return columns.map(() => '–')
        return [
          fmt(
            stat(key, (m) => m.requests),
            0
          ),
          fmt(
            stat(key, (m) => m.criticalPath),
            0
          ),
          ...(proxy
            ? [
                fmt(
                  stat(key, (m) => m.connections),
                  0
                )
              ]
            : [])
        ]
      })
      rows.push(`| ${[s, String(size), ...cells].join(' | ')} |`)
    }
  }
  rows.push(
    '',
    'Critical paths (the last repetition; runs of one verb and resource collapsed):',
    ''
  )
  for (const size of sizes) {
    for (const s of scenarios) {
      for (const t of tools) {
        const last = results.get(`${t} ${s} ${size}`)?.at(-1)
        if (last?.path !== undefined)
          rows.push(`- ${t} ${s} ${size} (${last.criticalPath}): ${last.path || 'no request'}`)
      }
    }
  }
  return rows.join('\n')
}

/**
 * The targets of docs/benchmarks.md#targets: one set at a distance (a remote API server, as
 * teams deploy; the figures are set for a 30 ms round trip) and one on loopback. A helmfile
 * repository has targets of its own, the same at both.
 */
function targetsFor(repoShape: typeof shape, rtt: number): Record<Scenario, string> {
  const none = '– (no such command)'
  if (repoShape === 'helmfile') {
    return {
      'sync-empty': '≤ 0.7×',
      diff: '≤ 0.5×',
      'sync-noop': '≤ 0.5×',
      'diff-content': none,
      'sync-10pct': '–'
    }
  }
  return rtt > 0
    ? {
        'sync-empty': '≤ 0.4×',
        diff: '≤ 0.3×',
        'sync-noop': '≤ 0.4×',
        'diff-content': none,
        'sync-10pct': '≤ 0.5×'
      }
    : {
        'sync-empty': '≤ 0.8×',
        diff: '≤ 0.5×',
        'sync-noop': '≤ 0.6×',
        'diff-content': none,
        'sync-10pct': '≤ 1.0×'
      }
}

function report(sizes: number[], reps: Record<number, number>): string {
  const lines: string[] = []
  const cpu = os.cpus()[0]?.model ?? 'unknown'
  lines.push('## Machine and versions', '')
  lines.push(
    `- ${os.cpus().length} CPUs (${cpu}), ${(os.totalmem() / 2 ** 30).toFixed(1)} GiB memory, ${os.type()} ${os.release()}`
  )
  lines.push(
    `- Node ${process.version}; tazuna-action ${tryExec('git', ['-C', repoRoot, 'rev-parse', '--short', 'HEAD'])} (bundle built from the working tree)`
  )
  lines.push(
    `- kustomize ${tryExec(process.env.KUSTOMIZE_BIN, ['version'])}; helm ${tryExec(process.env.HELM_BIN, ['version', '--short'])}; kube-apiserver ${tryExec(process.env.KUBE_APISERVER_BIN, ['--version'])} with etcd ${tryExec(process.env.ETCD_BIN, ['--version'])} on loopback`
  )
  lines.push(
    `- Tazuna CLI: ${tazunaBin ? tryExec(tazunaBin, ['version']) : 'not available (TAZUNA_BIN unset; github.com/pepabo/tazuna is 403 on the Go module proxy)'}`
  )
  lines.push(
    `- repositories: shape \`${shape}\`; ${sizes
      .map((s) => {
        const l = layoutOf(s)
        return `${s} objects = ${l.manifests} manifests × ${l.objectsPerManifest} objects in ${l.layers} layers (+ a Namespace manifest), ${reps[s]} repetition(s)`
      })
      .join('; ')}`
  )
  lines.push(
    rttMs > 0
      ? `- network: a delay proxy adds ${rttMs / 2} ms each way (a ${rttMs} ms round trip) between the tools and the API server; a new connection waits one round trip first`
      : '- network: loopback, no delay'
  )
  lines.push('', `## Engine scenarios (medians, ${rttMs} ms round trip)`, '')
  lines.push(requestTable(sizes), '')
  const header = ['scenario', 'objects', 'action s', 'action peak RSS MiB']
  if (tazunaBin)
    header.push(
      'tazuna s',
      'tazuna peak RSS MiB',
      'ratio action/tazuna',
      'target',
      'RSS ratio (target ≤ 1.5×)'
    )
  lines.push(`| ${header.join(' | ')} |`, `|${header.map(() => ' --- ').join('|')}|`)
  const targets = targetsFor(shape, rttMs)
  for (const size of sizes) {
    for (const s of scenarios) {
      const a = stat(`action ${s} ${size}`, (m) => m.seconds)
      const row = [
        s,
        String(size),
        fmt(a),
        fmt(
          stat(`action ${s} ${size}`, (m) => m.maxRssMiB),
          0
        )
      ]
      if (tazunaBin) {
        const t = stat(`tazuna ${s} ${size}`, (m) => m.seconds)
        const rss = (tool: Tool) => stat(`${tool} ${s} ${size}`, (m) => m.maxRssMiB)
        row.push(
          fmt(t),
          fmt(
            stat(`tazuna ${s} ${size}`, (m) => m.maxRssMiB),
            0
          ),
          `${fmt(a / t)}×`,
          targets[s],
          `${fmt(rss('action') / rss('tazuna'))}×`
        )
      }
      lines.push(`| ${row.join(' | ')} |`)
    }
  }
  if (!tazunaBin) {
    lines.push(
      '',
      'Ratios to the Tazuna CLI cannot be measured here: TAZUNA_BIN is not set and the CLI cannot be built on this machine (`go list -m -versions github.com/pepabo/tazuna` → 403 Forbidden). Set TAZUNA_BIN=/path/to/tazuna and rerun to get them.'
    )
  }
  lines.push('', '## Cold start and size', '')
  lines.push(
    `- \`node index.js\` (check mode, tiny repository) to exit: ${fmt(
      stat('cold index.js check', (m) => m.seconds),
      3
    )} s; to first output: ${fmt(
      stat('cold index.js check', (m) => m.firstOutputSeconds),
      3
    )} s; peak RSS ${fmt(
      stat('cold index.js check', (m) => m.maxRssMiB),
      0
    )} MiB; ${fmt(
      stat('cold index.js check', (m) => m.seconds) / stat('cold node -e 0', (m) => m.seconds),
      1
    )}× \`node -e 0\` (target ≤ 0.25 s and ≤ 7× \`node -e 0\`)`
  )
  lines.push(
    `- \`node cli.js check\`: ${fmt(
      stat('cold action cli check', (m) => m.seconds),
      3
    )} s; bare \`node -e 0\`: ${fmt(
      stat('cold node -e 0', (m) => m.seconds),
      3
    )} s`
  )
  if (tazunaBin)
    lines.push(
      `- \`tazuna check\`: ${fmt(
        stat('cold tazuna check', (m) => m.seconds),
        3
      )} s`
    )
  const fresh = directoryBytes(bundle)
  const committed = directoryBytes(path.join(repoRoot, 'dist'))
  // The render programs (render-*) have a budget of their own (docs/renderers.md).
  const renderPrograms = readdirSync(bundle)
    .filter((f) => f.startsWith('render'))
    .reduce((sum, f) => sum + statSync(path.join(bundle, f)).size, 0)
  lines.push(
    `- fresh bundle: ${fresh} bytes (${(fresh / 2 ** 20).toFixed(2)} MiB, ${(fresh / 1e6).toFixed(2)} MB); committed dist/: ${committed} bytes (${(committed / 2 ** 20).toFixed(2)} MiB); without the render programs: ${fresh - renderPrograms} bytes (target ≤ 8,000,000 bytes), the render programs: ${renderPrograms} bytes (budget 42,000,000)`
  )
  for (const f of readdirSync(bundle).sort())
    lines.push(`  - ${f}: ${statSync(path.join(bundle, f)).size} bytes`)
  if (canMeasureMemory && sizes.length > 1) {
    const [small, large] = [sizes[0] as number, sizes[sizes.length - 1] as number]
    const per = (s: Scenario) => {
      const a = stat(`action ${s} ${small}`, (m) => m.maxRssMiB)
      const b = stat(`action ${s} ${large}`, (m) => m.maxRssMiB)
      return `${s}: ${fmt(a, 0)} → ${fmt(b, 0)} MiB, ${fmt(((b - a) * 1024) / (large - small), 1)} KiB per extra object`
    }
    lines.push(
      '',
      `Peak memory from ${small} to ${large} objects: ${scenarios.map(per).join('; ')}.`
    )
  }
  return lines.join('\n') + '\n'
}

async function riskSection(): Promise<string> {
  process.stderr.write('risk-pass: 3,000 objects\n')
  const cli = [process.execPath, path.join(bundle, 'cli.js')]
  return runRiskScenario({ cli, reps: Number(args['risk-reps']), warm: 20 })
}

async function waitSection(): Promise<string> {
  if (!auditLog || !existsSync(auditLog))
    throw new Error("wait-sync needs the test cluster's audit log")
  process.stderr.write('wait-sync: 100 Deployments, 10% changed\n')
  const roundTrip = async (): Promise<number> => (await measureRoundTrip()) ?? NaN
  const cli = [process.execPath, path.join(bundle, 'cli.js')]
  return await runWaitScenario({ cli, reps: Number(args.reps), auditLog, roundTrip })
}

async function main(): Promise<void> {
  if (args.only === 'risk-pass') {
    const text = await riskSection()
    process.stdout.write(text)
    if (args.out) writeFileSync(args.out, text)
    return
  }
  if (args.only === 'wait-sync') {
    const text = await waitSection()
    process.stdout.write(text)
    if (args.out) writeFileSync(args.out, text)
    return
  }
  if (args.only !== undefined) {
    throw new Error(`--only takes risk-pass or wait-sync, got ${args.only}`)
  }
  const sizes = (args.sizes ?? '')
    .split(',')
    .map(Number)
    .filter((n) => n > 0)
  const reps: Record<number, number> = {}
  sizes.forEach(
    (s, i) =>
      (reps[s] = Number(
        i === sizes.length - 1 && sizes.length > 1 ? args['large-reps'] : args.reps
      ))
  )
  process.stderr.write(
    tazunaBin
      ? `alternating with the Tazuna CLI at ${tazunaBin}\n`
      : 'TAZUNA_BIN is not set: measuring the action only; ratios cannot be computed\n'
  )
  if (rttMs > 0) {
    proxy = await startTcpProxy(requiredEnv('KUBECONFIG'), { oneWayDelayMs: rttMs / 2 })
    process.stderr.write(`a delay proxy adds ${rttMs / 2} ms each way\n`)
  }
  if (!auditLog || !existsSync(auditLog)) {
    process.stderr.write(
      'the test cluster writes no audit log (started before it did?): requests are not counted; restart it with scripts/cluster.sh down and up\n'
    )
  }
  process.stderr.write('cold start\n')
  await coldStart(Number(args['cold-reps']))
  for (const size of sizes) {
    for (let rep = 0; rep < (reps[size] ?? 1); rep++) {
      process.stderr.write(`${size} objects, repetition ${rep + 1}\n`)
      // Alternate which tool goes first, so neither always meets a warmer cluster.
      const order: Tool[] = tazunaBin
        ? rep % 2 === 0
          ? ['action', 'tazuna']
          : ['tazuna', 'action']
        : ['action']
      for (const tool of order) await repetition(tool, size, rep)
    }
  }
  await proxy?.close()
  const text = report(sizes, reps) + (await riskSection())
  process.stdout.write(text)
  if (args.out) writeFileSync(args.out, text)
}

await main()
