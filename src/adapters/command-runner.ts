/**
 * The one way the action runs external programs (kustomize, kubectl, helm, op): argument arrays,
 * never shell strings, output captured and never echoed, a non-zero exit reported as data.
 */
import * as exec from '@actions/exec'

/** What a finished program left behind. */
export interface CommandResult {
  exitCode: number
  stdout: string
  stderr: string
}

/** Where and how to run a program. `env` entries are added to (override) the inherited ones. */
export interface CommandOptions {
  cwd?: string
  env?: Record<string, string>
  /** Written to the program's stdin, then stdin is closed. */
  input?: string
}

/**
 * Runs a program to completion. Resolves with its exit code and output whatever the exit code
 * is; rejects with CommandNotFoundError when `cmd` is not an executable on PATH (or at the given
 * path), and with the spawn error for anything else that prevents it from starting.
 */
export interface CommandRunner {
  run(cmd: string, args: readonly string[], opts?: CommandOptions): Promise<CommandResult>
}

/** The program to run does not exist; callers turn this into "install X" advice. */
export class CommandNotFoundError extends Error {
  override name = 'CommandNotFoundError'
  constructor(readonly command: string) {
    super(`${command}: executable not found`)
  }
}

/**
 * A CommandRunner over @actions/exec: `silent` so neither the command line (which may carry a
 * repository password) nor the output (rendered Secrets) reaches the log, `ignoreReturnCode` so
 * the caller decides what a failure means.
 */
export function createExecRunner(): CommandRunner {
  return {
    async run(cmd, args, opts = {}) {
      try {
        const result = await exec.getExecOutput(cmd, [...args], {
          silent: true,
          ignoreReturnCode: true,
          cwd: opts.cwd,
          env: opts.env === undefined ? undefined : { ...inheritedEnv(), ...opts.env },
          input: opts.input === undefined ? undefined : Buffer.from(opts.input, 'utf8')
        })
        return { exitCode: result.exitCode, stdout: result.stdout, stderr: result.stderr }
      } catch (error) {
        if (isNotFound(error)) throw new CommandNotFoundError(cmd)
        throw error
      }
    }
  }
}

function inheritedEnv(): Record<string, string> {
  const env: Record<string, string> = {}
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined) env[k] = v
  return env
}

// @actions/exec resolves the program with @actions/io's `which` before spawning and throws
// "Unable to locate executable file: X" when it is absent. (A spawn ENOENT is not treated as
// "not found": Node reports a missing working directory the same way.)
function isNotFound(error: unknown): boolean {
  return error instanceof Error && error.message.startsWith('Unable to locate executable file')
}
