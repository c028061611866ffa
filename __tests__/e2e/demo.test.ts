// README's first command, `npm run demo`, run as a newcomer runs it: `bash scripts/demo.sh`,
// which starts the GitHub emulator with plain Node (type stripping, not ts-jest), its own
// throwaway cluster (scripts/cluster.sh) and `node index.js` of the committed dist/ four times.
// It broke for days once because jest compiled the emulator differently from Node: this test
// runs the script itself, so that cannot happen again unnoticed. It broke a second time when it
// reused a developer's running cluster, whose State from an earlier demo belonged to another git
// history (the commit guard refused the merge): the test therefore runs it beside a cluster left
// running with such State (scripts/cluster.sh under TAZUNA_CLUSTER_STATE), which the demo must
// neither use nor stop.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals'
import { execFileSync, spawn, spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { parseEnvFile } from '../cluster/tool-paths.js'

const repo = path.resolve(import.meta.dirname, '../..')
// Starting the demo cluster and four action runs; a rebuild of dist/ when the sources changed
// since it was built (a developer's working tree) adds minutes on a cold machine.
const DEMO_TIMEOUT_MS = 15 * 60_000

interface DemoRun {
  status: number | null
  output: string
}

// State an earlier demo left on a cluster still running: a commit of another history.
const FOREIGN_COMMIT = '7420456a9c0c4d3f6f0b3b8e6f5c2d1e0a9b8c7d'
const FOREIGN_STATE = JSON.stringify({
  gitCommitHash: FOREIGN_COMMIT,
  lastSyncedAt: '2026-11-26T10:00:00Z'
})

/** scripts/cluster.sh with its state in `stateDir`. */
function clusterScript(verb: 'up' | 'down', stateDir: string): string {
  return execFileSync('bash', ['scripts/cluster.sh', verb], {
    cwd: repo,
    env: { ...process.env, TAZUNA_CLUSTER_STATE: stateDir },
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe']
  })
}

function kubectl(kubeconfig: string, ...args: string[]): string {
  return execFileSync('kubectl', ['--kubeconfig', kubeconfig, ...args], { encoding: 'utf8' })
}

/** Runs scripts/demo.sh to its end (stopped after DEMO_TIMEOUT_MS), stdout and stderr merged. */
function runDemo(extraEnv: Record<string, string>): Promise<DemoRun> {
  const env: NodeJS.ProcessEnv = { ...process.env, ...extraEnv }
  delete env.NODE_OPTIONS // jest's --experimental-vm-modules is not the newcomer's
  const child = spawn('bash', ['scripts/demo.sh'], { cwd: repo, env, timeout: DEMO_TIMEOUT_MS })
  const chunks: Buffer[] = []
  child.stdout.on('data', (chunk: Buffer) => chunks.push(chunk))
  child.stderr.on('data', (chunk: Buffer) => chunks.push(chunk))
  return new Promise((resolve, reject) => {
    child.on('error', reject)
    child.on('close', (status) => resolve({ status, output: Buffer.concat(chunks).toString() }))
  })
}

/** The text of one `== step` of the demo's output, up to the next step. */
function stepText(output: string, title: string): string {
  const start = output.indexOf(`== ${title}`)
  if (start < 0) throw new Error(`the demo printed no step "${title}":\n${output}`)
  const next = output.indexOf('\n== ', start + 1)
  return output.slice(start, next < 0 ? undefined : next)
}

describe('npm run demo', () => {
  let demo: DemoRun
  const leftOver = mkdtempSync(path.join(tmpdir(), 'tazuna-demo-left-over-'))
  let leftOverKubeconfig = ''
  beforeAll(async () => {
    leftOverKubeconfig = parseEnvFile(clusterScript('up', leftOver)).TAZUNA_TEST_ADMIN_KUBECONFIG!
    kubectl(
      leftOverKubeconfig,
      'create',
      'configmap',
      'tazuna-state-config',
      '-n',
      'tazuna',
      `--from-literal=_metadata=${FOREIGN_STATE}`
    )
    demo = await runDemo({ TAZUNA_CLUSTER_STATE: leftOver })
  }, DEMO_TIMEOUT_MS + 240_000)
  afterAll(() => {
    clusterScript('down', leftOver)
    rmSync(leftOver, { recursive: true, force: true })
  })

  it('runs to its end', () => {
    if (demo.status !== 0) throw new Error(`demo exited ${demo.status}:\n${demo.output}`)
    expect(demo.output).toContain('== Done; stopping what the demo started')
  })

  it('starts a throwaway cluster of its own and leaves one already running alone', () => {
    expect(demo.output).toMatch(/^cluster up in \d+s/m)
    const names = kubectl(leftOverKubeconfig, 'get', 'configmaps', '-n', 'tazuna', '-o', 'name')
    const states = names.split('\n').filter((name) => name.startsWith('configmap/tazuna-state-'))
    expect(states).toEqual(['configmap/tazuna-state-config'])
    const metadata = kubectl(
      leftOverKubeconfig,
      'get',
      'configmap',
      'tazuna-state-config',
      '-n',
      'tazuna',
      '-o',
      'jsonpath={.data._metadata}'
    )
    expect(metadata).toBe(FOREIGN_STATE)
  })

  it('starts the GitHub emulator with plain Node', () => {
    expect(demo.output).toMatch(/^GITHUB_API_URL=http:\/\/127\.0\.0\.1:\d+$/m)
  })

  it('runs the committed dist/ when it was built from these sources', () => {
    const current = spawnSync('node', ['scripts/source-id.mjs'], { cwd: repo, encoding: 'utf8' })
    const built = readFileSync(path.join(repo, 'dist/source-id.txt'), 'utf8')
    const expected =
      current.stdout === built
        ? '== Using the committed dist/'
        : '== Sources changed since dist/ was built'
    expect(demo.output).toContain(expected)
  })

  it('applies the merge commit layer by layer', () => {
    const merge = stepText(demo.output, 'Merge #7 into main')
    const layers = { namespaces: 1, config: 2, cache: 2, web: 3, worker: 3 }
    for (const [manifest, layer] of Object.entries(layers)) {
      expect(merge).toContain(`▸ layer ${layer} · ${manifest}: applied`)
    }
  })

  it('finds the pull request of the merge commit and applies the Diff reviewed on it', () => {
    const merge = stepText(demo.output, 'Merge #7 into main')
    expect(merge).toContain('Applies the Diff reviewed on #7')
    expect(merge).not.toContain('No reviewed Diff was found')
    expect(merge).toMatch(/^### ✅ Applied, reviewed Diff$/m)
  })

  it("shows the second pull request's change as a content diff from its base commit", () => {
    const second = stepText(demo.output, 'Pull request #8')
    expect(second).toMatch(/^-\s+GREETING: hello$/m)
    expect(second).toMatch(/^\+\s+GREETING: bonjour$/m)
    expect(second).not.toContain('could not be rendered')
  })
})
