// The two tools under comparison, run on a workspace of the corpus: the action's engine
// (createEngine, as main.ts wires it for a merge or a pull request) and, when a developer sets
// TAZUNA_BIN, the real Tazuna CLI. Plus raw access to the State ConfigMaps.
import path from 'node:path'
import { describe } from '@jest/globals'
import { processEnginePorts } from '../../../src/adapters/engine-ports.js'
import { createEngine, type ConfigRun, type Engine } from '../../../src/engine/engine.js'
import type { EngineLog } from '../../../src/engine/ports.js'
import { renderDiffText } from '../../../src/state/text.js'
import { RENDER_RECORD_ANNOTATION } from '../../../src/state/render-record.js'
import type { KubeSession } from '../../../src/adapters/kube/session.js'
import type { ApplyOutcome, ManifestDiff } from '../../../src/report/model.js'
import { runCliProcess, type CliResult } from '../../support/cli.js'
import { adminKubeconfig } from '../../support/cluster.js'
import { goTemplateEngineFiles } from '../../unit/go/template/go-oracle.js'
import { renderModuleEnv } from '../../support/render-module.js'
import type { Workspace } from './corpus.js'

/** A State ConfigMap as stored: its data and resourceVersion. */
export interface StoredConfigMap {
  data: Record<string, string>
  resourceVersion: string
  /** The action's render record annotation (docs/renderers.md#skipping-unchanged-renders). */
  record?: string
}

const STATE_PATH = '/api/v1/namespaces/tazuna/configmaps'

/** Reads `tazuna-state-<m>` for each manifest; undefined when there is none. */
export async function readStateConfigMaps(
  session: KubeSession,
  manifests: readonly string[]
): Promise<Map<string, StoredConfigMap | undefined>> {
  const out = new Map<string, StoredConfigMap | undefined>()
  for (const m of manifests) {
    const res = await session.client.request(
      { method: 'GET', path: `${STATE_PATH}/tazuna-state-${m}` },
      `read State ConfigMap of ${m}`
    )
    if (res.status === 404) {
      out.set(m, undefined)
      continue
    }
    if (res.status !== 200) throw new Error(`GET State of ${m}: HTTP ${res.status} ${res.body}`)
    const cm = JSON.parse(res.body) as {
      data?: Record<string, string>
      metadata: { resourceVersion: string; annotations?: Record<string, string> }
    }
    const record = cm.metadata.annotations?.[RENDER_RECORD_ANNOTATION]
    out.set(m, {
      data: cm.data ?? {},
      resourceVersion: cm.metadata.resourceVersion,
      ...(record === undefined ? {} : { record })
    })
  }
  return out
}

/** Deletes the State ConfigMaps of the manifests (objects in the cluster stay). */
export async function deleteStateConfigMaps(
  session: KubeSession,
  manifests: readonly string[]
): Promise<void> {
  for (const m of manifests) {
    const res = await session.client.request(
      { method: 'DELETE', path: `${STATE_PATH}/tazuna-state-${m}` },
      `delete State ConfigMap of ${m}`
    )
    if (res.status !== 200 && res.status !== 404) {
      throw new Error(`DELETE State of ${m}: HTTP ${res.status} ${res.body}`)
    }
  }
}

/** Splits State data into the entries and the parsed `_metadata`. */
export function splitMetadata(data: Record<string, string>): {
  entries: Record<string, string>
  metadata: string | undefined
} {
  const { _metadata: metadata, ...entries } = data
  return { entries, metadata }
}

/**
 * `_metadata` as Tazuna writes it (docs/compatibility.md#entry-and-metadata-bytes), for this commit
 * and any second-precision UTC time.
 */
export function metadataPattern(sha: string): RegExp {
  return new RegExp(
    `^\\{"gitCommitHash":"${sha}","lastSyncedAt":"\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\dZ"\\}$`
  )
}

let templateWasm: string | undefined
let renderEnv: Record<string, string> | undefined

/** What one engine run returns. */
export interface EngineRun<T> {
  result: T
  log: string[]
}

/** Runs `fn` on a fresh engine for the workspace, wired as main.ts wires it (check first). */
async function withEngine<T>(
  ws: Workspace,
  options: { tags?: readonly string[] },
  fn: (engine: Engine, run: ConfigRun, log: EngineLog) => Promise<T>
): Promise<EngineRun<T>> {
  templateWasm ??= goTemplateEngineFiles().wasm
  renderEnv ??= renderModuleEnv()
  const log: string[] = []
  const engineLog: EngineLog = {
    info: (m) => log.push(`info ${m}`),
    warn: (m) => log.push(`warn ${m}`)
  }
  const engine = createEngine(
    {
      file: ws.file,
      environment: ws.fixture.spec.environment ?? '',
      tags: options.tags ?? [],
      version: '0.1.0'
    },
    processEnginePorts({
      env: {
        ...process.env,
        KUBECONFIG: adminKubeconfig(),
        TAZUNA_GOTEMPLATE_WASM: templateWasm,
        ...renderEnv
      },
      // With a build identity, so the action keeps render records with the State it writes
      // and the CLI is shown to read that State (docs/renderers.md#skipping-unchanged-renders).
      codeDir: path.join(import.meta.dirname, '..', '..', '..', 'src'),
      log: engineLog
    })
  )
  try {
    const checked = await engine.check()
    if (checked.run === undefined) {
      throw new Error(`check failed: ${JSON.stringify(checked.problems)}`)
    }
    return { result: await fn(engine, checked.run, engineLog), log }
  } finally {
    engine.close()
  }
}

/** The action's merge flow core: layered apply with sync, recording the workspace's commit. */
export async function actionSync(
  ws: Workspace,
  tags: readonly string[] = []
): Promise<EngineRun<ApplyOutcome>> {
  return withEngine(ws, { tags }, (engine, run, log) =>
    engine.apply(run, { sync: true, prune: false, atomic: false, gitCommitHash: ws.sha, log })
  )
}

/** The action's pull-request Diff: every manifest's entries and the `state diff` text. */
export async function actionDiff(
  ws: Workspace
): Promise<EngineRun<{ diffs: ManifestDiff[]; text: string }>> {
  return withEngine(ws, {}, async (engine, run) => {
    const diffs = await engine.diff(run)
    return { diffs, text: renderDiffText(diffs) }
  })
}

/** Throws with the failure when an apply did not succeed. */
export function assertApplied(outcome: ApplyOutcome): void {
  if (outcome.failure !== undefined) throw new Error(outcome.failure.message)
}

/** The real Tazuna CLI, when a developer provides it. */
export const tazunaBin = process.env.TAZUNA_BIN

/** Why the CLI comparisons are skipped (empty when they run). */
export const tazunaSkipReason =
  tazunaBin === undefined || tazunaBin === ''
    ? ' (SKIPPED: TAZUNA_BIN is not set — the Tazuna CLI cannot be built here: github.com/pepabo/tazuna is 403 on the Go module proxy; set TAZUNA_BIN=/path/to/tazuna to run them)'
    : ''

/** `describe` when TAZUNA_BIN is set, `describe.skip` otherwise. */
export const describeWithTazuna = tazunaSkipReason === '' ? describe : describe.skip

/** Runs `tazuna <args>` with the workspace's environment flag, against the test cluster. */
export function runTazuna(ws: Workspace, args: readonly string[]): Promise<CliResult> {
  const environment = ws.fixture.spec.environment
  const argv = [...args, '-f', ws.file, ...(environment ? ['-e', environment] : [])]
  return runCliProcess(tazunaBin ?? 'tazuna', argv, {
    cwd: ws.dir,
    env: { ...process.env, KUBECONFIG: adminKubeconfig() }
  })
}
