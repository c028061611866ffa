// Runs one upstream scenario (upstream-scenarios.ts) with one tool on the test cluster and records
// what a user of both tools would compare: per step, success, the printed text of `build`,
// `state diff` and `tags`, the State ConfigMaps of the scenario's manifests and which of the
// objects upstream's tests look for exist. Before a tool runs, the workspace is reset to its
// commit and the scenario's State and objects are removed, so each tool starts from nothing.
import { mkdirSync, mkdtempSync, writeFileSync, rmSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import type { KubeSession } from '../../../src/adapters/kube/session.js'
import type { ObjectRef } from '../../../src/apply/ports.js'
import { runCliInProcess, runCliProcess, type CliResult } from '../../support/cli.js'
import { adminKubeconfig } from '../../support/cluster.js'
import { commitAll, git } from '../../support/git-repo.js'
import { renderModuleEnv } from '../../support/render-module.js'
import { goTemplateEngineFiles } from '../../unit/go/template/go-oracle.js'
import type { Files } from './upstream-files.js'
import { tazunaBin } from './tools.js'

/** A command both tools run, or an edit of the workspace between commands. */
export type Step =
  | {
      args: string[]
      /** The run must fail; a string is the message upstream's test asserts (both must print it). */
      fails?: true | string
      /** Printed text compared between the tools (build, state diff, tags). */
      compare?: boolean
    }
  | { edit: string; text?: string }

/** A step that runs a command. */
export type CommandStep = Exclude<Step, { edit: string }>

const isCommand = (step: Step): step is CommandStep => 'args' in step

/** One of upstream's scenarios, in its shape. */
export interface UpstreamScenario {
  name: string
  /** Upstream's Go tests it mirrors. */
  covers: string
  files: Files
  /** Manifest names whose State is recorded. */
  manifests: string[]
  /** Objects upstream's tests look for. */
  objects: ObjectRef[]
  steps: Step[]
  /** Upstream's assertions on what one tool did. */
  check?: (trace: Trace) => void
}

/** What one command did. */
export interface StepRecord {
  command: string
  ok: boolean
  stdout?: string
  stderr: string
  /** State data by manifest (absent: no State), `lastSyncedAt` blanked. */
  state: Record<string, Record<string, string>>
  /** `lastSyncedAt` by manifest, as written. */
  syncedAt: Record<string, string>
  /** `Kind namespace/name` → exists. */
  objects: Record<string, boolean>
}

/** The records of every command of a scenario, in order. */
export type Trace = StepRecord[]

/** A tool under comparison: runs `args` against the workspace's tazuna.yaml. */
export type Tool = (dir: string, args: readonly string[]) => Promise<CliResult>

/** The real Tazuna CLI (TAZUNA_BIN), with the test cluster's admin kubeconfig. */
export const tazunaTool: Tool = (dir, args) =>
  runCliProcess(tazunaBin ?? 'tazuna', [...args, '-f', path.join(dir, 'tazuna.yaml')], {
    cwd: dir,
    env: { ...process.env, KUBECONFIG: adminKubeconfig() }
  })

/** tazuna-action's command line, in-process, with the cached render programs. */
export const actionTool: Tool = (dir, args) =>
  runCliInProcess([...args, '-f', path.join(dir, 'tazuna.yaml')], {
    PATH: process.env.PATH,
    TMPDIR: process.env.TMPDIR,
    HOME: process.env.HOME,
    KUBECONFIG: adminKubeconfig(),
    KUSTOMIZE_BIN: process.env.KUSTOMIZE_BIN,
    TAZUNA_GOTEMPLATE_WASM: goTemplateEngineFiles().wasm,
    ...renderModuleEnv()
  })

/** Writes the scenario's files into a fresh directory and commits them. */
export function writeWorkspace(scenario: UpstreamScenario): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), `tazuna-upstream-${scenario.name}-`))
  for (const [file, text] of Object.entries(scenario.files)) writeFile(dir, file, text)
  commitAll(dir, scenario.name)
  return dir
}

/** Removes a workspace. */
export function removeWorkspace(dir: string | undefined): void {
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true })
}

function writeFile(dir: string, file: string, text: string | undefined): void {
  const target = path.join(dir, file)
  if (text === undefined) return rmSync(target, { force: true })
  mkdirSync(path.dirname(target), { recursive: true })
  writeFileSync(target, text)
}

const refText = (r: ObjectRef): string => `${r.kind} ${r.namespace ?? ''}/${r.name}`

const STATE_PATH = '/api/v1/namespaces/tazuna/configmaps'

/** State data of the manifests (names may hold spaces: Tazuna's invalid ConfigMap names). */
async function readState(
  session: KubeSession,
  manifests: readonly string[]
): Promise<Pick<StepRecord, 'state' | 'syncedAt'>> {
  const res = await session.client.request({ method: 'GET', path: STATE_PATH }, 'list State')
  if (res.status !== 200) throw new Error(`list State: HTTP ${res.status} ${res.body}`)
  const items = (
    JSON.parse(res.body) as {
      items: { metadata: { name: string }; data?: Record<string, string> }[]
    }
  ).items
  const state: StepRecord['state'] = {}
  const syncedAt: StepRecord['syncedAt'] = {}
  for (const m of manifests) {
    const cm = items.find((i) => i.metadata.name === `tazuna-state-${m}`)
    if (cm === undefined) continue
    const data = { ...cm.data }
    const meta = data._metadata ?? ''
    syncedAt[m] = /"lastSyncedAt":"([^"]*)"/.exec(meta)?.[1] ?? ''
    data._metadata = meta.replace(/"lastSyncedAt":"[^"]*"/, '"lastSyncedAt":"*"')
    state[m] = data
  }
  return { state, syncedAt }
}

async function objectsPresent(
  session: KubeSession,
  refs: readonly ObjectRef[]
): Promise<Record<string, boolean>> {
  const out: Record<string, boolean> = {}
  for (const r of refs) out[refText(r)] = (await session.cluster.get(r)) !== undefined
  return out
}

/** Resets the workspace to its commit and removes the scenario's State and objects. */
async function reset(session: KubeSession, scenario: UpstreamScenario, dir: string): Promise<void> {
  git(dir, 'checkout', '-q', '--', '.')
  git(dir, 'clean', '-fdq')
  for (const m of scenario.manifests) {
    await session.client.request(
      { method: 'DELETE', path: `${STATE_PATH}/${encodeURIComponent(`tazuna-state-${m}`)}` },
      `delete State of ${m}`
    )
  }
  for (const r of scenario.objects) await session.cluster.delete(r)
}

/** Runs every step of the scenario with `tool`, from a clean start. */
export async function traceScenario(
  session: KubeSession,
  scenario: UpstreamScenario,
  dir: string,
  tool: Tool
): Promise<Trace> {
  await reset(session, scenario, dir)
  const trace: Trace = []
  for (const step of scenario.steps) {
    if (!isCommand(step)) {
      writeFile(dir, step.edit, step.text)
      continue
    }
    const run = await tool(dir, step.args)
    trace.push({
      command: step.args.join(' '),
      ok: run.code === 0,
      ...(step.compare === true ? { stdout: run.stdout } : {}),
      stderr: run.stderr,
      ...(await readState(session, scenario.manifests)),
      objects: await objectsPresent(session, scenario.objects)
    })
  }
  return trace
}

/**
 * `tags` output as its blocks (`<tag>:` and the `- <name>` lines under it), in byte order.
 * Tazuna's cmd/tags.go ranges over a Go map, so the order of its blocks varies from run to run
 * (docs/compatibility.md#tags-command); upstream's own tests compare the map, not the text.
 */
export function tagBlocks(stdout: string | undefined): string[] {
  if (stdout === undefined) return []
  const blocks: string[] = []
  for (const line of stdout.split(/(?<=\n)/)) {
    if (line.startsWith('- ') && blocks.length > 0) blocks[blocks.length - 1] += line
    else blocks.push(line)
  }
  return blocks.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
}

/**
 * What must be the same for both tools: the trace without stderr and times, `tags` output as
 * its blocks (their order is Go's map order in Tazuna).
 */
export function comparable(trace: Trace): unknown[] {
  return trace.map(({ command, ok, stdout, state, objects }) => ({
    command,
    ok,
    stdout: command === 'tags' ? tagBlocks(stdout) : stdout,
    state,
    objects
  }))
}

/** Each command succeeded or failed as the scenario says, failures with upstream's message. */
export function outcomes(scenario: UpstreamScenario, trace: Trace): unknown[] {
  const commands = scenario.steps.filter(isCommand)
  return trace.map((r, i) => {
    const fails = commands[i]?.fails
    const message = typeof fails === 'string' && r.stderr.includes(fails) ? fails : undefined
    return {
      command: r.command,
      ok: r.ok,
      message,
      stderr: r.ok === (fails === undefined) ? '' : r.stderr
    }
  })
}

/** What `outcomes` returns when the tool did what the scenario says. */
export function expectedOutcomes(scenario: UpstreamScenario): unknown[] {
  return scenario.steps.filter(isCommand).map((s) => ({
    command: s.args.join(' '),
    ok: s.fails === undefined,
    message: typeof s.fails === 'string' ? s.fails : undefined,
    stderr: ''
  }))
}
