/**
 * `apply [--sync] [--prune] [--atomic] [--wait [--wait-timeout D]]` (docs/compatibility.md#apply-flow,
 * docs/health.md#wait): check the
 * configuration (a problem means no request reaches the cluster), enforce the kube-context
 * guard, then the layered apply with State sync. State records `git rev-parse HEAD` of the
 * tazuna.yaml directory. Log lines go to stderr; a failure is `error: <message>`, exit code 1.
 */
import type { ApplySwitches } from '../engine/engine.js'
import type { ApplyOutcome, ApplyResult } from '../report/model.js'
import { parseDurationSeconds, waitOf } from '../inputs.js'
import { InputError } from '../errors.js'
import { compareWithReviewed, type ReviewedDiff } from '../report/diff-gate.js'
import { describeVerdict, refusalMessage } from '../report/gate-text.js'
import { parseReviewedFile } from '../report/reviewed-file.js'
import type { ReviewGate } from '../engine/requests.js'
import { orasPullOptions, stderrLog, type CliCommand, type CommandContext } from './command.js'

/**
 * Resolves the switches like Tazuna's CLI: `--prune`/`--atomic` need `--sync`. The legacy
 * `TAZUNA_STATE_SYNC_DELETE=true` (docs/compatibility.md#legacy-state-sync) also turns prune
 * on, in sync mode only.
 */
export function applySwitches(
  options: CommandContext['options'],
  env: CommandContext['io']['env']
): ApplySwitches {
  const sync = options.sync === true
  if (options.prune === true && !sync) throw new InputError('--prune requires --sync')
  if (options.atomic === true && !sync) throw new InputError('--atomic requires --sync')
  const legacyPrune = (env.TAZUNA_STATE_SYNC_DELETE ?? '').toLowerCase() === 'true'
  if (options['wait-timeout'] !== undefined && options.wait !== true) {
    throw new InputError('--wait-timeout requires --wait')
  }
  return {
    sync,
    prune: options.prune === true || (sync && legacyPrune),
    atomic: options.atomic === true,
    ...waitOf(options.wait === true, 'flag --wait-timeout', String(options['wait-timeout'] ?? '5m'))
  }
}

/** The gate of `--require-diff`: refuses, as `reviewed-diff: require` does, on any difference. */
function requireReviewed(reviewed: ReviewedDiff, log: { info(message: string): void }): ReviewGate {
  return (diff) => {
    const verdict = compareWithReviewed({ found: reviewed }, diff)
    if (verdict.reviewed) return log.info(describeVerdict(verdict).headline)
    throw new Error(
      refusalMessage(verdict, {
        what: `--require-diff ${reviewed.where}`,
        todo: 'Write the Diff again with `state diff --json`, review it, then apply with it.'
      })
    )
  }
}

/** `tazuna-action apply`. */
export const applyCommand: CliCommand = {
  name: 'apply',
  summary: 'Apply manifests layer by layer and record State (--sync: only what changed)',
  stopsOnSignals: true,
  options: {
    sync: { type: 'boolean' },
    prune: { type: 'boolean' },
    atomic: { type: 'boolean' },
    wait: { type: 'boolean' },
    'wait-timeout': { type: 'string' },
    'no-lock': { type: 'boolean' },
    'lock-timeout': { type: 'string', default: '10m' },
    'allow-older-commit': { type: 'boolean' },
    'require-diff': { type: 'string' },
    ...orasPullOptions
  },
  async run({ options, io, engine, gitCommitOf, lockHolder, ancestryIn, readText }) {
    const switches = applySwitches(options, io.env)
    const reviewedFile = options['require-diff']
    if (typeof reviewedFile === 'string' && !switches.sync) {
      throw new InputError('--require-diff requires --sync')
    }
    const waitSeconds = parseDurationSeconds(
      'flag --lock-timeout',
      String(options['lock-timeout'] ?? '10m')
    )
    const run = await engine.loadForApply(switches)
    // The configuration is checked: the session opens while git answers.
    engine.connect()
    const lock = options['no-lock'] === true ? undefined : { holder: lockHolder, waitSeconds }
    const head = await gitCommitOf(run.config.dir)
    const reviewed =
      typeof reviewedFile === 'string'
        ? parseReviewedFile(await readText(reviewedFile), reviewedFile, head)
        : undefined
    const outcome = await engine.apply(run, {
      ...switches,
      gitCommitHash: head,
      ...(reviewed === undefined ? {} : { reviewGate: requireReviewed(reviewed, stderrLog(io)) }),
      log: stderrLog(io),
      ...(lock === undefined ? {} : { lock }),
      commitGuard: {
        ancestry: ancestryIn(run.config.dir),
        allowOlderCommit: options['allow-older-commit'] === true
      }
    })
    if (outcome.cancelled !== undefined) return reportCancelled(outcome, io)
    if (outcome.failure !== undefined) throw new Error(outcome.failure.message)
    return 0
  }
}

const cancelledLines: Record<ApplyResult, string> = {
  applied: 'applied, State saved',
  unchanged: 'unchanged',
  skipped: 'skipped (no name)',
  filtered: 'not selected by tags',
  failed: 'failed, State not saved',
  cancelled: 'cancelled before all of its objects were applied, State not saved',
  'not-run': 'not run'
}

/** A cancelled apply: one line per manifest saying what it did, then where it stopped; 130. */
function reportCancelled(outcome: ApplyOutcome, io: CommandContext['io']): number {
  for (const m of outcome.layers.flat()) {
    io.stderr(`manifest ${JSON.stringify(m.manifest)}: ${cancelledLines[m.result]}\n`)
  }
  const first = outcome.failure?.message.split('\n')[0] ?? 'the run was cancelled'
  io.stderr(`error: ${first}; a re-run applies what is missing\n`)
  return 130
}
