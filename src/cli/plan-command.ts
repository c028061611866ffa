/**
 * `plan` (docs/compatibility.md#plan): Tazuna's layout over the same engine. Validates the
 * document, enforces the kube-context guard, then lists per manifest the objects an apply
 * would create or change; ignores `--tags` as Tazuna's runner does. The diff under each
 * changed object is our unified diff of the live object and the server's dry-run result, not
 * go-cmp text, so server defaults do not show as changes. Exit code 0 whatever it finds.
 */
import { orasPullOptions, type CliCommand } from './command.js'
import { paletteFor, renderPlanText } from './diff-text.js'

/** `tazuna-action plan`. */
export const planCommand: CliCommand = {
  name: 'plan',
  summary:
    'Show what an apply would create or change, per object, against the live cluster (read-only)',
  options: orasPullOptions,
  async run({ io, engine, fingerprintKey }) {
    const run = await engine.loadForPlan()
    // Secret objects are fingerprinted already; any other value a render registered as secret
    // is replaced too, as in the action's content diffs.
    const plans = await engine.plan(run, fingerprintKey)
    io.stdout(engine.redact(renderPlanText(plans, paletteFor(io))))
    return 0
  }
}
