/**
 * Runs the action the way GitHub's runner does: `node index.js` of a freshly built bundle with
 * INPUT_* variables (dashes kept, e.g. `INPUT_GITHUB-TOKEN`), an event payload file, the
 * GITHUB_STEP_SUMMARY and GITHUB_OUTPUT files, RUNNER_TEMP and GITHUB_API_URL pointing at the
 * loopback GitHub emulator. The bundle is built from the working tree with scripts/bundle.sh
 * into the cache ($TAZUNA_ACTION_CACHE/e2e-dist/), never taken from the committed dist/.
 */
import { pathWithoutRenderers } from '../support/runner-path.js'
import { execFileSync, spawn, type ChildProcess } from 'node:child_process'
import { createHash } from 'node:crypto'
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync
} from 'node:fs'
import { tmpdir } from 'node:os'
import { join, relative } from 'node:path'
import { cacheDir } from '../cluster/tool-paths.js'

export const root = join(import.meta.dirname, '..', '..')

/**
 * Builds the bundle once per working-tree content and keeps it across runs: the directory
 * name carries a hash of src/, the bundle scripts and the lockfile, so an edit always
 * triggers a fresh build. Builds unused for a week are removed.
 */
export function buildFreshDist(): string {
  const builds = join(cacheDir(), 'e2e-dist')
  const out = join(builds, sourceHash())
  if (!existsSync(join(out, 'index.js'))) {
    mkdirSync(builds, { recursive: true })
    removeStaleBuilds(builds)
    // Staged next to its final place: rename() does not cross file systems.
    const staging = mkdtempSync(join(builds, 'staging-'))
    try {
      execFileSync('bash', [join(root, 'scripts', 'bundle.sh'), staging], {
        cwd: root,
        stdio: 'pipe'
      })
      renameSync(staging, out)
    } catch (error) {
      rmSync(staging, { recursive: true, force: true })
      // Another worker (or run) finished the same build first.
      if (!existsSync(join(out, 'index.js'))) throw error
    }
  }
  const now = new Date()
  utimesSync(out, now, now) // marks it used, for removeStaleBuilds
  return out
}

const WEEK_MS = 7 * 24 * 60 * 60 * 1000

function removeStaleBuilds(builds: string): void {
  for (const name of readdirSync(builds)) {
    const dir = join(builds, name)
    const used = statSync(dir, { throwIfNoEntry: false })?.mtimeMs ?? Date.now()
    if (Date.now() - used > WEEK_MS) rmSync(dir, { recursive: true, force: true })
  }
}

function sourceHash(): string {
  const hash = createHash('sha256')
  const files = [
    ...listFiles(join(root, 'src')),
    join(root, 'scripts', 'bundle.sh'),
    join(root, 'scripts', 'bundle-extra.sh'),
    join(root, 'package-lock.json')
  ].filter((f) => existsSync(f))
  for (const file of files.sort()) {
    hash.update(relative(root, file)).update('\0').update(readFileSync(file)).update('\0')
  }
  return hash.digest('hex').slice(0, 16)
}

function listFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? listFiles(join(dir, entry.name)) : [join(dir, entry.name)]
  )
}

/** One run's environment: inputs by their action.yml names, the event and its payload. */
export interface ActionRun {
  dist: string
  workspace: string
  inputs: Record<string, string>
  eventName: string
  payload: Record<string, unknown>
  sha: string
  apiUrl: string
  repository?: string
  extraEnv?: Record<string, string>
  /** Node's own arguments before index.js, given the run's directory (event, outputs, temp). */
  nodeArgs?: (runDir: string) => string[]
}

/** What a run left behind. */
export interface ActionResult {
  status: number | null
  stdout: string
  stderr: string
  outputs: Record<string, string>
  summary: string
  runnerTemp: string
}

/** Starts `node index.js` like the runner and collects its outputs and summary. */
export function runAction(run: ActionRun): Promise<ActionResult> {
  return startAction(run).done
}

/** A run under way: its process (to signal it, as the runner cancels a job) and its end. */
export interface StartedAction {
  child: ChildProcess
  done: Promise<ActionResult>
}

/** Starts `node index.js` like the runner; `done` collects its outputs and summary. */
export function startAction(run: ActionRun): StartedAction {
  const dir = mkdtempSync(join(tmpdir(), 'tazuna-e2e-run-'))
  const runnerTemp = join(dir, 'runner-temp')
  mkdirSync(runnerTemp)
  const files = {
    event: join(dir, 'event.json'),
    summary: join(dir, 'step-summary.md'),
    output: join(dir, 'output.txt')
  }
  writeFileSync(files.event, JSON.stringify(run.payload))
  writeFileSync(files.summary, '')
  writeFileSync(files.output, '')
  const env: Record<string, string> = {
    PATH: pathWithoutRenderers(),
    HOME: dir,
    // TAZUNA_RENDER_NATIVE=off runs the suite on the WebAssembly programs, as macOS and Windows do.
    ...pick(['HELM_BIN', 'KUSTOMIZE_BIN', 'TAZUNA_ACTION_CACHE', 'TMPDIR', 'TAZUNA_RENDER_NATIVE']),
    GITHUB_ACTIONS: 'true',
    GITHUB_EVENT_NAME: run.eventName,
    GITHUB_EVENT_PATH: files.event,
    GITHUB_STEP_SUMMARY: files.summary,
    GITHUB_OUTPUT: files.output,
    GITHUB_REPOSITORY: run.repository ?? 'acme/deploy',
    GITHUB_SHA: run.sha,
    GITHUB_API_URL: run.apiUrl,
    GITHUB_SERVER_URL: 'https://github.com',
    GITHUB_RUN_ID: '4242',
    GITHUB_RUN_ATTEMPT: '1',
    GITHUB_WORKSPACE: run.workspace,
    RUNNER_TEMP: runnerTemp,
    ...Object.fromEntries(
      Object.entries(run.inputs).map(([name, value]) => [
        `INPUT_${name.replace(/ /g, '_').toUpperCase()}`,
        value
      ])
    ),
    ...run.extraEnv
  }
  const args = [...(run.nodeArgs?.(dir) ?? []), join(run.dist, 'index.js')]
  const child = spawn(process.execPath, args, { cwd: run.workspace, env })
  const stdout: Buffer[] = []
  const stderr: Buffer[] = []
  child.stdout.on('data', (chunk: Buffer) => stdout.push(chunk))
  child.stderr.on('data', (chunk: Buffer) => stderr.push(chunk))
  const done = new Promise<number | null>((resolve) => child.on('close', resolve)).then(
    (status) => ({
      status,
      stdout: Buffer.concat(stdout).toString('utf8'),
      stderr: Buffer.concat(stderr).toString('utf8'),
      outputs: parseOutputFile(readFileSync(files.output, 'utf8')),
      summary: readFileSync(files.summary, 'utf8'),
      runnerTemp
    })
  )
  return { child, done }
}

const pick = (names: string[]): Record<string, string> =>
  Object.fromEntries(names.flatMap((n) => (process.env[n] ? [[n, process.env[n]]] : [])))

/** Parses GITHUB_OUTPUT's `name<<delimiter` blocks (the format @actions/core writes). */
export function parseOutputFile(text: string): Record<string, string> {
  const outputs: Record<string, string> = {}
  const lines = text.split('\n')
  for (let i = 0; i < lines.length; i++) {
    const start = /^([^<]+)<<(.+)$/.exec(lines[i]!)
    if (start === null) continue
    const value: string[] = []
    for (i++; i < lines.length && lines[i] !== start[2]; i++) value.push(lines[i]!)
    outputs[start[1]!] = value.join('\n')
  }
  return outputs
}

/** A pull_request payload; `headRepo` differing from the base makes it a fork. */
export function pullRequestPayload(options: {
  number: number
  headSha: string
  headRepo?: string
  baseSha?: string
}): Record<string, unknown> {
  return {
    action: 'synchronize',
    number: options.number,
    pull_request: {
      number: options.number,
      head: { sha: options.headSha, repo: { full_name: options.headRepo ?? 'acme/deploy' } },
      base: { sha: options.baseSha ?? '0'.repeat(40), repo: { full_name: 'acme/deploy' } }
    },
    repository: { full_name: 'acme/deploy', name: 'deploy', owner: { login: 'acme' } }
  }
}

/**
 * A workflow_run payload as GitHub sends it when a pull_request run completed; for a fork's pull
 * request `pull_requests` is empty.
 */
export function workflowRunPayload(options: {
  headSha: string
  headRepo: string
  headBranch: string
  conclusion?: string
  pullRequests?: number[]
}): Record<string, unknown> {
  return {
    action: 'completed',
    workflow_run: {
      id: 99,
      event: 'pull_request',
      status: 'completed',
      conclusion: options.conclusion ?? 'success',
      html_url: 'https://github.com/acme/deploy/actions/runs/99',
      head_sha: options.headSha,
      head_branch: options.headBranch,
      head_repository: { full_name: options.headRepo },
      pull_requests: (options.pullRequests ?? []).map((number) => ({ number }))
    },
    repository: { full_name: 'acme/deploy', name: 'deploy', owner: { login: 'acme' } }
  }
}

/** A push payload. */
export function pushPayload(sha: string): Record<string, unknown> {
  return {
    ref: 'refs/heads/main',
    after: sha,
    repository: { full_name: 'acme/deploy', name: 'deploy', owner: { login: 'acme' } }
  }
}

/** The kubeconfigs of the test cluster: cluster-admin, and read-only for Diff jobs. */
export const kubeconfigs = {
  admin: (): string => process.env.TAZUNA_TEST_ADMIN_KUBECONFIG!,
  reader: (): string => process.env.TAZUNA_TEST_READER_KUBECONFIG!
}

/** The emulator's one token of most e2e tests: github-actions[bot], with write access. */
export const botToken = {
  'gh-token': { login: 'github-actions[bot]', type: 'Bot', integration: true }
} as const

/** The tokens of gated-deploy tests: github-actions[bot] with and without write access. */
export const gatedTokens = {
  ...botToken,
  'read-only-token': {
    login: 'github-actions[bot]',
    type: 'Bot',
    integration: true,
    readOnly: true
  }
} as const

/**
 * The two halves of a gated deploy (README.md#gated-deploys) in `workspace`, a git repository:
 * the pull request's Diff job on its head (read-only kubeconfig, no content diff), and the
 * merge run on the pushed commit with `reviewed-diff: mode`.
 */
export function gatedJobs(dist: string, apiUrl: string) {
  return {
    diffJob: (workspace: string, number: number, head: string): Promise<ActionResult> =>
      runAction({
        dist,
        workspace,
        inputs: {
          config: 'tazuna.yaml',
          kubeconfig: kubeconfigs.reader(),
          'github-token': 'gh-token',
          'content-diff': 'off'
        },
        eventName: 'pull_request',
        payload: pullRequestPayload({ number, headSha: head }),
        sha: head,
        apiUrl
      }),
    mergeJob: (
      workspace: string,
      commit: string,
      mode: string,
      token = 'gh-token'
    ): Promise<ActionResult> =>
      runAction({
        dist,
        workspace,
        inputs: {
          config: 'tazuna.yaml',
          kubeconfig: kubeconfigs.admin(),
          'github-token': token,
          'reviewed-diff': mode
        },
        eventName: 'push',
        payload: pushPayload(commit),
        sha: commit,
        apiUrl
      })
  }
}
