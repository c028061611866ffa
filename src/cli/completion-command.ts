/**
 * `completion bash|zsh|fish|powershell`: prints the shell's completion script, generated from
 * the command table (src/cli/completion.ts).
 */
import type { ParseArgsOptionsConfig } from 'node:util'
import type { CliCommand } from './command.js'
import {
  COMPLETION_SHELLS,
  completionScript,
  type CompletionFlag,
  type CompletionShell,
  type CompletionTable
} from './completion.js'

/** The flags of a parseArgs options table; `bare` ones (`--content`) take no next word. */
export function completionFlagsOf(
  options: ParseArgsOptionsConfig,
  bare: Record<string, string> = {}
): CompletionFlag[] {
  return Object.entries(options).map(([long, option]) => ({
    long,
    ...(option.short ? { short: option.short } : {}),
    takesValue: option.type === 'string' && !Object.hasOwn(bare, long)
  }))
}

/** The command over the table `tableOf` returns when it runs (the table lists this command too). */
export function completionCommand(tableOf: () => CompletionTable): CliCommand {
  return {
    name: 'completion',
    summary: 'Print the completion script for bash, zsh, fish or powershell',
    arguments: COMPLETION_SHELLS,
    run({ io, args }) {
      const [shell, ...rest] = args
      if (shell === undefined || rest.length > 0 || !isShell(shell)) {
        throw new Error(
          `completion takes one shell: ${COMPLETION_SHELLS.join(', ')}` +
            (shell === undefined ? '' : ` (got ${JSON.stringify(args.join(' '))})`)
        )
      }
      io.stdout(completionScript(shell, tableOf()))
      return Promise.resolve(0)
    }
  }
}

function isShell(word: string): word is CompletionShell {
  return (COMPLETION_SHELLS as readonly string[]).includes(word)
}
