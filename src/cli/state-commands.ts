/**
 * `state diff` (§7.2) and `state list` (§10.1): read-only views of the recorded State, with
 * Tazuna's exact text on stdout. Like Tazuna they expand includes but validate nothing else
 * and ignore `--tags`; exit code 0 whether or not there are changes.
 */
import { openKubeSession, type KubeSession } from '../adapters/kube-session.js'
import { computeManifestDiffs } from '../apply/manifest-diffs.js'
import type { CliCommand, CommandContext } from '../cli.js'
import { expandIncludes } from '../config/includes.js'
import { loadConfig, type LoadedConfig } from '../config/load.js'
import type { Manifest } from '../config/schema.js'
import { ConfigError } from '../errors.js'
import { renderDiffText, renderStateListText } from '../state/text.js'
import { manifestBuilder, stderrLog } from './cluster-setup.js'

/** `tazuna-action state diff`: every manifest's Diff against its State. */
export const stateDiffCommand: CliCommand = {
  name: 'state diff',
  summary: "Diff each manifest's rendered objects against its recorded State (read-only)",
  async run(ctx) {
    const { loaded, manifests } = await loadExpanded(ctx)
    return withSession(ctx, async (session) => {
      const diffs = await computeManifestDiffs(manifests, {
        store: session.store,
        log: stderrLog(ctx.io),
        build: manifestBuilder(ctx, loaded, session)
      })
      ctx.io.stdout(renderDiffText(diffs))
      return 0
    })
  }
}

/** `tazuna-action state list`: every manifest's recorded State. */
export const stateListCommand: CliCommand = {
  name: 'state list',
  summary: "List each manifest's recorded State (read-only)",
  async run(ctx) {
    const { manifests } = await loadExpanded(ctx)
    const log = stderrLog(ctx.io)
    const names = manifests.flatMap((m) => {
      if (m.name === '') log.warn(`manifest has no name, skipping (type ${m.type})`)
      return m.name === '' ? [] : [m.name]
    })
    return withSession(ctx, async (session) => {
      const stored = await session.store.readMany(names)
      const results = names.flatMap((manifest) => {
        const s = stored.get(manifest)
        return s === undefined ? [] : [{ manifest, state: s.state }]
      })
      ctx.io.stdout(renderStateListText(results))
      return 0
    })
  }
}

/** Loads tazuna.yaml and expands includes; any problem is a ConfigError (no cluster contact). */
export async function loadExpanded(
  ctx: CommandContext
): Promise<{ loaded: LoadedConfig; manifests: Manifest[] }> {
  const options = { environment: ctx.flags.environment, engine: ctx.templates }
  const loaded = await loadConfig({ ...options, file: ctx.flags.filePath, version: ctx.version })
  const expanded = await expandIncludes(loaded, options)
  if (expanded.problems.length > 0) throw new ConfigError(expanded.problems)
  return { loaded, manifests: expanded.manifests }
}

/** Opens the run's one cluster session (failing fast without a kubeconfig) and closes it. */
export async function withSession<T>(
  ctx: CommandContext,
  fn: (session: KubeSession) => Promise<T>
): Promise<T> {
  const session = openKubeSession({ env: ctx.io.env })
  try {
    return await fn(session)
  } finally {
    session.close()
  }
}
