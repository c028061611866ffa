/** `tazuna-action check`: validate tazuna.yaml without a cluster, every problem at once. */
import { checkFailedHeadline } from '../config/check.js'
import { formatProblems } from '../errors.js'
import type { CliCommand } from './command.js'

/** `tazuna-action check`. */
export const checkCommand: CliCommand = {
  name: 'check',
  summary: 'Validate tazuna.yaml (template, schema, includes, names, dependsOn); no cluster',
  async run({ flags, io, engine }) {
    const { problems } = await engine.check()
    if (problems.length > 0) {
      const lines = [checkFailedHeadline(flags.filePath), ...formatProblems(problems)]
      io.stderr(`error: ${lines.join('\n')}\n`)
      return 1
    }
    io.stdout('ok\n')
    return 0
  }
}
