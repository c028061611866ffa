/**
 * `state diff` and `state list` (docs/compatibility.md#state-diff-text): read-only views of
 * the recorded State, with Tazuna's exact text on stdout. Like Tazuna they expand includes but
 * validate nothing else and ignore `--tags`; exit code 0 whether or not there are changes.
 */
import { renderDiffText, renderStateListText } from '../state/text.js'
import type { CliCommand } from './command.js'

/** `tazuna-action state diff`: every manifest's Diff against its State. */
export const stateDiffCommand: CliCommand = {
  name: 'state diff',
  summary: "Diff each manifest's rendered objects against its recorded State (read-only)",
  async run({ io, engine }) {
    const run = await engine.loadExpanded()
    io.stdout(renderDiffText(await engine.diff(run)))
    return 0
  }
}

/** `tazuna-action state list`: every manifest's recorded State. */
export const stateListCommand: CliCommand = {
  name: 'state list',
  summary: "List each manifest's recorded State (read-only)",
  async run({ io, engine }) {
    const run = await engine.loadExpanded()
    io.stdout(renderStateListText(await engine.listState(run)))
    return 0
  }
}
