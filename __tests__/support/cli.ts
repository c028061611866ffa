// Command line runs for tests, in one result shape: `tazuna-action` in-process through
// src/cli.ts's runCli with captured output, or a command line program as a process
// (`node dist/cli.js`, the real Tazuna CLI). A run still going when its test ends (a timeout)
// is cancelled and awaited before the next test starts (support/runs-in-flight.ts).
import { execFile } from 'node:child_process'
import { runCli, type CliIo } from '../../src/cli.js'
import { trackRun } from './runs-in-flight.js'
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
 * stdout is a terminal (colour). Cancelled (CliIo.signal) if still running when its test ends.
 * Secret fingerprints are keyed by TEST_FINGERPRINT_KEY, so a test can compute them
 * (support/secret-fingerprint.ts).
 */
export function runCliInProcess(
  argv: readonly string[],
  env: CliIo['env'] = {},
  stdin?: string,
  tty = false
): Promise<CliResult> {
  return trackRun(async (signal) => {
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
          stdin?.includes('\n') ? Promise.resolve(stdin) : Promise.reject(new Error('EOF')),
        signal
      },
      TEST_FINGERPRINT_KEY
    )
    return { code, stdout, stderr }
  })
}

/**
 * Runs `file <args>` as a process with exactly `env` plus the run's TMPDIR (see
 * __tests__/README.md). A non-zero exit is a result; a program that cannot be started, or
 * dies of a signal, throws. Killed (SIGTERM), and awaited until it has exited, if still
 * running when its test ends.
 */
export function runCliProcess(
  file: string,
  args: readonly string[],
  options: { cwd: string; env: Record<string, string | undefined> }
): Promise<CliResult> {
  return trackRun(
    (signal) =>
      new Promise<CliResult>((resolve, reject) => {
        const child = execFile(
          file,
          args,
          {
            cwd: options.cwd,
            env: { TMPDIR: process.env.TMPDIR, ...options.env },
            maxBuffer: 64 * 1024 * 1024,
            signal
          },
          (error, stdout, stderr) => {
            const settle = (): void => {
              if (error === null) resolve({ code: 0, stdout, stderr })
              else if (typeof error.code === 'number') resolve({ code: error.code, stdout, stderr })
              else {
                const failure: Error = error
                reject(failure)
              }
            }
            // Aborted, execFile answers at once: the result waits until the process is gone.
            if (child.exitCode === null && child.signalCode === null) child.once('exit', settle)
            else settle()
          }
        )
      })
  )
}
