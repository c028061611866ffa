/**
 * The one way the action runs external programs (kustomize, kubectl, helm, op): argument arrays,
 * never shell strings, output captured and never echoed, a non-zero exit reported as data.
 */
import * as exec from '@actions/exec'
import { CommandNotFoundError, type CommandRunner } from '../render/ports.js'

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
