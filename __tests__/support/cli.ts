// Command line runs for tests, in one result shape: `tazuna-action` in-process through
// src/cli.ts's runCli with captured output, or a command line program as a process
// (`node dist/cli.js`, the real Tazuna CLI).
import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import { runCli, type CliIo } from '../../src/cli.js'
import { TEST_FINGERPRINT_KEY } from './secret-fingerprint.js'

/** What a command line run returned and printed. */
export interface CliResult {
  code: number
  stdout: string
  stderr: string
}

/**
 * Runs `tazuna-action <argv>` in-process; `env` is all the environment it sees. `stdin` answers
 * a prompt (a line ending in a newline); without it, stdin ends at once (EOF). `tty` says
 * stdout is a terminal (colour). Secret fingerprints are keyed by TEST_FINGERPRINT_KEY, so a
 * test can compute them (support/secret-fingerprint.ts).
 */
export async function runCliInProcess(
  argv: readonly string[],
  env: CliIo['env'] = {},
  stdin?: string,
  tty = false
): Promise<CliResult> {
  let stdout = ''
  let stderr = ''
  const code = await runCli(
    argv,
    {
      stdout: (t) => void (stdout += t),
      stderr: (t) => void (stderr += t),
      env,
      isTTY: tty,
      readLine: () =>
        stdin?.includes('\n') ? Promise.resolve(stdin) : Promise.reject(new Error('EOF'))
    },
    TEST_FINGERPRINT_KEY
  )
  return { code, stdout, stderr }
}

/**
 * Runs `file <args>` as a process with exactly `env` plus the run's TMPDIR (see
 * __tests__/README.md). A non-zero exit is a result; a program that cannot be started, or
 * dies of a signal, throws.
 */
export async function runCliProcess(
  file: string,
  args: readonly string[],
  options: { cwd: string; env: Record<string, string | undefined> }
): Promise<CliResult> {
  try {
    const { stdout, stderr } = await promisify(execFile)(file, args, {
      cwd: options.cwd,
      env: { TMPDIR: process.env.TMPDIR, ...options.env },
      maxBuffer: 64 * 1024 * 1024
    })
    return { code: 0, stdout, stderr }
  } catch (error) {
    const e = error as { code?: unknown; stdout?: string; stderr?: string }
    if (typeof e.code !== 'number') throw error
    return { code: e.code, stdout: e.stdout ?? '', stderr: e.stderr ?? '' }
  }
}
