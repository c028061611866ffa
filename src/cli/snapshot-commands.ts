/**
 * `state export` and `state diff --state-file` (docs/state-snapshots.md): a State snapshot
 * written from the cluster's State, and the Diff computed against one with no request to the
 * cluster (no kubeconfig needed). The Diff is Tazuna's `state diff` text; Secret entries it
 * could not compare follow as `#` lines.
 */
import { InputError } from '../errors.js'
import { diffAgainstSnapshot, takeSnapshot } from '../engine/snapshot.js'
import { renderNotComparedText } from '../state/snapshot-diff.js'
import { readSnapshot } from '../state/snapshot-read.js'
import { serializeSnapshot, type SnapshotConfig } from '../state/snapshot.js'
import { formatSyncTime } from '../state/state.js'
import { renderDiffText } from '../state/text.js'
import { stderrLog, type CliCommand, type CommandContext } from './command.js'

/** `tazuna-action state export [--file F]`. */
export const stateExportCommand: CliCommand = {
  name: 'state export',
  summary:
    "Write every manifest's recorded State as a State snapshot (--file F, else stdout; Secret hashes left out)",
  options: { file: { type: 'string' } },
  async run(context) {
    const { io, engine, options } = context
    const run = await engine.loadExpanded()
    const snapshot = await takeSnapshot(engine, run, {
      config: configOf(context),
      commit: await context.gitCommitOf(run.config.dir),
      createdAt: formatSyncTime(new Date(context.now())),
      writtenBy: context.lockHolder,
      version: context.version
    })
    const text = serializeSnapshot(snapshot)
    if (typeof options.file !== 'string') {
      io.stdout(text)
      return 0
    }
    await context.writeText(options.file, text)
    stderrLog(io).info(
      `wrote State snapshot file=${options.file} manifests=${snapshot.manifests.size}`
    )
    return 0
  }
}

/**
 * `state diff --state-file F`: the Diff against the snapshot in F instead of the cluster. The
 * snapshot is read and verified before tazuna.yaml is loaded: a refused one renders nothing.
 */
export async function diffAgainstStateFile(context: CommandContext, file: string): Promise<number> {
  const { io, options } = context
  if (options.content !== undefined || options.json === true) {
    throw new InputError('--state-file does not go with --content or --json')
  }
  const snapshot = readSnapshot(await readSnapshotText(context, file), file, configOf(context))
  const { manifests, notCompared } = await diffAgainstSnapshot(context.engineOver, snapshot, {
    source: `State snapshot ${file}`
  })
  io.stdout(renderDiffText(manifests))
  io.stdout(renderNotComparedText(notCompared))
  return 0
}

async function readSnapshotText(context: CommandContext, file: string): Promise<string> {
  try {
    return await context.readText(file)
  } catch (error) {
    throw new InputError(`State snapshot ${file}: cannot be read (${(error as Error).message})`, {
      cause: error
    })
  }
}

function configOf(context: CommandContext): SnapshotConfig {
  return { path: context.configPath, environment: context.flags.environment }
}
