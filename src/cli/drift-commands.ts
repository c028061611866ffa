/**
 * `state drift` and `status` (docs/compatibility.md#state-drift): read-only views of the live cluster
 * against the recorded State, with Tazuna's exact text on stdout. Like Tazuna they expand includes
 * but validate nothing else and ignore `--tags`, and exit 0 whatever they find. `--exit-code`
 * (ours, for scripts) exits 2 when there is drift or an object that is not Ready.
 */
import { renderDriftText, renderStatusText } from '../state/drift-text.js'
import type { CliCommand } from './command.js'

/** The exit code `--exit-code` uses when something was found. */
export const FOUND_EXIT_CODE = 2

const exitCodeOption = { 'exit-code': { type: 'boolean' } } as const

/** `tazuna-action state drift`: live objects re-hashed against State. */
export const stateDriftCommand: CliCommand = {
  name: 'state drift',
  summary: 'Compare live objects with their recorded State (read-only; --exit-code: 2 on drift)',
  options: exitCodeOption,
  async run({ io, engine, options }) {
    const run = await engine.loadExpanded()
    const drift = await engine.drift(run)
    io.stdout(renderDriftText(drift))
    const found = drift.some((m) => m.entries.length > 0)
    return options['exit-code'] === true && found ? FOUND_EXIT_CODE : 0
  }
}

/** `tazuna-action status`: readiness of every recorded object. */
export const statusCommand: CliCommand = {
  name: 'status',
  summary: 'Show the readiness of recorded objects (read-only; --exit-code: 2 unless all Ready)',
  options: exitCodeOption,
  async run({ io, engine, options }) {
    const run = await engine.loadExpanded()
    const status = await engine.status(run)
    io.stdout(renderStatusText(status))
    const found = status.some((m) => m.rows.some((r) => r.status !== 'Ready'))
    return options['exit-code'] === true && found ? FOUND_EXIT_CODE : 0
  }
}
