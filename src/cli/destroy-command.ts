/**
 * `destroy [--force] [--tags ...]` (docs/compatibility.md#destroy): validate as `build` does, the
 * kube-context guard, then two guards before anything is deleted — the confirmation prompt on stdin
 * unless `--force`, and `TAZUNA_DESTROY_EXECUTABLE`, which must parse as Go's `strconv.ParseBool`
 * true (otherwise Tazuna's skip message and exit 0). Manifests go in declaration order; State
 * is left as it is. Command line only: the action has no destroy mode.
 */
import { InputError } from '../errors.js'
import { orasPullOptions, stderrLog, type CliCommand, type CliIo } from './command.js'

/** Tazuna's prompt (cmd/destroy.go), printed as `<question>: [y/N] ` on stdout. */
export const DESTROY_QUESTION =
  '!!! All resources managed by Tazuna will be deleted !!!\nAre you sure you want to delete them?'

/** Logged (level ERROR, as Tazuna does) when the guard variable is not a true bool. */
export const DESTROY_SKIPPED = 'TAZUNA_DESTROY_EXECUTABLE is false, skipping destroy'

/** Go's strconv.ParseBool: undefined where Go returns an error. */
export function parseGoBool(value: string): boolean | undefined {
  if (['1', 't', 'T', 'TRUE', 'true', 'True'].includes(value)) return true
  if (['0', 'f', 'F', 'FALSE', 'false', 'False'].includes(value)) return false
  return undefined
}

/**
 * Tazuna's prompt.YesORNo (docs/compatibility.md#destroy): one line from stdin, trimmed; `y` or
 * `yes` in any case is yes, anything else — an empty answer too — is no; end of input before a
 * line break is an error (`EOF`), as bufio's ReadString reports it.
 */
export async function askYesOrNo(io: CliIo, question: string): Promise<boolean> {
  io.stdout(`${question}: [y/N] `)
  if (io.readLine === undefined) throw new InputError('EOF')
  const answer = (await io.readLine()).trim().toLowerCase()
  return answer === 'y' || answer === 'yes'
}

/** `tazuna-action destroy`. */
export const destroyCommand: CliCommand = {
  name: 'destroy',
  summary:
    'Delete the objects of the (tag-selected) manifests; needs TAZUNA_DESTROY_EXECUTABLE=true',
  options: { force: { type: 'boolean' }, ...orasPullOptions },
  async run({ io, engine, options }) {
    const log = stderrLog(io)
    const run = await engine.loadForBuild()
    await engine.destroy(run, {
      log,
      confirm: async () => {
        if (options.force !== true && !(await askYesOrNo(io, DESTROY_QUESTION))) return false
        if (parseGoBool(io.env.TAZUNA_DESTROY_EXECUTABLE ?? '') !== true) {
          io.stderr(`level=ERROR msg=${JSON.stringify(DESTROY_SKIPPED)}\n`)
          return false
        }
        return true
      }
    })
    return 0
  }
}
