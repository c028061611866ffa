/**
 * Running op (1Password) with errors that say what to do: a missing program
 * names itself and how to install it; a failing one names the command, its exit code and the
 * tail of its stderr, with every registered secret redacted.
 */
import { CommandNotFoundError, type CommandOptions, type CommandRunner } from './ports.js'
import { ToolError } from '../errors.js'
import type { ToolCommands } from './context.js'

/** The programs the builders may run. */
export type ToolName = keyof Required<ToolCommands>

const INSTALL_HINTS: Record<ToolName, string> = {
  op: 'install the 1Password CLI (https://developer.1password.com/docs/cli/get-started/; in a workflow, 1password/install-cli-action) and sign it in, e.g. with OP_SERVICE_ACCOUNT_TOKEN'
}

/** How many trailing stderr lines a failure message keeps, and at most how many characters. */
const STDERR_TAIL_LINES = 20
const STDERR_TAIL_CHARS = 4096

/** A tool invocation: which program, and how to redact what it prints. */
export interface ToolRun {
  runner: CommandRunner
  tool: ToolName
  /** The executable (a name on PATH or a path); defaults to the tool's name. */
  command?: string
  redact: (text: string) => string
}

/** A program the build needs is not installed; the message says how to install it. */
export class MissingToolError extends ToolError {
  override name = 'MissingToolError'
  constructor(
    message: string,
    readonly tool: ToolName
  ) {
    super(message)
  }
}

/** The message for a program that is not installed. */
export function missingToolMessage(tool: ToolName, command: string = tool): string {
  const where = command === tool ? 'on PATH' : `at ${command}`
  return `${tool} is required but was not found ${where}: ${INSTALL_HINTS[tool]}`
}

/**
 * Runs the tool and returns its stdout. Throws ToolError when the program is missing or exits
 * non-zero; `describe` (e.g. "release app") prefixes the failure message.
 */
export async function runTool(
  run: ToolRun,
  args: readonly string[],
  opts: CommandOptions & { describe?: string } = {}
): Promise<string> {
  const command = run.command ?? run.tool
  const { describe, ...commandOpts } = opts
  let result
  try {
    result = await run.runner.run(command, args, commandOpts)
  } catch (error) {
    if (error instanceof CommandNotFoundError) {
      throw new MissingToolError(prefix(describe) + missingToolMessage(run.tool, command), run.tool)
    }
    throw error
  }
  if (result.exitCode !== 0) {
    const commandLine = [command, ...args].map(quoteArg).join(' ')
    const tail = stderrTail(result.stderr)
    throw new ToolError(
      run.redact(
        `${prefix(describe)}command failed (exit code ${result.exitCode}): ${commandLine}` +
          (tail === '' ? '' : `\n${tail}`)
      )
    )
  }
  return result.stdout
}

/**
 * The last lines of a program's stderr, trimmed, and at most `chars` characters of them (one
 * deeply nested document can make a single line hundreds of kilobytes long).
 */
export function stderrTail(
  stderr: string,
  lines = STDERR_TAIL_LINES,
  chars = STDERR_TAIL_CHARS
): string {
  const all = stderr.trimEnd().split(/\r?\n/)
  let kept = all.slice(-lines).join('\n').trim()
  let cut = all.length > lines
  if (kept.length > chars) {
    kept = kept.slice(-chars)
    cut = true
  }
  return cut ? `[...]\n${kept}` : kept
}

function prefix(describe: string | undefined): string {
  return describe === undefined ? '' : `${describe}: `
}

function quoteArg(arg: string): string {
  return /^[\w@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replace(/'/g, `'\\''`)}'`
}
