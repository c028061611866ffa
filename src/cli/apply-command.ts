/**
 * `apply [--sync] [--prune] [--atomic]` (§9): check the configuration (a problem means no
 * request reaches the cluster), enforce the kube-context guard, then the layered apply with
 * State sync. Log lines go to stderr; a failure is `error: <message>` and exit code 1.
 */
import { contextGuardError, resolveContextGuard } from '../apply/context-guard.js'
import { runLayeredApply } from '../apply/layered-apply.js'
import { systemClock } from '../apply/ports.js'
import type { CliCommand, CommandContext } from '../cli.js'
import { checkConfig, checkFailedHeadline } from '../config/check.js'
import { validateManifestNames } from '../config/names.js'
import { ConfigError, InputError, formatProblem, type ConfigProblem } from '../errors.js'
import { resolveLayers } from '../plan/layers.js'
import { selectedByTags } from '../plan/tags.js'
import { NAME_WARNING } from './build-command.js'
import { gitCommitOf, manifestBuilder, stderrLog } from './cluster-setup.js'
import { withSession } from './state-commands.js'

/** The switches of `apply`, as booleans. */
export interface ApplySwitches {
  sync: boolean
  prune: boolean
  atomic: boolean
}

/**
 * Resolves the switches like Tazuna's CLI: `--prune`/`--atomic` need `--sync`. The legacy
 * `TAZUNA_STATE_SYNC_DELETE=true` (§8) also turns prune on, in sync mode only.
 */
export function applySwitches(
  options: CommandContext['options'],
  env: CommandContext['io']['env']
): ApplySwitches {
  const sync = options.sync === true
  if (options.prune === true && !sync) throw new InputError('--prune requires --sync')
  if (options.atomic === true && !sync) throw new InputError('--atomic requires --sync')
  const legacyPrune = (env.TAZUNA_STATE_SYNC_DELETE ?? '').toLowerCase() === 'true'
  return {
    sync,
    prune: options.prune === true || (sync && legacyPrune),
    atomic: options.atomic === true
  }
}

/** `tazuna-action apply`. */
export const applyCommand: CliCommand = {
  name: 'apply',
  summary: 'Apply manifests layer by layer and record State (--sync: only what changed)',
  options: { sync: { type: 'boolean' }, prune: { type: 'boolean' }, atomic: { type: 'boolean' } },
  async run(ctx) {
    const switches = applySwitches(ctx.options, ctx.io.env)
    const log = stderrLog(ctx.io)
    const { loaded, manifests } = await checkedConfig(ctx, switches, log)
    const layers = resolveLayers(manifests)
    return withSession(ctx, async (session) => {
      const guard = contextGuardError(
        resolveContextGuard(loaded.config.spec, ctx.flags.environment),
        session.context
      )
      if (guard !== undefined) throw new Error(guard)
      log.info(`applying with ${session.describe}`)
      const report = await runLayeredApply(
        layers,
        loaded.config.spec.tests,
        {
          ...switches,
          gitCommitHash: await gitCommitOf(loaded.dir),
          isSelected: (m) => selectedByTags(m.tags, ctx.flags.tags)
        },
        {
          cluster: session.cluster,
          store: session.store,
          clock: systemClock,
          log,
          build: manifestBuilder(ctx, loaded, session)
        }
      )
      if (!report.ok) throw new Error(report.error)
      return 0
    })
  }
}

// §9.1 step 2: manifest names are checked strictly with --sync or when any manifest uses
// dependsOn; otherwise a bad name is only a warning.
async function checkedConfig(
  ctx: CommandContext,
  switches: ApplySwitches,
  log: ReturnType<typeof stderrLog>
) {
  const result = await checkConfig({
    file: ctx.flags.filePath,
    environment: ctx.flags.environment,
    engine: ctx.templates,
    version: ctx.version
  })
  let problems: ConfigProblem[] = result.problems
  const strictNames = switches.sync || result.manifests.some((m) => m.dependsOn.length > 0)
  if (!strictNames && result.config !== undefined) {
    const nameProblems = new Set(validateManifestNames(result.manifests).map(formatProblem))
    if (nameProblems.size > 0) log.warn(NAME_WARNING)
    problems = problems.filter((p) => !nameProblems.has(formatProblem(p)))
  }
  if (problems.length > 0 || result.config === undefined) {
    throw new ConfigError(problems, checkFailedHeadline(ctx.flags.filePath))
  }
  return { loaded: result.config, manifests: result.manifests }
}
