/** `tazuna-action version`: the build's version line (src/cli/version.ts). */
import type { CliCommand } from './command.js'
import { versionLine } from './version.js'

export const versionCommand: CliCommand = {
  name: 'version',
  summary: 'Print version, commit, and build date',
  run({ io, build, args }) {
    if (args.length > 0) throw new Error(`unknown command "${args[0]}" for "tazuna-action version"`)
    io.stdout(versionLine(build))
    return Promise.resolve(0)
  }
}
